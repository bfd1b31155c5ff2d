"""JUnit XML: a report CI systems can always parse."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from kwhatif.render.junit import to_junit


def test_a_control_character_in_a_message_becomes_a_replacement_character() -> None:
    """XML 1.0 cannot write a BEL at all: written raw, the report would not parse."""
    data = {"workloads": [], "policies": [{"policy": "p", "ok": False, "messages": ["bell\x07"]}],
            "warnings": ["warned\x07"]}
    root = ET.fromstring(to_junit(data))
    assert root.find("./testsuite/testcase/failure").get("message") == "bell\ufffd"
    assert root.find("./testsuite/properties/property").get("value") == "warned\ufffd"


def _workload(change: str, message: str, refused: str | None = None) -> dict:
    return {"kind": "Deployment", "namespace": "shop", "name": "web", "source": None, "change": change, "pods": 2,
            "bound": 1, "pending": 1, "evictions": 0, "ok": False, "message": message,
            "rollout": {"refused": refused, "steps": [], "note": "", "stuck_at": None} if refused is not None else None}


@pytest.mark.parametrize("workload, kind", [
    # A pod that fits nowhere: the scheduler's verdict.
    (_workload("new", "0/3 nodes are available: 3 Insufficient cpu. preemption: ..."), "Unschedulable"),
    # The API server turns the apply down: the object (an immutable field, an object-count
    # quota), the ReplicaSet of its new template, or its pods at admission (a ResourceQuota).
    (_workload("refused", 'The Pod "web" is invalid: spec: Forbidden: ...', 'The Pod "web" is invalid: ...'),
     "Refused"),
    (_workload("new", 'admission: pods "web-1" is forbidden: exceeded quota: pods, requested: pods=1, ...'),
     "Refused"),
])
def test_a_workloads_failure_type_says_whether_the_api_server_refused_it(workload: dict, kind: str) -> None:
    """CI report viewers group failures by type: a refusal asks for another change than a
    pod that does not fit."""
    data = {"workloads": [workload], "policies": [], "warnings": []}
    assert ET.fromstring(to_junit(data)).find("./testsuite/testcase/failure").get("type") == kind
