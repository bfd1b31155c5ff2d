"""JUnit XML: a report CI systems can always parse."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from kwhatif.render.junit import to_junit


def test_a_control_character_in_a_message_becomes_a_replacement_character() -> None:
    """XML 1.0 cannot write a BEL at all: written raw, the report would not parse."""
    data = {"workloads": [], "policies": [{"policy": "p", "ok": False, "messages": ["bell\x07"]}],
            "warnings": ["warned\x07"]}
    root = ET.fromstring(to_junit(data))
    assert root.find("./testsuite/testcase/failure").get("message") == "bell\ufffd"
    assert root.find("./testsuite/properties/property").get("value") == "warned\ufffd"
