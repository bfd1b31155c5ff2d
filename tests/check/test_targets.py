"""How `explain` reads a pod or workload reference, as kubectl reads it: NAME and KIND/NAME in the
namespace -n gives (else default), NAMESPACE/NAME, KIND/NAMESPACE/NAME, `pod`/`pods`/`po` naming
the pod itself."""

from __future__ import annotations

import pytest

from kwhatif.check.targets import kubectl_ref, workload_ref
from kwhatif.errors import InputError


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


def test_three_parts_with_no_kind_kubectl_knows_are_refused_with_the_names_it_takes() -> None:
    # A pod's key has two parts; three name a kind first (kubectl: `the server doesn't have a
    # resource type "foo"`).
    with pytest.raises(InputError) as err:
        kubectl_ref("foo/default/x", None)
    assert str(err.value) == ("foo/default/x: unknown kind 'foo' (KIND/NAMESPACE/NAME takes kubectl's names: pod, "
                              "deploy, sts, ds, rs, rc, job, cj, or the full names)")
