"""apimachinery's field errors (`util/validation/field`) and error aggregates, as the API server's
and kube-scheduler's validation word them, and the name checks their validation runs on top of
`kwhatif.api.names`. Here, below both the loader and the scheduler configuration, so that either
can say an error the way upstream says it."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from kwhatif.api.names import is_qualified_name
from kwhatif.golang import go_quote, value_text

def child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    return f"{path}[{k}]"


def invalid(path: str, value: Any, detail: str) -> str:
    text = f"{path}: Invalid value: {value_text(value)}"
    return f"{text}: {detail}" if detail else text


def required(path: str, detail: str = "") -> str:
    return f"{path}: Required value: {detail}" if detail else f"{path}: Required value"


def forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}" if detail else f"{path}: Forbidden"


def duplicate(path: str, value: Any) -> str:
    return f"{path}: Duplicate value: {value_text(value)}"


def not_supported(path: str, value: Any, supported: Sequence[str]) -> str:
    text = f"{path}: Unsupported value: {value_text(value)}"
    if supported:
        text += ": supported values: " + ", ".join(go_quote(s) for s in supported)
    return text


def aggregate(messages: Iterable[str]) -> str | None:
    """utilerrors.Aggregate.Error(): messages de-duplicated; one alone as is, several as `[a, b]`."""
    seen: list[str] = []
    for msg in messages:
        if msg not in seen:
            seen.append(msg)
    if not seen:
        return None
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def validate_label_name(name: str, path: str) -> list[str]:
    """metav1validation.ValidateLabelName: one error per failed rule."""
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]

