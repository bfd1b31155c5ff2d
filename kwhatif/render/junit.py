"""JUnit XML for CI test reports: one testcase per workload (a failure carries the
FailedScheduling message of its first pod that does not fit), one per policy; the warnings as
properties of the suite and in its system-out (where CI report viewers show them)."""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree as ET

from kwhatif.engine import ADMISSION
from kwhatif.render.check import result_word, rollout_line, workload_ref


def failure_type(w: dict[str, Any]) -> str:
    """`Refused` when the API server turns the apply down — the workload object, the ReplicaSet
    of its new template, or its pods at admission (a quota): nothing of it is ever scheduled;
    `Unschedulable` when its pods are made and some fit nowhere. CI reports group by it."""
    rollout = w.get("rollout") or {}
    if rollout.get("refused") or w["change"] == "refused" or (w["message"] or "").startswith(ADMISSION):
        return "Refused"
    return "Unschedulable"


def to_junit(data: dict[str, Any]) -> str:
    cases = []
    for w in data["workloads"]:
        case = ET.Element("testcase", {"classname": f"kwhatif.check.{w['kind']}", "name": workload_ref(w)})
        if w["source"]:
            case.set("file", w["source"]["file"])
            if w["source"]["line"] is not None:
                case.set("line", str(w["source"]["line"]))
        rollout = rollout_line(w)
        if not w["ok"]:
            failure = ET.SubElement(case, "failure", {"message": w["message"] or "does not fit",
                                                      "type": failure_type(w)})
            failure.text = (f"{w['pods']} pods: {w['bound']} bound, {w['pending']} pending, "
                            f"{w['evictions']} evictions\n{w['message'] or ''}" + (f"\n{rollout}" if rollout else ""))
        elif rollout or result_word(w) == "no node":  # a DaemonSet on no node passes, said beside it
            said = w["message"] if result_word(w) == "no node" else ""
            ET.SubElement(case, "system-out").text = "\n".join(t for t in (said, rollout) if t)
        cases.append(case)
    for p in data["policies"]:
        case = ET.Element("testcase", {"classname": "kwhatif.check.policy", "name": p["policy"]})
        if not p["ok"]:
            failure = ET.SubElement(case, "failure", {"message": p["messages"][0] if p["messages"] else "failed",
                                                      "type": "Policy"})
            failure.text = "\n".join(p["messages"])
        cases.append(case)
    failures = sum(1 for c in cases if c.find("failure") is not None)
    suites = ET.Element("testsuites", {"name": "kwhatif check", "tests": str(len(cases)), "failures": str(failures)})
    suite = ET.SubElement(suites, "testsuite", {"name": "kwhatif check", "tests": str(len(cases)),
                                                "failures": str(failures), "errors": "0", "skipped": "0"})
    if data["warnings"]:
        properties = ET.SubElement(suite, "properties")
        for warning in data["warnings"]:
            ET.SubElement(properties, "property", {"name": "kwhatif.warning", "value": warning})
    suite.extend(cases)
    if data["warnings"]:
        ET.SubElement(suite, "system-out").text = "\n".join(f"warning: {w}" for w in data["warnings"])
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + _xml_chars(ET.tostring(suites, encoding="unicode")) + "\n"


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_chars(text: str) -> str:
    """XML 1.0 has no way to write a control character (a warning quoting a manifest's field
    name may hold one): ElementTree writes it raw and the report no longer parses; each becomes
    U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)
