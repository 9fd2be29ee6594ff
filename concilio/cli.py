"""The ``concilio`` command: one front door with a subcommand per job.

Every subcommand turns bad input (a FEN, a mask, a limit) into one clear line on
stderr and exit code 2, the convention of command-line tools for usage errors.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from base.errors import ConcilioError
from base.interrupts import Interrupted, stop_on_signals
from base.logs import set_verbosity
from concilio import commands

EXIT_USAGE = 2
EXIT_SIGINT = 130  # the shell's 128 + SIGINT
# Long commands: Ctrl-C or SIGTERM stops them cleanly.  Those that resume from what they
# wrote are rerun to finish; the others start again.
RESUMABLE = {"match", "suite", "label", "autotune", "book", "fit positions"}
LONG = {"match", "scaling", "suite", "label", "autotune", "book", "fit", "speedup", "speed-table"}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option's default beside its help, and the epilog's example kept as written.
    A flag's False, an empty list and None say nothing, so they are left out."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        shown = action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE)
        if (not shown or action.nargs == 0 or default in (None, argparse.SUPPRESS) or default == []
                or "%(default)" in text):
            return text
        return f"{text} (default: %(default)s)"


class VersionAction(argparse.Action):
    """``--version``: the installed package's version and the engine's fingerprint (the hash of
    the search and evaluation code that stores and matches are keyed by), read only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(version_text())
        parser.exit()


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from base.fingerprint import engine_fingerprint
    try:
        installed = version("concilio")
    except PackageNotFoundError:  # run from a checkout that was never installed
        installed = "(not installed)"
    return f"concilio {installed} (engine {engine_fingerprint()})"


def fit_doc() -> str:
    """The fit's recipe, from the module that holds it, as plain text for ``concilio fit -h``:
    reStructuredText's markup (``literal``, **bold**, ``::``) dropped."""
    from tournaments.training import fit
    text = (fit.__doc__ or "").replace("``", "").replace("**", "").replace("::", ":")
    return text.strip()


# Defaults the parser shows, kept here rather than imported: the modules that own them load
# the compiled engine (a minute on an empty numba cache), and every command, ``concilio uci``
# first (a GUI waits ten seconds for ``uciok``), builds the parser before anything else.
# tests/concilio/test_cli.py holds each equal to its owner's constant.
CATEGORIES = "MBXKPAR"  # evaluation.spec.CATEGORIES
BENCH_DEPTH = 9  # players.bench.BENCH_DEPTH
FIT_POSITIONS = Path("runs/fit/positions.txt")  # tournaments.training.fit.DEFAULT_POSITIONS
FIT_RIDGE = 1e-9  # tournaments.training.fit.RIDGE


class Parser(argparse.ArgumentParser):
    """An argument parser whose description may be a function, called only when the help is
    shown (``fit``'s recipe lives in a module that loads the engine)."""

    def format_help(self) -> str:
        if callable(self.description):
            self.description = self.description()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="concilio", description="Knowledge-distribution chess players.",
                                     formatter_class=HelpFormatter, epilog=examples(
                                         "concilio play MKP --movetime 500", "concilio match quick"))
    parser.add_argument("--version", action=VersionAction, help="print the version and the engine's fingerprint")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="say more on stderr: -v Concilio's and Dask's INFO logs, -vv their DEBUG logs")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(group, name: str, helptext: str, *example: str, **kwargs) -> argparse.ArgumentParser:
        """A subcommand whose --help says what it does, its defaults and an example."""
        kwargs.setdefault("description", textwrap.fill(helptext[0].upper() + helptext[1:] + ".", 100))
        q = group.add_parser(name, help=helptext, formatter_class=HelpFormatter, epilog=examples(*example), **kwargs)
        # also after the subcommand (concilio play MKP -v); SUPPRESS keeps a -v given before it
        q.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        return q

    p = command(sub, "perft", "count leaf nodes of the legal move tree", "concilio perft --depth 5 --divide")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--depth", type=int, required=True, help="half-moves to count to")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.set_defaults(func=commands.cmd_perft)

    def add_spec_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--mask", default=CATEGORIES, help="categories, as letters (MKP) or the 7-bit integer (76)")
        q.add_argument("--weights", nargs="+", help="seven weights in the order M B X K P A R")

    p = command(sub, "search", "search one position and print the best move",
                'concilio search --fen "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1" --depth 6 --mask MKP')
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    limit = p.add_mutually_exclusive_group(required=True)
    limit.add_argument("--depth", type=int, help="iterations to search")
    limit.add_argument("--nodes", type=int, help="nodes to search")
    limit.add_argument("--movetime", type=int, help="milliseconds")
    p.add_argument("--hash", type=float, default=16, help="transposition table size in MB")
    add_spec_args(p)
    p.set_defaults(func=commands.cmd_search)

    p = command(sub, "eval", "trace the evaluation category by category", "concilio eval --moves e2e4 e7e5 --mask MBX")
    p.add_argument("--fen", help="position (default: the start position)")
    p.add_argument("--moves", nargs="*", help="UCI moves played from the position")
    add_spec_args(p)
    p.set_defaults(func=commands.cmd_eval)

    p = command(sub, "play", "let any player choose a move and show why (an ensemble its votes, "
                             "an instance its search)", "concilio play 3b --nodes 20000", "concilio play MKP --depth 8")
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

    p = command(sub, "suite", "score players and selection criteria on EPD test suites", "concilio suite smoke")
    p.add_argument("config", help="suite-run file, or a name in configs/suites (thesis, smoke, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for phase 1 (overrides the file)")
    p.add_argument("--no-search", action="store_true", help="score only what the store holds")
    p.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    p.set_defaults(func=commands.cmd_suite)

    p = command(sub, "speed-table", "measure the speeds behind time-equivalent node budgets",
                "concilio speed-table --team configs/ensembles/3b.yaml")
    p.add_argument("--out", default="data/calibration/speed.json", help="where the table goes")
    p.add_argument("--team", action="append", help="decomposition file whose team speed to measure (repeatable)")
    p.add_argument("--nodes", type=int, default=20000, help="nodes per bench position and mask")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (the median is kept)")
    p.add_argument("--movetime", type=int, default=500, help="ms per bench position for the teams")
    p.add_argument("--all-masks", action="store_true", help="also the masks without M (default: the 64 with M)")
    p.set_defaults(func=commands.cmd_speed_table)

    p = command(sub, "autotune", "choose an ensemble's instances from a pool on training positions",
                "concilio autotune distribution --size 4")
    p.add_argument("config", help="auto-tune file, or a name in configs/tuning (distribution, ...)")
    p.add_argument("--workers", type=int, help="Dask workers for the searches (overrides the file)")
    p.add_argument("--no-search", action="store_true", help="tune only on what the store holds")
    p.add_argument("--adopt", metavar="ENGINE", help="take over the store's searches of an older engine fingerprint "
                   "once a sample of them, searched again, is identical")
    p.add_argument("--size", type=int, help="exactly this many instances; the outputs' names end in -SIZE")
    p.add_argument("--verify", type=int, default=200, help="searches to repeat before adopting")
    p.add_argument("--read", metavar="TEAM", help="tune nothing: read this written team (an ensemble file or a name "
                   "in configs/ensembles) on the file's tune split and held-out games, beside the full engine")
    p.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    p.set_defaults(func=commands.cmd_autotune)

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
    p.add_argument("--workers", type=int, default=2, help="Dask workers")
    p.add_argument("--export", help="write the labelled positions as an EPD suite (bm, c0 points, c9, c1 source, "
                                    "c2 opening)")
    p.add_argument("--first", type=int, help="export only the first N labelled positions")
    p.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    p.set_defaults(func=commands.cmd_label)

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
    p.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    p.set_defaults(func=commands.cmd_book)

    p = command(sub, "fit", "fit the evaluation's term values ('positions' plays and labels them, "
                            "'terms' fits them) or a team's calibration", "concilio fit terms --tables --apply",
                description=fit_doc)
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    q = command(steps, "positions", "play and label the fit's positions (resumes)",
                "concilio fit positions --games 21000")
    q.add_argument("--games", type=int, default=17_000, help="Stockfish self-play games")
    q.add_argument("--depth", type=int, default=6, help="Stockfish's depth per move and label")
    q.add_argument("--seed", type=int, default=20261123, help="seeds the openings and the random moves")
    q.add_argument("--workers", type=int, default=2, help="Dask workers")
    q.add_argument("--out", type=Path, default=FIT_POSITIONS, help="the positions file (appended to)")
    q.set_defaults(func=commands.cmd_fit_positions)
    q = command(steps, "terms", "fit the term values on a positions file", "concilio fit terms --tables --apply")
    q.add_argument("--positions", type=Path, default=FIT_POSITIONS, help="what fit positions wrote")
    q.add_argument("--holdout", type=int, default=10, help="hold out every Nth game")
    q.add_argument("--tables", action="store_true", help="fit the piece-square tables too")
    q.add_argument("--ridge", type=float, default=FIT_RIDGE, help="cost of a table value's squared move (per cp²)")
    q.add_argument("--apply", action="store_true",
                   help="write the fitted values into evaluation/params.py (and tables.py)")
    q.set_defaults(func=commands.cmd_fit_terms)
    q = command(steps, "calibration", "put a team's scores on one scale: each pool instance's centipawns "
                "against the full engine's, on an auto-tune file's tune split (for calibrated_vote)",
                "concilio fit calibration scaling-h --out data/models/calibration-20k.json")
    q.add_argument("config", help="auto-tune file, or a name in configs/tuning (its pool, store and tune split)")
    q.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    q.set_defaults(func=commands.cmd_fit_calibration)
    q = command(steps, "routing", "fit a team's routing gate (reduced instances or full-knowledge copies "
                "decide) on an auto-tune file's tune split, for the routed criterion",
                "concilio fit routing scaling-d-4 --tuning scaling-d --out runs/routing-d4.json")
    q.add_argument("team", help="the ensemble file (or name) whose gate this is")
    q.add_argument("--tuning", required=True, help="auto-tune file: its training set, split, store and budget")
    q.add_argument("--out", type=Path, required=True, help="the model file to write (JSON)")
    q.set_defaults(func=commands.cmd_fit_routing)

    p = command(sub, "openings", "which openings began a training set's games, and which a match shares",
                "concilio openings shared data/training/selfplay-5k.epd configs/tournaments/tuned-heldout.yaml")
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    q = command(steps, "annotate", "write each self-play position's opening into an exported training set",
                "concilio openings annotate train.epd --book data/openings/8moves_v3-1000.epd --seed 1 --games 800")
    q.add_argument("path", type=Path, help="the exported training set (.epd), rewritten in place")
    q.add_argument("--book", type=Path, required=True, help="the book concilio label played from")
    q.add_argument("--seed", type=int, required=True, help="concilio label's --seed")
    q.add_argument("--games", type=int, required=True, help="concilio label's --games")
    q.set_defaults(func=commands.cmd_openings_annotate)
    q = command(steps, "shared", "how many of each match's openings began training games",
                "concilio openings shared data/training/selfplay-5k.epd configs/tournaments/tuned-heldout.yaml")
    q.add_argument("training", type=Path, help="an annotated training set (.epd) or label store (.sqlite)")
    q.add_argument("matches", type=Path, nargs="+", help="match configs")
    q.set_defaults(func=commands.cmd_openings_shared)

    p = command(sub, "match", "play a match, gauntlet or round robin (resumes from its output folder)",
                "concilio match quick --concurrency 2")
    p.add_argument("config", help="match file, or a name in configs/tournaments (quick, thesis, calibration)")
    p.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    p.add_argument("--output", help="output folder (overrides the file)")
    p.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    p.add_argument("--summary-only", action="store_true",
                   help="rewrite summary.md from the games so far and play nothing (safe while the match runs)")
    p.set_defaults(func=commands.cmd_match)

    p = command(sub, "scaling", "the scaling sweep: every arm at every k against the full engine at N",
                "concilio scaling play sweep --arm F --workers 4", "concilio scaling report sweep")
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    q = command(steps, "play", "play (or resume) the sweep's points, k by k",
                "concilio scaling play sweep --arm F --workers 4")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--arm", action="append", default=[], help="only this arm (repeatable): F, S, L, C, D, H")
    q.add_argument("--workers", type=int, action="append", default=[], help="only this k (repeatable)")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    q.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    q.set_defaults(func=commands.cmd_scaling_play)
    q = command(steps, "duel", "settle two points whose intervals overlap: one against the other, with an SPRT",
                "concilio scaling duel D4 L4")
    q.add_argument("first", help="a point, arm and k: D4")
    q.add_argument("second", help="the point it plays against: L4")
    q.add_argument("--sweep", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    q.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    q.set_defaults(func=commands.cmd_scaling_duel)
    q = command(steps, "duels", "play every duel still owed (overlapping pairs), cheapest first; run one "
                                "per core: each claims the next unclaimed duel", "concilio scaling duels sweep --list")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--list", action="store_true", help="only list the duels owed and who holds them")
    q.add_argument("--concurrency", type=int, help="games in parallel (overrides the file)")
    q.add_argument("--quiet", action="store_true", help="no progress bar (none either when stderr is not a terminal)")
    q.set_defaults(func=commands.cmd_scaling_duels)
    for step, helptext in (("archive", "copy every point's and duel's games into a results folder to commit "
                                       "(whole games only; never shortens an archive)"),
                           ("restore", "put archived games back into the runs folder, so play and duel resume "
                                       "on a fresh clone (never shortens a local record)")):
        q = command(steps, step, helptext, f"concilio scaling {step} sweep")
        q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
        q.add_argument("--results", type=Path,
                       help="the committed folder of compressed games (default: the sweep file's archive)")
        q.set_defaults(func=commands.cmd_scaling_carry)
    q = command(steps, "report", "the sweep's table and plot from the games so far (safe while it runs)",
                "concilio scaling report sweep --output docs/results/scaling --document docs/scaling.md")
    q.add_argument("config", nargs="?", default="sweep", help="sweep file, or a name in configs/scaling")
    q.add_argument("--output", type=Path, default=Path("reports/scaling"), help="folder for table.md and elo.png")
    q.add_argument("--document", type=Path, help="also put the table between the sweep-table markers of this file")
    q.set_defaults(func=commands.cmd_scaling_report)

    add_uci(command(sub, "uci", "be a UCI engine on stdin/stdout", "concilio uci 3b   (then: uci, isready, "
                    "position startpos, go nodes 20000)"))

    p = command(sub, "speedup", "parallel search against the sequential one at a fixed depth",
                "concilio speedup speedup-shared --depth 8 --limit 10")
    p.add_argument("config", help="speedup file, or a name in configs/decomposition")
    p.add_argument("--depth", type=int, help="override the file's depth")
    p.add_argument("--limit", type=int, help="only the first N positions")
    p.add_argument("--csv", help="where to write the CSV (default reports/speedup-<name>.csv)")
    p.set_defaults(func=commands.cmd_speedup)

    p = command(sub, "speedup-summary", "one table and a plot of E against workers from a speedup's "
                "node-clock CSV, the seeds' published speedups beside them",
                "concilio speedup-summary docs/results/speedup/speedup-cluster-nodes.csv --plot speedup.png")
    p.add_argument("csv", nargs="+", help="the <name>-nodes.csv that concilio speedup wrote (and time-based "
                   "CSVs: their rows timed on as many cores as workers)")
    p.add_argument("--plot", help="where to write the plot (PNG)")
    p.add_argument("--table", help="also write the Markdown table here")
    p.set_defaults(func=commands.cmd_speedup_summary)

    p = command(sub, "bench", "search the bench positions; the node count is the search's signature",
                "concilio bench --depth 6 --mask MKP")
    p.add_argument("--depth", type=int, default=BENCH_DEPTH, help="iterations per position")
    add_spec_args(p)
    p.set_defaults(func=commands.cmd_bench)
    return parser


def examples(*lines: str) -> str:
    """An epilog: the command lines, one a line, as a user would type them."""
    return ("example:\n" if len(lines) == 1 else "examples:\n") + "\n".join(f"  {line}" for line in lines)


def add_uci(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", nargs="?", help="a player: an instance mask (MKP), or a name or file of an ensemble, "
                   "decomposition, cascade or external engine; default: the full engine")
    p.set_defaults(func=commands.cmd_uci)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    set_verbosity(args.verbose)
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
