"""Issue 7's "1 GB dump": the real CLI on a dump of more than a gigabyte, on a terminal.

Generates (once, into bench/data/, gitignored) the issue-5 cluster as `kubectl get -o json`
prints it in full: 4-space indent, every pod with its own service-account token volume, mounts,
env and container statuses (`gen_scenarios.py scale --detail full --indent 4`: 1.37 GB). Then runs
`kwhatif schedule` on it (table output) with stderr on a pseudo-terminal (so that progress shows,
as a user sees it) and prints the wall time, the peak RSS of the run, its exit status and the
progress shown.
`--format yaml` does the same with a YAML List (smaller by default: YAML parses ~50 times slower).

Run: `python bench/big_dump.py [--format yaml] [--nodes N --pods-per-node P]`.
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
GENERATOR = HERE.parent.parent / "shared" / "tools" / "gen_scenarios.py"
KWHATIF = Path(sys.executable).parent / "kwhatif"


def dump(fmt: str, nodes: int, per_node: int) -> Path:
    path = HERE / "data" / f"full-{nodes}x{per_node}.{fmt}"
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        subprocess.run([sys.executable, str(GENERATOR), "scale", "--nodes", str(nodes), "--pods-per-node",
                        str(per_node), "--pending", "1000", "--format", fmt, "--seed", "7", "--indent", "4",
                        "--detail", "full", "--with-cluster-objects", "--out", str(path)], check=True)
    return path


def run_on_a_terminal(args: list[str]) -> tuple[int, str, float]:
    """(exit status, what stderr showed, seconds): stdout is discarded, stderr is a terminal."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    shown = bytearray()
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed: the run is over
            break
        if not chunk:
            break
        shown += chunk
    status = process.wait()
    os.close(master)
    return status, shown.decode(errors="replace"), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--format", choices=("json", "yaml"), default="json")
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--pods-per-node", type=int, default=30)
    args = parser.parse_args()
    nodes = args.nodes or (5000 if args.format == "json" else 500)
    path = dump(args.format, nodes, args.pods_per_node)
    print(f"dump: {path.name} ({path.stat().st_size / 2**20:.0f} MiB)")
    status, shown, seconds = run_on_a_terminal(
        [str(KWHATIF), "schedule", "-c", str(path), "--now", "2026-01-01T00:00:00Z"])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    updates = [u for u in re.split(r"[\r\n]+", shown) if u.strip()]
    print(f"kwhatif schedule: exit {status}, {seconds:.1f} s, peak RSS {peak:.0f} MiB")
    print(f"progress updates on the terminal: {len(updates)}; the first and last of each step:")
    steps: dict[str, list[str]] = {}
    for update in updates:
        steps.setdefault(update.split(":")[0], []).append(update)
    for shown_updates in steps.values():
        print("  " + "  ...  ".join(dict.fromkeys((shown_updates[0], shown_updates[-1]))))


if __name__ == "__main__":
    main()
