"""The sweep benchmark of issue 18: a prepared snapshot of the scale dump (bench/run.py's, made
when missing), then one sweep of N scenarios (a node template x N counts, each scenario a full
`schedule` of the dump's pending pods) run with --jobs 1, --jobs 2 and on a local Dask cluster
of 2 worker processes (a fresh one each run, as a sweep would meet it). Prints, as measured on
this machine: prepare and load time of the snapshot, each executor's wall time, the cost per
scenario and each run's peak memory per process. The two parallel executors are compared over
`--repeat` runs each, taken in turns, by their best run: on a shared VM one run swings by 20-40 %
either way, and the best of a few is what the code costs rather than what the neighbours did.
Run: `python bench/sweep.py [--nodes N --pods-per-node P --pending K --scenarios S --repeat R
--no-dask]`.""" 

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from run import workload  # noqa: E402  (bench/ is scripts, not a package)

KWHATIF = str(Path(sys.executable).parent / "kwhatif")
NOW = "2026-01-01T00:00:00Z"
TEMPLATE = """apiVersion: v1
kind: Node
metadata: {name: bench-added, labels: {kubernetes.io/os: linux, topology.kubernetes.io/zone: zone-a}}
status:
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
"""


CPU: list[float] = []  # CPU seconds of the last `timed` run, its worker processes included


def timed(args: list[str]) -> tuple[float, str]:
    """Wall seconds and stdout of a command; its CPU seconds (user + system, with its reaped
    worker processes) in CPU[0]: on a shared machine the wall time is mostly waiting."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}: {done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[:] = [after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime]
    return time.perf_counter() - start, done.stdout


def children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods-per-node", type=int, default=30)
    parser.add_argument("--pending", type=int, default=1000)
    parser.add_argument("--scenarios", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    dump = workload(args.nodes, args.pods_per_node, args.pending)
    prepared = dump.with_suffix(".kws")
    seconds, _ = timed([KWHATIF, "snapshot", "prepare", str(dump), "-o", str(prepared), "-q"])
    print(f"prepare {dump.name}: {seconds:.1f} s ({CPU[0]:.1f} s CPU), {prepared.stat().st_size / 1e6:.0f} MB")
    seconds, _ = timed([KWHATIF, "schedule", "-c", str(prepared), "--now", NOW, "--no-node-detail", "-o", "json", "-q"])
    print(f"schedule -c {prepared.name}: {seconds:.1f} s ({CPU[0]:.1f} s CPU; load + one scenario)")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "node.yaml").write_text(TEMPLATE)
        sweep = Path(folder) / "sweep.yaml"
        sweep.write_text(json.dumps({"kind": "Sweep", "now": NOW, "snapshots": [str(prepared)],
                                     "nodes": [{"template": "node.yaml", "counts": list(range(args.scenarios))}]}))
        outputs = {}
        one, outputs["--jobs 1"] = timed([KWHATIF, "sweep", str(sweep), "-o", "json", "-q", "--jobs", "1"])
        print(f"sweep {args.scenarios} scenarios --jobs 1: {one:.1f} s wall, {CPU[0]:.1f} s CPU = "
              f"{CPU[0] / args.scenarios:.2f} s CPU a scenario; peak memory of a process so far "
              f"{children_peak_mb():.0f} MB")
        walls: dict[str, list[float]] = {"--jobs 2": [], "--dask": []}
        for _ in range(max(args.repeat, 1)):
            seconds, outputs["--jobs 2"] = timed([KWHATIF, "sweep", str(sweep), "-o", "json", "-q", "--jobs", "2"])
            walls["--jobs 2"].append(seconds)
            if not args.no_dask:
                seconds, outputs["--dask"] = dask_run(sweep)
                walls["--dask"].append(seconds)
        for name, runs in walls.items():
            if runs:
                print(f"sweep {args.scenarios} scenarios {name}: best {min(runs):.1f} s wall "
                      f"(runs: {', '.join(f'{r:.1f}' for r in runs)})")
        print(f"--jobs 1 / --jobs 2 (best): x{one / min(walls['--jobs 2']):.2f}")
        if walls["--dask"]:
            print(f"--dask / --jobs 2 (best runs): {min(walls['--dask']) / min(walls['--jobs 2']):.2f}")
        print("identical rows:", len(set(outputs.values())) == 1)


def dask_run(sweep: Path) -> tuple[float, str]:
    """One `--dask` sweep on a LocalCluster of 2 worker processes started for it."""
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster:
        return timed([KWHATIF, "sweep", str(sweep), "-o", "json", "-q", "--dask", str(cluster.scheduler_address)])


if __name__ == "__main__":
    main()
