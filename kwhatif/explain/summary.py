"""An attempt summarised so that it reads at 5,000 nodes (kwhatif's own, never mixed into the
upstream message): rejected nodes grouped by the plugin and reasons that stopped them, with their
count, a few example nodes and the spread of the evidence; for a placed pod, the winner beside the
runner-up.

The upstream FailedScheduling message already counts nodes per reason, but it neither names the
nodes nor says how far they are from fitting; the per-node table says both, one line a node,
which nobody reads at 5,000 nodes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from kwhatif.api.tolerations import taint_of_reason
from kwhatif.explain.pod import AttemptExplanation, NodeVerdict

EXAMPLES = 3  # example nodes per group


@dataclass(frozen=True)
class Spread:
    """How far the nodes of a group are from fitting, for one measured quantity (e.g. cpu short,
    in millicores): the smallest, the median (the lower one for an even count) and the largest,
    over `nodes` nodes."""

    quantity: str
    low: int
    median: int
    high: int
    nodes: int = 0


@dataclass(frozen=True)
class AlsoFailing:
    """How many nodes of a group a later filter rejects too, with the same reasons (kwhatif's:
    kube-scheduler stops at the first failing filter)."""

    plugin: str
    reasons: tuple[str, ...]
    nodes: int

    @property
    def text(self) -> str:
        return f"{self.plugin}: {'; '.join(self.reasons)}"


@dataclass(frozen=True)
class PluginAlsoFailing:
    """One later filter over a group: the nodes it rejects too, and per reason how many of them
    say it, most first."""

    plugin: str
    nodes: int
    reasons: tuple[tuple[str, int], ...]


@dataclass
class ReasonGroup:
    """Nodes stopped by the same plugin with the same code and reasons."""

    plugin: str
    code: str
    reasons: tuple[str, ...]
    nodes: list[str] = field(default_factory=list)  # sorted by name
    spreads: list[Spread] = field(default_factory=list)
    insight: list[str] = field(default_factory=list)  # the plugin's sentences, when every node shares them
    also_fails: list[AlsoFailing] = field(default_factory=list)  # most nodes first
    taint_key: str | None = None
    """Set when the group gathers the nodes untolerated taints of one key stop, with different
    values (`reasons`: each of those reasons, most nodes first): one group of 300 nodes tainted
    team=t000..t299 says what 300 groups of one node would hide."""

    @property
    def examples(self) -> list[str]:
        return self.nodes[:EXAMPLES]

    @property
    def taint_values(self) -> list[str]:
        """The values of `taint_key` the group's reasons name, most nodes first."""
        return [taint[1] for taint in map(taint_of_reason, self.reasons) if taint is not None]


def reason_groups(attempt: AttemptExplanation) -> list[ReasonGroup]:
    """The rejected nodes grouped by (plugin, code, reasons), biggest group first (then by plugin
    and reasons, so the order is stable)."""
    groups: Groups = {}
    for v in attempt.verdicts:
        if not v.feasible:
            groups.setdefault((v.plugin, v.code, tuple(v.reasons)), []).append(v)
    keyed, rest = _by_taint_key(groups)
    out = [_group(key, members) for key, members in rest.items()]
    out += [_taint_key_group(key, parts) for key, parts in keyed.items()]
    out.sort(key=lambda g: (-len(g.nodes), g.plugin, g.reasons))
    return out


GroupKey = tuple[str, str, tuple[str, ...]]  # (plugin, code, reasons)
Groups = dict[GroupKey, list[NodeVerdict]]
TaintKey = tuple[str, str, str]  # (plugin, code, taint key)


def _by_taint_key(groups: Groups) -> tuple[dict[TaintKey, Groups], Groups]:
    """The groups one untolerated taint stops, gathered by (plugin, code, taint key) where a key
    has several values (a taint per team, per tenant: each value its own reason, so its own group
    of a few nodes); the other groups as they are."""
    by_key: dict[TaintKey, Groups] = {}
    for key, members in groups.items():
        plugin, code, reasons = key
        taint = taint_of_reason(reasons[0]) if len(reasons) == 1 else None
        if taint is not None:
            by_key.setdefault((plugin, code, taint[0]), {})[key] = members
    keyed = {k: parts for k, parts in by_key.items() if len(parts) > 1}
    merged = {key for parts in keyed.values() for key in parts}
    return keyed, {key: members for key, members in groups.items() if key not in merged}


def _taint_key_group(key: TaintKey, parts: Groups) -> ReasonGroup:
    """One group for the nodes of several values of one taint key: its reasons each value's
    (most nodes first), the rest worked out over all its nodes as for any group."""
    plugin, code, taint_key = key
    ordered = sorted(parts.items(), key=lambda part: (-len(part[1]), part[0][2]))
    reasons = tuple(reason for (_, _, said), _ in ordered for reason in said)
    members = [v for _, part in ordered for v in part]
    return replace(_group((plugin, code, reasons), members), taint_key=taint_key)


def _group(key: tuple[str, str, tuple[str, ...]], members: list[NodeVerdict]) -> ReasonGroup:
    plugin, code, reasons = key
    members = sorted(members, key=lambda v: v.node)
    return ReasonGroup(plugin, code, reasons, [v.node for v in members], _spreads(members),
                       _shared_insight(plugin, members), _also_fails(members))


def _also_fails(members: list[NodeVerdict]) -> list[AlsoFailing]:
    """What else rejects the nodes of a group (the filters after the first failing one): fixing
    the group's reason alone does not free a node that also fails here."""
    counts = Counter((plugin, tuple(reasons)) for v in members for plugin, reasons in v.also_fails.items())
    out = [AlsoFailing(plugin, reasons, n) for (plugin, reasons), n in counts.items()]
    return sorted(out, key=lambda a: (-a.nodes, a.text))


def also_failing_by_plugin(also: list[AlsoFailing]) -> list[PluginAlsoFailing]:
    """Each later filter once, most nodes first: a node's later failures hold one entry a plugin,
    so a plugin's entries add up to the nodes it rejects, and a reason's count is the nodes that
    say it (with any other reason of that plugin)."""
    nodes: Counter[str] = Counter()
    reasons: dict[str, Counter[str]] = {}
    for a in also:
        nodes[a.plugin] += a.nodes
        said = reasons.setdefault(a.plugin, Counter())
        for reason in a.reasons:
            said[reason] += a.nodes
    return [PluginAlsoFailing(plugin, n, tuple(sorted(reasons[plugin].items(), key=lambda r: (-r[1], r[0]))))
            for plugin, n in sorted(nodes.items(), key=lambda p: (-p[1], p[0]))]


def _spreads(members: list[NodeVerdict]) -> list[Spread]:
    """One Spread per quantity any member measured, in the order the plugin measures them."""
    quantities: dict[str, list[int]] = {}
    for v in members:
        for quantity, amount in v.measures.items():
            quantities.setdefault(quantity, []).append(amount)
    out = []
    for quantity, amounts in quantities.items():
        amounts.sort()
        out.append(Spread(quantity, amounts[0], amounts[(len(amounts) - 1) // 2], amounts[-1], len(amounts)))
    return out


MAX_COUNTED = 4
"""A group whose nodes say at most this many different sentences gets each counted ("on 3 of
them: ..."): they are categorical (a label missed, a taint); more are per-node amounts, which
the spreads sum up, or per-node facts, of which one node's stands for the rest."""


def _shared_insight(plugin: str, members: list[NodeVerdict]) -> list[str]:
    """The rejecting plugin's sentences: those every node of the group says as they are (a
    taint, a label that does not match), the others with how many nodes say them when there are
    few kinds (`MAX_COUNTED`: which label no node has, which other taint some also carry) and the
    plugin measures nothing; per-node amounts are left to the spreads, per-node facts to one
    node's example (`_one_of_many`)."""
    counts = Counter(s for v in members for s in dict.fromkeys(v.insights.get(plugin, [])))
    everyone = [s for s, n in counts.items() if n == len(members)]
    if any(v.measures for v in members):
        return everyone
    if len(counts) > MAX_COUNTED:
        return everyone + _one_of_many(plugin, members, set(everyone))
    some = sorted((s for s in counts if counts[s] < len(members)), key=lambda s: -counts[s])
    if not some:
        return everyone
    return [f"on all {len(members)}: {s}" for s in everyone] + [f"on {counts[s]} of them: {s}" for s in some]


def _one_of_many(plugin: str, members: list[NodeVerdict], shared: set[str]) -> list[str]:
    """Sentences of a kind each node words its own way (the pod each node holds that an
    anti-affinity term matches): the first node's, as an example of what the others say —
    nothing at all would leave the group without its reason. Nodes are in name order."""
    for v in members:
        own = [s for s in v.insights.get(plugin, []) if s not in shared]
        if own:
            others = len(members) - 1
            more = f" (and the like on the {others} other node(s): --node NAME says one)" if others else ""
            return [f"on {v.node}: {own[0]}{more}"]
    return []


def ranking(attempt: AttemptExplanation) -> list[NodeVerdict]:
    """The feasible nodes that were scored, best first (verdicts are sorted by total, then name)."""
    return [v for v in attempt.verdicts if v.feasible and v.total is not None]
