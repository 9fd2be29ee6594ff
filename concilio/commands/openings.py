"""``concilio openings``: which openings began a training set's games (``annotate``), and how
many of a match's openings it shares (``shared``): the audit behind ``openings: exclude``."""
from __future__ import annotations

import argparse
from pathlib import Path

from concilio.commands.parsing import command, steps


def add_parser(sub) -> None:
    p = command(sub, "openings", "which openings began a training set's games, and which a match shares",
                "concilio openings shared data/training/selfplay-5k.epd configs/tournaments/tuned-heldout.yaml")
    step = steps(p)
    q = command(step, "annotate", "write each self-play position's opening into an exported training set",
                "concilio openings annotate train.epd --book data/openings/8moves_v3-1000.epd --seed 1 --games 800")
    q.add_argument("path", type=Path, help="the exported training set (.epd), rewritten in place")
    q.add_argument("--book", type=Path, required=True, help="the book concilio label played from")
    q.add_argument("--seed", type=int, required=True, help="concilio label's --seed")
    q.add_argument("--games", type=int, required=True, help="concilio label's --games")
    q = command(step, "shared", "how many of each match's openings began training games",
                "concilio openings shared data/training/selfplay-5k.epd configs/tournaments/tuned-heldout.yaml")
    q.add_argument("training", type=Path, help="an annotated training set (.epd) or label store (.sqlite)")
    q.add_argument("matches", type=Path, nargs="+", help="match configs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return {"annotate": annotate, "shared": shared}[args.step](args)


def annotate(args: argparse.Namespace) -> int:
    """Write each self-play line's opening (``c2``) into an exported training set."""
    from tournaments.training.provenance import annotate_epd
    done = annotate_epd(args.path, args.book, args.seed, args.games)  # ProvenanceError: exit 2
    print(f"{args.path}: {done.added} positions annotated, {done.kept} already were; {done.games} games "
          f"from {done.openings} distinct openings")
    return 0


def shared(args: argparse.Namespace) -> int:
    """How many of each match's openings began training games."""
    from tournaments.match.config import played_openings
    from tournaments.training.provenance import training_openings
    used = training_openings(args.training)
    print(f"{args.training}: {len(used)} distinct openings")
    for match in args.matches:
        played = played_openings(match)
        print(f"{match}: {sum(k in used for k in played)} of its {len(played)} openings began training games")
    return 0
