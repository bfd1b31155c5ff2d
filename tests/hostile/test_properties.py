"""Property tests of issue 7: hostile values never escape as anything but kwhatif's own errors.

- `parse_quantity` raises only QuantityError, and what it accepts is what the API server's
  regular expression accepts;
- label-selector decoding raises only InputError, and what it accepts has valid keys and values;
- the loader (`parse_bytes` + `decode_docs`) on random bytes, random YAML/JSON documents and
  mutated valid objects raises only InputError.
Each test is capped by `max_examples` so the whole file runs in well under 20 s.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.errors import InputError
from kwhatif.load.cluster import decode_docs
from kwhatif.api.names import is_qualified_name, is_valid_label_value
from kwhatif.load.selectors import label_selector
from kwhatif.load.fields import Fields
from kwhatif.load.reader import parse_bytes

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# The API server's quantity syntax (apimachinery resource.ParseQuantity's splitQuantityString):
# ASCII digits only, as Go reads them (a Python `\d` would also take e.g. U+112F0, a Khudawadi zero).
QUANTITY_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$", re.ASCII)

quantity_like = st.text(alphabet="0123456789.+-eEinumkKMGTPQ ", max_size=12)
json_scalars = st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70) | st.floats() | st.text(max_size=12)


# --------------------------------------------------------------------------------- quantities ----

@FAST
@given(st.one_of(quantity_like, st.text(max_size=20), json_scalars, st.lists(st.integers(), max_size=2)))
def test_parse_quantity_raises_only_quantity_error(value):
    try:
        result = parse_quantity(value)
    except QuantityError:
        # the documented syntax is always accepted; lists, booleans, None and NaN never are
        assert not (isinstance(value, str) and QUANTITY_RE.match(value))
        return
    assert isinstance(result, Fraction)
    assert isinstance(value, (str, int, float)) and not isinstance(value, bool)


@FAST
@given(st.integers(0, 10 ** 6), st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "Ti"]))
def test_well_formed_quantities_parse_to_their_value(number, suffix):
    multiplier = {"": 1, "m": Fraction(1, 1000), "k": 1000, "M": 10 ** 6, "G": 10 ** 9,
                  "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40}[suffix]
    assert parse_quantity(f"{number}{suffix}") == number * multiplier


@FAST
@given(st.from_regex(r"\A[+-]?[0-9]{1,4}(\.[0-9]{0,3})?[KMGTPE]i[KMGTPEimnu]+\Z")
       | st.from_regex(r"\A[0-9]{1,3}[QqZzYx%][0-9]?\Z") | st.from_regex(r"\A[0-9]+\.[0-9]+\.[0-9]+\Z"))
def test_bad_suffixes_and_numbers_are_refused(text):
    """Suffixes outside apimachinery's table (`10Q`, `5Gim`) and two decimal points (`1.5.3`)."""
    try:
        parse_quantity(text)
    except QuantityError:
        return
    raise AssertionError(f"{text!r} was accepted")


# ------------------------------------------------------------------------------ label selectors ----

label_keys = st.one_of(st.sampled_from(["app", "app.kubernetes.io/name", "a/b/c", "", "-x", "x" * 64, "Ex/y"]),
                       st.text(max_size=10))
requirement = st.fixed_dictionaries({}, optional={
    "key": st.one_of(label_keys, json_scalars),
    "operator": st.one_of(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Equals", ""]), json_scalars),
    "values": st.one_of(st.lists(st.one_of(st.text(max_size=8), json_scalars), max_size=3), json_scalars),
})
selector = st.one_of(
    json_scalars,
    st.fixed_dictionaries({}, optional={
        "matchLabels": st.one_of(st.dictionaries(label_keys, st.one_of(st.text(max_size=8), json_scalars), max_size=3),
                                 json_scalars),
        "matchExpressions": st.one_of(st.lists(st.one_of(requirement, json_scalars), max_size=3), json_scalars),
    }),
)


@FAST
@given(selector)
def test_label_selector_decoding_raises_only_input_error(raw):
    try:
        decoded = label_selector(Fields(None, "PodDisruptionBudget/default/x"), {"selector": raw}, "selector", "spec")
    except InputError as err:
        assert str(err).startswith("PodDisruptionBudget/default/x: spec.selector")
        return
    if decoded is None:
        assert raw is None
        return
    for req in decoded.requirements:
        assert not is_qualified_name(req.key)
        assert req.operator in ("In", "NotIn", "Exists", "DoesNotExist")
        assert not any(is_valid_label_value(v) for v in req.values)
        assert bool(req.values) == (req.operator in ("In", "NotIn"))


# ----------------------------------------------------------------------------------- the loader ----

VALID_POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "nodeName": "",
        "priority": 0,
        "containers": [{"name": "app", "image": "app:1", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                        "ports": [{"containerPort": 80, "hostPort": 8080}]}],
        "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}],
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}]}},
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
    },
    "status": {"phase": "Pending"},
}
VALID_NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"zone": "a"}},
              "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3) |
                           st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


@st.composite
def mutated_objects(draw):
    obj = json.loads(json.dumps(draw(st.sampled_from([VALID_POD, VALID_NODE]))))
    paths = [p for p in _paths(obj) if p]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        parent = obj
        try:
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = draw(json_values)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation replaced the parent
    return obj


def _load(data: bytes, name: str) -> None:
    docs = parse_bytes(data, name)
    decode_docs(docs)
    decode_docs(docs, full_validation=True)


@FAST
@given(st.binary(max_size=200))
def test_loader_on_random_bytes_raises_only_input_error(data):
    try:
        _load(data, "fuzz")
    except InputError:
        pass


@FAST
@given(st.lists(st.one_of(mutated_objects(), json_values), min_size=1, max_size=3), st.booleans(), st.integers(0, 400))
def test_loader_on_random_documents_raises_only_input_error(documents, as_json, cut):
    if as_json:
        data = b"\n".join(json.dumps(d).encode() for d in documents)
    else:
        data = yaml.safe_dump_all(documents).encode()
    for variant in (data, data[:cut]):  # whole, and truncated anywhere
        try:
            _load(variant, "fuzz.json" if as_json else "fuzz.yaml")
        except InputError as err:
            assert "\n" not in str(err)
