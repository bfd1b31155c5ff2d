"""Human tables (tabulate) for schedule results and explanations."""

from __future__ import annotations

import shutil
from collections.abc import Collection, Sequence
from typing import Any

from tabulate import tabulate

from kwhatif.explain.pod import AttemptExplanation, Explanation
from kwhatif.render.text import wrap
from kwhatif.text import listed

MIN_MESSAGE_WIDTH = 40
# ANSI colours of a verdict word (`--color`): what went well, what did not, what waits.
# diff's changes: placed is good news, evicted and becomes pending bad, a move or a still pending
# pod worth a look; sweep's verdicts: pass and fail.
_COLOURS = {"bound": 32, "ok": 32, "placed": 32, "pass": 32, "unschedulable": 31, "error": 31, "FAIL": 31,
            "fail": 31, "evicted": 31, "becomes pending": 31, "gated": 33, "skipped": 33, "no node": 33, "moved": 33, "still pending": 33}


def painted(word: str, color: bool, verdict: str | None = None) -> str:
    """`word` in its verdict's colour (the colour of `verdict` when the cell's word is not the
    verdict itself: evict's `yes` is an eviction) when `color`; tabulate measures cells without
    the codes, so the columns stay aligned."""
    code = _COLOURS.get(verdict or word)
    return f"\x1b[{code}m{word}\x1b[0m" if color and code else word


def plain_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], show_headers: bool = True) -> str:
    """A table as kubectl prints one (tabulate's `plain`); without its header line when not
    `show_headers` (`--no-headers`, for scripts), the rows aligned as they are under it."""
    table = tabulate(rows, headers=headers, tablefmt="plain")
    return table if show_headers else "\n".join(table.split("\n")[1:])
_ALWAYS = ("POD", "PRIORITY", "OUTCOME", "NODE")  # shown even when empty: the answer's shape


def _wrapped(text: str | None, width: int | None) -> str:
    """The whole message (users match it against their events): one line when `width` is None
    (wide output), else wrapped into a column that wide."""
    if not text:
        return ""
    if width is None:
        return text
    return "\n".join(wrap(text, width, "", hanging=""))


def with_text_column(rows: list[list[Any]], headers: list[str], texts: list[str | None], width: int | None
                     ) -> list[list[Any]]:
    """The rows with `texts` as their last column (headed by the last of `headers`), wrapped into
    what the other columns leave of a terminal `width` columns wide, at least MIN_MESSAGE_WIDTH;
    `width` None (`-o wide`) keeps each text whole on one line."""
    if width is None:
        return [[*row, text or ""] for row, text in zip(rows, texts)]
    # Where the text column starts, from the table drawn without the texts (tabulate's padding
    # and alignment decide it).
    start = tabulate([[*row, ""] for row in rows], headers=headers, tablefmt="plain").split("\n")[0].index(headers[-1])
    column = max(MIN_MESSAGE_WIDTH, width - start)
    return [[*row, _wrapped(text, column)] for row, text in zip(rows, texts)]


def terminal_width() -> int:
    return shutil.get_terminal_size((120, 24)).columns


def results_table(data: dict[str, Any], wide: bool = False, width: int | None = None, headers: bool = True,
                  color: bool = False, only: Collection[str] | None = None) -> str:
    """One row per pending pod in scheduling order, then the counts. Columns empty in every row
    (no ties, no evictions) are left out, and the messages wrap into what the terminal (`width`)
    leaves them, at least MIN_MESSAGE_WIDTH columns; `wide` keeps each message on one line.
    `headers=False` (`--no-headers`, for scripts, as kubectl's) prints the rows alone, aligned as
    with the header. `color` paints the outcomes (`--color`). `only`: the pods the user asked
    about (`place`, `check`); the rest of the queue is counted, not listed — on a big cluster it
    is a thousand rows above the answer — unless `wide`."""
    results = data["results"]
    if only is not None and not wide:
        results = [r for r in results if r["pod"] in only]
    columns = ["POD", "PRIORITY", "OUTCOME", "NODE", "TIED", "EVICTS"]
    cells = [_result_cells(r, wide, color) for r in results]
    keep = [i for i, h in enumerate(columns) if h in _ALWAYS or any(row[i] != "" for row in cells)]
    shown = [columns[i] for i in keep] + ["MESSAGE"]
    rows = with_text_column([[row[i] for i in keep] for row in cells], shown, [r.get("message") for r in results],
                            None if wide else width or terminal_width())
    counts = ", ".join(f"{n} {k}" for k, n in data["counts"].items()) or "no pending pods"
    cluster = data["cluster"]
    summary = f"{cluster['nodes']} nodes, {cluster['bound_pods']} bound pods, {cluster['pending_pods']} pods to place: {counts}"
    # asked about pods that have none (a workload of 0 replicas): no lone header
    table = plain_table(rows, shown, headers) if results or only is None else ""
    if not headers:
        return rows_alone(table)
    return (table + "\n\n" if table else "") + summary + "\n" + _not_listed(data["results"], results)


def _not_listed(every: list[dict[str, Any]], listed: list[dict[str, Any]]) -> str:
    """A line counting, by outcome, the pods of the queue left out of the table."""
    if len(listed) == len(every):
        return ""
    shown = {r["pod"] for r in listed}
    others = [r["outcome"] for r in every if r["pod"] not in shown]
    counts = ", ".join(f"{others.count(o)} {o}" for o in sorted(set(others)))
    return f"not listed: the {len(others)} other pod(s) of the queue ({counts}); -o wide lists every pod\n"


def rows_alone(*tables: str) -> str:
    """`--no-headers` output: the tables' rows, line after line, nothing else (no counts, no
    blank line between tables), so `| wc -l` counts rows and `| awk` reads them."""
    return "".join(line + "\n" for table in tables for line in table.split("\n") if line)


def _result_cells(r: dict[str, Any], wide: bool, color: bool) -> list[Any]:
    tied = r.get("tied_nodes") or []
    victims = (r.get("preemption") or {}).get("victims") or []
    evicts = ", ".join(victims) if wide else (len(victims) or "")
    return [r["pod"], r["priority"], painted(r["outcome"], color), r["node"] or "", len(tied) if len(tied) > 1 else "",
            evicts]


def explanation_table(exp: Explanation) -> str:
    lines = [f"Pod {exp.pod}: {exp.outcome}" + (f" on {exp.node}" if exp.node else "")]
    if exp.message:
        lines.append(f"Message (as kube-scheduler words it): {exp.message}")
    if len(exp.tied_nodes) > 1:
        lines.append(f"kwhatif: {len(exp.tied_nodes)} nodes tied for the top score ({', '.join(exp.tied_nodes)}); "
                     "kube-scheduler picks one at random, kwhatif the smallest name")
    for i, attempt in enumerate(exp.attempts, 1):
        lines.append("")
        if len(exp.attempts) > 1:
            lines.append(attempt_title(i, attempt))
        lines.append(_verdict_table(attempt))
        if i == 1 and exp.preemption and len(exp.preemption) > 1:  # more than the PostFilter message
            lines.append("")
            lines.extend(_preemption_lines(exp.preemption))
    return "\n".join(lines) + "\n"


def attempt_title(i: int, attempt: AttemptExplanation) -> str:
    """The heading of attempt `i` when preemption led to a retry (the per-node table's and the
    summary's)."""
    if i == 1:
        return "Attempt 1 (before preemption):"
    how = " (nominated node, filters only)" if attempt.nominated_fast_path else ""
    where = f" on {attempt.node}" if attempt.node else ""
    return f"Attempt {i} (after the victims are gone){how}: {attempt.outcome.value}{where}"


def plugin_label(attempt: AttemptExplanation, plugin: str) -> str:
    """The plugin a reader is told rejected a node whose status names `plugin`: that one, or for
    nodes a PreFilter node-name set left out (their status names none, as kube-scheduler's does:
    -o json keeps it empty) the plugins whose sets did, `at PreFilter`."""
    names = " ".join(attempt.rejected_by(plugin))
    return names if plugin or not names else f"{names} at PreFilter"


def node_tables(exp: Explanation, nodes: frozenset[str]) -> str:
    """The per-node table of each attempt, for the given nodes only (`explain --node`)."""
    lines = []
    for i, attempt in enumerate(exp.attempts, 1):
        if len(exp.attempts) > 1:
            lines.append(attempt_title(i, attempt))
        lines.append(_verdict_table(attempt, nodes))
    return "\n".join(lines) + "\n"


def _verdict_table(attempt: AttemptExplanation, nodes: frozenset[str] | None = None) -> str:
    verdicts = [v for v in attempt.verdicts if nodes is None or v.node in nodes]
    plugins = sorted({p for v in verdicts for p in v.scores})
    rows: list[Sequence[object]] = []
    for v in verdicts:
        if v.feasible:
            mark = "chosen" if v.chosen else ("tied" if v.tied else "feasible")
            rows.append([v.node, mark, "", ""] + [v.scores.get(p, "-") for p in plugins]
                        + [v.total if v.total is not None else ""])
        else:
            rows.append([v.node, "rejected", plugin_label(attempt, v.plugin), "; ".join(v.reasons)] + [""] * len(plugins) + [""])
    headers = ["NODE", "VERDICT", "PLUGIN", "REASONS"] + [_SHORT.get(p, p) for p in plugins] + ["TOTAL"]
    table = tabulate(rows, headers=headers, tablefmt="plain")
    legend = ", ".join(f"{_SHORT[p]}={p}" for p in plugins if p in _SHORT)
    text = table + (f"\nscores (weighted): {legend}" if legend else "")
    notes = [f"  {v.node}: {plugin}: {line}" for v in verdicts
             for plugin, lines in sorted(v.insights.items()) for line in lines]
    return text + ("\nkwhatif insight (per node, as the plugins saw it):\n" + "\n".join(notes) if notes else "")


_SHORT = {
    "TaintToleration": "TAINT", "NodeAffinity": "NODEAFF", "NodeResourcesFit": "FIT",
    "PodTopologySpread": "SPREAD", "InterPodAffinity": "INTERPOD", "NodeResourcesBalancedAllocation": "BALANCED",
    "ImageLocality": "IMAGE", "VolumeBinding": "VOLUME",
}


def _preemption_lines(pre: dict[str, Any]) -> list[str]:
    lines = ["Preemption:"]
    if pre.get("not_eligible"):
        lines.append(f"  not eligible: {pre['not_eligible']}")
        return lines
    if "potential_nodes" in pre:
        lines.append(f"  potential nodes (status Unschedulable): {', '.join(pre['potential_nodes']) or 'none'}")
    for node, reasons in pre.get("node_results", {}).items():
        lines.append(f"  {node}: no candidate: {'; '.join(reasons)}")
    for c in pre.get("candidates", []):
        victims = ", ".join(
            f"{v['pod']} (priority {v['priority']}" + (f", breaks PDB {', '.join(v['breaks_pdb'])}" if v["breaks_pdb"] else "") + ")"
            for v in c["victims"])
        lines.append(f"  {c['node']}: candidate, victims {victims}" + (f"; reprieved {', '.join(c['reprieved'])}" if c["reprieved"] else ""))
    if pre.get("chosen"):
        lines.append(f"  chosen: {pre['chosen']} (decided by: {pre['decided_by']})")
        tie = preemption_tie(pre)
        if tie:
            lines.append(f"  {tie}")
    return lines


def preemption_tie(pre: dict[str, Any]) -> str:
    """kwhatif's note when candidates tie on every criterion (reference 9.7 step 6): the chosen
    node is then kwhatif's pick, not kube-scheduler's, which takes the first of a Go map — at
    random — and evicts that node's victims instead; "" when a criterion decided. Said as a
    score tie is (`tied_nodes`), by every writer of the preemption."""
    tied = pre.get("tied") or []
    if len(tied) < 2:
        return ""
    return (f"kwhatif: {len(tied)} candidates tie on every criterion ({listed(tied)}); kube-scheduler picks one "
            "at random (preemption.go pickOneNodeForPreemption: Go map order), kwhatif the smallest name — a real "
            "cluster may preempt on another of them, evicting that node's victims")
