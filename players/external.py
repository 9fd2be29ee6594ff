"""External engines (GNU Chess, Stockfish, any UCI or XBoard engine) as players, and
finding the ones installed from Debian's packages.

Debian installs games under ``/usr/games``, which is not on every user's PATH.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import time

import chess
import chess.engine

from base.errors import ConcilioError
from base.interrupts import deaf_children
from players.player import InfoCallback, MoveLimits, Played
from players.result import MATE_CP

SEARCH_DIRS = ("/usr/games", "/usr/local/games", "/usr/local/bin", "/usr/bin")


class EngineNotFoundError(ConcilioError, FileNotFoundError):
    """An external engine binary that is not installed."""


def find_engine_binary(name: str) -> str:
    """Absolute path of an engine binary, looked up on PATH and in Debian's game directories."""
    if os.sep in name:
        if os.access(name, os.X_OK):
            return name
        raise EngineNotFoundError(f"engine {name!r} is not an executable file")
    found = shutil.which(name)
    if found:
        return found
    for directory in SEARCH_DIRS:
        candidate = os.path.join(directory, name)
        if os.access(candidate, os.X_OK):
            return candidate
    raise EngineNotFoundError(f"engine {name!r} not found on PATH or in {', '.join(SEARCH_DIRS)} "
                              f"(on Debian: apt-get install {name})")


def open_engine(command: str | list[str], protocol: str = "uci", timeout: float = 30.0) -> chess.engine.SimpleEngine:
    """Start an engine deaf to Ctrl-C: the terminal sends it to the whole process group, and
    the engine must live until the command that stops quits it (one killed under a search
    answers with an error, and a stopping command prints its traceback)."""
    popen = chess.engine.SimpleEngine.popen_uci if protocol == "uci" else chess.engine.SimpleEngine.popen_xboard
    with deaf_children():
        return popen(command, timeout=timeout)


class ExternalPlayer:
    """A UCI or XBoard engine through python-chess (a :class:`players.player.Player`); a
    crash or a hang is answered with an error (the game is forfeited) and the engine is
    started afresh for the next move or game."""

    overhead_ms = 0  # the engine keeps its own

    def __init__(self, name: str, command: tuple[str, ...], options: dict, protocol: str = "uci",
                 timeout: float = 10.0) -> None:
        self.name = name
        self.command = list(command)
        self.options = dict(options)
        self.protocol = protocol
        self.timeout = timeout
        self.engine: chess.engine.SimpleEngine | None = None
        self.closed = False

    def _start(self) -> chess.engine.SimpleEngine:
        if self.closed:  # a match stopping (Ctrl-C) closes its players under the games still running
            raise chess.engine.EngineError("the player is closed")
        if self.engine is None:
            command = list(self.command)
            command[0] = find_engine_binary(command[0]) or command[0]
            self.engine = open_engine(command, self.protocol)
            if self.options:
                self.engine.configure(self.options)
        return self.engine

    def new_game(self) -> None:
        pass  # python-chess sends ucinewgame when the game object changes

    def play(self, board: chess.Board, limits: MoveLimits, info: InfoCallback | None = None) -> Played:
        start = time.perf_counter()
        try:
            engine = self._start()
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError, TimeoutError) as exc:
            return Played(None, error=f"engine {self.name} could not start: {exc}")
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
            return Played(None, seconds=time.perf_counter() - start, error=f"engine {self.name} {reason}")
        score = None
        pov = result.info.get("score")
        if pov is not None:
            s = pov.pov(board.turn)
            score = s.score(mate_score=MATE_CP)
        move = result.move.uci() if result.move else None
        return Played(move, score, result.info.get("depth"), time.perf_counter() - start, result.info.get("nodes"),
                      error=None if move else f"engine {self.name} returned no move")

    def stop(self) -> None:
        """A move in progress runs to its own limit (python-chess's ``play`` has no stop)."""

    def _kill(self) -> None:
        engine, self.engine = self.engine, None
        if engine is None:
            return
        try:
            engine.close()
        except Exception:  # noqa: BLE001 - already dead is fine
            pass

    def close(self) -> None:
        """Quit the engine for good: a closed player starts no other (one a worker still runs
        when its process ends is left behind, and GNU Chess then spins on a core)."""
        self.closed = True
        if self.engine is not None:
            try:
                self.engine.quit()
            except Exception:  # noqa: BLE001
                self._kill()
            self.engine = None
