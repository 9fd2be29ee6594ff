"""STS 1-10 points and the community's STS rating estimate, for any UCI engine.

Issue 18's calibration: every engine gets the same wall-clock budget per position over UCI
(our own as `concilio uci`, so its start-up and I/O count as they do in a match), a new game
(`ucinewgame`, an empty hash table) before each position, and earns the points STS lists for
the move it plays (10 for the best).  The rating is the conversion the STS community uses,
``44.523 × score% − 242.85``, fitted at about 200 ms per position on the full 15-theme suite:
on themes 1-10 alone and on this machine it is an estimate, best read as a difference between
engines measured in the same run.

Engines run in parallel (one process each, single-threaded); results go to a JSON file per
engine so that a long run resumes where it stopped.

Usage: python benchmarks/sts_rating.py [--movetime MS] [--limit K] [--jobs J] [--out DIR]
                                       [--engine NAME=COMMAND ...]
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from base.resources import data_file
from tournaments.records.epd import read_suite

DEFAULT_ENGINES = ("full=concilio uci", "gnuchess=gnuchess --uci", "stockfish=stockfish")
RATING_SLOPE, RATING_OFFSET = 44.523, -242.85


def sts_rating(percent: float) -> float:
    """The STS community's rating estimate from the percentage of the maximum points."""
    return RATING_SLOPE * percent + RATING_OFFSET


def run_engine(name: str, command: str, cases: list[tuple[str, str, dict[str, int]]], movetime: int,
               out: Path) -> dict:
    """Every position in turn with a fresh game; per-position results saved as they come."""
    import chess
    import chess.engine
    from players.external import find_engine_binary
    done: dict[str, list] = json.loads(out.read_text())["positions"] if out.exists() else {}

    def save() -> None:
        out.write_text(json.dumps({"engine": name, "command": command, "movetime": movetime, "positions": done}))

    argv = shlex.split(command)
    # 120 s to answer uci: our engine with a cold numba cache compiles before it answers.
    engine = chess.engine.SimpleEngine.popen_uci([find_engine_binary(argv[0])] + argv[1:], timeout=120)
    try:
        if "Threads" in engine.options:
            engine.configure({"Threads": 1})
        for index, (fen, theme, points) in enumerate(cases):
            key = str(index)
            if key in done:
                continue
            board = chess.Board(fen)
            result = engine.play(board, chess.engine.Limit(time=movetime / 1000), game=object())
            move = result.move.uci() if result.move else "0000"
            done[key] = [theme, move, points.get(move, 0)]
            if index % 50 == 49:
                save()
    finally:
        engine.quit()
        save()  # what was searched before a crash or an interrupt is kept
    return summarise(name, done)


def summarise(name: str, done: dict[str, list]) -> dict:
    themes: dict[str, list[int]] = {}
    for theme, _move, points in done.values():
        themes.setdefault(theme, []).append(points)
    total = sum(sum(p) for p in themes.values())
    maximum = 10 * sum(len(p) for p in themes.values())
    percent = 100 * total / max(1, maximum)
    return {"engine": name, "points": total, "max": maximum, "percent": percent, "rating": sts_rating(percent),
            "best": sum(sum(1 for x in p if x == 10) for p in themes.values()),
            "themes": {t: sum(p) for t, p in themes.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=int, default=200, help="ms per position (default 200)")
    parser.add_argument("--limit", type=int, default=None, help="only the first K positions")
    parser.add_argument("--jobs", type=int, default=2, help="engines at once (default 2)")
    parser.add_argument("--out", type=Path, default=Path("runs/sts"), help="folder for per-engine results")
    parser.add_argument("--engine", action="append", default=None, metavar="NAME=COMMAND",
                        help=f"an engine to test (repeatable; default {', '.join(DEFAULT_ENGINES)})")
    args = parser.parse_args()
    suite = read_suite(data_file("suites/sts-1-10.epd"))
    for line in suite.skipped:
        print(f"skipped {line}", file=sys.stderr)
    # STS's themes come 100 positions each, in order (one theme's name is spelled two ways)
    cases = [(p.fen, str(i // 100 + 1), dict(p.points)) for i, p in enumerate(suite.positions)][:args.limit]
    names = {str(i // 100 + 1): p.theme for i, p in enumerate(suite.positions) if i % 100 == 0}
    engines = [e.split("=", 1) for e in (args.engine or DEFAULT_ENGINES)]
    if any(len(e) != 2 or not e[0] or not e[1] for e in engines):
        parser.error("--engine takes NAME=COMMAND, e.g. gnuchess='gnuchess --uci'")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    results = {}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_engine, name, command, cases, args.movetime,
                               args.out / f"{name}-{args.movetime}ms.json"): name for name, command in engines}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
    ordered = [results[name] for name, _ in engines]
    themes = list(ordered[0]["themes"])
    print(f"STS 1-10, {len(cases)} positions, {args.movetime} ms per position, {time.time() - started:.0f} s\n")
    print("| engine | points | % of max | best moves | STS rating (44.523 × % − 242.85) | "
          + " | ".join(themes) + " |")
    print("|---|---|---|---|---|" + "---|" * len(themes))
    for r in ordered:
        print(f"| {r['engine']} | {r['points']}/{r['max']} | {r['percent']:.1f}% | {r['best']} | {r['rating']:.0f} | "
              + " | ".join(str(r["themes"].get(t, 0)) for t in themes) + " |")
    print("\nThemes: " + "; ".join(f"{t} {names[t]}" for t in themes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
