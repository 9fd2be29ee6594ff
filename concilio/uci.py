"""``concilio uci [PLAYER]``: any Concilio player as a UCI engine.

Without a name it is the full engine; with ``MKP`` (a mask) a single instance; with any
other name or file, the player ``ensemble.catalog`` finds for it (an ensemble, a
decomposition, a cascade, even an external engine).  Every one is a
:class:`players.player.Player`, driven through that protocol alone: the options become
``configure``, ``go`` a :class:`players.limits.Limit`.  Searches run in a thread so that
``stop``, ``isready`` and ``quit`` are answered at once; every input line that cannot be
understood is answered with ``info string`` and otherwise ignored, so the engine never
dies or hangs on bad input.

``uci`` is answered before the compiled search is loaded: with an empty numba cache that is
a minute of compiling, and GUIs wait ten seconds for ``uciok`` but as long as it takes for
``readyok``.  So the options come from the player's file (``ensemble.catalog.settings``), and
the player is built in the background from ``uciok`` on (an instance is started too: its
start is the compile); ``isready``, ``go`` and ``setoption`` wait for it, so no search's
clock counts the compile.

Every ``go`` gets exactly one ``bestmove``.  Whether one is owed is state that changes
under the output lock together with the writing of that ``bestmove`` line: the search
thread's liveness lags behind its last line, and a ``go`` sent right after a
``bestmove`` must find the engine idle.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import replace
from typing import Callable, TextIO

import chess

from ensemble.catalog import build, describe, settings
from players.clock import movetime_margin
from players.limits import GO_NUMBERS, Limit, parse_go
from players.player import BUDGET_MODES, Player, Settings

ENGINE_NAME = "Concilio"
MAX_MULTIPV = 500


class UciEngine:
    def __init__(self, target: str | None = None, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.lock = threading.RLock()
        self.debug = False
        self.board = chess.Board()
        self._position_root: str | None = None  # the last accepted position command: its root
        self._position_moves: list[str] = []    # and its moves
        self.thread: threading.Thread | None = None
        self.overhead_ms: int | None = None  # the Move Overhead option; None: the player's default
        self._owed = 0  # the search whose bestmove is still owed (0: none)
        self._searches = 0
        self._stop_requested = threading.Event()
        self._info_sent = False
        # The target is read now (a bad file is an error at start-up, exit 2), without the
        # engine; the player is built in the background from ``uciok`` on (``_start_early``).
        self.spec = describe(target)
        self.name = f"{ENGINE_NAME} {self.spec.name}"
        self._first_settings: Settings = settings(self.spec)  # the options ``uci`` lists
        self._player: Player | None = None
        self._build_error: Exception | None = None
        self._starting: threading.Thread | None = None

    # --- set-up ---------------------------------------------------------------------------------
    def _start_early(self) -> None:
        """Build the player in the background (cold, its import is the engine's compile, a
        minute, which then overlaps the GUI's own set-up), and start it if it is an instance:
        its settings apply at once whenever they come, so starting it before them loses
        nothing; an ensemble's or decomposition's workers wait for them."""
        if self._starting is None and self._player is None:
            self._starting = threading.Thread(target=self._build_quietly, name="start", daemon=True)
            self._starting.start()

    def _build_quietly(self) -> None:
        try:
            self._player = build(self.spec, events=lambda m: self.send(f"info string {m}"))
        except Exception as exc:  # noqa: BLE001 - reported by the isready or go that needs the player
            self._build_error = exc
            return
        if self.spec.kind == "instance":
            try:
                self._player.start()
            except Exception:  # noqa: BLE001 - the next isready or go starts it again and reports the error
                pass

    @property
    def player(self) -> Player:
        """The player, built (the build under way waited for)."""
        self._settled()
        if self._player is None:
            if self._build_error is not None:
                raise self._build_error
            self._player = build(self.spec, events=lambda m: self.send(f"info string {m}"))
        return self._player

    def _settled(self) -> Player | None:
        """The player once a build or start under way is over: nothing may change it meanwhile."""
        if self._starting is not None:
            self._starting.join()
        return self._player

    @property
    def settings(self) -> Settings:
        """The player's settings: from its file until it is built."""
        return self._player.settings if self._player is not None else self._first_settings

    def _ensure_player(self) -> Player:
        return self.player.start()

    @property
    def overhead(self) -> int:
        """What a clock allocation keeps back: the player's setting (the GUI's, or its default)."""
        return self.settings.move_overhead_ms

    @property
    def movetime_margin(self) -> int:
        """What comes off a ``go movetime`` (``players.clock.movetime_margin``); a player that
        keeps its coordination inside the movetime (an ensemble) says what it needs instead."""
        own = getattr(self.player, "movetime_margin_ms", None)
        if own is not None and self.overhead_ms is None:
            return own
        return movetime_margin(self.player.settings.move_overhead_ms, self.overhead_ms)

    # --- output ---------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    # --- the loop -------------------------------------------------------------------------------
    def run(self, lines) -> None:
        for raw in lines:
            line = raw.strip()
            if not line:
                continue
            try:
                if self.handle(line) is False:
                    break
            except Exception as exc:  # noqa: BLE001 - bad input must never kill the engine
                self.send(f"info string error: {type(exc).__name__}: {exc} (in {line[:80]!r})")
        self.stop_search()
        self.close()

    def handle(self, line: str) -> bool | None:
        words = line.split()
        command, args = words[0], words[1:]
        handler: Callable | None = getattr(self, f"cmd_{command}", None)
        if handler is None:
            self.send(f"info string ignored unknown command {command!r}")
            return None
        return handler(args)

    def cmd_uci(self, args) -> None:
        self.send(f"id name {self.name}")
        self.send("id author the Concilio developers")
        self.send("option name Hash type spin default 16 min 1 max 4096")
        self.send(f"option name Move Overhead type spin default {self.overhead} min 0 max 5000")
        mode = self.settings.budget_mode
        if mode is not None:
            self.send(f"option name BudgetMode type combo default {mode} "
                      + " ".join(f"var {m}" for m in BUDGET_MODES))
        if self.settings.multipv is not None:
            self.send(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
        self.send("uciok")
        self._start_early()

    def cmd_debug(self, args) -> None:
        if args[:1] not in (["on"], ["off"]):
            self.send("info string debug takes on or off")
            return
        self.debug = args[0] == "on"

    def cmd_isready(self, args) -> None:
        self._ensure_player()
        self.send("readyok")

    def cmd_setoption(self, args) -> None:
        text = " ".join(args)
        if not text.startswith("name ") or " value " not in text + " ":
            self.send(f"info string setoption needs 'name <id> value <x>': {text!r}")
            return
        name, _, value = text[5:].partition(" value ")
        name, value = name.strip(), value.strip()
        if name.lower() == "hash":
            size = self._ranged(value, 1, 4096, "Hash must be 1-4096 MB")
            if size is None:
                return
            self.player.configure(hash_mb=size)
        elif name.lower() == "move overhead":
            ms = self._ranged(value, 0, 5000, "Move Overhead must be 0-5000 ms")
            if ms is None:
                return
            self.overhead_ms = ms
            self.player.configure(move_overhead_ms=ms)
        elif name.lower() == "budgetmode" and self.player.settings.budget_mode is not None:
            if value not in BUDGET_MODES:
                self.send(f"info string BudgetMode must be {' or '.join(BUDGET_MODES)}, got {value!r}")
                return
            self.player.configure(budget_mode=value)
        elif name.lower() == "multipv" and self.player.settings.multipv is not None:
            lines = self._ranged(value, 1, MAX_MULTIPV, f"MultiPV must be 1-{MAX_MULTIPV}")
            if lines is None:
                return
            self.player.configure(multipv=lines)
        else:
            self.send(f"info string ignored unknown option {name!r}")

    def _ranged(self, value: str, low: int, high: int, rule: str) -> int | None:
        number = _int(value)
        if number is None or not low <= number <= high:
            self.send(f"info string {rule}, got {value!r}")
            return None
        return number

    def cmd_ucinewgame(self, args) -> None:
        self.stop_search()
        self._ensure_player().new_game()
        self.board = chess.Board()
        self._position_root, self._position_moves = None, []

    def cmd_position(self, args) -> None:
        if not args:
            self.send("info string position needs startpos or fen")
            return
        if args[0] == "startpos":
            board, rest = chess.Board(), args[1:]
            root = "startpos"
        elif args[0] == "fen":
            fen_words = []
            rest = args[1:]
            while rest and rest[0] != "moves":
                fen_words.append(rest.pop(0))
            try:
                board = chess.Board(" ".join(fen_words))
            except ValueError as exc:
                self.send(f"info string invalid fen {' '.join(fen_words)!r}: {exc}")
                return
            if not board.is_valid():
                self.send(f"info string illegal position {' '.join(fen_words)!r}")
                return
            root = board.fen()
        else:
            self.send(f"info string position needs startpos or fen, got {args[0]!r}")
            return
        if rest and rest[0] != "moves":
            self.send(f"info string expected 'moves', got {rest[0]!r}")
            return
        moves = rest[1:]
        # A GUI sends the whole game before every move: when it extends the last position
        # sent, only the new moves are checked (each check of a legal move costs ~20 us, a
        # 250-move game 5 ms of the mover's clock).
        known = self._position_moves
        if root == self._position_root and moves[:len(known)] == known:
            board, todo = self.board.copy(), moves[len(known):]
        else:
            todo = moves
        for uci in todo:
            try:
                move = chess.Move.from_uci(uci)
            except ValueError:
                move = None
            if move is None or move not in board.legal_moves:
                self.send(f"info string illegal move {uci!r} in {board.fen()}; position ignored")
                return
            board.push(move)
        self.board = board
        self._position_root, self._position_moves = root, moves

    def searching(self) -> bool:
        with self.lock:
            return self._owed != 0

    def cmd_go(self, args) -> None:
        if self.searching():
            self.send("info string go while searching: the running search answers first")
            self.stop_search()
        limit, ignored = parse_go(args)
        if ignored:
            self.send(f"info string go: bad value for {', '.join(_described(ignored))}; ignored")
        if not any(self.board.legal_moves):
            self.send("info string no legal move in this position")
            self.send("bestmove 0000")
            return
        if limit.searchmoves:
            legal = {m.uci() for m in self.board.legal_moves}
            bad_moves = [m for m in limit.searchmoves if m not in legal]
            if bad_moves:
                self.send(f"info string searchmoves: {' '.join(bad_moves)} not legal; ignored")
                limit = replace(limit, searchmoves=tuple(m for m in limit.searchmoves if m in legal))
        player = self._ensure_player()
        self.join_search()
        self._stop_requested.clear()
        board = self.board.copy()
        limit = self.limit_for(limit)
        with self.lock:
            self._searches += 1
            self._owed = self._searches
        self.thread = threading.Thread(target=self._search, args=(player, board, limit), daemon=True)
        self.thread.start()

    def cmd_stop(self, args) -> None:
        self.stop_search()

    def cmd_quit(self, args) -> bool:
        return False

    def cmd_ponderhit(self, args) -> None:
        self.send("info string pondering is not supported; ponderhit ignored")

    # --- searching ------------------------------------------------------------------------------
    def limit_for(self, limit: Limit) -> Limit:
        """The GUI's limit for this move: every bound it gives applies, whichever comes first
        (UCI).  A ``movetime`` is a hard limit: the movetime margin comes off it here.  A clock
        goes to the player's time manager as it is."""
        if limit.movetime is not None:
            return replace(limit, movetime=max(1, limit.movetime - self.movetime_margin))
        return limit

    def _search(self, player: Player, board: chess.Board, limit: Limit) -> None:
        self._info_sent = False
        try:
            played = player.play(board, limit, info=self._info)
            for line in played.report:
                self.send(f"info string {line}")
            if played.result is not None and not self._info_sent:
                self.send(played.result.summary(played.nodes, played.seconds).uci())
            move = played.move
            if move is None or chess.Move.from_uci(move) not in board.legal_moves:
                raise ValueError(played.error or f"the player answered {move!r}")
        except Exception as exc:  # noqa: BLE001 - answer with a legal move whatever happened
            self.send(f"info string search failed: {type(exc).__name__}: {exc}")
            move = next(iter(board.legal_moves)).uci()
        if limit.infinite and not self._stop_requested.is_set():
            self._stop_requested.wait()  # UCI: no bestmove before stop in infinite mode
        with self.lock:
            self.out.write(f"bestmove {move}\n")
            self.out.flush()
            self._owed = 0

    def _info(self, it) -> None:
        self._info_sent = True
        self.send(it.uci())

    def stop_search(self) -> None:
        """``stop``: the running search answers now.  A stop that races the search's own
        end (its ``bestmove`` already sent) stops nothing: the player is told to stop only
        while a ``bestmove`` is owed."""
        self._stop_requested.set()
        while self.thread is not None and self.thread.is_alive():
            with self.lock:  # the search cannot send its bestmove (and end) while its player is stopped
                owed = self._owed
                if owed:
                    self.player.stop()
            if not owed:
                break
            # Again until it ends: a stop that came before the search began was cleared by it.
            self.thread.join(timeout=0.01)
        self.join_search()

    def join_search(self) -> None:
        """Wait for the search thread to end (it may still be returning after its
        ``bestmove``), so that two searches never share a player."""
        if self.thread is not None:
            self.thread.join(timeout=30)
            if self.thread.is_alive():
                self.send("info string the previous search did not end within 30 s")

    def close(self) -> None:
        if self._starting is not None and self._starting.is_alive():
            return  # quit during the compile: nothing to close yet, and the start ends with the process
        if self._player is not None:
            self._player.close()


def _int(text: str) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _described(ignored: list[str]) -> list[str]:
    """The words ``parse_go`` ignored, as the GUI reads them (an unknown word as such)."""
    return [word if word in GO_NUMBERS else f"unknown {word}" for word in ignored]


def main(target: str | None = None) -> int:
    engine = UciEngine(target)
    engine.run(sys.stdin)
    return 0
