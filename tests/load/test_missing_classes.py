"""The classes pending pods name and the snapshot lacks (`admission.missing_classes`): admission
refuses such pods (as the reference does, case t53), and a dump made without its classes
(`kubectl get nodes,pods`) would see every such pending pod skipped — one warning per kind of
class says which are missing and how to add them."""

from __future__ import annotations

import pytest

from kwhatif.api.objects import Pod, PriorityClass, RuntimeClass
from kwhatif.load.admission import missing_classes

CLASSES = {"high": PriorityClass("high", 1000)}
RUNTIMES = {"gvisor": RuntimeClass("gvisor", "runsc")}


def _pod(name: str, priority_class: str = "", runtime_class: str | None = None) -> Pod:
    return Pod("default", name, priority_class_name=priority_class, runtime_class_name=runtime_class)


PRIORITY_LACKING = ("a PriorityClass the snapshot lacks ({}): admission refuses {}, as the API server would refuse to "
                    "create {} (skipped); if the dump left the classes out, add them (kubectl get priorityclasses -o "
                    "yaml)")


@pytest.mark.parametrize("pods, expected", [
    # classes the snapshot has, the system ones and none at all: nothing to say
    ([_pod("a", "high"), _pod("b", "system-node-critical"), _pod("c"), _pod("d", runtime_class="gvisor")], []),
    ([_pod("a", "ghost")], ["1 pending pod names " + PRIORITY_LACKING.format("ghost", "it", "it")]),
    # one warning for the kind: each missing class once, sorted; every pod naming one counted
    ([_pod("a", "zeta"), _pod("b", "alpha"), _pod("c", "zeta"), _pod("d", "high")],
     ["3 pending pods name " + PRIORITY_LACKING.format("alpha, zeta", "them", "them")]),
    ([_pod("a", runtime_class="kata")],
     ["1 pending pod names a RuntimeClass the snapshot lacks (kata): admission refuses it, as the API server would "
      "refuse to create it (skipped); if the dump left the classes out, add them (kubectl get runtimeclasses -o "
      "yaml)"]),
])
def test_missing_classes(pods: list[Pod], expected: list[str]) -> None:
    assert missing_classes(pods, CLASSES, RUNTIMES) == expected
