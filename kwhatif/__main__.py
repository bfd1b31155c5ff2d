"""`python -m kwhatif ...`: the same as the `kwhatif` console script."""

from __future__ import annotations

from kwhatif.cli.main import main

if __name__ == "__main__":
    main(prog_name="kwhatif")
