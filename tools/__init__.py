"""Release tooling run by `make` targets, outside the kwhatif package (never imported by it)."""
