"""Label requirements, label selectors, plain map selectors and node selector terms (reference §5.4).

Gt/Lt read both sides with Go's `strconv.ParseInt(s, 10, 64)`: an optional sign, then ASCII
digits only (leading zeros allowed, no spaces, no underscores, no other digits), within int64.
"""

from __future__ import annotations

import pytest

from kwhatif.api.affinity import NodeSelector, NodeSelectorTerm
from kwhatif.api.selectors import LabelSelector, Requirement, map_matches, selector_from_map

REQUIREMENTS = [
    # (case, requirement, labels, matches)
    # In
    ("In matches a label whose value is in the list",
     Requirement("zone", "In", ("a", "b")), {"zone": "b"}, True),
    ("In doesn't match a label whose value is not in the list",
     Requirement("zone", "In", ("a", "b")), {"zone": "c"}, False),
    ("In doesn't match a missing label",
     Requirement("zone", "In", ("a", "b")), {"other": "a"}, False),
    ("In with an empty value matches a label set to the empty string",
     Requirement("k", "In", ("",)), {"k": ""}, True),
    # NotIn
    ("NotIn matches a label whose value is not in the list",
     Requirement("zone", "NotIn", ("a", "b")), {"zone": "c"}, True),
    ("NotIn doesn't match a label whose value is in the list",
     Requirement("zone", "NotIn", ("a", "b")), {"zone": "a"}, False),
    ("NotIn matches a missing label",
     Requirement("zone", "NotIn", ("a", "b")), {}, True),
    # Exists / DoesNotExist
    ("Exists matches a present label whatever its value",
     Requirement("gpu", "Exists"), {"gpu": ""}, True),
    ("Exists doesn't match a missing label",
     Requirement("gpu", "Exists"), {"cpu": "x"}, False),
    ("DoesNotExist matches a missing label",
     Requirement("gpu", "DoesNotExist"), {"cpu": "x"}, True),
    ("DoesNotExist doesn't match a present label",
     Requirement("gpu", "DoesNotExist"), {"gpu": "false"}, False),
    # Gt / Lt
    ("Gt matches a larger integer label",
     Requirement("gen", "Gt", ("7",)), {"gen": "8"}, True),
    ("Gt doesn't match an equal integer label",
     Requirement("gen", "Gt", ("8",)), {"gen": "8"}, False),
    ("Gt doesn't match a smaller integer label",
     Requirement("gen", "Gt", ("9",)), {"gen": "8"}, False),
    ("Lt matches a smaller integer label",
     Requirement("gen", "Lt", ("9",)), {"gen": "8"}, True),
    ("Lt doesn't match an equal integer label",
     Requirement("gen", "Lt", ("8",)), {"gen": "8"}, False),
    ("Gt compares as integers, not strings: 10 > 9",
     Requirement("gen", "Gt", ("9",)), {"gen": "10"}, True),
    ("Gt with a non-integer label never matches",
     Requirement("gen", "Gt", ("1",)), {"gen": "abc"}, False),
    ("Lt with a non-integer label never matches",
     Requirement("gen", "Lt", ("1",)), {"gen": "abc"}, False),
    ("Gt with a decimal label never matches (ParseInt refuses 1.5)",
     Requirement("gen", "Gt", ("1",)), {"gen": "1.5"}, False),
    ("Gt with an empty label value never matches",
     Requirement("gen", "Gt", ("-1",)), {"gen": ""}, False),
    ("Gt reads a leading zero: 08 is 8 > 7",
     Requirement("gen", "Gt", ("7",)), {"gen": "08"}, True),
    ("Gt reads a leading zero: 08 is 8, not > 8",
     Requirement("gen", "Gt", ("8",)), {"gen": "08"}, False),
    ("Lt reads a leading zero in the requirement value: 9 < 010",
     Requirement("gen", "Lt", ("010",)), {"gen": "9"}, True),
    ("Gt reads a leading plus sign: +5 is 5 > 4",
     Requirement("gen", "Gt", ("4",)), {"gen": "+5"}, True),
    ("Gt reads a leading plus sign in the requirement value: 6 > +5",
     Requirement("gen", "Gt", ("+5",)), {"gen": "6"}, True),
    ("Lt reads negative numbers: -3 < 0",
     Requirement("gen", "Lt", ("0",)), {"gen": "-3"}, True),
    ("Gt with a negative requirement value: 2 > -1",
     Requirement("gen", "Gt", ("-1",)), {"gen": "2"}, True),
    ("Gt with two values never matches",
     Requirement("gen", "Gt", ("7", "1")), {"gen": "8"}, False),
    ("Lt with two values never matches",
     Requirement("gen", "Lt", ("9", "10")), {"gen": "8"}, False),
    ("Gt with no value never matches",
     Requirement("gen", "Gt", ()), {"gen": "8"}, False),
    ("Gt with a non-integer requirement value never matches",
     Requirement("gen", "Gt", ("abc",)), {"gen": "8"}, False),
    ("Gt with a missing label never matches",
     Requirement("gen", "Gt", ("1",)), {"other": "8"}, False),
    ("Lt with a missing label never matches",
     Requirement("gen", "Lt", ("100",)), {}, False),
    ("Gt accepts the largest int64, 9223372036854775807",
     Requirement("gen", "Gt", ("0",)), {"gen": "9223372036854775807"}, True),
    ("Gt refuses 2^63, which overflows int64",
     Requirement("gen", "Gt", ("0",)), {"gen": "9223372036854775808"}, False),
    ("Lt accepts the smallest int64, -9223372036854775808",
     Requirement("gen", "Lt", ("0",)), {"gen": "-9223372036854775808"}, True),
    ("Lt refuses -2^63-1, which overflows int64",
     Requirement("gen", "Lt", ("0",)), {"gen": "-9223372036854775809"}, False),
    ("Gt refuses a label with a leading space",
     Requirement("gen", "Gt", ("1",)), {"gen": " 5"}, False),
    ("Gt refuses a label with a trailing space",
     Requirement("gen", "Gt", ("1",)), {"gen": "5 "}, False),
    ("Gt refuses underscores (ParseInt base 10 has no digit separators)",
     Requirement("gen", "Gt", ("1",)), {"gen": "1_000"}, False),
    ("Gt refuses non-ASCII digits (Arabic-Indic three)",
     Requirement("gen", "Gt", ("1",)), {"gen": "\u0663"}, False),
    ("Gt refuses hexadecimal",
     Requirement("gen", "Gt", ("1",)), {"gen": "0x10"}, False),
    ("Gt refuses a sign without digits",
     Requirement("gen", "Gt", ("-1",)), {"gen": "+"}, False),
    # Operators are case-sensitive; an unknown one never matches.
    ("an unknown operator never matches",
     Requirement("zone", "Foo", ("a",)), {"zone": "a"}, False),
    ("a lower-case operator is unknown and never matches",
     Requirement("zone", "in", ("a",)), {"zone": "a"}, False),
]


@pytest.mark.parametrize(
    "req, labels, expected", [c[1:] for c in REQUIREMENTS], ids=[c[0] for c in REQUIREMENTS]
)
def test_requirement_semantics(req, labels, expected):
    assert req.matches(labels) is expected


# ---------------------------------------------------------------------------------------------
# LabelSelector: an empty selector matches everything; otherwise all requirements are ANDed.
# ---------------------------------------------------------------------------------------------
WEB_NOT_DB = LabelSelector((
    Requirement("app", "In", ("web",)),
    Requirement("tier", "NotIn", ("db",)),
))

LABEL_SELECTORS = [
    ("an empty selector matches a pod without labels", LabelSelector(), {}, True),
    ("an empty selector matches any labels", LabelSelector(), {"app": "web"}, True),
    ("all requirements hold", WEB_NOT_DB, {"app": "web", "tier": "front"}, True),
    ("all requirements hold with the NotIn label missing", WEB_NOT_DB, {"app": "web"}, True),
    ("one requirement fails", WEB_NOT_DB, {"app": "web", "tier": "db"}, False),
    ("the other requirement fails", WEB_NOT_DB, {"app": "api"}, False),
    ("a selector from a map matches a superset of its labels",
     selector_from_map({"app": "web", "env": "prod"}), {"app": "web", "env": "prod", "x": "y"}, True),
    ("a selector from a map needs every key",
     selector_from_map({"app": "web", "env": "prod"}), {"app": "web"}, False),
    ("a selector from a map needs equal values",
     selector_from_map({"app": "web"}), {"app": "api"}, False),
    ("a selector from an empty map matches everything", selector_from_map({}), {"a": "b"}, True),
    ("added requirements are ANDed",
     WEB_NOT_DB.with_requirements((Requirement("pod-template-hash", "In", ("abc",)),)),
     {"app": "web", "pod-template-hash": "xyz"}, False),
    ("added requirements that hold keep the match",
     WEB_NOT_DB.with_requirements((Requirement("pod-template-hash", "In", ("abc",)),)),
     {"app": "web", "pod-template-hash": "abc"}, True),
]


@pytest.mark.parametrize(
    "selector, labels, expected",
    [c[1:] for c in LABEL_SELECTORS],
    ids=[c[0] for c in LABEL_SELECTORS],
)
def test_label_selector(selector, labels, expected):
    assert selector.matches(labels) is expected


def test_empty_selector_is_empty_and_others_are_not():
    assert LabelSelector().is_empty
    assert not WEB_NOT_DB.is_empty


# ---------------------------------------------------------------------------------------------
# Plain label maps (nodeSelector, Service selector): every key present with the same value.
# ---------------------------------------------------------------------------------------------
MAPS = [
    ("an empty map matches no labels", {}, {}, True),
    ("an empty map matches any labels", {}, {"a": "b"}, True),
    ("a map matches a superset of its labels", {"a": "b"}, {"a": "b", "c": "d"}, True),
    ("a map doesn't match a different value", {"a": "b"}, {"a": "c"}, False),
    ("a map doesn't match a missing key", {"a": "b"}, {"c": "b"}, False),
    ("an empty wanted value needs the key to be present", {"a": ""}, {}, False),
    ("an empty wanted value matches an empty label", {"a": ""}, {"a": ""}, True),
    ("every key must match", {"a": "1", "b": "2"}, {"a": "1", "b": "3"}, False),
]


@pytest.mark.parametrize(
    "selector, labels, expected", [c[1:] for c in MAPS], ids=[c[0] for c in MAPS]
)
def test_map_matches(selector, labels, expected):
    assert map_matches(selector, labels) is expected


# ---------------------------------------------------------------------------------------------
# NodeSelectorTerm / NodeSelector (§5.4 Filter): empty and invalid terms never match; matchFields
# only knows metadata.name; terms are ORed.
# ---------------------------------------------------------------------------------------------
SSD = Requirement("disk", "In", ("ssd",))
NAME_IN_N1 = Requirement("metadata.name", "In", ("n1",))
NAME_NOT_IN_N1 = Requirement("metadata.name", "NotIn", ("n1",))
SSD_LABELS = {"disk": "ssd"}

TERMS = [
    # (case, term, node labels, node name, matches)
    ("an empty term never matches", NodeSelectorTerm(), SSD_LABELS, "n1", False),
    ("an empty term never matches a node without labels", NodeSelectorTerm(), {}, "n1", False),
    ("an invalid term never matches, even when its expressions hold",
     NodeSelectorTerm(match_expressions=(SSD,), valid=False), SSD_LABELS, "n1", False),
    ("a term whose expressions hold matches",
     NodeSelectorTerm(match_expressions=(SSD,)), SSD_LABELS, "n1", True),
    ("a term whose expression fails doesn't match",
     NodeSelectorTerm(match_expressions=(SSD,)), {"disk": "hdd"}, "n1", False),
    ("all expressions of a term must hold",
     NodeSelectorTerm(match_expressions=(SSD, Requirement("gpu", "Exists"))), SSD_LABELS, "n1",
     False),
    ("matchFields metadata.name In matches the named node",
     NodeSelectorTerm(match_fields=(NAME_IN_N1,)), {}, "n1", True),
    ("matchFields metadata.name In doesn't match another node",
     NodeSelectorTerm(match_fields=(NAME_IN_N1,)), {}, "n2", False),
    ("matchFields metadata.name NotIn doesn't match the named node",
     NodeSelectorTerm(match_fields=(NAME_NOT_IN_N1,)), {}, "n1", False),
    ("matchFields metadata.name NotIn matches another node",
     NodeSelectorTerm(match_fields=(NAME_NOT_IN_N1,)), {}, "n2", True),
    ("matchFields are matched against the name, not the labels",
     NodeSelectorTerm(match_fields=(NAME_IN_N1,)), {"metadata.name": "n1"}, "n2", False),
    ("expressions and fields must both hold (fields fail)",
     NodeSelectorTerm(match_expressions=(SSD,), match_fields=(NAME_IN_N1,)), SSD_LABELS, "n2",
     False),
    ("expressions and fields must both hold (expressions fail)",
     NodeSelectorTerm(match_expressions=(SSD,), match_fields=(NAME_IN_N1,)), {}, "n1", False),
    ("expressions and fields both hold",
     NodeSelectorTerm(match_expressions=(SSD,), match_fields=(NAME_IN_N1,)), SSD_LABELS, "n1",
     True),
    ("an invalid matchFields-only term never matches",
     NodeSelectorTerm(match_fields=(NAME_IN_N1,), valid=False), {}, "n1", False),
]


@pytest.mark.parametrize(
    "term, labels, name, expected", [c[1:] for c in TERMS], ids=[c[0] for c in TERMS]
)
def test_node_selector_term(term, labels, name, expected):
    assert term.matches(labels, name) is expected


MATCHING = NodeSelectorTerm(match_expressions=(SSD,))
NOT_MATCHING = NodeSelectorTerm(match_expressions=(Requirement("disk", "In", ("hdd",)),))

NODE_SELECTORS = [
    ("a selector without terms matches nothing", NodeSelector(()), False),
    ("a selector with only an empty term matches nothing", NodeSelector((NodeSelectorTerm(),)), False),
    ("terms are ORed: the second term matches", NodeSelector((NOT_MATCHING, MATCHING)), True),
    ("no term matches", NodeSelector((NOT_MATCHING,)), False),
    ("an empty term is dropped and the other term still decides",
     NodeSelector((NodeSelectorTerm(), MATCHING)), True),
    ("an invalid term is skipped and the other terms are still evaluated",
     NodeSelector((NodeSelectorTerm(match_expressions=(SSD,), valid=False), MATCHING)), True),
    ("an invalid term alone matches nothing",
     NodeSelector((NodeSelectorTerm(match_expressions=(SSD,), valid=False),)), False),
]


@pytest.mark.parametrize(
    "selector, expected", [c[1:] for c in NODE_SELECTORS], ids=[c[0] for c in NODE_SELECTORS]
)
def test_node_selector_ors_its_terms(selector, expected):
    assert selector.matches(SSD_LABELS, "n1") is expected
