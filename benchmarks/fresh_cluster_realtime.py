"""The real-time fresh cluster (issue 58 item 3, ``players.decomposition.fresh_realtime``) on
loopback Dask workers: the measured round trip of a message over the runner's channel, and
what the exchange costs each worker in nodes per second.

* Round trip: a job carrying one message's bytes (``--entries`` entries of 16 bytes) to a slot
  and back, ``--pings`` times; and, from the cluster's own moves, an exchange job's time less its
  wait (channel out and back, the store, the take with its pause) and a message's latency from
  its sender's take to its receiver's store (on one host the workers' clocks agree).
* Cost: each worker's nodes per second with the exchange on (``--interval`` ms rounds) against
  off (the same resident workers' path with ``exchange=False``: outboxes off, no round, one job
  answered when the search ends), on the same slots, same budget, from empty tables on a few
  positions, ``--repeat`` times each, the two arms alternating (the machine's load shared).
  The machine's load average is printed: a take waits for the search thread to run, so on an
  overloaded machine a pause costs scheduling delays, not the engine's work.

Usage: python benchmarks/fresh_cluster_realtime.py [--workers 2] [--nodes 200000] [--interval 5]
       [--fill 0] [--delay 0] [--pings 200] [--repeat 3] [--scheduler tcp://...] [--out FILE]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

POSITIONS = ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
             "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
             "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1")


def pings(runner, slot: int, payload: bytes, count: int) -> list[float]:
    """Round trips of a job carrying ``payload``, in ms."""
    from players.decomposition.fresh_realtime_worker import rt_ping
    runner.submit_to(slot, rt_ping, payload).result()
    out = []
    for _ in range(count):
        t = time.perf_counter()
        runner.submit_to(slot, rt_ping, payload).result()
        out.append(1000.0 * (time.perf_counter() - t))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=200_000, help="node budget per worker")
    parser.add_argument("--interval", type=float, default=5.0, help="ms between a worker's rounds")
    parser.add_argument("--fill", type=int, default=0, help="entries that end a round early (0: a full outbox)")
    parser.add_argument("--delay", type=float, default=0.0, help="injected delay per message, ms")
    parser.add_argument("--entries", type=int, default=16, help="entries in a pinged message")
    parser.add_argument("--pings", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scheduler", help="an external scheduler (default: a local cluster)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    from base.runner.dask import DaskRunner
    from benchmarks.provenance import header
    from players.decomposition.fresh_cluster import FreshClusterConfig
    from players.decomposition.fresh_realtime import FreshClusterRealtime, RealtimeConfig
    from players.decomposition.options import SearcherConfig
    from players.limits import Limit

    options = SearcherConfig()
    config = RealtimeConfig(FreshClusterConfig(workers=args.workers), interval_ms=args.interval,
                            fill=args.fill, delay_ms=args.delay, searcher=options)
    lines = header("The real-time fresh cluster: round trip and the exchange's cost", "fresh_cluster_realtime.py")
    with DaskRunner.start(args.workers, args.scheduler, min_workers=args.workers) as runner:
        slots = runner.live()
        trips = pings(runner, slots[0], bytes(16 * args.entries), args.pings)
        empty = pings(runner, slots[0], b"", args.pings)
        cluster = FreshClusterRealtime(runner, config)
        alone = FreshClusterRealtime(runner, dataclasses.replace(config, exchange=False))
        on, off, results = [], [], []
        load = os.getloadavg()[0]
        for _ in range(args.repeat):
            for fen in POSITIONS:
                for arm, nps in ((cluster, on), (alone, off)):
                    arm.new_game()
                    r = arm.search(fen, Limit(nodes=args.nodes))
                    nps.append(r.nps)
                    if arm is cluster:
                        results.append(r)
        load = max(load, os.getloadavg()[0])
        cluster.close()
        alone.close()
        where = f"{len(slots)} slots on {runner.cluster.description}"

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values):.3f} (mean {statistics.mean(values):.3f})"

    on_mean, off_mean = statistics.mean(on), statistics.mean(off)
    pauses = sum(r.real_time.pauses for r in results)
    lines += ["", f"* Runner: {where}; {args.workers} workers, {args.nodes} nodes each, rounds every "
              f"{args.interval:g} ms or {args.fill or config.cluster.buffer} entries, delay {args.delay:g} ms; "
              f"{len(results)} moves from empty tables; "
              f"machine: {os.cpu_count()} cores, load average up to {load:.1f}.", "",
              "| measure | value |", "|---|---|",
              f"| job round trip, {args.entries} entries ({16 * args.entries} B), ms: median (mean) | {ms(trips)} |",
              f"| job round trip, empty, ms: median (mean) | {ms(empty)} |",
              f"| exchange job less its wait and take (channel, store), ms: median, mean over moves | "
              f"{statistics.mean(r.real_time.round_trip_ms for r in results):.3f} |",
              f"| message latency, sender's take to receiver's store, ms: mean (least) | "
              f"{statistics.mean(r.real_time.latency_ms for r in results):.3f} "
              f"({min(r.real_time.min_latency_ms for r in results):.3f}) |",
              f"| pauses to take an outbox: count, mean ms paused; a take's mean ms | {pauses}, "
              f"{sum(r.real_time.paused_ms for r in results) / max(1, pauses):.3f}; "
              f"{statistics.mean(r.real_time.take_ms for r in results):.3f} |",
              f"| exchanges (rounds), messages, entries sent, delivered: per move | "
              f"{statistics.mean(r.exchange.rounds for r in results):.1f}, "
              f"{statistics.mean(r.messages for r in results):.1f}, "
              f"{statistics.mean(r.entries_sent for r in results):.1f}, "
              f"{statistics.mean(r.real_time.delivered for r in results):.1f} |",
              f"| worker nps, exchange on | {on_mean:,.0f} |",
              f"| worker nps, exchange off (same workers, outbox off, no rounds) | {off_mean:,.0f} |",
              f"| cost of the exchange in nps | {100.0 * (1 - on_mean / off_mean):+.1f}% |"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
