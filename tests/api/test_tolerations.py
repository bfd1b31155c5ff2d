"""Toleration matching (reference §5.2).

A toleration tolerates a taint when: its effect is empty or equal to the taint's; its key is empty
or equal to the taint's; and operator Exists, or operator empty/Equal with an equal value. Any
other operator never matches. tolerationSeconds plays no part.
"""

from __future__ import annotations

import pytest

from kwhatif.api.tolerations import tolerates
from tests.builders import make_taint, make_toleration

GPU_NS = make_taint("gpu", "true", "NoSchedule")
GPU_NE = make_taint("gpu", "true", "NoExecute")
GPU_PNS = make_taint("gpu", "true", "PreferNoSchedule")
CONTROL_PLANE = make_taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")
OTHER_NS = make_taint("dedicated", "infra", "NoSchedule")

CASES = [
    # (case, toleration, taint, tolerated)
    # Equal / empty operator
    ("Equal with the same key, value and effect tolerates",
     make_toleration("gpu", "Equal", "true", "NoSchedule"), GPU_NS, True),
    ("Equal with a different value doesn't tolerate",
     make_toleration("gpu", "Equal", "false", "NoSchedule"), GPU_NS, False),
    ("Equal with a different key doesn't tolerate",
     make_toleration("tpu", "Equal", "true", "NoSchedule"), GPU_NS, False),
    ("Equal with a different effect doesn't tolerate",
     make_toleration("gpu", "Equal", "true", "NoExecute"), GPU_NS, False),
    ("Equal without an effect tolerates every effect (NoSchedule)",
     make_toleration("gpu", "Equal", "true"), GPU_NS, True),
    ("Equal without an effect tolerates every effect (NoExecute)",
     make_toleration("gpu", "Equal", "true"), GPU_NE, True),
    ("Equal without an effect tolerates every effect (PreferNoSchedule)",
     make_toleration("gpu", "Equal", "true"), GPU_PNS, True),
    ("Equal with an empty value tolerates a value-less taint",
     make_toleration("node-role.kubernetes.io/control-plane", "Equal", "", "NoSchedule"),
     CONTROL_PLANE, True),
    ("Equal with an empty value doesn't tolerate a taint that has a value",
     make_toleration("gpu", "Equal", "", "NoSchedule"), GPU_NS, False),
    ("Equal with a value doesn't tolerate a value-less taint",
     make_toleration("node-role.kubernetes.io/control-plane", "Equal", "x"), CONTROL_PLANE, False),
    ("an empty operator means Equal: same value tolerates",
     make_toleration("gpu", "", "true", "NoSchedule"), GPU_NS, True),
    ("an empty operator means Equal: another value doesn't tolerate",
     make_toleration("gpu", "", "false", "NoSchedule"), GPU_NS, False),
    ("an empty operator and empty value tolerate a value-less taint",
     make_toleration("node-role.kubernetes.io/control-plane"), CONTROL_PLANE, True),
    ("Equal with an empty key matches any key with that value",
     make_toleration("", "Equal", "true"), GPU_NS, True),
    ("Equal with an empty key still needs the value",
     make_toleration("", "Equal", "true"), OTHER_NS, False),
    # Exists
    ("key-only Exists tolerates the key whatever the value and effect",
     make_toleration("gpu", "Exists"), GPU_NE, True),
    ("key-only Exists ignores a value given with it",
     make_toleration("gpu", "Exists", "ignored"), GPU_NS, True),
    ("key-only Exists doesn't tolerate another key",
     make_toleration("gpu", "Exists"), OTHER_NS, False),
    ("key-only Exists tolerates a value-less taint",
     make_toleration("node-role.kubernetes.io/control-plane", "Exists"), CONTROL_PLANE, True),
    ("empty-key Exists tolerates every taint (NoSchedule)",
     make_toleration("", "Exists"), OTHER_NS, True),
    ("empty-key Exists tolerates every taint (NoExecute)",
     make_toleration("", "Exists"), GPU_NE, True),
    ("empty-key Exists tolerates every taint (value-less)",
     make_toleration("", "Exists"), CONTROL_PLANE, True),
    ("effect-restricted Exists tolerates that effect",
     make_toleration("", "Exists", effect="NoSchedule"), GPU_NS, True),
    ("effect-restricted Exists doesn't tolerate NoExecute",
     make_toleration("", "Exists", effect="NoSchedule"), GPU_NE, False),
    ("effect-restricted Exists doesn't tolerate PreferNoSchedule",
     make_toleration("", "Exists", effect="NoSchedule"), GPU_PNS, False),
    ("key- and effect-restricted Exists needs both",
     make_toleration("gpu", "Exists", effect="NoExecute"), GPU_NS, False),
    # Unknown operators
    ("an unknown operator never tolerates",
     make_toleration("gpu", "In", "true", "NoSchedule"), GPU_NS, False),
    ("an unknown operator with an empty key never tolerates",
     make_toleration("", "Gt", "1"), GPU_NS, False),
    ("operators are case-sensitive: exists is unknown",
     make_toleration("gpu", "exists"), GPU_NS, False),
    ("operators are case-sensitive: equal is unknown",
     make_toleration("gpu", "equal", "true"), GPU_NS, False),
    # tolerationSeconds
    ("tolerationSeconds doesn't affect matching",
     make_toleration("gpu", "Exists", effect="NoExecute", seconds=0), GPU_NE, True),
]


@pytest.mark.parametrize(
    "toleration, taint, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_toleration_tolerates_taint(toleration, taint, expected):
    assert toleration.tolerates(taint) is expected


ANY_OF = [
    # (case, tolerations, taint, tolerated)
    ("a pod with no tolerations can't tolerate a NoSchedule taint", (), GPU_NS, False),
    ("a pod with no tolerations can't tolerate a PreferNoSchedule taint", (), GPU_PNS, False),
    ("one matching toleration among others is enough",
     (make_toleration("tpu", "Exists"), make_toleration("gpu", "Equal", "true")), GPU_NS, True),
    ("no toleration in the list matches",
     (make_toleration("tpu", "Exists"), make_toleration("gpu", "Equal", "false")), GPU_NS, False),
    ("an empty-key Exists anywhere in the list tolerates",
     (make_toleration("tpu", "Equal", "x"), make_toleration("", "Exists")), OTHER_NS, True),
]


@pytest.mark.parametrize(
    "tolerations, taint, expected", [c[1:] for c in ANY_OF], ids=[c[0] for c in ANY_OF]
)
def test_a_taint_is_tolerated_by_any_toleration(tolerations, taint, expected):
    assert tolerates(tolerations, taint) is expected
