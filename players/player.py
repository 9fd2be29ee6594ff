"""One interface for everything that can sit at the board: a single instance, an
ensemble, the decomposition player, the cascade, an external engine.

UCI, ``concilio play``, matches and notebooks drive any :class:`Player` the same way and
through nothing else: ``configure`` (hash, threads, move overhead, an ensemble's budget
mode), ``start`` (workers up, compiled code loaded), ``new_game``, ``play`` a move under a
:class:`players.limits.Limit` (a fixed budget, or the game's clocks, which
:meth:`Limit.for_move` turns into this move's time), ``stop`` from another thread,
``close``.  The answer is a :class:`Played` move with its search result and what the
player can say about it.  ``ensemble.catalog`` builds every kind from a name or a file.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import chess
import chess.engine

from base.errors import ConcilioError
from base.spawning import leave_if_reimported
from evaluation.spec import FULL_ENGINE, EvalSpec
from players.clock import DEFAULT_OVERHEAD_MS
from players.limits import Limit, LimitLike, as_limit
from players.result import MATE_CP, IterationInfo, SearchResult
from players.speed import equal_time

if TYPE_CHECKING:
    # Imported where a searcher is made: importing it compiles the engine (cold, a minute), and
    # ``concilio uci`` answers ``uci`` before that.
    from players.searcher import Searcher

InfoCallback = Callable[[IterationInfo], None]
COORDINATED_OVERHEAD_MS = 150  # players that coordinate Dask workers: submission, transport, selection
BUDGET_MODES = ("per_instance", "equal_total")
WARM_UP_DEPTH = 3


class PlayerOptionError(ConcilioError, ValueError):
    """A setting a player does not have, or a value it cannot take."""


@dataclass(frozen=True)
class Settings:
    """What :meth:`Player.configure` changes, as the player holds it now.  ``hash_mb``: each of
    its searchers' transposition table (None: an external engine not told one); ``threads``:
    the cores it searches on; ``move_overhead_ms``: kept back from each clock allocation;
    ``budget_mode``: an ensemble's (``per_instance`` or ``equal_total``), None for the others;
    ``multipv``: how many best moves each iteration reports (UCI's MultiPV), None for players
    that report only the one they play."""

    hash_mb: float | None = 16
    threads: int = 1
    move_overhead_ms: int = DEFAULT_OVERHEAD_MS
    budget_mode: str | None = None
    multipv: int | None = None


@dataclass(frozen=True)
class Played:
    """A player's move and what stands behind it.  ``result`` is the search that chose the
    move where it is ours (for an ensemble: the chosen instance's); ``report`` holds short
    lines a front end shows as they are (UCI's ``info string``: an ensemble's votes);
    ``explanation`` the player's own account for a person (an ensemble's table of votes and
    values), see :meth:`explain`; ``error`` is set when there is no legal move to play (the
    game runner scores it as a forfeit)."""

    move: str | None
    score: int | None = None  # centipawns from the mover's view, mates as ±MATE_CP
    depth: int | None = None
    seconds: float = 0.0
    nodes: int | None = None  # all the nodes this move cost, where several searches made it
    note: str = ""  # a short summary for a PGN comment (e.g. the votes)
    report: tuple[str, ...] = field(default=())
    error: str | None = None
    result: SearchResult | None = None
    explanation: tuple[str, ...] = field(default=())

    @classmethod
    def of(cls, result: SearchResult | None, move: str, seconds: float, nodes: int | None = None, note: str = "",
           report: tuple[str, ...] = (), explanation: tuple[str, ...] = ()) -> Played:
        """A move our own search (or the search behind an ensemble's choice) stands behind."""
        return cls(move, None if result is None else centipawns(result), None if result is None else result.depth,
                   seconds, nodes, note, report, None, result, explanation)

    @property
    def chess_move(self) -> chess.Move | None:
        """The move as python-chess's ``chess.Move`` (``move`` is its UCI text)."""
        return None if self.move is None else chess.Move.from_uci(self.move)

    @property
    def pov_score(self) -> chess.engine.PovScore | None:
        """The score as python-chess reports an engine's, from the mover's side: a mate as
        ``Mate(n)`` where ``score`` counts it ±MATE_CP.  None without a search behind the move."""
        result = self.result
        if result is None or not result.fen:
            return None
        relative = chess.engine.Mate(result.mate) if result.mate is not None else chess.engine.Cp(result.score_cp)
        return chess.engine.PovScore(relative, result.fen.split()[1] == "w")

    def explain(self) -> str:
        """Why this move, for a person (``concilio play``, a notebook): the player's own account
        where it gives one, else its report and the search's score, depth, nodes and principal
        variation."""
        if self.explanation:
            return "\n".join(self.explanation)
        lines = list(self.report)
        if self.error:
            lines.append(f"error: {self.error}")
        result = self.result
        if result is not None:
            seldepth = "" if result.seldepth is None else f" seldepth {result.seldepth}"
            lines.append(f"score {result.score_text()} depth {result.depth}{seldepth} "
                         f"nodes {self.nodes if self.nodes is not None else result.nodes} time {self.seconds:.2f} s")
            if result.pv:
                lines.append("pv " + " ".join(result.pv))
        elif self.score is not None:
            lines.append(f"score {self.score} depth {self.depth if self.depth is not None else '-'} "
                         f"nodes {self.nodes if self.nodes is not None else '-'} time {self.seconds:.2f} s")
        return "\n".join(lines)


def centipawns(result: SearchResult) -> int:
    """A search result's score for comparisons and adjudication: mates count ±MATE_CP."""
    if result.mate is None:
        return result.score_cp
    return MATE_CP if result.mate > 0 else -MATE_CP


@runtime_checkable
class Player(Protocol):
    """What UCI, ``concilio play``, matches and notebooks need of a player, and all they use.

    Life cycle: built (``ensemble.catalog.build``: no process, no worker yet), ``configure``d,
    ``start``ed (idempotent; a context manager starts it too), then ``new_game`` / ``play`` /
    ``stop`` (from another thread, during ``play``) as often as needed, and ``close``d.
    """

    @property
    def name(self) -> str:
        """The name it plays under (a match's, or the catalog's description)."""
        ...

    @property
    def settings(self) -> Settings:
        """Its hash, threads, move overhead (and budget mode), as configured now."""
        ...

    def configure(self, *, hash_mb: float | None = None, threads: int | None = None,
                  move_overhead_ms: int | None = None, budget_mode: str | None = None,
                  multipv: int | None = None) -> None:
        """Change settings (None: keep).  What needs new workers or tables takes effect at the
        next ``start`` for players that coordinate workers, at once for a single searcher."""
        ...

    def start(self) -> Player:
        """Start workers and engines and load compiled code, so that no timed move pays for it."""
        ...

    def new_game(self) -> None:
        """Forget the last game (hash tables, histories)."""
        ...

    def play(self, board: chess.Board, limit: LimitLike, info: InfoCallback | None = None) -> Played:
        """A move for ``board`` (its move stack is the game so far) within ``limit`` (a
        :class:`players.limits.Limit`, or python-chess's ``chess.engine.Limit``)."""
        ...

    def stop(self) -> None:
        """Make a ``play`` running in another thread answer now."""
        ...

    def close(self) -> None:
        """Stop workers and engines for good."""
        ...

    def describe(self) -> str:
        """What this player is, for a person: its kind, its parts, where it runs."""
        ...

    def __enter__(self) -> Player: ...

    def __exit__(self, *exc: object) -> None: ...


class BasePlayer:
    """What every implementation of :class:`Player` shares: its name and settings, checked
    ``configure``, an idempotent ``start``, the context manager.  Subclasses set ``kind`` and
    implement ``_start``, ``_configured`` (apply changed settings), ``play``, ``new_game``,
    ``stop``, ``close``."""

    kind = ""

    def __init__(self, name: str, settings: Settings) -> None:
        self._name = name
        self._settings = settings
        self._started = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def started(self) -> bool:
        return self._started

    def configure(self, *, hash_mb: float | None = None, threads: int | None = None,
                  move_overhead_ms: int | None = None, budget_mode: str | None = None,
                  multipv: int | None = None) -> None:
        changes = {k: v for k, v in (("hash_mb", hash_mb), ("threads", threads),
                                     ("move_overhead_ms", move_overhead_ms), ("budget_mode", budget_mode),
                                     ("multipv", multipv))
                   if v is not None}
        check_settings(self.kind, self._name, changes, self._settings)
        old = self._settings
        self._settings = replace(old, **changes)
        if self._settings != old:
            self._configured(old)

    def _configured(self, old: Settings) -> None:
        """Apply the settings that changed from ``old`` (default: nothing to do now)."""

    def start(self) -> BasePlayer:
        leave_if_reimported()  # a Dask worker re-running a script without a main guard: see base.spawning
        if not self._started:
            self._start()
            self._started = True
        return self

    def _start(self) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        return self._name

    def __enter__(self) -> BasePlayer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError


def check_settings(kind: str, name: str, changes: dict, current: Settings) -> None:
    """Refuse a setting the player lacks or a value out of range, naming both."""
    known = {f.name for f in fields(Settings)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise PlayerOptionError(f"{name}: no setting {', '.join(unknown)} (settings: {', '.join(sorted(known))})")
    hash_mb = changes.get("hash_mb")
    if hash_mb is not None and (isinstance(hash_mb, bool) or not isinstance(hash_mb, (int, float)) or hash_mb <= 0):
        raise PlayerOptionError(f"{name}: hash_mb must be a positive number of MB, got {hash_mb!r}")
    if changes.get("multipv") is not None and current.multipv is None:
        raise PlayerOptionError(f"{name}: multipv is a single searcher's setting; this player is {kind or 'not one'}")
    for key, low in (("threads", 1), ("move_overhead_ms", 0), ("multipv", 1)):
        value = changes.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise PlayerOptionError(f"{name}: {key} must be an integer of at least {low}, got {value!r}")
    mode = changes.get("budget_mode")
    if mode is not None:
        if current.budget_mode is None:
            raise PlayerOptionError(f"{name}: budget_mode is an ensemble's setting; this player is {kind or 'not one'}")
        if mode not in BUDGET_MODES:
            raise PlayerOptionError(f"{name}: budget_mode must be {' or '.join(BUDGET_MODES)}, got {mode!r}")


def instance_name(spec: EvalSpec) -> str:
    """How a single instance is named where nothing names it: ``full engine (MBXKPAR)`` or ``instance (MKP)``."""
    return f"full engine ({spec.letters})" if spec == FULL_ENGINE else f"instance ({spec.letters})"


TeamFactory = Callable[[EvalSpec, int, float], Any]  # (spec, threads, hash MB): a searcher on that many threads


class InstancePlayer(BasePlayer):
    """One engine instance (the full engine, or a subset of the categories) as a player.  With
    ``threads`` above 1 the instance is a parallel search on that many threads of this process,
    which ``team`` makes (the catalog gives ABDADA's, ``players.decomposition.team``: this
    layer does not know the parallel searches above it)."""

    kind = "instance"

    def __init__(self, spec: EvalSpec = FULL_ENGINE, name: str = "", *, hash_mb: float = 16, threads: int = 1,
                 searcher: Searcher | None = None, team: TeamFactory | None = None) -> None:
        super().__init__(name or instance_name(spec), Settings(hash_mb, threads, DEFAULT_OVERHEAD_MS, multipv=1))
        self.spec = spec
        self._searcher = searcher  # given: used as it is (its table, its options)
        self._team = team
        if threads > 1 and team is None:
            raise PlayerOptionError(f"{self.name}: threads {threads} needs a parallel search (team); build the "
                                    "player with ensemble.catalog, which gives ABDADA's")

    def _make_searcher(self):
        settings = self._settings
        if settings.threads > 1:
            assert self._team is not None  # _configured refuses threads > 1 without one
            return self._team(self.spec, settings.threads, settings.hash_mb or 16)
        from players.searcher import Searcher
        return Searcher(self.spec, settings.hash_mb or 16)

    def _start(self) -> None:
        if self._searcher is None:
            self._searcher = self._make_searcher()
        # Numba loads each compiled function on its first call: pay that now (at UCI
        # ``isready``, before a match's first timed move), not inside the first timed move.
        self._searcher.search(chess.Board(), Limit(depth=WARM_UP_DEPTH))
        self._searcher.new_game()

    def _configured(self, old: Settings) -> None:
        settings = self._settings
        if settings.threads > 1 and (settings.multipv or 1) > 1:
            self._settings = old
            raise PlayerOptionError(f"{self.name}: multipv needs threads 1 (the ABDADA search keeps one line)")
        if settings.threads > 1 and self._team is None:
            self._settings = old
            raise PlayerOptionError(f"{self.name}: threads {settings.threads} needs a parallel search (team); build "
                                    "the player with ensemble.catalog, which gives ABDADA's")
        searcher = self._searcher
        if searcher is None:
            return  # built at start with the new settings
        if settings.threads != old.threads:
            self._close_searcher()
            self._searcher = self._make_searcher()
        elif settings.hash_mb != old.hash_mb:
            from players.searcher import Searcher
            if isinstance(searcher, Searcher):
                searcher.resize_hash(settings.hash_mb or 16)
            else:
                self._close_searcher()
                self._searcher = self._make_searcher()

    def describe(self) -> str:
        weights = " ".join(f"{c}={w:g}" for c, w in zip("MBXKPAR", self.spec.weights) if self.spec.uses(c))
        threads = f", ABDADA on {self._settings.threads} threads" if self._settings.threads > 1 else ""
        return f"{self.name}: the searcher with {self.spec.letters} (weights {weights}); hash " \
               f"{self._settings.hash_mb:g} MB{threads}"

    def new_game(self) -> None:
        self.start()
        assert self._searcher is not None
        self._searcher.new_game()

    def play(self, board: chess.Board, limit: LimitLike, info: InfoCallback | None = None) -> Played:
        limit = as_limit(limit)
        self.start()
        assert self._searcher is not None
        start = time.perf_counter()
        search_limit = equal_time(limit.for_move(board.turn, self._settings.move_overhead_ms), self.spec)
        multipv = self._settings.multipv or 1
        lines = {"multipv": multipv} if multipv > 1 else {}  # a TeamSearcher (threads > 1) keeps one line
        result = self._searcher.search(board, search_limit, info=info, searchmoves=search_limit.searchmoves or None,
                                       **lines)
        return Played.of(result, result.bestmove, time.perf_counter() - start, result.nodes)

    def stop(self) -> None:
        if self._searcher is not None:
            self._searcher.stop()

    def _close_searcher(self) -> None:
        close = getattr(self._searcher, "close", None)  # a TeamSearcher's threads; a Searcher has nothing to close
        if close is not None:
            close()

    def close(self) -> None:
        self._close_searcher()
        self._searcher = None
        self._started = False
