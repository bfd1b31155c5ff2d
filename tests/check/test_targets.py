"""How `explain` reads a pod or workload reference, as kubectl reads it: NAME and KIND/NAME in the
namespace -n gives (else default), NAMESPACE/NAME, KIND/NAMESPACE/NAME, `pod`/`pods`/`po` naming
the pod itself."""

from __future__ import annotations

import pytest

from kwhatif.check.targets import kubectl_ref, workload_ref


@pytest.mark.parametrize("ref, namespace, key", [
    ("web", None, "default/web"),
    ("web", "shop", "shop/web"),
    ("shop/web", None, "shop/web"),
    ("pod/web", "shop", "shop/web"),
    ("po/web", None, "default/web"),
    ("pods/shop/web", None, "shop/web"),
    ("deploy/frontend", "shop", "deploy/shop/frontend"),
    ("Deployment/shop/frontend", "other", "Deployment/shop/frontend"),
])
def test_a_reference_reads_as_kubectl_reads_it(ref: str, namespace: str | None, key: str) -> None:
    assert kubectl_ref(ref, namespace) == key


def test_a_workload_reference_names_its_kind_namespace_and_name() -> None:
    assert workload_ref(kubectl_ref("deploy/frontend", "shop")) == ("Deployment", "shop", "frontend")
    assert workload_ref(kubectl_ref("pod/web", "shop")) is None
