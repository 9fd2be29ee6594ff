"""Measuring the speed table (``players.speed``): every mask against the full engine, and
parallel teams against one full-engine core, in interleaved pairs so that the machine's
load, which changes by the minute, cancels in each ratio; and what it was measured with
(engine, bench signature, commit, processor, date), so that a reader can tell a table
measured on other code or another machine."""
from __future__ import annotations

import platform
import random
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from base.fingerprint import ROOT, engine_fingerprint
from evaluation.spec import FULL_ENGINE, EvalSpec
from players.bench import BENCH_FENS, run_bench
from players.limits import Limit
from players.searcher import Searcher
from players.speed import SpeedTable


def _timed(searcher: Searcher, fen: str, limits: Limit) -> tuple[float, int]:
    searcher.new_game()
    r = searcher.search(fen, limits)
    return r.time, r.nodes


def mask_speeds(masks: Sequence[int], nodes: int = 20000, rounds: int = 2, fens: Sequence[str] = BENCH_FENS,
                seed: int = 1, progress: Callable[[str], None] = lambda s: None) -> dict[int, float]:
    """Median over rounds of (mask's nodes per second) / (full engine's).  Within a round the
    two alternate position by position in ABBA order (full, mask, mask, full), so that a
    change of the machine's speed, which on a shared machine comes within seconds, falls on
    both alike."""
    full = Searcher(FULL_ENGINE, 16)
    _timed(full, fens[0], Limit(nodes=500))  # compiled code loaded before any timing
    ratios: dict[int, list[float]] = {m: [] for m in masks}
    rng = random.Random(seed)
    limits = Limit(nodes=nodes)
    for r in range(rounds):
        order = list(masks)
        rng.shuffle(order)
        for mask in order:
            other = Searcher(EvalSpec(mask), 16)
            t_full = n_full = t_mask = n_mask = 0.0
            for fen in fens:
                for searcher in (full, other, other, full):
                    t, n = _timed(searcher, fen, limits)
                    if searcher is full:
                        t_full, n_full = t_full + t, n_full + n
                    else:
                        t_mask, n_mask = t_mask + t, n_mask + n
            ratios[mask].append((n_mask / t_mask) / (n_full / t_full))
        progress(f"round {r + 1}/{rounds} done")
    return {m: round(statistics.median(v), 4) for m, v in ratios.items()}


def team_speed(decomposition: str, movetime: int = 500, rounds: int = 3, fens: Sequence[str] = BENCH_FENS,
               progress: Callable[[str], None] = lambda s: None) -> tuple[str, float]:
    """("algorithm/workers", median over rounds of team nps / one full-engine core's nps),
    the two alternating position by position in ABBA order."""
    import chess

    from players.decomposition.config import load_decomposition
    from players.decomposition.player import DecompositionPlayer
    config = load_decomposition(decomposition)
    single = Searcher(FULL_ENGINE, config.search.hash_mb)
    limits = Limit(movetime=movetime)
    ratios = []
    with DecompositionPlayer(config) as team:
        team.search(chess.Board(), Limit(depth=4))  # workers warm

        def run_team(fen: str) -> tuple[float, int]:
            team.new_game()
            start = time.perf_counter()
            res = team.search(chess.Board(fen), limits)
            return time.perf_counter() - start, res.nodes

        for r in range(rounds):
            t_team = n_team = t_one = n_one = 0.0
            for fen in fens:
                for which in ("team", "one", "one", "team"):
                    t, n = run_team(fen) if which == "team" else _timed(single, fen, limits)
                    if which == "team":
                        t_team, n_team = t_team + t, n_team + n
                    else:
                        t_one, n_one = t_one + t, n_one + n
            ratios.append((n_team / t_team) / (n_one / t_one))
            progress(f"{config.name} round {r + 1}/{rounds}: {ratios[-1]:.3f}")
    return f"{config.algorithm}/{config.workers}", round(statistics.median(ratios), 4)


def processor_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` knows: speeds are
    the processor's as much as the code's."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def git_commit(root: Path = ROOT) -> str | None:
    """``git describe --always --dirty`` of the checkout at ``root``; None when ``root`` is
    not a checkout's top (an installed wheel) or git is missing."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30,
                              check=True).stdout.strip()
    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != root.resolve():
            return None
        return git("describe", "--always", "--dirty") or None
    except (OSError, subprocess.SubprocessError):
        return None


def measure_speed_table(masks: Sequence[int], teams: Sequence[str], nodes: int = 20000, rounds: int = 2,
                        movetime: int = 500, progress: Callable[[str], None] = lambda s: None) -> SpeedTable:
    when = datetime.now().astimezone()
    bench = run_bench().nodes  # the search's signature at the default depth: seconds
    progress(f"bench {bench} nodes, engine {engine_fingerprint()}")
    speeds = mask_speeds(masks, nodes, rounds, progress=progress)
    full = speeds.get(FULL_ENGINE.mask)
    if full:  # the full engine against itself is 1 by definition: what it measures off 1 is noise, for every mask
        speeds = {m: round(v / full, 4) for m, v in speeds.items()}
    measured_teams = dict(team_speed(t, movetime, rounds, progress=progress) for t in teams)
    processor = processor_name()
    note = (f"concilio speed-table, {when.date().isoformat()}, {platform.node() or 'host'} "
            f"({processor}): masks at {nodes} nodes x {len(BENCH_FENS)} bench "
            f"positions, teams at {movetime} ms, ABBA-interleaved with the full engine position by position, median of "
            f"{rounds} rounds, divided by the full engine's own ratio ({full})")
    return SpeedTable(speeds, measured_teams, note, engine_fingerprint(), bench, git_commit(), processor,
                      when.isoformat(timespec="seconds"))
