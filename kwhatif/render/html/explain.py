"""`explain -o html`: one pod's explanation as a page — the upstream message verbatim, the reason
groups, the winner's score per plugin beside the runner-up's as bars, the preemption outcome,
the suggestions and the requeue events. Drawn from `render.results.explained_pod_data`."""

from __future__ import annotations

from html import escape
from typing import Any

from kwhatif.explain.summary import Spread
from kwhatif.framework.scheduler import Outcome
from kwhatif.render.explain import (
    message_head, no_candidate_groups, reasons_text, sampled_candidates_note, spread_text,
)
from kwhatif.render.html.page import page, paragraph, section, table
from kwhatif.render.table import preemption_tie

BAR_PX = 240  # the longest bar; the others are to scale


def explain_page(data: dict[str, Any]) -> str:
    exp = data["explanation"]
    where = f" on {data['node']}" if data["node"] else ""
    body = [paragraph(f"Pod {data['pod']} (priority {data['priority']}): {data['outcome']}{where}")]
    if data["message"]:
        head = message_head(Outcome(data["outcome"]), bool(exp["attempts"]), data.get("message")).rstrip(":")
        body.append(section(head, f"<pre class=\"message\">{escape(data['message'])}</pre>\n"))
    many = len(exp["attempts"]) > 1
    for i, attempt in enumerate(exp["attempts"], 1):
        suffix = f" (attempt {i}: {attempt['outcome']})" if many else ""
        body.append(section("Rejected nodes, grouped by what stopped them" + suffix, groups_table(attempt)))
        body.append(score_section(attempt, suffix))
    body.append(preemption_section(exp["preemption"]))
    if exp["suggestions"]:
        items = "".join(f"<li>{escape(s['summary'])}</li>" for s in exp["suggestions"])
        body.append(section("What would make it fit (each proven by re-running the scheduler)", f"<ul>{items}</ul>\n"))
    if exp["requeue_on"]:
        rows = [(e["plugin"], e["resource"], "|".join(e["actions"]), e["why"]) for e in exp["requeue_on"]]
        body.append(section("kube-scheduler retries it on (its rejecting plugins' events)",
                            table(["plugin", "resource", "actions", "why"], rows)))
    return page(f"kwhatif explain {data['pod']}", body)


def groups_table(attempt: dict[str, Any]) -> str:
    """Every group (the text summary shows eight): plugin, code, reasons, count, how far the
    nodes are from fitting, example nodes, the filters that reject them too."""
    verdicts = attempt["verdicts"]
    feasible = sum(1 for v in verdicts if v["feasible"])
    counts = paragraph(f"{len(verdicts)} node(s) evaluated: {len(verdicts) - feasible} rejected, {feasible} feasible")
    if not attempt["groups"]:
        return counts
    rows = [(g["plugin"], g["code"], reasons_text(g["reasons"], g.get("taint_key")), g["count"],
             "; ".join(g["insight"] or [spread_text(Spread(**s)) for s in g["spreads"]]),
             ", ".join(g["examples"]) + (", …" if g["count"] > len(g["examples"]) else ""),
             "; ".join(f"{a['count']}: {a['filter']}" for a in g["also_fails"]))
            for g in attempt["groups"]]
    return counts + table(["plugin", "code", "reasons", "nodes", "what the nodes miss", "e.g.",
                           "also fail (kwhatif)"], rows)


def score_section(attempt: dict[str, Any], suffix: str) -> str:
    """Bars of the winner's weighted score per plugin beside the runner-up's (verdicts come best
    first: by total, then name, so the first is the node kwhatif picks)."""
    ranked = [v for v in attempt["verdicts"] if v["feasible"] and v["total"] is not None]
    if not ranked:
        return ""
    shown = ranked[:2]
    plugins = sorted({p for v in shown for p in v["scores"]})
    scale = max([1, *(v["scores"].get(p, 0) for v in shown for p in plugins)])
    header = ["plugin", *(f"{'winner' if i == 0 else 'runner-up'}: {v['node']}" for i, v in enumerate(shown))]
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    rows = "".join(
        f"<tr><td>{escape(p)}</td>" + "".join(bar_cell(v, p, i, scale) for i, v in enumerate(shown)) + "</tr>\n"
        for p in plugins)
    totals = "<tr><th>total</th>" + "".join(f'<td class="num">{v["total"]}</td>' for v in shown) + "</tr>\n"
    return section("Scores: winner and runner-up" + suffix, margin_note(attempt, shown),
                   f'<table class="scores"><tr>{head}</tr>\n{rows}{totals}</table>\n')


def bar_cell(verdict: dict[str, Any], plugin: str, rank: int, scale: int) -> str:
    score = verdict["scores"].get(plugin, 0)
    css = "winner" if rank == 0 else "runner-up"
    return (f'<td data-node="{escape(verdict["node"])}" data-plugin="{escape(plugin)}" data-score="{score}">'
            f'<span class="bar {css}" style="width:{BAR_PX * score // scale}px"></span> {score}</td>')


def margin_note(attempt: dict[str, Any], shown: list[dict[str, Any]]) -> str:
    tied = attempt["tied_nodes"]
    if len(tied) > 1:
        return paragraph(f"{len(tied)} nodes tie at the top; kube-scheduler picks one at random, kwhatif the "
                         "smallest name.", "note")
    if len(shown) == 1:
        return paragraph("Only one node was feasible.", "note")
    return paragraph(f"The winner leads by {shown[0]['total'] - shown[1]['total']}.", "note")


def preemption_section(preemption: dict[str, Any] | None) -> str:
    """What the table says of preemption: not eligible and why; else the potential nodes and the
    candidates — why none is one, grouped, or the chosen node, its victims, a tie, and whether a
    real cluster may choose another (it stops at about 100 candidates)."""
    if not preemption:
        return ""
    if preemption.get("not_eligible"):
        return section("Preemption", paragraph(f"Not eligible: {preemption['not_eligible']}"))
    potential, candidates = preemption.get("potential_nodes", []), preemption.get("candidates", [])
    parts = [paragraph(f"Potential nodes (status Unschedulable): {len(potential)}; candidates (nodes where "
                       f"evictions make room): {len(candidates)}.")]
    if not candidates:
        rows = [(why, len(nodes), ", ".join(nodes[:3]) + (", …" if len(nodes) > 3 else ""))
                for why, nodes in no_candidate_groups(preemption.get("node_results", {}))]
        parts.append(table(["why no candidate", "nodes", "e.g."], rows) if rows else "")
    chosen = preemption.get("chosen")
    if chosen is not None:
        victims: list[dict[str, Any]] = next((c["victims"] for c in candidates if c["node"] == chosen), [])
        parts.append(paragraph(f"Nominated node {chosen} (decided by: {preemption['decided_by']})."))
        parts.append(table(["victim", "priority", "breaks PDB"],
                           [(v["pod"], v["priority"], ", ".join(v["breaks_pdb"])) for v in victims]))
        notes = [preemption_tie(preemption), sampled_candidates_note(len(potential), len(candidates))]
        parts.extend(paragraph(note, "note") for note in notes if note)
    return section("Preemption", *parts)
