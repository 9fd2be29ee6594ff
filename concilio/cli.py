"""The ``concilio`` command: one front door with a subcommand per job.

Every subcommand turns bad input (a FEN, a mask, a limit) into one clear line on
stderr and exit code 2, the convention of command-line tools for usage errors.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from base.errors import ConcilioError
from base.interrupts import Interrupted, stop_on_signals
from concilio import commands

EXIT_USAGE = 2
EXIT_SIGINT = 130  # the shell's 128 + SIGINT
# Long commands: Ctrl-C or SIGTERM stops them cleanly.  Those that resume from what they
# wrote are rerun to finish; the others start again.
RESUMABLE = {"match", "suite", "label", "autotune", "book", "fit positions"}
LONG = {"match", "scaling", "suite", "label", "autotune", "book", "fit", "speedup", "speed-table"}



def fit_doc() -> str:
    """The fit's recipe, from the module that holds it, as ``concilio fit -h`` shows it."""
    from tournaments.training import fit
    return fit.__doc__ or ""


def build_parser() -> argparse.ArgumentParser:
    from evaluation.spec import CATEGORIES
    parser = argparse.ArgumentParser(prog="concilio", description="Knowledge-distribution chess players.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("perft", help="count leaf nodes of the legal move tree")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.set_defaults(func=commands.cmd_perft)

    def add_spec_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--mask", default=CATEGORIES, help="categories, as letters (MKP) or the 7-bit integer (76)")
        q.add_argument("--weights", nargs="+", help="seven weights in the order M B X K P A R")

    p = sub.add_parser("search", help="search one position and print the best move")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument("--depth", type=int)
    limit.add_argument("--nodes", type=int)
    limit.add_argument("--movetime", type=int, help="milliseconds")
    p.add_argument("--hash", type=float, default=16, help="transposition table size in MB")
    add_spec_args(p)
    p.set_defaults(func=commands.cmd_search)

    p = sub.add_parser("eval", help="trace the evaluation category by category")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    add_spec_args(p)
    p.set_defaults(func=commands.cmd_eval)

    p = sub.add_parser("play", help="let any player choose a move and show why (an ensemble its votes, "
                                    "an instance its search)")
    p.add_argument("config", help="a player: a mask (MKP, 76), or a name or file of configs/ensembles, "
                                  "decomposition, cascade or engines (3b, abdada, cascade, gnuchess, ...)")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, help="milliseconds (an ensemble's: per instance; default: "
                                                    "an ensemble's file, else 1000)")
    limit.add_argument("--nodes", type=int, help="nodes (an ensemble's: per instance)")
    limit.add_argument("--depth", type=int, help="depth")
    p.add_argument("--hash", type=float, help="MB of each searcher's transposition table")
    p.add_argument("--budget-mode", choices=["per_instance", "equal_total"], help="ensembles")
    p.add_argument("--criterion", help="selection criterion (ensembles; overrides the file)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://host:port (ensembles, "
                                       "decomposition)")
    p.set_defaults(func=commands.cmd_play)

    p = sub.add_parser("suite", help="score players and selection criteria on EPD test suites")
    p.add_argument("config", help="suite-run file, or a name in configs/suites (thesis, smoke, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for phase 1 (overrides the file)")
    p.add_argument("--no-search", action="store_true", help="score only what the store holds")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=commands.cmd_suite)

    p = sub.add_parser("speed-table", help="measure the speeds behind time-equivalent node budgets")
    p.add_argument("--out", default="data/calibration/speed.json", help="where the table goes")
    p.add_argument("--team", action="append", help="decomposition file whose team speed to measure (repeatable)")
    p.add_argument("--nodes", type=int, default=20000, help="nodes per bench position and mask")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (the median is kept)")
    p.add_argument("--movetime", type=int, default=500, help="ms per bench position for the teams")
    p.add_argument("--all-masks", action="store_true", help="also the masks without M (default: the 64 with M)")
    p.set_defaults(func=commands.cmd_speed_table)

    p = sub.add_parser("autotune", help="choose an ensemble's instances from a pool on training positions")
    p.add_argument("config", help="auto-tune file, or a name in configs/tuning (distribution, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for the searches (overrides the file)")
    p.add_argument("--no-search", action="store_true", help="tune only on what the store holds")
    p.add_argument("--adopt", metavar="ENGINE", help="take over the store's searches of an older engine fingerprint "
                   "once a sample of them, searched again, is identical")
    p.add_argument("--size", type=int, help="exactly this many instances; the outputs' names end in -SIZE")
    p.add_argument("--verify", type=int, default=200, help="searches to repeat before adopting (default 200)")
    p.add_argument("--read", metavar="TEAM", help="tune nothing: read this written team (an ensemble file or a name "
                   "in configs/ensembles) on the file's tune split and held-out games, beside the full engine")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=commands.cmd_autotune)

    p = sub.add_parser("label", help="make a labelled training set: self-play and PGN positions, engine labels")
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
    p.add_argument("--workers", type=int, default=2, help="Dask workers")
    p.add_argument("--export", help="write the labelled positions as an EPD suite (bm, c0 points, c9, c1 source, "
                                    "c2 opening)")
    p.add_argument("--first", type=int, help="export only the first N labelled positions")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=commands.cmd_label)

    p = sub.add_parser("book", help="make an opening book from an engine's MultiPV choices (resumes)")
    p.add_argument("out", help="EPD file to write (appended to: a stopped run resumes)")
    p.add_argument("--openings", type=int, default=1000, help="how many openings the file should hold")
    p.add_argument("--plies", type=int, default=16, help="half-moves from the start position")
    p.add_argument("--depth", type=int, default=8, help="the engine's search depth per position")
    p.add_argument("--multipv", type=int, default=4, help="moves ranked per position")
    p.add_argument("--window", type=int, default=40, help="centipawns below the best a drawn move may be")
    p.add_argument("--balance", type=int, default=60, help="largest |score| of a kept opening, centipawns")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--engine", default="stockfish", help="UCI engine to use (default stockfish)")
    p.add_argument("--exclude", nargs="*", default=[], help="books whose positions must not be repeated")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=commands.cmd_book)

    from tournaments.training.fit import DEFAULT_POSITIONS, RIDGE
    p = sub.add_parser("fit", help="fit the evaluation's term values ('positions' plays and labels them, "
                                   "'terms' fits them) or a team's calibration", description=fit_doc(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    q = steps.add_parser("positions", help="play and label the fit's positions (resumes)")
    q.add_argument("--games", type=int, default=17_000)
    q.add_argument("--depth", type=int, default=6, help="Stockfish's depth per move and label")
    q.add_argument("--seed", type=int, default=20261123)
    q.add_argument("--workers", type=int, default=2)
    q.add_argument("--out", type=Path, default=DEFAULT_POSITIONS)
    q.set_defaults(func=commands.cmd_fit_positions)
    q = steps.add_parser("terms", help="fit the term values on a positions file")
    q.add_argument("--positions", type=Path, default=DEFAULT_POSITIONS)
    q.add_argument("--holdout", type=int, default=10, help="hold out every Nth game")
    q.add_argument("--tables", action="store_true", help="fit the piece-square tables too")
    q.add_argument("--ridge", type=float, default=RIDGE, help="cost of a table value's squared move (per cp²)")
    q.add_argument("--apply", action="store_true",
                   help="write the fitted values into evaluation/params.py (and tables.py)")
    q.set_defaults(func=commands.cmd_fit_terms)
    q = steps.add_parser("calibration", help="put a team's scores on one scale: each pool instance's centipawns "
                         "against the full engine's, on an auto-tune file's tune split (for calibrated_vote)")
    q.add_argument("config", help="auto-tune file, or a name in configs/tuning (its pool, store and tune split)")
    q.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    q.set_defaults(func=commands.cmd_fit_calibration)
    q = steps.add_parser("routing", help="fit a team's routing gate (reduced instances or full-knowledge copies "
                         "decide) on an auto-tune file's tune split, for the routed criterion")
    q.add_argument("team", help="the ensemble file (or name) whose gate this is")
    q.add_argument("--tuning", required=True, help="auto-tune file: its training set, split, store and budget")
    q.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    q.set_defaults(func=commands.cmd_fit_routing)

    p = sub.add_parser("openings", help="which openings began a training set's games, and which a match shares")
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    q = steps.add_parser("annotate", help="write each self-play position's opening into an exported training set")
    q.add_argument("path", type=Path)
    q.add_argument("--book", type=Path, required=True, help="the book concilio label played from")
    q.add_argument("--seed", type=int, required=True, help="concilio label's --seed")
    q.add_argument("--games", type=int, required=True, help="concilio label's --games")
    q.set_defaults(func=commands.cmd_openings_annotate)
    q = steps.add_parser("shared", help="how many of each match's openings began training games")
    q.add_argument("training", type=Path, help="an annotated training set (.epd) or label store (.sqlite)")
    q.add_argument("matches", type=Path, nargs="+", help="match configs")
    q.set_defaults(func=commands.cmd_openings_shared)

    p = sub.add_parser("match", help="play a match, gauntlet or round robin (resumes from its output folder)")
    p.add_argument("config", help="match file, or a name in configs/tournaments (quick, thesis, calibration)")
    p.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    p.add_argument("--output", help="output folder (overrides the file)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--summary-only", action="store_true",
                   help="rewrite summary.md from the games so far and play nothing (safe while the match runs)")
    p.set_defaults(func=commands.cmd_match)

    p = sub.add_parser("scaling", help="the scaling sweep: every arm at every k against the full engine at N")
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    q = steps.add_parser("play", help="play (or resume) the sweep's points, k by k")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--arm", action="append", default=[], help="only this arm (repeatable): F, S, L, C, D, H")
    q.add_argument("--workers", type=int, action="append", default=[], help="only this k (repeatable)")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=commands.cmd_scaling_play)
    q = steps.add_parser("duel", help="settle two points whose intervals overlap: one against the other, with an SPRT")
    q.add_argument("first", help="a point, arm and k: D4")
    q.add_argument("second", help="the point it plays against: L4")
    q.add_argument("--sweep", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=commands.cmd_scaling_duel)
    q = steps.add_parser("duels", help="play every duel still owed (overlapping pairs), cheapest first; run one "
                                       "per core: each claims the next unclaimed duel")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--list", action="store_true", help="only list the duels owed and who holds them")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=commands.cmd_scaling_duels)
    for step, helptext in (("archive", "copy every point's and duel's games into a results folder to commit "
                                       "(whole games only; never shortens an archive)"),
                           ("restore", "put archived games back into the runs folder, so play and duel resume "
                                       "on a fresh clone (never shortens a local record)")):
        q = steps.add_parser(step, help=helptext)
        q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
        q.add_argument("--results", type=Path, default=Path("docs/results/scaling"),
                       help="the committed folder of compressed games (default: docs/results/scaling)")
        q.set_defaults(func=commands.cmd_scaling_carry)
    q = steps.add_parser("report", help="the sweep's table and plot from the games so far (safe while it runs)")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--output", type=Path, default=Path("reports/scaling"), help="folder for table.md and elo.png")
    q.add_argument("--document", type=Path, help="also put the table between the sweep-table markers of this file")
    q.set_defaults(func=commands.cmd_scaling_report)

    p = sub.add_parser("uci", help="be a UCI engine on stdin/stdout")
    p.add_argument("config", nargs="?", help="a player: an instance mask (MKP), or a name or file of an ensemble, "
                   "decomposition, cascade or external engine; default: the full engine")
    p.set_defaults(func=commands.cmd_uci)

    p = sub.add_parser("speedup", help="parallel search against the sequential one at a fixed depth")
    p.add_argument("config", help="speedup file, or a name in configs/decomposition")
    p.add_argument("--depth", type=int, help="override the file's depth")
    p.add_argument("--limit", type=int, help="only the first N positions")
    p.add_argument("--csv", help="where to write the CSV (default reports/speedup-<name>.csv)")
    p.set_defaults(func=commands.cmd_speedup)

    p = sub.add_parser("speedup-summary", help="one table and a plot of E against workers from a speedup's "
                       "node-clock CSV, the seeds' published speedups beside them")
    p.add_argument("csv", nargs="+", help="the <name>-nodes.csv that concilio speedup wrote (and time-based "
                   "CSVs: their rows timed on as many cores as workers)")
    p.add_argument("--plot", help="where to write the plot (PNG)")
    p.add_argument("--table", help="also write the Markdown table here")
    p.set_defaults(func=commands.cmd_speedup_summary)

    p = sub.add_parser("bench", help="search the bench positions; the node count is the search's signature")
    p.add_argument("--depth", type=int, default=None)
    add_spec_args(p)
    p.set_defaults(func=commands.cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if getattr(args, "command", None) == "bench" and args.depth is None:
        from players.bench import BENCH_DEPTH
        args.depth = BENCH_DEPTH
    try:
        if args.command in LONG:
            with stop_on_signals():
                return args.func(args)
        return args.func(args)
    except ConcilioError as exc:  # every error about the input or the surroundings: one message, exit 2
        print(f"concilio {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # the workers are closed by now, the finished work written
        print(_stopped(args, exc), file=sys.stderr)
        return exc.exit_code if isinstance(exc, Interrupted) else EXIT_SIGINT


def _stopped(args: argparse.Namespace, exc: KeyboardInterrupt) -> str:
    """The one line a stopped command prints: what stopped it, and how to go on."""
    by = str(exc) if isinstance(exc, Interrupted) else "SIGINT"
    command = args.command + (f" {args.step}" if getattr(args, "step", None) else "")
    if command in RESUMABLE:
        return f"concilio {command}: stopped ({by}); what it finished is kept: run the same command to resume"
    if args.command in LONG:
        return f"concilio {command}: stopped ({by}); run the same command to start it again"
    return f"concilio {command}: stopped ({by})"


if __name__ == "__main__":
    sys.exit(main())
