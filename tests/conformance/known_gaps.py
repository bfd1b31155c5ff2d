"""Reference cases kwhatif does not match yet, each with the capability (issue) it waits for.

The conformance test marks these strict xfail, so a case that starts passing is noticed and
must be removed from here."""

KNOWN_GAPS: dict[str, str] = {}
