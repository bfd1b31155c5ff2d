"""The DRA CEL environment (dynamic-resource-allocation cel/compile.go) on the
`common-expression-language` library: `device.driver`, `device.attributes[domain].name`,
`device.capacity[domain].name`, `quantity(...)` with its comparison and arithmetic methods,
`semver(...)` with its comparisons, and the base environment's strings extension, lists, regex
and isSemver functions the library lacks (`lowerAscii`, `split`, `indexOf`, `isSorted`, `find`...).
Not available: `cel.bind` and optional-field syntax (`.?x`), which the library cannot parse — a
selector using them is a CEL error here where kube-scheduler evaluates it.

Choices forced by the library, written down:
- The library has no types of its own to add, so a quantity is the one-entry map
  `{"kubernetes.Quantity": <milli-units>}` (quantity("64Gi") holds 64·2^30·1000) and a version
  `{"kubernetes.Semver": <text>}`: equality is by value, exact to the milli; `compareTo`,
  `isGreaterThan`, `isLessThan`, `add` and `sub` (of a quantity, or of an int: that many units)
  work on them; and what cel-go has no overload for — `<`, `>=`, `+` on quantities or versions,
  string functions on a version — fails at run time as a map would (the API server refuses such
  a selector when the object is created; kwhatif does not type-check, see `kwhatif.api.cel`).
- As in Kubernetes a domain that a device lacks reads as an empty map (`device.attributes["x"]`
  is `{}`, compile.go's map with a default), while a missing name in it is the runtime error
  `no such key: <name>`. The library has no default for map lookups: a lookup of a missing key
  that is no domain of the device is taken as a domain, added empty, and the expression
  evaluated again; the same key missing again is a missing name. Membership (`"x" in
  device.attributes`) sees only the device's own domains, as upstream."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Callable

from kwhatif.api.cel import CelError, Selector, cel_library
from kwhatif.api.dra import Device, Version
from kwhatif.api.quantity import QuantityError, parse_quantity

QUANTITY, SEMVER = "kubernetes.Quantity", "kubernetes.Semver"
"""The key of the one-entry map that stands for a quantity, and for a version (cel-go's type names)."""
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")
_INT64 = 2**63
NO_OVERLOAD = "no such overload"


def _as_quantity(milli: int) -> dict[str, int]:
    return {QUANTITY: milli}


def _milli(value: Fraction) -> int:
    return int(value * 1000)


def _quantity(text: str) -> dict[str, int]:
    try:
        return _as_quantity(_milli(parse_quantity(text)))
    except QuantityError as err:
        raise CelError(f"quantity: {err}") from None


def _semver(text: str) -> dict[str, str]:
    if not _SEMVER.match(text):
        raise CelError(f"semver: invalid semantic version {text!r}")
    return {SEMVER: text}


def _value_of(value: Any, kind: str) -> Any:
    """The milli-units of a quantity, the text of a version; cel-go's error for anything else."""
    if isinstance(value, dict) and kind in value:
        return value[kind]
    raise CelError(NO_OVERLOAD)


def _semver_key(text: str) -> tuple:
    """Semantic-version precedence: numbers, then a release above any of its pre-releases,
    pre-release identifiers numeric before alphanumeric (semver.org §11)."""
    match = _SEMVER.match(text)
    if match is None:
        return ()
    major, minor, patch, pre = match.groups()
    pre_key: tuple = (1,) if pre is None else (0, tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")))
    return (int(major), int(minor), int(patch), pre_key)


def _compare(a: Any, b: Any) -> int:
    """compareTo of two quantities, or of two versions (by precedence)."""
    if isinstance(a, dict) and SEMVER in a:
        ka, kb = _semver_key(_value_of(a, SEMVER)), _semver_key(_value_of(b, SEMVER))
    else:
        ka, kb = _value_of(a, QUANTITY), _value_of(b, QUANTITY)
    return (ka > kb) - (ka < kb)


def _plus(a: Any, b: Any, sign: int) -> dict[str, int]:
    """add / sub: a quantity and another, or an int — that many units (quantity.go
    quantityAddInt: resource.NewQuantity(n))."""
    other = b * 1000 if isinstance(b, int) and not isinstance(b, bool) else _value_of(b, QUANTITY)
    return _as_quantity(_value_of(a, QUANTITY) + sign * other)


def _as_integer(a: Any) -> int:
    """asInteger: quantity.go quantityGetValue — an error unless the quantity is a whole int64."""
    milli = _value_of(a, QUANTITY)
    if milli % 1000 or not -_INT64 <= milli // 1000 < _INT64:
        raise CelError("cannot convert value to integer")
    return milli // 1000


def _split(text: str, separator: str, limit: int = -1) -> list[str]:
    """Go strings.SplitN: limit 0 is no part, a negative one every part, else at most `limit`."""
    if limit == 0:
        return []
    if separator == "":
        parts = list(text)
        return parts if limit < 0 or limit >= len(parts) else parts[:limit - 1] + ["".join(parts[limit - 1:])]
    return text.split(separator, -1 if limit < 0 else limit - 1)


def _char_at(text: str, index: int) -> str:
    if not 0 <= index <= len(text):
        raise CelError(f"index out of range: {index}")
    return text[index:index + 1]


def _index_of(receiver: Any, item: Any, offset: int = 0) -> int:
    """The strings extension's indexOf (a substring from `offset`), or the Kubernetes lists
    library's (an element; -1 when absent)."""
    if isinstance(receiver, list):
        return receiver.index(item) if item in receiver else -1
    if not 0 <= offset <= len(receiver):
        raise CelError(f"index out of range: {offset}")
    return receiver.find(item, offset)


def _last_index_of(receiver: Any, item: Any, offset: int | None = None) -> int:
    if isinstance(receiver, list):
        return len(receiver) - 1 - receiver[::-1].index(item) if item in receiver else -1
    end = len(receiver) if offset is None else offset
    if not 0 <= end <= len(receiver):
        raise CelError(f"index out of range: {end}")
    return receiver.rfind(item, 0, end + len(item))


def _substring(text: str, start: int, end: int | None = None) -> str:
    stop = len(text) if end is None else end
    if not 0 <= start <= stop <= len(text):
        raise CelError(f"index out of range: {start}, {stop}")
    return text[start:stop]


def _ascii(text: str, upper: bool) -> str:
    return "".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in text)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    # cel-go's strings extension (version 2), the Kubernetes lists and regex libraries, and
    # isSemver: in the base environment DRA selectors compile against (cel/compile.go newCompiler).
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": lambda text: _ascii(text, upper=False),
    "upperAscii": lambda text: _ascii(text, upper=True),
    "replace": lambda text, old, new, limit=-1: text.replace(old, new, limit),
    "split": _split,
    "substring": _substring,
    "trim": lambda text: text.strip(),
    "join": lambda items, separator="": separator.join(items),
    "isSorted": lambda items: all(a <= b for a, b in zip(items, items[1:])),
    "sum": lambda items: sum(items),
    "find": lambda text, pattern: (m.group(0) if (m := re.search(pattern, text)) else ""),
    "findAll": lambda text, pattern, limit=-1: [m.group(0) for m in re.finditer(pattern, text)][
        :None if limit < 0 else limit],
    "isSemver": lambda text: bool(_SEMVER.match(text)),

    "quantity": _quantity,
    "semver": _semver,
    "isQuantity": lambda text: _quantity_ok(text),
    "compareTo": _compare,
    "isGreaterThan": lambda a, b: _compare(a, b) > 0,
    "isLessThan": lambda a, b: _compare(a, b) < 0,
    "add": lambda a, b: _plus(a, b, 1),
    "sub": lambda a, b: _plus(a, b, -1),
    "asInteger": _as_integer,
    "asApproximateFloat": lambda a: _value_of(a, QUANTITY) / 1000.0,
    "sign": lambda a: (_value_of(a, QUANTITY) > 0) - (_value_of(a, QUANTITY) < 0),
    "isInteger": lambda a: _value_of(a, QUANTITY) % 1000 == 0 and -_INT64 <= _value_of(a, QUANTITY) // 1000 < _INT64,
    "major": lambda v: _semver_key(_value_of(v, SEMVER))[0],
    "minor": lambda v: _semver_key(_value_of(v, SEMVER))[1],
    "patch": lambda v: _semver_key(_value_of(v, SEMVER))[2],
}


def _quantity_ok(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def qualified(driver: str, name: str) -> tuple[str, str]:
    """(domain, identifier) of an attribute or capacity name; unqualified names are the driver's."""
    domain, _, ident = name.rpartition("/")
    return (domain or driver, ident)


def _attribute_value(value: object) -> object:
    return {SEMVER: value.text} if isinstance(value, Version) else value


def device_maps(driver: str, device: Device) -> tuple[dict[str, dict[str, object]], dict[str, dict[str, object]]]:
    """The `device.attributes` and `device.capacity` maps of compile.go: by domain, then name."""
    attributes: dict[str, dict[str, object]] = {}
    for name, value in device.attributes.items():
        domain, ident = qualified(driver, name)
        attributes.setdefault(domain, {})[ident] = _attribute_value(value)
    capacity: dict[str, dict[str, object]] = {}
    for name, amount in device.capacity.items():
        domain, ident = qualified(driver, name)
        capacity.setdefault(domain, {})[ident] = _as_quantity(_milli(amount))
    return attributes, capacity


def device_matches(selector: Selector, driver: str, device: Device) -> bool:
    """DeviceMatches: the expression's value for this device; CelError on a runtime error or a
    value that is not a bool."""
    attributes, capacity = device_maps(driver, device)
    defaulted: set[str] = set()
    while True:
        try:
            result = _evaluate(selector, driver, attributes, capacity)
        except KeyError as err:
            key = str(err.args[0])
            if key in defaulted or key in attributes or key in capacity:
                raise CelError(f"no such key: {key}") from None
            defaulted.add(key)  # a domain the device lacks: an empty map (see the module's docstring)
            attributes[key], capacity[key] = {}, {}
            continue
        if not isinstance(result, bool):
            raise CelError(_not_bool(result))
        return result


def _evaluate(selector: Selector, driver: str, attributes: dict[str, dict[str, object]],
              capacity: dict[str, dict[str, object]]) -> Any:
    context = cel_library().Context()
    for name, fn in FUNCTIONS.items():
        context.add_function(name, fn)
    context.add_variable("device", {"driver": driver, "attributes": attributes, "capacity": capacity})
    try:
        return selector.program.execute(context)
    except (KeyError, CelError):
        raise
    except Exception as err:  # the library's runtime errors (overflow, division by zero, types)
        raise CelError(_go_runtime_error(str(err))) from None


_GO_RUNTIME_ERRORS = (  # cel-go types/err.go errDivideByZero, errModulusByZero, errIntOverflow, NoSuchOverloadErr
    ("division by zero", "division by zero"),
    ("modulo by zero", "modulus by zero"),
    ("Arithmetic overflow", "integer overflow"),
    ("No such overload", NO_OVERLOAD),
    ("Unsupported operation", NO_OVERLOAD),
)


_RAISED_IN_A_FUNCTION = re.compile(r"Function '[^']*' error: Python function call failed: CelError: (.*)\. Check "
                                   r"function arguments and their types\.$", re.DOTALL)
"""How the library passes on the CelError of one of `FUNCTIONS` (its own text is the error)."""


def _go_runtime_error(text: str) -> str:
    """cel-go's words for the library's runtime errors where kwhatif knows them (the library
    says `division by zero in CEL expression` where cel-go says `division by zero`)."""
    raised = _RAISED_IN_A_FUNCTION.match(text)
    if raised:
        return raised.group(1)
    return next((go for ours, go in _GO_RUNTIME_ERRORS if text.startswith(ours)), text)


def _not_bool(result: object) -> str:
    """DeviceMatches' error for a selector whose value is not a bool (compile.go: the value's
    ConvertToNative to bool fails). The API server refuses selectors whose type is known not to
    be bool; an attribute's (dyn) only fails here. cel-go's own reason is known for a string
    (types/string.go) and an int (types/int.go)."""
    if isinstance(result, str):
        return ("CEL result of type string could not be converted to bool: "
                "unsupported native conversion from string to 'bool'")
    if isinstance(result, int):
        return "CEL result of type int could not be converted to bool: unsupported type conversion from 'int' to bool"
    kind = {float: "double", list: "list", dict: "map"}.get(type(result), "null_type")
    if isinstance(result, dict) and len(result) == 1 and next(iter(result)) in (QUANTITY, SEMVER):
        kind = next(iter(result))
    return f"CEL result of type {kind} could not be converted to bool"
