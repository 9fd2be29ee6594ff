"""The lazy cluster's answers do not depend on the cores that run it: the same 4-worker
lockstep config (``configs/decomposition/lazy-cluster.yaml`` unless another is given) over
a suite, on 2 Dask worker processes, once pinned to one core (``taskset -c 0``) and once to
two (``taskset -c 0,1``); every move, score, depth and node count must be identical (and, as a
third run, equal to the in-process reference).  Exit 1 if any differs.

Usage: python benchmarks/lockstep_cores.py [--config lazy-cluster] [--suite data/suites/bratko-kopec.epd]
                                           [--positions 24] [--nodes 20000]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def positions(suite: str, count: int) -> list[str]:
    lines = [line for line in Path(suite).read_text().splitlines() if line.strip()]
    return [" ".join(line.split()[:4]) + " 0 1" for line in lines[:count]]


def run(args) -> list[dict]:
    """This process's answers (``--child``): the lockstep search of every position, in order,
    with the workers' tables kept from one to the next."""
    from dataclasses import replace
    from players.decomposition.config import load_decomposition
    from players.decomposition.lockstep import run_lockstep
    from players.decomposition.master_worker import Team
    config = load_decomposition(args.config)
    options = replace(config.search, hash_mb=args.hash)
    if args.child == "dask":
        from players.decomposition.lockstep_dask import DaskTeam
        transport = DaskTeam(options, config.workers, processes=2)
    else:
        transport = Team(options, config.workers)
    out = []
    try:
        for fen in positions(args.suite, args.positions):
            r = run_lockstep(transport, config.options, fen, nodes=args.nodes)
            out.append({"fen": fen, "move": r.move, "score": r.score, "depth": r.depth,
                        "worker_nodes": list(r.worker_nodes), "slices": r.slices, "messages": r.messages,
                        "entries": r.entries_sent, "seconds": round(r.seconds, 2)})
    finally:
        transport.close()
    return out


def child(args, cores: str | None, mode: str) -> tuple[list[dict], float]:
    command = [sys.executable, __file__, "--child", mode, "--config", args.config, "--suite", args.suite,
               "--positions", str(args.positions), "--nodes", str(args.nodes), "--hash", str(args.hash)]
    if cores is not None:
        command = ["taskset", "-c", cores] + command
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout.strip().splitlines()[-1]), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="lazy-cluster")
    parser.add_argument("--suite", default=str(ROOT / "data" / "suites" / "bratko-kopec.epd"))
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--nodes", type=int, default=20000, help="per worker per move")
    parser.add_argument("--hash", type=float, default=16)
    parser.add_argument("--child", choices=("dask", "inline"))
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run(args)))
        return 0
    runs = {}
    for label, cores, mode in (("dask, taskset -c 0", "0", "dask"), ("dask, taskset -c 0,1", "0,1", "dask"),
                               ("in-process reference", None, "inline")):
        runs[label], seconds = child(args, cores, mode)
        nodes = sum(sum(r["worker_nodes"]) for r in runs[label])
        print(f"{label:24} {len(runs[label])} positions, {nodes} nodes, {seconds:.1f} s wall")
    labels = list(runs)
    first = runs[labels[0]]
    differ = 0
    for i, r in enumerate(first):
        others = [runs[label][i] for label in labels[1:]]
        same = all({k: v for k, v in o.items() if k != "seconds"} == {k: v for k, v in r.items() if k != "seconds"}
                   for o in others)
        differ += not same
        print(f"{i + 1:3} {r['move']:6} {r['score']:6} depth {r['depth']:2} slices {r['slices']:3} "
              f"messages {r['messages']:4} entries {r['entries']:6} {'identical' if same else 'DIFFERENT: ' + str(others)}")
    print(f"{len(first) - differ}/{len(first)} positions identical on 1 core, 2 cores and in process")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
