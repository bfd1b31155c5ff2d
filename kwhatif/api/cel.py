"""Compiling the CEL selectors of DeviceClasses and ResourceClaims on the
`common-expression-language` library (dynamic-resource-allocation cel/compile.go
CompileCELExpression): what the API server does when such an object is created, and what the
scheduler's CEL cache does before a selector is evaluated. Evaluating one against a device is
the DynamicResources plugin's (`kwhatif.plugins.dynamic_resources.selectors`).

The library parses; it does not type-check, so an expression cel-go would refuse for its type
(`device.driver`: a string, not a bool) or an undeclared name compiles here. It also cannot
parse optional-field syntax (`.?x`), which cel-go can: that is no syntax error of the user's."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

_ISSUES = "ERROR: <input>:"
"""Where cel-go's (and the library's) report of a parse issue begins: `ERROR: <input>:1:5: ...`."""


class CelError(Exception):
    """A runtime error, with cel-go's wording where kwhatif knows it."""


class CelCompileError(CelError):
    """An expression the library cannot parse (the API server would have refused it, unless
    only the library fails: `syntax_error`)."""


@dataclass(frozen=True)
class Selector:
    """A compiled expression."""

    expression: str
    program: Any


@lru_cache(maxsize=1)
def cel_library() -> ModuleType:
    """The library, imported on first use: importing it costs ~0.45 s and ~28 MiB (its package
    also loads its command line's dependencies), which runs without DRA selectors never pay.
    Its logger is silenced: it logs a warning for each error a Python function raises, which
    kwhatif reports itself, in its own words (without a handler, Python would print the log line
    on stderr)."""
    import cel
    logging.getLogger("cel").setLevel(logging.CRITICAL)
    return cel


@lru_cache(maxsize=1024)
def compile_selector(expression: str) -> Selector:
    """cel.Cache.GetOrCompile: compile once per expression text; CelCompileError on a syntax error."""
    try:
        program = cel_library().compile(expression)
    except Exception as err:  # the library raises ValueError with the parser's report
        raise CelCompileError(str(err).splitlines()[0]) from None
    return Selector(expression, program)


def syntax_error(expression: str) -> str | None:
    """The API server's detail for an expression cel-go cannot parse: compile.go's
    `compilation failed: ` and the first line of cel-go's issues (the next two, the expression
    and a caret under the column, are left out of a one-line error). None when it parses, or
    when only the library cannot (its `unsupported syntax`): Filter then reports it."""
    try:
        compile_selector(expression)
    except CelCompileError as err:
        text = str(err)
        issues = text[text.find(_ISSUES):] if _ISSUES in text else ""
        return f"compilation failed: {issues}" if "Syntax error:" in issues else None
    return None
