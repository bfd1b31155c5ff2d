"""§9.5 PodDisruptionBudget accounting (Go: filterPodsWithPDBViolation) and its effect on a dry run.

For each PDB keep `allowed = status.disruptionsAllowed`. Walk the potential victims in importance
order; a pod without labels is skipped; for every PDB in the pod's namespace with a non-empty
selector matching the pod, unless the pod's name is in `status.disruptedPods`: `allowed −= 1`;
`allowed < 0` makes the pod violating. The split keeps the input order.
"""

from __future__ import annotations

import pytest

from kwhatif.api.selectors import LabelSelector, Requirement
from kwhatif.preemption.pdb import split_by_pdb_violation
from kwhatif.snapshot.pod_info import PodInfo
from tests.builders import make_node, make_pod
from tests.preemption import Env, names, on, pdb, sel

X = {"app": "x"}


def pods(*specs) -> list[PodInfo]:
    """specs: (name, labels) or (name, labels, namespace); already in importance order."""
    out = []
    for spec in specs:
        name, labels = spec[0], spec[1]
        ns = spec[2] if len(spec) > 2 else "default"
        out.append(PodInfo.of(make_pod(name, ns=ns, labels=labels)))
    return out


# (case, victims in importance order, pdbs, expected violating, expected non-violating)
SPLIT_CASES = [
    ("the budget is spent in importance order: the first matching pod takes the last disruption",
     pods(("a", X), ("b", X), ("c", X)), [pdb("x", sel(app="x"), allowed=1)],
     ["b", "c"], ["a"]),
    ("a budget of zero makes every matching pod violating",
     pods(("a", X), ("b", X)), [pdb("x", sel(app="x"), allowed=0)], ["a", "b"], []),
    ("a PDB whose status is missing reads as zero allowed disruptions",
     pods(("a", X),), [pdb("x", sel(app="x"))], ["a"], []),
    ("a budget as large as the number of matching pods violates nothing",
     pods(("a", X), ("b", X)), [pdb("x", sel(app="x"), allowed=2)], [], ["a", "b"]),
    ("pods that do not match the selector keep the budget for the matching ones",
     pods(("a", {"app": "y"}), ("b", X), ("c", X)), [pdb("x", sel(app="x"), allowed=1)], ["c"], ["a", "b"]),
    # Go: "... the victim belongs to DisruptedPods"
    ("a pod listed in disruptedPods consumes no budget",
     pods(("a", X), ("b", X)), [pdb("x", sel(app="x"), allowed=1, disrupted=["a"])], [], ["a", "b"]),
    # Go: "... the victim doesn't belong to DisruptedPods"
    ("disruptedPods naming another pod changes nothing",
     pods(("a", X), ("b", X)), [pdb("x", sel(app="x"), allowed=1, disrupted=["zzz"])], ["b"], ["a"]),
    # Go: "... the victim which belongs to DisruptedPods is treated as 'nonViolating'"
    ("a pod in disruptedPods is non-violating even after the budget is exhausted",
     pods(("a", X), ("b", X), ("c", X)), [pdb("x", sel(app="x"), allowed=1, disrupted=["c"])], ["b"], ["a", "c"]),
    ("a null selector matches nothing",
     pods(("a", X), ("b", X)), [pdb("x", None, allowed=0)], [], ["a", "b"]),
    ("an empty selector matches nothing here (unlike everywhere else)",
     pods(("a", X), ("b", X)), [pdb("x", LabelSelector(), allowed=0)], [], ["a", "b"]),
    ("a PDB in another namespace does not apply",
     pods(("a", X), ("b", X, "team")), [pdb("x", sel(app="x"), allowed=0, ns="other")], [], ["a", "b"]),
    ("a PDB applies to its own namespace only",
     pods(("a", X, "team"), ("b", X)), [pdb("x", sel(app="x"), allowed=0, ns="team")], ["a"], ["b"]),
    ("an unlabeled pod is never violating, even for a selector that would match it",
     pods(("a", {}), ("b", {"other": "1"})),
     [pdb("no-app", LabelSelector((Requirement("app", "DoesNotExist"),)), allowed=0)],
     ["b"], ["a"]),
    ("a pod matching two PDBs consumes from both and violates when either goes negative",
     pods(("a", {"app": "x", "tier": "db"}), ("b", X)),
     [pdb("by-app", sel(app="x"), allowed=1), pdb("by-tier", sel(tier="db"), allowed=0)],
     # a: by-app 1→0, by-tier 0→−1 → violating; b: by-app 0→−1 → violating too
     ["a", "b"], []),
    ("a pod matching two PDBs spends the first budget even when the second is the one it breaks",
     pods(("a", {"app": "x", "tier": "db"}), ("b", X)),
     [pdb("by-app", sel(app="x"), allowed=2), pdb("by-tier", sel(tier="db"), allowed=0)],
     # a: by-app 2→1, by-tier →−1 (violating); b: by-app 1→0 → non-violating
     ["a"], ["b"]),
    ("a pod listed in one PDB's disruptedPods still consumes the other PDB's budget",
     pods(("a", {"app": "x", "tier": "db"}), ("b", {"tier": "db"})),
     [pdb("by-app", sel(app="x"), allowed=0, disrupted=["a"]), pdb("by-tier", sel(tier="db"), allowed=1)],
     # a: skips by-app, by-tier 1→0; b: by-tier 0→−1
     ["b"], ["a"]),
    ("set-based selectors are honoured",
     pods(("a", {"app": "x"}), ("b", {"app": "z"})),
     [pdb("in", LabelSelector((Requirement("app", "In", ("x", "y")),)), allowed=0)], ["a"], ["b"]),
    ("no PDBs: every pod is non-violating", pods(("a", X), ("b", {})), [], [], ["a", "b"]),
]


@pytest.mark.parametrize("case,victims,pdbs,violating,non_violating", SPLIT_CASES, ids=[c[0] for c in SPLIT_CASES])
def test_split_by_pdb_violation(case, victims, pdbs, violating, non_violating):
    got_violating, got_non_violating, _ = split_by_pdb_violation(victims, pdbs)
    assert names(got_violating) == violating
    assert names(got_non_violating) == non_violating


def test_split_reports_which_budgets_a_violating_pod_breaks():
    victims = pods(("a", {"app": "x", "tier": "db"}), ("b", X))
    budgets = [pdb("by-app", sel(app="x"), allowed=1), pdb("by-tier", sel(tier="db"), allowed=0)]
    _, _, broken = split_by_pdb_violation(victims, budgets)
    assert broken == {"default/a": ["default/by-tier"], "default/b": ["default/by-app"]}


def test_split_does_not_mutate_the_pdbs():
    budget = pdb("x", sel(app="x"), allowed=1)
    split_by_pdb_violation(pods(("a", X), ("b", X)), [budget])
    split_by_pdb_violation(pods(("a", X), ("b", X)), [budget])
    assert budget.disruptions_allowed == 1


# Dry runs with PDBs (Go TestDryRunPreemption cases; node capacity veryLargeRes = 500m cpu) --------

MEDIUM = dict(cpu="200m", memory="200")


def go_node():
    return make_node("node1", cpu="500m", memory="500", pods="32")


def foo_pod(name: str):
    return on("node1", name, priority=100, labels={"app": "foo"}, **MEDIUM)


FOO = sel(app="foo")

# (case, pods on node1, pdbs, expected victims in order, expected numPDBViolations)
DRY_RUN_CASES = [
    # 500m preemptor needs the node empty; importance p1.1, p1.2 (equal priority and start → name).
    # PDB pass: p1.1 1→0, p1.2 →−1 violating. Reprieve p1.2: fails → victim (1 violation); p1.1 → victim.
    # Both lists non-empty → victims re-sorted → [p1.1, p1.2].
    ("preemption with violation of same pdb",
     [foo_pod("p1.1"), foo_pod("p1.2")], [pdb("pdb", FOO, allowed=1)], ["p1.1", "p1.2"], 1),
    ("preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't belong to DisruptedPods",
     [foo_pod("p1.1"), foo_pod("p1.2")], [pdb("pdb", FOO, allowed=1, disrupted=["p2"])], ["p1.1", "p1.2"], 1),
    ("preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to DisruptedPods",
     [foo_pod("p1.1"), foo_pod("p1.2")], [pdb("pdb", FOO, allowed=1, disrupted=["p1.2"])], ["p1.1", "p1.2"], 0),
    ("preemption with violation of the pdb with pod whose eviction was processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'",
     [foo_pod("p1.1"), foo_pod("p1.2"), foo_pod("p1.3")], [pdb("pdb", FOO, allowed=1, disrupted=["p1.3"])],
     ["p1.1", "p1.2", "p1.3"], 1),
    ("a PDB in another namespace causes no violation",
     [foo_pod("p1.1"), foo_pod("p1.2")], [pdb("pdb", FOO, allowed=0, ns="other")], ["p1.1", "p1.2"], 0),
    ("a PDB with an empty selector causes no violation",
     [foo_pod("p1.1"), foo_pod("p1.2")], [pdb("pdb", LabelSelector(), allowed=0)], ["p1.1", "p1.2"], 0),
]


@pytest.mark.parametrize("case,bound,pdbs,victims,violations", DRY_RUN_CASES, ids=[c[0] for c in DRY_RUN_CASES])
def test_dry_run_counts_pdb_violations(case, bound, pdbs, victims, violations):
    env = Env([go_node()], bound, pdbs)
    candidate, status = env.select_victims(
        make_pod("p", priority=1000, cpu="500m", memory="500"), "node1")
    assert status is None
    assert (names(candidate.victims), candidate.num_pdb_violations) == (victims, violations)


def test_violating_victims_are_reprieved_first_so_a_protected_pod_survives():
    """node1 500m/500: a (prio 1, app=foo, 200m/200), b (prio 5, unlabeled, 200m/200); the preemptor
    needs 300m/300, so one of them must go. Importance b, a. With a PDB on app=foo allowing 0, a is
    violating and is reprieved first: 200+300 = 500 fits → spared; then b: 200+200+300 > 500 →
    victim. Without the PDB, b (more important) is reprieved first and a is the victim."""
    bound = [on("node1", "a", priority=1, labels={"app": "foo"}, **MEDIUM),
             on("node1", "b", priority=5, **MEDIUM)]
    env = Env([go_node()], bound, [pdb("pdb", FOO, allowed=0)])
    preemptor = make_pod("p", priority=1000, cpu="300m", memory="300")
    candidate, _ = env.select_victims(preemptor, "node1")
    assert (names(candidate.victims), candidate.num_pdb_violations) == (["b"], 0)
    # Control without the PDB: b (prio 5) reprieved first, a becomes the victim.
    env = Env([go_node()], bound)
    candidate, _ = env.select_victims(preemptor, "node1")
    assert (names(candidate.victims), candidate.num_pdb_violations) == (["a"], 0)
