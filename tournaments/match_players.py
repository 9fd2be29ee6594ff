"""Everything that can sit at the board in a match: our full engine, a single
instance, an ensemble, or an external engine over UCI / XBoard (python-chess).

A player answers ``play(board, limits)`` with an ``Answer``; it never raises for a
bad move or a dead engine — the answer carries the error and the game runner
scores it as a forfeit.  External engines are restarted after a crash or a timeout.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any

import chess
import chess.engine

from ensemble.config import Budget, EnsembleConfig, load_config
from evaluation.spec import EvalSpec
from players.result import SearchLimits
from players.searcher import Searcher

MATE_SCORE = 10_000  # a mate reported in a PGN comment or adjudication counts this many centipawns


@dataclass(frozen=True)
class MoveLimits:
    """What one move may spend: a fixed budget, or the mover's clock (seconds)."""

    nodes: int | None = None
    depth: int | None = None
    movetime: int | None = None  # ms
    clock: float | None = None
    increment: float = 0.0
    opponent_clock: float | None = None

    def allocation_ms(self, overhead_ms: float = 30.0) -> int:
        """Time to spend on this move from a clock: a 1/25 share plus most of the increment,
        never more than half of what is left, always leaving ``overhead_ms`` for transport."""
        assert self.clock is not None
        left = max(0.0, self.clock * 1000 - overhead_ms)
        share = left / 25 + 0.75 * self.increment * 1000
        return max(5, int(min(share, left / 2)))

    def search_limits(self, overhead_ms: float = 30.0) -> SearchLimits:
        if self.clock is not None:
            return SearchLimits(movetime=self.allocation_ms(overhead_ms))
        return SearchLimits(depth=self.depth, nodes=self.nodes, movetime=self.movetime)


@dataclass
class Answer:
    move: str | None
    score: int | None = None  # centipawns from the mover's view
    depth: int | None = None
    seconds: float = 0.0
    note: str = ""  # e.g. the ensemble's votes
    error: str | None = None


@dataclass(frozen=True)
class PlayerEntry:
    """A player as the match file names it (plain data: it travels to Dask workers)."""

    name: str
    kind: str  # full | instance | ensemble | uci | xboard
    mask: str | None = None
    weights: Any = None
    ensemble: str | None = None
    selection: dict = field(default_factory=dict)
    command: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    timeout: float = 10.0  # seconds an external engine may exceed its move's budget before forfeiting
    decomposition: str | None = None
    distributed: bool = False  # an ensemble on its own Dask workers instead of inline
    workers: int | None = None  # a distributed ensemble's local cluster size

    def build(self) -> "GamePlayer":
        if self.kind in ("full", "instance"):
            spec = EvalSpec.parse(self.mask or "MBXKPAR", self.weights)
            return SearcherPlayer(self.name, Searcher(spec))
        if self.kind == "ensemble":
            config = load_config(self.ensemble)
            if self.selection:
                params = dict(self.selection)
                criterion = params.pop("criterion", config.selection.criterion)
                config = config.with_selection(criterion, **params)
            if self.workers:
                config = replace(config, cluster=replace(config.cluster, workers=self.workers, dashboard=False))
            return EnsembleGamePlayer(self.name, config, inline=not self.distributed)
        if self.kind == "decomposition":
            from players.decomposition.config import load_decomposition
            return DecompositionGamePlayer(self.name, load_decomposition(self.decomposition))
        if self.kind in ("uci", "xboard"):
            return ExternalPlayer(self.name, self.command, self.options, self.kind, self.timeout)
        raise ValueError(f"player {self.name}: unknown kind {self.kind!r}")


def centipawns(result) -> int:
    """A search result's score for PGN comments and adjudication: mates count ±MATE_SCORE."""
    if result.mate is None:
        return result.score_cp
    return MATE_SCORE if result.mate > 0 else -MATE_SCORE


class GamePlayer:
    name: str = ""

    def new_game(self) -> None:
        pass

    def play(self, board: chess.Board, limits: MoveLimits) -> Answer:
        raise NotImplementedError

    def close(self) -> None:
        pass


class SearcherPlayer(GamePlayer):
    def __init__(self, name: str, searcher: Searcher) -> None:
        self.name = name
        self.searcher = searcher

    def new_game(self) -> None:
        self.searcher.new_game()

    def play(self, board: chess.Board, limits: MoveLimits) -> Answer:
        start = time.perf_counter()
        result = self.searcher.search(board, limits.search_limits(overhead_ms=5))
        return Answer(result.bestmove, centipawns(result), result.depth, time.perf_counter() - start)


class EnsembleGamePlayer(GamePlayer):
    """An ensemble whose per-move budget is the match's time control.  Its instances
    search inline (in the game's process) unless its file names a cluster and the
    match runs one game at a time."""

    def __init__(self, name: str, config: EnsembleConfig, inline: bool = True) -> None:
        from ensemble.player import EnsemblePlayer
        self.name = name
        if inline:
            config = replace(config, cluster=replace(config.cluster, inline=True))
        self.config = config
        self.player = EnsemblePlayer(config).start()

    def new_game(self) -> None:
        self.player.new_game()

    def play(self, board: chess.Board, limits: MoveLimits) -> Answer:
        start = time.perf_counter()
        sl = limits.search_limits(overhead_ms=50)
        self.player.config = self.config.with_budget(
            Budget(movetime=sl.movetime, nodes=sl.nodes, depth=sl.depth, mode=self.config.budget.mode))
        root = board.root()
        decision = self.player.choose(root.fen(), [m.uci() for m in board.move_stack])
        chosen = next((r.result for r in decision.reports if r.result is not None and r.excluded is None
                       and r.result.bestmove == decision.move), None)
        score = depth = None
        if chosen is not None:
            score, depth = centipawns(chosen), chosen.depth
        votes = " ".join(f"{m}:{v}" for m, v in sorted(decision.votes.items(), key=lambda kv: -kv[1]))
        note = f"votes {votes}" if votes else f"fallback: {decision.fallback}"
        return Answer(decision.move, score, depth, time.perf_counter() - start, note)

    def close(self) -> None:
        self.player.close()


class DecompositionGamePlayer(GamePlayer):
    """The workers search one tree; answers like a single engine."""

    def __init__(self, name: str, config) -> None:
        from players.decomposition.player import DecompositionPlayer
        self.name = name
        self.player = DecompositionPlayer(config).start()

    def new_game(self) -> None:
        self.player.new_game()

    def play(self, board: chess.Board, limits: MoveLimits) -> Answer:
        start = time.perf_counter()
        result = self.player.search(board, limits.search_limits(overhead_ms=60))
        return Answer(result.bestmove, centipawns(result), result.depth, time.perf_counter() - start,
                      f"nodes {result.nodes}")

    def close(self) -> None:
        self.player.close()


class ExternalPlayer(GamePlayer):
    """A UCI or XBoard engine; a crash or a hang is answered with an error (the game is
    forfeited) and the engine is started afresh for the next move or game."""

    def __init__(self, name: str, command: tuple[str, ...], options: dict, protocol: str = "uci",
                 timeout: float = 10.0) -> None:
        self.name = name
        self.command = list(command)
        self.options = dict(options)
        self.protocol = protocol
        self.timeout = timeout
        self.engine: chess.engine.SimpleEngine | None = None

    def _start(self) -> chess.engine.SimpleEngine:
        if self.engine is None:
            from players.external import find_engine_binary
            command = list(self.command)
            command[0] = find_engine_binary(command[0]) or command[0]
            popen = chess.engine.SimpleEngine.popen_uci if self.protocol == "uci" else \
                chess.engine.SimpleEngine.popen_xboard
            self.engine = popen(command, timeout=30)
            if self.options:
                self.engine.configure(self.options)
        return self.engine

    def new_game(self) -> None:
        pass  # python-chess sends ucinewgame when the game object changes

    def play(self, board: chess.Board, limits: MoveLimits) -> Answer:
        start = time.perf_counter()
        try:
            engine = self._start()
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError, TimeoutError) as exc:
            return Answer(None, error=f"engine {self.name} could not start: {exc}")
        if limits.clock is not None:
            white = board.turn == chess.WHITE
            mine, theirs = limits.clock, limits.opponent_clock or limits.clock
            limit = chess.engine.Limit(white_clock=mine if white else theirs, black_clock=theirs if white else mine,
                                       white_inc=limits.increment, black_inc=limits.increment)
            budget = limits.clock
        else:
            limit = chess.engine.Limit(nodes=limits.nodes, depth=limits.depth,
                                       time=limits.movetime / 1000 if limits.movetime else None)
            budget = limits.movetime / 1000 if limits.movetime else 0.0
        coro = engine.protocol.play(board, limit, info=chess.engine.INFO_SCORE | chess.engine.INFO_BASIC)
        future = asyncio.run_coroutine_threadsafe(coro, engine.protocol.loop)
        try:
            result = future.result(timeout=budget + self.timeout)
        except (asyncio.TimeoutError, TimeoutError, chess.engine.EngineTerminatedError,
                chess.engine.EngineError) as exc:
            future.cancel()
            self._kill()
            if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
                reason = "did not answer in time"
            elif "illegal" in str(exc):
                reason = f"sent an illegal move ({exc})"  # python-chess refuses it: it is never played
            else:
                reason = f"crashed ({type(exc).__name__}: {exc})"
            return Answer(None, seconds=time.perf_counter() - start, error=f"engine {self.name} {reason}")
        score = None
        pov = result.info.get("score")
        if pov is not None:
            s = pov.pov(board.turn)
            score = s.score(mate_score=MATE_SCORE)
        move = result.move.uci() if result.move else None
        return Answer(move, score, result.info.get("depth"), time.perf_counter() - start,
                      error=None if move else f"engine {self.name} returned no move")

    def _kill(self) -> None:
        engine, self.engine = self.engine, None
        if engine is None:
            return
        try:
            engine.close()
        except Exception:  # noqa: BLE001 - already dead is fine
            pass

    def close(self) -> None:
        if self.engine is not None:
            try:
                self.engine.quit()
            except Exception:  # noqa: BLE001
                self._kill()
            self.engine = None
