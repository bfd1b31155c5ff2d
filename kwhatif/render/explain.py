"""`kwhatif explain`'s default page: the summary first, under 60 lines at any cluster size.

The upstream message is printed verbatim (wrapped to the terminal, labelled); everything else is
kwhatif's and says so. The per-node table (`render.table.explanation_table`) is for `--all-nodes`,
`--node NAME` and `-o wide`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kwhatif.api.quantity import format_amount
from kwhatif.api.tolerations import taint_of_reason
from kwhatif.explain.pod import AttemptExplanation, Explanation
from kwhatif.explain.suggest import KINDS, MAX_SUGGESTIONS
from kwhatif.framework.scheduler import GATED_MESSAGE, Outcome
from kwhatif.plugins.default_preemption import DefaultPreemptionArgs
from kwhatif.explain.summary import (
    PluginAlsoFailing, ReasonGroup, Spread, also_failing_by_plugin, ranking, reason_groups,
)
from kwhatif.render.budget import Section, section, within
from kwhatif.render.table import attempt_title, plugin_label, preemption_tie
from kwhatif.render.text import wrap
from kwhatif.plugins.dynamic_resources import DEALLOCATED
from kwhatif.preemption.evaluator import NO_VICTIMS
from kwhatif.text import listed

MAX_GROUPS = 8
MAX_LINES = 60  # the summary's budget (issue 13): one screen at any cluster size
DEALLOCATE = " no new claims to deallocate,"
NOT_FOUND = ". not found"


MESSAGE_HEADS = {
    Outcome.UNSCHEDULABLE: "kube-scheduler v1.34.1's FailedScheduling message, verbatim:",
    Outcome.ERROR: "kube-scheduler v1.34.1's FailedScheduling message, verbatim:",
    Outcome.GATED: "kube-scheduler v1.34.1's PodScheduled condition message, verbatim:",
}
"""Whose words a pod's message is: the scheduler's event or condition; a skipped pod's is the API
server's refusal or kwhatif's account (another scheduler's pod, one being deleted, one naming its
node)."""
OWN_HEAD = "why it is not scheduled (kwhatif's account: kube-scheduler never tried it):"


HELD_HEAD = ("held before any attempt by DynamicResources' PreEnqueue check (kube-scheduler only logs this "
             "text: no event, no condition):")


def message_head(outcome: Outcome, tried: bool, message: str | None = None) -> str:
    """The line above a pod's message. An unschedulable pod that no attempt tried (one naming a
    node the snapshot lacks: its kubelet, not kube-scheduler, would take it) has kwhatif's words,
    which users must not take for an event's; a pod a PreEnqueue check other than the scheduling
    gates holds (its ResourceClaim missing) has the scheduler's log line, which no user sees."""
    if outcome == Outcome.GATED and message != GATED_MESSAGE:
        return HELD_HEAD
    if not tried and outcome != Outcome.GATED:
        return OWN_HEAD
    return MESSAGE_HEADS.get(outcome, "why it is not scheduled:")


def explanation_summary(exp: Explanation, width: int, running_on: str | None = None, node_hint: bool = True) -> str:
    """The summary page of one pod's explanation, wrapped to `width` columns, within MAX_LINES:
    past them the lower-value sections say less (`render.budget`: the requeue events, then the
    preemption's node lists, then what else rejects each group and how many groups, then the
    suggestions), each saying where the rest is; the FailedScheduling message is never cut
    further. `running_on`: the node the pod is bound to in the snapshot, when this is a re-run
    of its placement (engine.placed_again): the headline says where it runs, the re-run where it
    would go now. `node_hint`: end with how to see every node's verdict (not when the page is
    followed by the nodes asked for)."""
    head = _head_lines(exp, width, running_on)
    tail: list[str] = []
    if node_hint and any(a.verdicts for a in exp.attempts):  # a gated or refused pod, an error: no node judged
        tail = ["", *wrap("kwhatif: every node's verdict and scores: --all-nodes, --node NAME", width, "")]
    sections = [*_attempt_sections(exp, width), *_suggestion_sections(exp, width), *_requeue_sections(exp, width)]
    return "\n".join(head + within(MAX_LINES, len(head) + len(tail), sections) + tail) + "\n"


REQUEUE, PREEMPTION, GROUPS, SUGGESTIONS = range(4)
"""The sections' ranks (`render.budget.Section`): the first is condensed first — when the pod is
retried matters least on a page about why it does not fit, what would make it fit most."""
GROUP_STEPS = ((MAX_GROUPS, True), (MAX_GROUPS, False), (5, False), (3, False), (1, False))
"""The groups' renderings: how many groups, and whether what else rejects their nodes is said."""
SUGGESTION_STEPS = (MAX_SUGGESTIONS, 3, 1)


def _head_lines(exp: Explanation, width: int, running_on: str | None) -> list[str]:
    """The headline, the message (whole up to MAX_MESSAGE_LINES), its quirks and the gates: the
    part of the page never condensed."""
    if running_on:
        now = f"would be {exp.outcome.value} on {exp.node}" if exp.node else f"would be {exp.outcome.value}"
        lines = [f"Pod {exp.pod}: running on {running_on}; placed again now, it {now}"
                 + (" (the same node)" if exp.node == running_on else "")]
        lines.extend(wrap("kwhatif: the pod is bound in the snapshot; this re-runs its placement with every "
                           "other pod where it is, so it says where kube-scheduler would place it now.",
                           width, ""))
    else:
        lines = [f"Pod {exp.pod}: {exp.outcome.value}" + (f" on {exp.node}" if exp.node else "")]
    if exp.message:
        lines.append(message_head(exp.outcome, bool(exp.attempts), exp.message))
        lines.extend(_message_lines(exp.message, width))
        for note in quirks(exp.message):
            lines.extend(wrap(note, width, "  ", "kwhatif: "))
    for note in exp.held:
        lines.extend(wrap(f"kwhatif: {note}", width, "", hanging="  "))
    if exp.gates:
        lines.extend(wrap(f"kwhatif: its scheduling gates: {', '.join(exp.gates)} — each is removed by whoever "
                          "added it (a queue, a quota or an autoscaling controller); the pod enters the scheduling "
                          "queue once the last one is gone", width, "", hanging="  "))
    return lines


def _attempt_sections(exp: Explanation, width: int) -> list[Section]:
    """Each attempt (its title and own message in every rendering), and the preemption after the
    first."""
    out = []
    for i, attempt in enumerate(exp.attempts, 1):
        title = [""]
        if len(exp.attempts) > 1:
            title.append(attempt_title(i, attempt))
            if attempt.message and attempt.message != exp.message:  # its own event: a preemptor's first
                title.append(message_head(attempt.outcome, True, attempt.message))
                title.extend(_message_lines(attempt.message, width))
        out.append(section(GROUPS, [title + _attempt_lines(attempt, width, shown, also)
                                    for shown, also in GROUP_STEPS]))
        if i == 1 and exp.preemption and len(exp.preemption) > 1:  # more than the PostFilter message
            out.append(section(PREEMPTION, [["", *_wrapped(_preemption_lines(exp.preemption, width, names), width)]
                                            for names in (True, False)]))
    return out


def _wrapped(lines: list[str], width: int) -> list[str]:
    """Preemption lines wrapped, each continuing under its own indent."""
    out: list[str] = []
    for line in lines:
        indent = line[:len(line) - len(line.lstrip())]
        out.extend(wrap(line.lstrip(), width, indent, hanging=indent + "    "))
    return out


def _suggestion_sections(exp: Explanation, width: int) -> list[Section]:
    if exp.suggestions:
        return [section(SUGGESTIONS, [_suggestion_lines(exp, width, shown) for shown in SUGGESTION_STEPS])]
    if exp.suggestions_searched:  # searched, and no change binds it: not the same as not searched
        return [section(SUGGESTIONS, [["", *wrap(f"kwhatif: no single change kwhatif tries makes it fit (it tries: "
                                                  f"{', '.join(KINDS)})", width, "", hanging="  ")]])]
    return []


def _suggestion_lines(exp: Explanation, width: int, shown: int) -> list[str]:
    lines = ["", *wrap("kwhatif: what would make it fit (each proven by re-running the scheduler):", width, "")]
    for suggestion in exp.suggestions[:shown]:
        lines.extend(wrap(suggestion.summary, width, "  - ", hanging="    "))
    if len(exp.suggestions) > shown:
        lines.append(f"  ... {len(exp.suggestions) - shown} more (-o json: explanation.suggestions)")
    return lines


def _requeue_sections(exp: Explanation, width: int) -> list[Section]:
    """The events that retry the pod: each with its change, one line a plugin, or where they are."""
    if not exp.requeue_on:
        return []
    head = ["", *wrap("kwhatif: kube-scheduler retries it on (its rejecting plugins' events):", width, "")]
    pointer = ["", *wrap(f"kwhatif: kube-scheduler retries it on {len(exp.requeue_on)} event(s) of its rejecting "
                         "plugins (-o json: explanation.requeue_on)", width, "")]
    return [section(REQUEUE, [head + _requeue_lines(exp, width), head + _compact_requeue_lines(exp, width),
                              pointer])]


def _requeue_lines(exp: Explanation, width: int) -> list[str]:
    lines: list[str] = []
    for plugin, event in exp.requeue_on:
        what = change_said(event.why)  # the whole hint is in -o json
        lines.extend(wrap(f"{event.resource} {'|'.join(event.actions)} ({plugin}): {what}", width, "  ",
                          hanging="      "))
    return lines


def change_said(why: str) -> str:
    """An event's `why` up to its first ": " outside parentheses: the change itself, without the
    hint's reasoning ("a PV is created or updated (no hint: ...)" stays whole)."""
    depth = 0
    for i, char in enumerate(why):
        depth += (char == "(") - (char == ")")
        if depth == 0 and why.startswith(": ", i):
            return why[:i]
    return why


def _compact_requeue_lines(exp: Explanation, width: int) -> list[str]:
    by_plugin: dict[str, list[str]] = {}
    for plugin, event in exp.requeue_on:
        by_plugin.setdefault(plugin, []).append(f"{event.resource} {'|'.join(event.actions)}")
    lines: list[str] = []
    for plugin, events in by_plugin.items():
        lines.extend(wrap(f"{plugin}: {'; '.join(events)}", width, "  ", hanging="      "))
    return lines


MAX_MESSAGE_LINES = 12
"""The message's share of the 60-line page: one of 5,000 nodes with 400 distinct taints is some
200 lines at 80 columns, which the groups below say in 20."""


def _message_lines(message: str, width: int) -> list[str]:
    """The message wrapped; past MAX_MESSAGE_LINES, its head and where the whole text is."""
    lines = wrap(message, width, "  ")
    if len(lines) <= MAX_MESSAGE_LINES:
        return lines
    note = wrap(f"... {len(lines)} lines in all: -o json has the whole message, the groups below sum it up",
                width, "  ")
    return lines[:MAX_MESSAGE_LINES - len(note)] + note


def quirks(message: str) -> list[str]:
    """kube-scheduler's texts that look like mistakes and are not, explained where they appear."""
    notes = []
    if DEALLOCATE in message:
        notes.append("'no new claims to deallocate' is DynamicResources' PostFilter, run for every pod in v1.34.")
    if DEALLOCATED in message:
        notes.append("'deallocation of ResourceClaim completed': DynamicResources' PostFilter freed a claim of the "
                     "pod allocated for a node it cannot use; kube-scheduler tries the pod again, and it may then fit "
                     "with nothing changed (kwhatif, as the reference, does not retry a failed pod: the fixes below "
                     "are for this attempt).")
    if message.endswith(NOT_FOUND):
        notes.append("the trailing 'not found' is DynamicResources' PostFilter failing to read the state its "
                     "PreFilter never wrote (an earlier PreFilter rejected the pod first); preemption does not run. "
                     "It is part of the real event text.")
    return notes


def _attempt_lines(attempt: AttemptExplanation, width: int, shown: int = MAX_GROUPS, also: bool = True) -> list[str]:
    """The attempt's nodes: the first `shown` groups, with what else rejects them when `also`."""
    if attempt.named_node:
        return wrap(f"kwhatif: its spec.nodeName names {attempt.node}: kube-scheduler never schedules the pod, and "
                    "that node's kubelet admits it (resources, host ports, node affinity and NoExecute taints "
                    "pass; a cordon does not count).", width, "")
    if attempt.outcome == Outcome.ERROR:
        return _error_lines(attempt, width)
    if attempt.nominated_fast_path and attempt.outcome == Outcome.BOUND:
        return wrap(f"kwhatif: the pod was nominated to {attempt.node} (status.nominatedNodeName: a preemption made "
                    "room there, or a drain's wait bound it there), which passed the filters: kube-scheduler takes a "
                    "nominated node that fits without looking at the others (schedule_one.go "
                    "evaluateNominatedNode).", width, "")
    groups = reason_groups(attempt)
    rejected = sum(len(g.nodes) for g in groups)
    feasible = len(attempt.verdicts) - rejected
    lines = wrap(f"kwhatif: {len(attempt.verdicts)} node(s) evaluated: {rejected} rejected, {feasible} feasible",
                  width, "")
    for group in groups[:shown]:
        lines.extend(_group_lines(group, attempt, width, also))
    if not also and any(g.also_fails for g in groups[:shown]):
        lines.append("  (the filters that reject these nodes too: -o json, also_fails)")
    if len(groups) > shown:
        rest = groups[shown:]
        lines.append(f"  ... {len(rest)} more group(s) of {sum(len(g.nodes) for g in rest)} node(s) "
                     "(-o json: every group; -o wide: every node)")
    for line in _ranking_lines(attempt):
        lines.extend(wrap(line, width, "  ", hanging=" " * 4))
    return lines


CEL_MISSING_KEY = "CEL runtime error: no such key: "


def _error_lines(attempt: AttemptExplanation, width: int) -> list[str]:
    """An attempt a plugin's error ended: no node was judged (framework.go aborts the cycle at the
    first error), and kube-scheduler retries the pod with backoff, failing alike until the input
    changes. A CEL selector reading an attribute some device lacks is the usual cause in DRA."""
    lines = wrap("kwhatif: the cycle stopped at this error: a plugin's error aborts the whole scheduling cycle, so "
                 "no node was judged; kube-scheduler retries the pod with backoff and fails alike until what the "
                 "error names changes.", width, "")
    message = attempt.message or ""
    if CEL_MISSING_KEY in message:
        key = (message.split(CEL_MISSING_KEY, 1)[1].split() or ["KEY"])[0]
        lines.extend(wrap(f"kwhatif: a device the selector looked at has no attribute {key!r}; CEL errors instead of "
                          "being false: guard the test, e.g. `\"" + key + "\" in device.attributes[\"DOMAIN\"] && "
                          "...`, or select the devices by a DeviceClass that only holds devices with it.", width, ""))
    return lines


def _group_lines(group: ReasonGroup, attempt: AttemptExplanation, width: int, also: bool = True) -> list[str]:
    reasons = reasons_text(group.reasons, group.taint_key)
    head = f"{len(group.nodes):>6}  {plugin_label(attempt, group.plugin)} ({group.code}): {reasons}"
    lines = wrap(head, width, "", hanging=" " * 8)
    # The plugin's own sentences when every node of the group shares them ("node has 0 free of 0
    # allocatable": these nodes have none at all); else how far the nodes are, as spreads.
    detail = group.insight or [spread_text(s) for s in group.spreads]
    shown = group.examples if width >= 100 else group.examples[:2]  # a narrow terminal: two are enough
    examples = ", ".join(shown) + (", ..." if len(group.nodes) > len(shown) else "")
    lines.extend(wrap("; ".join([f"e.g. {examples}", *detail]), width, "        "))
    if also and group.also_fails:
        lines.extend(_also_failing_lines(also_failing_by_plugin(group.also_fails), len(group.nodes), width))
    if not group.plugin and attempt.node_set_plugins:
        every = len(group.nodes) == len(attempt.verdicts)
        lines.extend(wrap(_left_out_by_node_set(attempt.node_set_plugins, every), width, "        "))
    return lines


def reasons_text(reasons: Sequence[str], taint_key: str | None) -> str:
    """A group's reasons as its head says them: upstream's texts, or for a group of one taint
    key's values (`ReasonGroup.taint_key`), kwhatif's count of them — the key, how many values,
    the first few (the message, and -o json, say each)."""
    if taint_key is None:
        return "; ".join(reasons)
    values = [f'"{taint[1]}"' if not taint[1] else taint[1] for taint in map(taint_of_reason, reasons) if taint]
    return (f"an untolerated taint with key {taint_key} ({len(values)} different values: {listed(values)}; "
            "kwhatif's grouping)")


MAX_ALSO_LINES = 2
MAX_ALSO_REASONS = 3


def _also_failing_lines(plugins: list[PluginAlsoFailing], size: int, width: int) -> list[str]:
    """The later filters that reject a group's nodes too, each with its reasons and how many
    nodes say each, in at most MAX_ALSO_LINES: the most said wording that fits — every filter
    with up to MAX_ALSO_REASONS reasons, then fewer reasons, then fewer filters (at 5,000 nodes a
    filter may give hundreds of taints; -o json has them all)."""
    lines: list[str] = []
    for shown in range(len(plugins), 0, -1):
        for reasons in range(MAX_ALSO_REASONS, 0, -1):
            lines = wrap(_also_failing_text(plugins, shown, reasons, size), width, "        ")
            if len(lines) <= MAX_ALSO_LINES:
                return lines
    return lines


def _also_failing_text(plugins: list[PluginAlsoFailing], shown: int, reasons: int, size: int) -> str:
    """`all 3 also fail NodeResourcesFit: Insufficient cpu (3), Insufficient memory (1)` for the
    first `shown` filters, each with its first `reasons` reasons (the count beside each is of the
    group's nodes; a group of one node needs none)."""
    parts = []
    for p in plugins[:shown]:
        said = [reason if size == 1 else f"{reason} ({n})" for reason, n in p.reasons[:reasons]]
        if len(p.reasons) > reasons:
            said.append(f"and {len(p.reasons) - reasons} more")
        who = "it" if size == 1 else f"all {p.nodes}" if p.nodes == size else f"{p.nodes} of them"
        parts.append(f"{who} also {'fails' if p.nodes == 1 else 'fail'} {p.plugin}: {', '.join(said)}")
    hidden = len(plugins) - shown
    return "kwhatif: " + "; ".join(parts) + (f"; and {hidden} more filter(s) (-o json)" if hidden else "")


def _left_out_by_node_set(plugins: tuple[str, ...], every: bool) -> str:
    """Why nodes a PreFilter node-name set left out were never filtered (schedule_one.go:
    findNodesThatFitPod filters only the named nodes the snapshot has; the others get the
    absent-node status, which names no plugin). NodeAffinity, the only in-tree plugin with a set,
    takes it from the required affinity's matchFields metadata.name In."""
    which = "every node: none is" if every else "these nodes: they are not"
    source = " (NodeAffinity's: its required matchFields metadata.name In values)" if "NodeAffinity" in plugins else ""
    return (f"kwhatif: {' and '.join(plugins)}'s PreFilter left out {which} among the node names it returned{source}; "
            "no Filter ran on them, and kube-scheduler's status for them names no plugin")


def spread_text(s: Spread) -> str:
    low, high, median = (format_amount(s.quantity, v, exact=False) for v in (s.low, s.high, s.median))
    if s.low == s.high:
        return f"{s.quantity} short by {low}"
    if s.nodes == 2:  # the median would be the lower of the two, read as a third amount
        return f"{s.quantity} short by {low}–{high}"
    return f"{s.quantity} short by {low}–{high} (median {median})"


def _ranking_lines(attempt: AttemptExplanation) -> list[str]:
    ranked = ranking(attempt)
    if not ranked:
        return []
    best = ranked[0]
    lines = [f"best score: {best.node}, total {best.total} ({_scores(best.scores)})"]
    if len(attempt.tied_nodes) > 1:
        lines.append(f"{len(attempt.tied_nodes)} nodes tie at the top ({listed(attempt.tied_nodes)}); "
                     "kube-scheduler picks one at random, kwhatif the smallest name")
    elif len(ranked) > 1:
        second = ranked[1]
        also_second = [v.node for v in ranked[2:] if v.total == second.total]  # ranked by total, then name
        tied = f" (tied with {listed(also_second)})" if also_second else ""
        lines.append(f"runner-up: {second.node}{tied}, total {second.total}, "
                     f"{(best.total or 0) - (second.total or 0)} behind ({_scores(second.scores)})")
    return lines


def _scores(scores: dict[str, int]) -> str:
    return ", ".join(f"{plugin} {score}" for plugin, score in sorted(scores.items()))


def _preemption_lines(pre: dict[str, Any], width: int, names: bool = True) -> list[str]:
    """The preemption's story; without `names`, the potential nodes and those of each reason
    why none is a candidate are counted, not named (-o wide names them)."""
    lines = ["kwhatif: preemption (DefaultPreemption):"]
    if pre.get("not_eligible"):
        return lines + wrap(f"not eligible: {pre['not_eligible']}", width, "  ")
    potential = pre.get("potential_nodes", [])
    lines.append(f"  potential nodes (status Unschedulable): {len(potential)}"
                 + (f" ({listed(sorted(potential))})" if potential and names else ""))
    candidates = pre.get("candidates", [])
    lines.append(f"  candidates (nodes where evictions make room): {len(candidates)}")
    if not candidates:
        lines.extend(_why_no_candidate(pre.get("node_results", {}), width, names))
    chosen = next((c for c in candidates if c["node"] == pre.get("chosen")), None)
    if chosen is not None:
        lines.append(f"  chosen: {chosen['node']} (decided by: {pre['decided_by']})")
        for v in chosen["victims"]:
            pdb = f", breaks PDB {', '.join(v['breaks_pdb'])}" if v["breaks_pdb"] else ""
            lines.append(f"    evicts {v['pod']} (priority {v['priority']}{pdb})")
        tie = preemption_tie(pre)
        if tie:
            lines.append(f"  {tie}")
        note = sampled_candidates_note(len(potential), len(candidates))
        lines.extend(wrap(note, width, "  ") if note else [])
    return lines


def sampled_candidates_note(potential: int, found: int) -> str | None:
    """Whether kube-scheduler would choose among fewer candidates than kwhatif did. Its dry run
    (preemption.go:DryRunPreemption) goes through the potential nodes from a random one on and
    stops once it holds `candidates_sought` candidates (one of them without PDB violations): with
    no more candidates than that it dry-runs every potential node, as kwhatif does, and keeps them
    all, so the choice does not depend on where it started; with more, it keeps only the first it
    finds (each candidate list holds that many), and its choice may differ from kwhatif's."""
    sought = DefaultPreemptionArgs().candidates_sought(potential)
    if found <= sought:
        return None
    return (f"kube-scheduler stops dry-running once it holds about {sought} candidates, found from a random "
            f"potential node on, and chooses among those; kwhatif found {found} and chose among them all: a real "
            "cluster may choose another node (and other victims)")


def no_candidate_groups(node_results: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """Why no potential node is a candidate, the nodes grouped by the dry run's answer, the
    biggest group first: no pod of lower priority to evict there, or the reasons the pod still
    does not fit with every one of them evicted (default_preemption.go:SelectVictimsOnNode)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for node, said in sorted(node_results.items()):
        groups.setdefault(tuple(said), []).append(node)
    return [("no pod of lower priority runs there" if reasons == (NO_VICTIMS,)
             else f"{'; '.join(reasons)}, even with every pod of lower priority evicted", nodes)
            for reasons, nodes in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))]


def _why_no_candidate(node_results: dict[str, list[str]], width: int, names: bool = True) -> list[str]:
    lines = []
    for why, nodes in no_candidate_groups(node_results):
        lines.extend(wrap(f"{len(nodes)} node(s): {why}" + (f" ({listed(nodes)})" if names else ""), width, "    ",
                          hanging="      "))
    return (["  why none:"] + lines) if lines else []
