"""``concilio label``: make or extend a labelled training set (self-play and PGN positions,
engine labels), resuming where a run stopped."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from concilio.commands.inputs import UsageError, add_quiet, progress
from concilio.commands.parsing import command
from concilio.commands.scheduler import add_scheduler, remote_of


def add_parser(sub) -> None:
    p = command(sub, "label", "make a labelled training set: self-play and PGN positions, engine labels",
                "concilio label train.sqlite --games 800 --nodes 100000 --export train.epd")
    p.add_argument("store", help="the SQLite store (created, or resumed where a run stopped)")
    p.add_argument("--games", type=int, default=0, help="self-play games of the full engine from the book")
    p.add_argument("--per-game", type=int, default=8, help="positions drawn from each self-play game")
    p.add_argument("--budgets", default="1000,4000,16000", help="node budgets drawn per side and game")
    p.add_argument("--book", default="data:openings/8moves_v3-1000.epd", help="openings for self-play")
    p.add_argument("--seed", type=int, default=1, help="seeds the games, their budgets and the sampled plies")
    p.add_argument("--pgn", action="append", help="a PGN file whose games give positions (repeatable)")
    p.add_argument("--pgn-per-game", type=int, default=4, help="positions drawn from each PGN game")
    p.add_argument("--engine", default="stockfish", help="the UCI labeller (PATH, /usr/games, or a path)")
    p.add_argument("--nodes", type=int, default=200_000, help="the labeller's nodes per position")
    p.add_argument("--multipv", type=int, default=6, help="lines per position (moves outside get 0 points)")
    p.add_argument("--workers", type=int, help="Dask workers (default 2; on a scheduler: at most, default all its "
                                               "threads)")
    add_scheduler(p, "games and labels (every worker needs the labelling engine)", file=False)
    p.add_argument("--export", help="write the labelled positions as an EPD suite (bm, c0 points, c9, c1 source, "
                                    "c2 opening)")
    p.add_argument("--first", type=int, help="export only the first N labelled positions")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from base.resources import resolve_data_reference
    from tournaments.training.labelling import LabelPlan, export_epd, run_label

    def existing(name: str, what: str) -> Path:
        found = resolve_data_reference(name, Path.cwd())
        if found is None:
            raise UsageError(f"{what}: no such file: {name}")
        return found

    for name, value in (("--games", args.games), ("--per-game", args.per_game), ("--nodes", args.nodes),
                        ("--multipv", args.multipv), ("--workers", args.workers)):
        if value is not None and value < (0 if name == "--games" else 1):
            raise UsageError(f"{name} must be {'>= 0' if name == '--games' else 'positive'}, got {value}")
    if args.per_game > 100:
        raise UsageError(f"--per-game must be at most 100 (positions are drawn from 100 plies), got {args.per_game}")
    try:
        budgets = tuple(int(b) for b in args.budgets.split(","))
    except ValueError:
        raise UsageError(f"--budgets: expected node counts separated by commas, got {args.budgets!r}") from None
    if not budgets or min(budgets) < 1:
        raise UsageError(f"--budgets: node counts must be positive, got {args.budgets!r}")
    plan = LabelPlan(Path(args.store), existing(args.book, "--book") if args.games else None, args.games,
                     args.per_game, budgets, args.seed, tuple(existing(p, "--pgn") for p in args.pgn or ()),
                     args.pgn_per_game, args.engine, args.nodes, args.multipv, workers=args.workers or 2,
                     remote=remote_of(args, None, args.workers))
    started = time.perf_counter()
    outcome = run_label(plan, progress=progress(args), warn=lambda line: print(line, file=sys.stderr))
    print(f"{outcome.games} games played, {outcome.positions_added} positions and {outcome.labels_added} labels "
          f"added in {time.perf_counter() - started:.0f} s; {args.store} holds {outcome.positions} positions, "
          f"{outcome.labels} labelled")
    if args.export:
        n = export_epd(Path(args.store), Path(args.export), first=args.first)
        print(f"exported {n} positions to {args.export}")
    return 0
