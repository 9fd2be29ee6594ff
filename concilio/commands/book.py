"""``concilio book``: make (or extend) an opening book from an engine's MultiPV choices."""
from __future__ import annotations

import argparse
from pathlib import Path

from concilio.commands.inputs import UsageError, add_quiet, progress
from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "book", "make an opening book from an engine's MultiPV choices (resumes)",
                "concilio book runs/book.epd --openings 200 --exclude data:openings/8moves_v3-1000.epd")
    p.add_argument("out", help="EPD file to write (appended to: a stopped run resumes)")
    p.add_argument("--openings", type=int, default=1000, help="how many openings the file should hold")
    p.add_argument("--plies", type=int, default=16, help="half-moves from the start position")
    p.add_argument("--depth", type=int, default=8, help="the engine's search depth per position")
    p.add_argument("--multipv", type=int, default=4, help="moves ranked per position")
    p.add_argument("--window", type=int, default=40, help="centipawns below the best a drawn move may be")
    p.add_argument("--balance", type=int, default=60, help="largest |score| of a kept opening, centipawns")
    p.add_argument("--seed", type=int, default=1, help="seeds the moves drawn")
    p.add_argument("--engine", default="stockfish", help="UCI engine to use")
    p.add_argument("--exclude", nargs="*", default=[], help="books whose positions must not be repeated")
    add_quiet(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from base.resources import resolve_data_reference
    from tournaments.openings.book import BookPlan, make_book

    exclude = []
    for reference in args.exclude:
        path = resolve_data_reference(reference, Path.cwd())
        if path is None:
            raise UsageError(f"--exclude {reference}: no such file")
        exclude.append(path)
    plan = BookPlan(Path(args.out), args.openings, args.plies, args.depth, args.multipv, args.window, args.balance,
                    args.seed, args.engine, tuple(exclude))
    count = make_book(plan, progress=progress(args))  # EngineNotFoundError (a ConcilioError): exit 2
    print(f"{plan.out}: {count} openings")
    return 0
