"""`python -m kwhatif ...`: the same as the `kwhatif` console script."""

from __future__ import annotations

from kwhatif.cli.main import entry

if __name__ == "__main__":
    entry(prog_name="kwhatif")
