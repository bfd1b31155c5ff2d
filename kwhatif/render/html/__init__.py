"""`-o html`: one self-contained page (inline CSS, no script, no URL) for `schedule`, `explain`
and `check`, drawn from the plain data each command already builds. One writer serves the three
(`WRITERS["html"]`): the data says which page it is — an `explanation` is explain's, `workloads`
check's, anything else a schedule run's."""

from __future__ import annotations

from typing import Any

from kwhatif.engine import Simulation
from kwhatif.render.html.explain import explain_page
from kwhatif.render.html.runs import check_page, schedule_page
from kwhatif.render.html.utilisation import utilisation_data


def to_html(data: dict[str, Any]) -> str:
    if "explanation" in data:
        return explain_page(data)
    if "workloads" in data:
        return check_page(data)
    return schedule_page(data)


def with_utilisation(data: dict[str, Any], sim: Simulation) -> dict[str, Any]:
    """The run's data with the heat map's figures added (computed for the page alone: the JSON
    contract stays as it is)."""
    return {**data, "utilisation": utilisation_data(sim.snapshot)}
