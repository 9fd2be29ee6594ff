"""Coordination overhead of the ensemble: n instances on n Dask workers against the
same searches run one after another in this process.

Node budgets make the work identical on both sides (same moves, same node counts:
checked).  Per move we report
* the coordination cost: ensemble wall time minus the slowest instance's own search
  time measured inside its worker (transport, scheduling, selection);
* how much slower a search runs inside a worker than alone (cores shared with the
  scheduler, the coordinator and each other);
* the overhead against the ideal parallel time, the slowest sequential search when
  n <= cores, or the sequential total divided by the cores when n > cores
  (oversubscribed: instances then share cores and each search runs slower).

``--transport`` first times the runner's own round trip for an empty job on every slot at
once, jobs on the direct channels against the same jobs as Dask actor calls (the reference,
run in the same script), so the ratio says what the channels save whatever the machine.

Usage: python benchmarks/ensemble_overhead.py [--nodes 600000] [--sizes 2 6] [--positions 6] [--rounds 1]
[--transport]
(``--json`` adds one JSON line per size; ``benchmarks/ensemble_overhead_ab.py`` runs two
checkouts in turn with it.)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from base.runner.dask import DaskRunner
from ensemble.config import Budget, ClusterConfig, EnsembleConfig, InstanceConfig, SelectionConfig, default_label
from ensemble.distribution import distribute
from ensemble.player import EnsemblePlayer
from players.bench import BENCH_FENS
from players.limits import Limit


def ensemble_config(n: int, nodes: int) -> EnsembleConfig:
    specs = distribute("balanced", n) if n >= 2 else distribute("minimal", 1)
    instances = tuple(InstanceConfig.of(default_label(s), s) for s in specs)
    return EnsembleConfig(f"bench-{n}", instances, SelectionConfig("majority", {"seed": 0}),
                          Budget(Limit(nodes=nodes), deadline_ms=600_000), ClusterConfig(workers=n, dashboard=False))


def measure(n: int, nodes: int, fens: list[str], cores: int, rounds: int = 1) -> dict:
    config = ensemble_config(n, nodes)
    sequential = [inst.make_searcher() for inst in config.instances]
    for s in sequential:
        s.search(None, Limit(depth=1))
    rows = []
    with EnsemblePlayer(config) as player:
        player.choose(fens[0])  # warm the transport; its numbers are not counted
        player.new_game()
        for s in sequential:
            s.new_game()
        for fen in fens * rounds:
            started = time.perf_counter()
            decision = player.choose(fen)
            wall = time.perf_counter() - started
            seq_times, seq_nodes = [], []
            for s in sequential:
                t0 = time.perf_counter()
                r = s.search(fen, Limit(nodes=nodes))
                seq_times.append(time.perf_counter() - t0)
                seq_nodes.append(r.nodes)
            worker_times = [r.result.time for r in decision.reports]
            same = [r.result.nodes for r in decision.reports] == seq_nodes
            ideal = max(seq_times) if n <= cores else sum(seq_times) / cores
            rows.append({"wall": wall, "coordination": wall - max(worker_times), "ideal": ideal,
                         "slowdown": sum(worker_times) / sum(seq_times),
                         "overhead": wall / ideal - 1, "same_work": same})
    return {
        "n": n,
        "coordination_ms": 1000 * statistics.mean(r["coordination"] for r in rows),
        "coordination_median_ms": 1000 * statistics.median(r["coordination"] for r in rows),
        "moves": len(rows),
        "wall": statistics.mean(r["wall"] for r in rows),
        "ideal": statistics.mean(r["ideal"] for r in rows),
        "overhead": statistics.mean(r["overhead"] for r in rows),
        "same_work": all(r["same_work"] for r in rows),
        "slowdown": statistics.mean(r["slowdown"] for r in rows),
        "oversubscribed": n > cores,
    }


def _empty() -> None:
    return None


def round_trip_ms(slots: int, direct: bool, rounds: int = 300) -> float:
    """Median wall time of one empty job sent to every slot at once, until all answered."""
    with DaskRunner.start(slots, direct=direct) as runner:
        times = []
        for i in range(rounds + 20):  # the first 20 warm the transport
            started = time.perf_counter()
            runner.wait([runner.submit_to(slot, _empty) for slot in range(slots)])
            if i >= 20:
                times.append(time.perf_counter() - started)
        return 1000 * statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=600_000, help="nodes per instance (~1 s here)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 6])
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=1, help="times each position is played (more moves per median)")
    parser.add_argument("--json", action="store_true", help="also one JSON line per size")
    parser.add_argument("--transport", action="store_true", help="first the runner's round trip: channels against actor calls")
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    if args.transport:
        print(f"{'slots':>5s} {'actor call ms':>14s} {'direct channel ms':>18s} {'ratio':>6s}")
        for n in args.sizes:
            actor, direct = round_trip_ms(n, direct=False), round_trip_ms(n, direct=True)
            print(f"{n:5d} {actor:14.3f} {direct:18.3f} {actor / direct:6.1f}", flush=True)
    fens = list(BENCH_FENS[: args.positions])
    print(f"{cores} cores; {args.nodes} nodes per instance; {len(fens)} positions")
    print(f"{'n':>3s} {'wall s':>7s} {'ideal s':>8s} {'overhead':>9s} {'coordination ms':>16s} "
          f"{'median':>7s} {'search in worker / alone':>25s} same work")
    for n in args.sizes:
        r = measure(n, args.nodes, fens, cores, args.rounds)
        note = "  (oversubscribed: more instances than cores)" if r["oversubscribed"] else ""
        print(f"{n:3d} {r['wall']:7.2f} {r['ideal']:8.2f} {100 * r['overhead']:8.1f}% {r['coordination_ms']:16.1f} "
              f"{r['coordination_median_ms']:7.1f} {r['slowdown']:25.2f} {'yes' if r['same_work'] else 'NO'}{note}")
        if args.json:
            print("JSON " + json.dumps(r), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
