"""``concilio uci [CONFIG]``: any Concilio player as a UCI engine.

Without a config it is the full engine; with ``MKP`` (a mask) a single instance; with
an ensemble file (or name in ``configs/ensembles``) the ensemble.  Searches run in a
thread so that ``stop``, ``isready`` and ``quit`` are answered at once; every input
line that cannot be understood is answered with ``info string`` and otherwise ignored,
so the engine never dies or hangs on bad input.
"""
from __future__ import annotations

import sys
import threading
from typing import Callable, TextIO

import chess

ENGINE_NAME = "Concilio"
DEFAULT_OVERHEAD_MS = 50
ENSEMBLE_OVERHEAD_MS = 150  # coordination: submission, transport, selection


class TimeManager:
    """Per-move time from a clock: a share of what is left plus most of the increment,
    minus a safety margin, never more than a third of what is left."""

    def __init__(self, overhead_ms: int) -> None:
        self.overhead_ms = overhead_ms

    def allocate(self, time_left: int, increment: int = 0, moves_to_go: int | None = None) -> int:
        usable = max(1, time_left - self.overhead_ms)
        share = usable / (moves_to_go if moves_to_go else 25) + 0.75 * increment
        return max(1, int(min(share, usable / 3)))


class UciEngine:
    def __init__(self, target: str | None = None, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.lock = threading.RLock()
        self.debug = False
        self.board = chess.Board()
        self.thread: threading.Thread | None = None
        # The search whose ``bestmove`` is still owed (0: none).  It changes only under
        # ``self.lock``, together with the writing of that ``bestmove`` line, so a ``go``
        # that arrives right after a ``bestmove`` always finds the engine idle: the search
        # thread's liveness lags behind its last line and must not decide that.
        self._owed = 0
        self._searches = 0
        self.target = target
        self.hash_mb = 16
        self.overhead_ms: int | None = None
        self.ensemble = None  # EnsemblePlayer, when the target is an ensemble file
        self.ensemble_config = None
        self.decomposition_config = None
        self.decomposition = None
        self.searcher = None
        self.spec = None
        self._stop_requested = threading.Event()
        self._load(target)

    # --- set-up ---------------------------------------------------------------------------------
    def _load(self, target: str | None) -> None:
        from evaluation.spec import FULL_ENGINE, EvalSpec, EvalSpecError
        self.spec = FULL_ENGINE
        self.name = f"{ENGINE_NAME} full engine (MBXKPAR)"
        if target is None:
            return
        try:
            self.spec = EvalSpec.parse(target)
            self.name = f"{ENGINE_NAME} instance ({self.spec.letters})"
            return
        except EvalSpecError:
            pass
        from concilio.config import find_config
        from players.decomposition.config import is_decomposition_file, load_decomposition
        path = find_config(target, "ensembles", "decomposition")  # ConfigError: exit 2 with the reason
        if is_decomposition_file(path):
            self.decomposition_config = load_decomposition(path)
            self.name = f"{ENGINE_NAME} decomposition {self.decomposition_config.name} " \
                        f"({self.decomposition_config.algorithm}, {self.decomposition_config.workers} workers)"
            return
        from ensemble.config import load_config
        self.ensemble_config = load_config(path)
        self.name = f"{ENGINE_NAME} ensemble {self.ensemble_config.name} {self.ensemble_config.notation}"

    def _ensure_player(self) -> None:
        if self.decomposition_config is not None:
            if self.decomposition is None:
                from players.decomposition.player import DecompositionPlayer
                self.decomposition = DecompositionPlayer(self.decomposition_config).start()
        elif self.ensemble_config is not None:
            if self.ensemble is None:
                from ensemble.player import EnsemblePlayer
                self.ensemble = EnsemblePlayer(self.ensemble_config,
                                               on_event=lambda m: self.send(f"info string {m}")).start()
        elif self.searcher is None:
            from players.result import SearchLimits
            from players.searcher import Searcher
            self.searcher = Searcher(self.spec, self.hash_mb)
            # Numba loads each compiled function on its first call: pay that here, at
            # ``isready``, not inside the first timed move.
            self.searcher.search(chess.Board(), SearchLimits(depth=3))
            self.searcher.new_game()

    @property
    def overhead(self) -> int:
        if self.overhead_ms is not None:
            return self.overhead_ms
        coordinated = self.ensemble_config is not None or self.decomposition_config is not None
        return ENSEMBLE_OVERHEAD_MS if coordinated else DEFAULT_OVERHEAD_MS

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
        if self.ensemble_config is not None:
            mode = self.ensemble_config.budget.mode
            self.send(f"option name BudgetMode type combo default {mode} var per_instance var equal_total")
        self.send("uciok")

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
            self.hash_mb = size
            if self.searcher is not None:
                self.searcher.resize_hash(size)
        elif name.lower() == "move overhead":
            ms = self._ranged(value, 0, 5000, "Move Overhead must be 0-5000 ms")
            if ms is None:
                return
            self.overhead_ms = ms
        elif name.lower() == "budgetmode" and self.ensemble_config is not None:
            if value not in ("per_instance", "equal_total"):
                self.send(f"info string BudgetMode must be per_instance or equal_total, got {value!r}")
                return
            from dataclasses import replace
            self.ensemble_config = self.ensemble_config.with_budget(replace(self.ensemble_config.budget, mode=value))
            if self.ensemble is not None:
                self.ensemble.config = self.ensemble_config
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
        self._ensure_player()
        if self.ensemble is not None:
            self.ensemble.new_game()
        elif self.decomposition is not None:
            self.decomposition.new_game()
        elif self.searcher is not None:
            self.searcher.new_game()
        self.board = chess.Board()

    def cmd_position(self, args) -> None:
        if not args:
            self.send("info string position needs startpos or fen")
            return
        if args[0] == "startpos":
            board, rest = chess.Board(), args[1:]
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
        else:
            self.send(f"info string position needs startpos or fen, got {args[0]!r}")
            return
        if rest:
            if rest[0] != "moves":
                self.send(f"info string expected 'moves', got {rest[0]!r}")
                return
            for uci in rest[1:]:
                try:
                    move = chess.Move.from_uci(uci)
                except ValueError:
                    move = None
                if move is None or move not in board.legal_moves:
                    self.send(f"info string illegal move {uci!r} in {board.fen()}; position ignored")
                    return
                board.push(move)
        self.board = board

    def searching(self) -> bool:
        with self.lock:
            return self._owed != 0

    def cmd_go(self, args) -> None:
        if self.searching():
            self.send("info string go while searching: the running search answers first")
            self.stop_search()
        params, searchmoves = _parse_go(args)
        bad = [k for k, v in params.items() if v is None]
        if bad:
            self.send(f"info string go: bad value for {', '.join(bad)}; ignored")
            params = {k: v for k, v in params.items() if v is not None}
        if not any(self.board.legal_moves):
            self.send("info string no legal move in this position")
            self.send("bestmove 0000")
            return
        if searchmoves:
            legal = {m.uci() for m in self.board.legal_moves}
            bad_moves = [m for m in searchmoves if m not in legal]
            if bad_moves:
                self.send(f"info string searchmoves: {' '.join(bad_moves)} not legal; ignored")
                searchmoves = [m for m in searchmoves if m in legal]
        self._ensure_player()
        self.join_search()
        self._stop_requested.clear()
        board = self.board.copy()
        with self.lock:
            self._searches += 1
            self._owed = self._searches
        self.thread = threading.Thread(target=self._search, args=(board, params, searchmoves or None), daemon=True)
        self.thread.start()

    def cmd_stop(self, args) -> None:
        self.stop_search()

    def cmd_quit(self, args) -> bool:
        return False

    def cmd_ponderhit(self, args) -> None:
        self.send("info string pondering is not supported; ponderhit ignored")

    # --- searching ------------------------------------------------------------------------------
    def _limits(self, board: chess.Board, params: dict) -> dict:
        """movetime / nodes / depth for this move; infinite when nothing bounds it."""
        if "movetime" in params:
            return {"movetime": max(1, params["movetime"] - self.overhead)}
        side = "w" if board.turn == chess.WHITE else "b"
        if f"{side}time" in params:
            ms = TimeManager(self.overhead).allocate(params[f"{side}time"], params.get(f"{side}inc", 0),
                                                     params.get("movestogo"))
            return {"movetime": ms}
        out = {k: params[k] for k in ("nodes", "depth") if k in params}
        if not out or "infinite" in params:
            return {"depth": 127} if not out else out
        return out

    def _search(self, board: chess.Board, params: dict, searchmoves) -> None:
        try:
            if self.ensemble is not None:
                move = self._search_ensemble(board, params)
            elif self.decomposition is not None:
                move = self._search_decomposition(board, params)
            else:
                move = self._search_single(board, params, searchmoves)
        except Exception as exc:  # noqa: BLE001 - answer with a legal move whatever happened
            self.send(f"info string search failed: {type(exc).__name__}: {exc}")
            move = next(iter(board.legal_moves)).uci()
        if "infinite" in params and not self._stop_requested.is_set():
            self._stop_requested.wait()  # UCI: no bestmove before stop in infinite mode
        with self.lock:
            self.out.write(f"bestmove {move}\n")
            self.out.flush()
            self._owed = 0

    def _search_single(self, board: chess.Board, params: dict, searchmoves) -> str:
        from players.result import SearchLimits
        limits = SearchLimits(**self._limits(board, params))
        result = self.searcher.search(board, limits, info=self._info, searchmoves=searchmoves)
        return result.bestmove

    def _search_decomposition(self, board: chess.Board, params: dict) -> str:
        from players.result import SearchLimits
        limits = self._limits(board, params)
        if limits.get("depth") == 127:
            limits = {"depth": 64}
        result = self.decomposition.search(board, SearchLimits(**limits))
        ms = max(1, int(result.time * 1000))
        self.send(f"info depth {result.depth} score {result.score_text()} nodes {result.nodes} "
                  f"nps {result.nodes * 1000 // ms} time {ms} pv {' '.join(result.pv)}")
        return result.bestmove

    def _info(self, it) -> None:
        self.send(f"info depth {it.depth} seldepth {it.seldepth} score {it.score_text()} nodes {it.nodes} "
                  f"nps {it.nps} time {int(it.time * 1000)} pv {' '.join(it.pv)}")

    def _search_ensemble(self, board: chess.Board, params: dict) -> str:
        from ensemble.config import Budget
        limits = self._limits(board, params)
        if limits.get("depth") == 127 and "movetime" not in limits:
            limits = {"movetime": 24 * 3600 * 1000}  # infinite: until stop
        mode = self.ensemble_config.budget.mode
        self.ensemble.config = self.ensemble_config.with_budget(Budget(**limits, mode=mode))
        root = board.root()
        decision = self.ensemble.choose(root.fen(), [m.uci() for m in board.move_stack])
        for r in decision.reports:
            if r.result is not None and r.excluded is None:
                res = r.result
                self.send(f"info string {r.label} {res.bestmove} {res.score_text()} depth {res.depth} "
                          f"nodes {res.nodes}")
            else:
                self.send(f"info string {r.label} excluded: {r.excluded}")
        values = " ".join(f"{m}={v:g}" for m, v in decision.values.items())
        self.send(f"info string {decision.criterion}: {values or decision.fallback} -> {decision.move}")
        chosen = next((r.result for r in decision.reports if r.result is not None and r.excluded is None
                       and r.result.bestmove == decision.move), None)
        if chosen is not None:
            nodes = sum(r.result.nodes for r in decision.reports if r.result is not None)
            ms = max(1, int(decision.elapsed * 1000))
            self.send(f"info depth {chosen.depth} seldepth {chosen.seldepth} score {chosen.score_text()} "
                      f"nodes {nodes} nps {nodes * 1000 // ms} time {ms} pv {' '.join(chosen.pv)}")
        return decision.move

    def stop_search(self) -> None:
        """``stop``: the running search answers now.  A stop that races the search's own
        end (its ``bestmove`` already sent) stops nothing: the players are told to stop
        only while a ``bestmove`` is owed."""
        self._stop_requested.set()
        with self.lock:  # the search cannot send its bestmove (and end) while its player is stopped
            if self._owed:
                for stop in (self.searcher and self.searcher.stop, self.ensemble and self.ensemble.interrupt,
                             self.decomposition and self.decomposition.stop):
                    if stop:
                        stop()
        self.join_search()

    def join_search(self) -> None:
        """Wait for the search thread to end (it may still be returning after its
        ``bestmove``), so that two searches never share a player."""
        if self.thread is not None:
            self.thread.join(timeout=30)
            if self.thread.is_alive():
                self.send("info string the previous search did not end within 30 s")

    def close(self) -> None:
        if self.ensemble is not None:
            self.ensemble.close()
        if self.decomposition is not None:
            self.decomposition.close()


def _int(text: str) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _parse_go(args: list[str]) -> tuple[dict, list[str]]:
    numeric = {"wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate"}
    params: dict = {}
    searchmoves: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in numeric:
            value = _int(args[i + 1]) if i + 1 < len(args) else None
            params[word] = value if value is None or value >= 0 else None
            if word in ("wtime", "btime") and value is not None and value < 0:
                params[word] = 0  # some GUIs send negative times when the flag is near
            i += 2
        elif word in ("infinite", "ponder"):
            params["infinite"] = True
            i += 1
        elif word == "searchmoves":
            i += 1
            while i < len(args) and args[i] not in numeric and args[i] not in ("infinite", "ponder"):
                searchmoves.append(args[i])
                i += 1
        else:
            params[f"unknown {word}"] = None
            i += 1
    if params.get("depth") == 0:
        params["depth"] = 1
    if params.get("mate"):
        params["depth"] = min(127, 2 * params.pop("mate") + 1)
    else:
        params.pop("mate", None)
    for key in ("nodes", "movetime"):
        if params.get(key) == 0:
            params[key] = 1
    return params, searchmoves


def main(target: str | None = None) -> int:
    engine = UciEngine(target)
    engine.run(sys.stdin)
    return 0
