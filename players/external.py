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
from players.limits import Limit, LimitLike, as_limit
from players.player import BasePlayer, InfoCallback, Played, Settings, centipawns
from players.result import SearchResult

SEARCH_DIRS = ("/usr/games", "/usr/local/games", "/usr/local/bin", "/usr/bin")
INFO = chess.engine.INFO_BASIC | chess.engine.INFO_SCORE | chess.engine.INFO_PV  # what an answer reports


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


class ExternalPlayer(BasePlayer):
    """A UCI or XBoard engine through python-chess (a :class:`players.player.Player`); a
    crash or a hang is answered with an error (the game is forfeited) and the engine is
    started afresh for the next move or game.  ``hash_mb`` and ``threads`` become the
    engine's ``Hash`` and ``Threads`` options; it keeps its own move overhead (0 here)."""

    kind = "uci"

    def __init__(self, name: str, command: tuple[str, ...], options: dict, protocol: str = "uci",
                 timeout: float = 10.0) -> None:
        options = dict(options)
        super().__init__(name, Settings(options.get("Hash"), int(options.get("Threads", 1)), 0))
        self.kind = protocol
        self.command = list(command)
        self.options = options
        self.protocol = protocol
        self.timeout = timeout
        self.engine: chess.engine.SimpleEngine | None = None
        self.closed = False

    def _start(self) -> None:
        """Start the engine now, so that its first move does not pay for it; one that cannot
        start is not an error here: its first move says why (a match scores it as a forfeit)."""
        try:
            self._engine()
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError, TimeoutError):
            self._kill()

    def _configured(self, old: Settings) -> None:
        new = self._settings
        changed = {}
        if new.hash_mb != old.hash_mb and new.hash_mb is not None:
            changed["Hash"] = int(new.hash_mb)
        if new.threads != old.threads:
            changed["Threads"] = new.threads
        self.options.update(changed)
        if self.engine is not None and changed:
            self.engine.configure({k: v for k, v in changed.items() if k in self.engine.options})

    def describe(self) -> str:
        options = "".join(f" {k}={v}" for k, v in self.options.items())
        return f"{self.name}: external {self.protocol.upper()} engine {' '.join(self.command)}{options}"

    def _engine(self) -> chess.engine.SimpleEngine:
        if self.closed:  # a match stopping (Ctrl-C) closes its players under the games still running
            raise chess.engine.EngineError("the player is closed")
        if self.engine is None:
            command = list(self.command)
            command[0] = find_engine_binary(command[0]) or command[0]
            self.engine = open_engine(command, self.protocol)
            # The file's options as given (an unknown one is an error); Hash and Threads from
            # ``configure`` only where the engine has them.
            options = {k: v for k, v in self.options.items()
                       if k not in ("Hash", "Threads") or k in self.engine.options}
            if options:
                self.engine.configure(options)
        return self.engine

    def new_game(self) -> None:
        pass  # python-chess sends ucinewgame when the game object changes

    def play(self, board: chess.Board, limit: LimitLike, info: InfoCallback | None = None) -> Played:
        limit = as_limit(limit)
        start = time.perf_counter()
        try:
            engine = self._engine()
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError, TimeoutError) as exc:
            return Played(None, error=f"engine {self.name} could not start: {exc}")
        mine, increment = limit.clock(board.turn)
        if mine is not None and limit.movetime is None:
            white = board.turn == chess.WHITE
            theirs, their_increment = (limit.btime, limit.binc) if white else (limit.wtime, limit.winc)
            # Both clocks as the engine expects them: a side not given is taken to have the mover's.
            theirs = mine if theirs is None else theirs
            their_increment = increment if their_increment is None else their_increment
            limit = Limit(wtime=mine if white else theirs, btime=theirs if white else mine,
                          winc=increment if white else their_increment, binc=their_increment if white else increment,
                          movestogo=limit.movestogo)
            budget = mine / 1000
        else:
            limit = Limit(nodes=limit.nodes, depth=limit.depth, movetime=limit.movetime)
            budget = limit.movetime / 1000 if limit.movetime else 0.0
        coro = engine.protocol.play(board, limit.to_engine(), info=INFO)
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
        seconds = time.perf_counter() - start
        move = result.move.uci() if result.move else None
        if move is None:
            return Played(None, seconds=seconds, error=f"engine {self.name} returned no move")
        searched = _as_result(board, move, result.info, seconds)
        if info is not None and searched.depth:
            info(searched.summary())
        score = centipawns(searched) if "score" in result.info else None  # none is made up
        return Played(move, score, result.info.get("depth"), seconds, result.info.get("nodes"), result=searched)

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


def _as_result(board: chess.Board, move: str, info: chess.engine.InfoDict, seconds: float) -> SearchResult:
    """What an external engine said about its move, as our searches say it (score from the
    mover's view, mates as moves to mate), so that every player's answer reads the same."""
    pov = info.get("score")
    score = pov.pov(board.turn) if pov is not None else None
    mate = score.mate() if score is not None else None
    score_cp = 0 if score is None else score.score(mate_score=32_000)
    pv = tuple(m.uci() for m in info.get("pv", ())) or (move,)
    if pv[0] != move:
        pv = (move,)
    depth = int(info.get("depth", 0))
    nodes = int(info.get("nodes", 0))
    return SearchResult(bestmove=move, score_cp=score_cp, mate=mate, pv=pv, depth=depth, root_moves_searched=0,
                        root_moves=board.legal_moves.count(), seldepth=info.get("seldepth"), nodes=nodes,
                        time=float(info.get("time", seconds)), fen=board.fen())
