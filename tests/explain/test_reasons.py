"""The reasons catalogue covers every reason text the plugins and the framework can give: each
module-level reason constant (ERR_REASON*, and the framework's and preemption's texts) and each
templated reason, rendered with sample values, matches a catalogue entry."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import kwhatif.plugins
from kwhatif.explain.reasons import CATALOGUE, lookup
from kwhatif.framework.diagnosis import NO_NODES_MESSAGE
from kwhatif.framework.scheduler import GATED_MESSAGE
from kwhatif.plugins.node_resources.fit import TOO_MANY_PODS, insufficient
from kwhatif.api.tolerations import Taint, untolerated_taint_reason
from kwhatif.preemption.evaluator import NO_VICTIMS, NOT_HELPFUL


def _plugin_reason_constants() -> list[tuple[str, str]]:
    out = []
    for info in pkgutil.walk_packages(kwhatif.plugins.__path__, "kwhatif.plugins."):
        module = importlib.import_module(info.name)
        out += [(f"{info.name}.{name}", value) for name, value in vars(module).items()
                if name.startswith("ERR_REASON") and isinstance(value, str)]
    return out


CONSTANTS = _plugin_reason_constants()
TEMPLATED = [insufficient("cpu"), insufficient("nvidia.com/gpu"), TOO_MANY_PODS,
             untolerated_taint_reason(Taint("dedicated", "gpu", "NoSchedule")), GATED_MESSAGE, NO_NODES_MESSAGE, NO_VICTIMS, NOT_HELPFUL, 'persistentvolumeclaim "data" not found']


def test_the_plugins_have_reason_constants_to_check() -> None:
    assert len(CONSTANTS) >= 20


@pytest.mark.parametrize("text", [v for _, v in CONSTANTS] + TEMPLATED)
def test_every_reason_is_in_the_catalogue(text: str) -> None:
    assert any(r.matches(text) for r in CATALOGUE), f"no catalogue entry for {text!r}"


def test_every_entry_matches_its_own_example_and_says_what_to_do() -> None:
    for reason in CATALOGUE:
        assert reason.matches(reason.example), reason.pattern
        assert reason.meaning and reason.fix


def test_lookup_finds_a_reason_by_its_exact_text_then_by_a_word() -> None:
    assert [r.plugin for r in lookup("Insufficient memory")] == ["NodeResourcesFit"]
    assert {r.plugin for r in lookup("taint")} == {"TaintToleration"}
    assert lookup("no such reason") == []


@pytest.mark.parametrize("text, shown", [
    ("Insufficient memory", "Insufficient memory"),  # shown as given, not as the entry's example (cpu)
    ("2 Insufficient cpu", "Insufficient cpu"),  # with the count the message prints before it
    ("3 node(s) had untolerated taint {dedicated: gpu}.", "node(s) had untolerated taint {dedicated: gpu}"),
])
def test_a_reason_as_the_message_prints_it_is_found_and_shown_as_given(text: str, shown: str) -> None:
    assert [r.example for r in lookup(text)] == [shown]


def test_a_whole_failed_scheduling_message_is_looked_up_reason_by_reason() -> None:
    message = ("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {dedicated: gpu}. "
               "no new claims to deallocate, preemption: 0/5 nodes are available: 5 Preemption is not helpful "
               "for scheduling.")
    assert [r.plugin for r in lookup(message)] == ["NodeResourcesFit", "TaintToleration", "DynamicResources",
                                                   "DefaultPreemption"]


@pytest.mark.parametrize("text, plugin", [
    # reference 8.2: the suffixes DynamicResources' PostFilter adds to every 1.34 message
    ("no new claims to deallocate", "DynamicResources"),
    ("not found", "DynamicResources"),
    ("not eligible due to preemptionPolicy=Never", "DefaultPreemption"),
    ("not eligible due to a terminating pod on the nominated node", "DefaultPreemption"),
])
def test_the_postfilter_texts_of_every_message_are_catalogued(text: str, plugin: str) -> None:
    assert [r.plugin for r in lookup(text)] == [plugin]


def test_a_pasted_message_with_several_taints_is_read_reason_by_reason() -> None:
    message = ("0/3 nodes are available: 1 node(s) had untolerated taint {a: b}, 1 Insufficient memory, "
               "1 node(s) had untolerated taint {c: d}.")
    assert [(r.plugin, r.example) for r in lookup(message)] == [
        ("TaintToleration", "node(s) had untolerated taint {a: b}"), ("NodeResourcesFit", "Insufficient memory"),
        ("TaintToleration", "node(s) had untolerated taint {c: d}")]


@pytest.mark.parametrize("text, shown", [
    # each part as the message says it, not as the entry's example says it
    ("0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 Preemption is not "
     "helpful for scheduling.", ["Insufficient memory", "Preemption is not helpful for scheduling"]),
    ("0/3 nodes are available: 1 Insufficient memory, 2 Insufficient ephemeral-storage.",
     ["Insufficient memory", "Insufficient ephemeral-storage"]),
    # a `kubectl describe pod` Events line: type, reason, age and source before the message
    ("  Warning  FailedScheduling  3m12s (x5 over 10m)  default-scheduler  0/3 nodes are available: 3 Insufficient "
     "memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
     ["Insufficient memory", "No preemption victims found for incoming pod"]),
    ("Warning  FailedScheduling  2m  default-scheduler  0/3 nodes are available: 3 Insufficient memory.",
     ["Insufficient memory"]),
])
def test_a_pasted_message_gives_each_of_its_reasons_as_it_says_it(text: str, shown: list[str]) -> None:
    assert [r.example for r in lookup(text)] == shown


@pytest.mark.parametrize("taint, advice", [
    ("{node.kubernetes.io/not-ready: }", "do not tolerate the taint"),
    ("{node.kubernetes.io/memory-pressure: }", "do not tolerate the taint"),
    ("{node-role.kubernetes.io/control-plane: }", "Nothing for a workload"),
    ("{dedicated: gpu}", "Add a toleration"),
])
def test_a_taint_kept_for_the_nodes_sake_is_never_advised_to_be_tolerated(taint: str, advice: str) -> None:
    """A node condition's taint (the node is unwell) or the control plane's is one entry, whose
    fix is never "add a toleration"; any other taint is the team's."""
    [found] = lookup(f"node(s) had untolerated taint {taint}")
    assert advice in found.fix


@pytest.mark.parametrize("text, says, never_says", [
    # reference 9.4 step 2 (default_preemption.go:SelectVictimsOnNode): the text comes only from
    # len(potentialVictims) == 0 — no pod of lower priority on the node; a node still too small
    # with them all evicted gets the filter's reason (step 3); PDBs only order victims (9.5, 9.7)
    ("No preemption victims found for incoming pod", ["No pod of lower priority", "higher PriorityClass"],
     ["still would not make the pod fit (or", "PDBs/priorities forbid", "Preemption cannot help"]),
    # reference 5.4 (node_affinity.go:PreFilter errReasonConflict): every required term's matchFields
    # metadata.name In leaves no node name; nodeSelector plays no part
    ("pod affinity terms conflict", ["matchFields", "metadata.name In", "no node"], ["nodeSelector"]),
])
def test_a_reason_means_what_its_only_upstream_source_says(text: str, says: list[str], never_says: list[str]) -> None:
    [found] = lookup(text)
    for words in says:
        assert words in found.meaning + " " + found.fix, words
    for words in never_says:
        assert words not in found.meaning + " " + found.fix, words


@pytest.mark.parametrize("text, shown", [
    pytest.param("untolerated taint {node.kubernetes.io/disk-pressure: }",
                 [("TaintToleration", "node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }")],
                 id="the end of a taint reason: completed by its head, the node-condition entry"),
    pytest.param("had untolerated taint {dedicated: gpu}",
                 [("TaintToleration", "node(s) had untolerated taint {dedicated: gpu}")],
                 id="the fewest words added wins: not inside another entry's braces"),
    pytest.param("didn't match pod anti-affinity", [("InterPodAffinity", "node(s) didn't match pod anti-affinity rules")],
                 id="the beginning's middle: a word search of the examples finds it"),
])
def test_part_of_a_reason_finds_its_entry(text: str, shown: list[tuple[str, str]]) -> None:
    assert [(r.plugin, r.example) for r in lookup(text)] == shown


def test_one_word_is_searched_not_completed() -> None:
    # `Insufficient \S+` would complete any single word: "zzz" is no reason.
    assert lookup("zzz") == []
