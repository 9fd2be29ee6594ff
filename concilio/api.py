"""Concilio as a library: what the command line does, as short Python calls a notebook makes.

    import chess, concilio
    with concilio.player("MKP") as mkp:                       # any player: a mask, a name, a file
        played = mkp.play(chess.Board(), concilio.Limit(nodes=20000))
    concilio.analyse(chess.Board(), concilio.Limit(depth=8))  # the full engine's search
    concilio.evaluate(chess.Board(), "MKP")                   # the evaluation, category by category
    concilio.run_suite("smoke"); concilio.run_match("quick", games=2)

Everything is re-exported by the ``concilio`` package (``concilio.player`` ...), which loads
this module only when one of its names is first used, so that the command line starts fast.
The front door's layer: it only calls the layers below (``ensemble.catalog`` for players,
the experiments for suites and matches).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import chess

from base.errors import ConcilioError
from ensemble.catalog import build, describe
from evaluation.spec import EvalSpec
from players.limits import Limit, LimitLike, as_limit
from players.player import Played, Player, Settings
from players.position import Position
from players.trace import EvalTrace, trace
from tournaments.match.config import MatchConfig, load_match
from tournaments.match.run import MatchOutcome
from tournaments.match.run import run_match as _run_match
from tournaments.games.game import TimeControl
from tournaments.suite.config import SuiteRunConfig, load_suite
from tournaments.suite.run import SuiteRunOutcome
from tournaments.suite.run import run_suite as _run_suite

__all__ = ["ConcilioError", "Limit", "Played", "Player", "Settings", "analyse", "evaluate", "player", "run_match",
           "run_suite"]

BoardLike = chess.Board | str | None  # a board, a FEN, or None for the start position


def player(name: str | Path | None = None, *, hash_mb: float | None = None, threads: int | None = None,
           move_overhead_ms: int | None = None, budget_mode: str | None = None) -> Player:
    """A started player of any kind: a mask (``"MKP"``, ``76``), a name of the shipped or your
    configs (``"3b"``, ``"abdada"``, ``"cascade"``, ``"gnuchess"``) or a file; None is the full
    engine.  Close it when done (``with concilio.player(...) as p:`` does)."""
    built = build(describe(name))
    built.configure(hash_mb=hash_mb, threads=threads, move_overhead_ms=move_overhead_ms, budget_mode=budget_mode)
    return built.start()


def analyse(board: BoardLike = None, limit: LimitLike = Limit(depth=10), by: Player | str | None = None) -> Played:
    """One search of ``board`` within ``limit`` by a player (a started one, or a name: opened
    for this search and closed; default the full engine).  The answer's ``result`` holds the
    score, depth, nodes and principal variation; ``explain()`` says it in words."""
    position = _board(board)
    if isinstance(by, Player):
        return by.play(position, limit)
    with player(by) as searcher:
        return searcher.play(position, limit)


def evaluate(board: BoardLike = None, mask: str | int = "MBXKPAR", weights: dict | list | None = None) -> EvalTrace:
    """The static evaluation of ``board`` for an instance, category by category (``print(...format())``)."""
    return trace(Position(_board(board)), EvalSpec.parse(mask, weights))


def run_suite(config: str | Path | SuiteRunConfig, *, limit: LimitLike | None = None, workers: int | None = None,
              search: bool = True, progress: bool = False) -> SuiteRunOutcome:
    """A suite run (``concilio suite``): a config's name or file; ``limit`` (nodes, depth or
    movetime) replaces its budget per instance and position, ``workers`` its Dask workers.
    Resumes from its store like the command; the report goes where the config says."""
    loaded = config if isinstance(config, SuiteRunConfig) else load_suite(config)
    if limit is not None:
        loaded = replace(loaded, budget=_one_bound(limit, "a suite's budget"))
    if workers is not None:
        loaded = replace(loaded, workers=workers)
    return _run_suite(loaded, search=search, progress=progress,
                      warn=(lambda line: None) if not progress else _print)


def run_match(config: str | Path | MatchConfig, *, games: int | None = None, limit: LimitLike | None = None,
              output: str | Path | None = None, concurrency: int | None = None,
              progress: bool = False) -> MatchOutcome:
    """A match (``concilio match``): a config's name or file; ``games`` per pairing, ``limit``
    (one move's nodes, depth or movetime, the same for every player), ``output`` and
    ``concurrency`` replace the file's.  Resumes from its output folder like the command."""
    loaded = config if isinstance(config, MatchConfig) else load_match(config)
    if games is not None:
        if games < 1 or (loaded.openings and games % 2):
            raise ConcilioError(f"games: {games} per pairing; with an opening book it must be even and positive")
        loaded = replace(loaded, games=games)
    if limit is not None:
        control = TimeControl(Limit(**_one_bound(limit, "a match's limit"), equal_time=as_limit(limit).equal_time))
        loaded = replace(loaded, rules=replace(loaded.rules, time_control=control),
                         players=tuple(replace(p, time_control=None) for p in loaded.players))
    if output is not None:
        loaded = replace(loaded, output=Path(output).resolve())
    if concurrency is not None:
        loaded = replace(loaded, concurrency=concurrency)
    return _run_match(loaded, progress=progress, out=_print if progress else (lambda line: None))


def _board(board: BoardLike) -> chess.Board:
    if board is None:
        return chess.Board()
    if isinstance(board, chess.Board):
        return board
    return chess.Board(board)


def _one_bound(limit: LimitLike, what: str) -> dict[str, int]:
    """The one node, depth or movetime bound that suites and matches take per move."""
    limit = as_limit(limit)
    bounds = {k: getattr(limit, k) for k in ("nodes", "depth", "movetime") if getattr(limit, k) is not None}
    if len(bounds) != 1:
        raise ConcilioError(f"{what} takes one of nodes, depth or movetime; got {limit}")
    return bounds


def _print(line: str) -> None:
    print(line)
