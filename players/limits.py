"""One move's limit: :class:`Limit`, for every player and every search.

In the spirit of ``chess.engine.Limit``: one small value type, each field ``None`` (or
empty) where it sets no limit, and a search stops at the first limit it reaches.  The
fields are UCI's ``go`` arguments in UCI's units (milliseconds), so that a GUI's ``go``
line, a match's clock, a notebook's ``Limit(nodes=20000)`` and the searcher's own budget
are the same thing; :meth:`Limit.from_engine` / :meth:`Limit.to_engine` convert to and from
python-chess (seconds), :func:`parse_go` / :meth:`Limit.to_go` to and from UCI.

A limit with a clock is a request; :meth:`Limit.for_move` turns it into what one search
may spend (the mover's clock becomes a soft and a hard time, ``players.clock``).  A limit
with no node, depth or time bound (or ``infinite``) means *until stop*: there is no
sentinel depth for it.  The value is frozen and pickles: it travels to Dask workers.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace

import chess
import chess.engine

from base.errors import ConcilioError
from players.clock import DEFAULT_OVERHEAD_MS, TimeManager

MAX_DEPTH = 127  # the deepest a ``go mate`` or ``depth`` may ask for (the searcher's MAX_PLY - 1)
_POSITIVE = ("nodes", "depth", "movetime", "soft_movetime", "movestogo")
_CLOCKS = ("wtime", "btime", "winc", "binc")


class LimitError(ConcilioError, ValueError):
    """A limit that cannot bound a search (negative, zero, not a number, a soft time without a hard one)."""


@dataclass(frozen=True)
class Limit:
    """What one move may spend; the search stops at the first bound reached.

    ``nodes``, ``depth``, ``movetime`` (ms) bound any search.  ``wtime``/``btime`` (ms left on
    each clock), ``winc``/``binc`` (ms per move) and ``movestogo`` are a game's clocks: a
    player's time manager turns the mover's into this move's time.  ``infinite``: search until
    ``stop`` whatever the clock says (a GUI's ``go infinite``; node and depth bounds still
    apply).  ``searchmoves`` restricts the root.  ``equal_time``: ``nodes`` are the full
    engine's on one core, and each player searches what it does in that time
    (``players.speed.equal_time``).  ``soft_movetime`` is set by the time manager: the time the
    move should take, ``movetime`` staying the hard stop.

    Under ``depth`` or ``nodes`` alone a search is deterministic: the same position and limit
    give the same move, score and node count.
    """

    nodes: int | None = None
    depth: int | None = None
    movetime: int | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float | None = None
    binc: float | None = None
    movestogo: int | None = None
    infinite: bool = False
    searchmoves: tuple[str, ...] = field(default=())
    equal_time: bool = False
    soft_movetime: int | None = None

    def __post_init__(self) -> None:
        for name in _POSITIVE:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise LimitError(f"{name} must be an integer, got {value!r}")
            if value <= 0:
                raise LimitError(f"{name} must be positive, got {value}")
        for name in _CLOCKS:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise LimitError(f"{name} must be a number of milliseconds, got {value!r}")
            if value < 0:
                raise LimitError(f"{name} must not be negative, got {value}")
        if isinstance(self.searchmoves, str) or not all(isinstance(m, str) for m in self.searchmoves):
            raise LimitError(f"searchmoves must be UCI moves, got {self.searchmoves!r}")
        object.__setattr__(self, "searchmoves", tuple(self.searchmoves))
        if self.soft_movetime is not None and (self.movetime is None or self.soft_movetime > self.movetime):
            raise LimitError(f"soft_movetime {self.soft_movetime} needs a movetime at least as long "
                             f"(got {self.movetime})")

    # --- what the limit says ----------------------------------------------------------------------
    def clock(self, turn: chess.Color) -> tuple[float | None, float]:
        """The mover's clock and increment (ms); (None, 0) without a clock for that side."""
        if turn == chess.WHITE:
            return self.wtime, self.winc or 0.0
        return self.btime, self.binc or 0.0

    @property
    def unbounded(self) -> bool:
        """No node, depth or time bound: the search goes on until ``stop`` (a resolved limit;
        one with a clock is bounded once :meth:`for_move` has read it)."""
        return self.nodes is None and self.depth is None and self.movetime is None and (
            self.infinite or (self.wtime is None and self.btime is None))

    @property
    def deterministic(self) -> bool:
        """Whether the search's answer depends only on the position (no time bound)."""
        return self.movetime is None and self.wtime is None and self.btime is None and not self.unbounded

    def for_move(self, turn: chess.Color, overhead_ms: float = DEFAULT_OVERHEAD_MS) -> Limit:
        """What this move's search may spend: the mover's clock (unless ``infinite``) becomes a
        soft and a hard time, ``overhead_ms`` kept back; node and depth bounds stay.  With a
        ``movetime`` too, both apply (UCI: whichever comes first): the hard time is the shorter
        one, and a movetime below the clock's soft time is the whole budget.  The answer has
        no clock fields."""
        movetime, soft = self.movetime, self.soft_movetime
        clock, increment = self.clock(turn)
        if clock is not None and not self.infinite:
            clock_soft, clock_hard = TimeManager.times(clock, increment, self.movestogo, overhead_ms)
            if movetime is None or clock_soft < movetime:
                soft, movetime = min(clock_soft, soft or clock_soft), min(clock_hard, movetime or clock_hard)
        return Limit(nodes=self.nodes, depth=self.depth, movetime=movetime, infinite=self.infinite,
                     searchmoves=self.searchmoves, equal_time=self.equal_time, soft_movetime=soft)

    def fixed(self) -> Limit:
        """This limit with the soft time as the whole budget: for players that search to a
        deadline rather than iteration by iteration (ensembles, decomposition)."""
        if self.soft_movetime is None:
            return self
        return replace(self, movetime=self.soft_movetime, soft_movetime=None)

    # --- conversions ------------------------------------------------------------------------------
    @classmethod
    def from_engine(cls, limit: chess.engine.Limit, *, searchmoves: Sequence[str] = ()) -> Limit:
        """python-chess's limit (seconds) as ours (ms); ``mate`` n becomes depth 2n+1, as UCI's ``go mate``."""
        depth = limit.depth
        if limit.mate:
            depth = min(MAX_DEPTH, 2 * limit.mate + 1, depth or MAX_DEPTH)
        return cls(nodes=limit.nodes, depth=depth, movetime=_ms(limit.time), wtime=_ms(limit.white_clock, exact=False),
                   btime=_ms(limit.black_clock, exact=False), winc=_ms(limit.white_inc, exact=False),
                   binc=_ms(limit.black_inc, exact=False), movestogo=limit.remaining_moves,
                   searchmoves=tuple(searchmoves))

    def to_engine(self) -> chess.engine.Limit:
        """This limit for python-chess (an external engine): seconds, no ``infinite`` (its ``analysis``)."""
        def seconds(ms: float | None) -> float | None:
            return None if ms is None else ms / 1000
        return chess.engine.Limit(time=seconds(self.movetime), depth=self.depth, nodes=self.nodes,
                                  white_clock=seconds(self.wtime), black_clock=seconds(self.btime),
                                  white_inc=seconds(self.winc), black_inc=seconds(self.binc),
                                  remaining_moves=self.movestogo)

    def to_go(self) -> str:
        """The UCI ``go`` arguments of this limit (what :func:`parse_go` reads back)."""
        words: list[str] = []
        for name in ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime"):
            value = getattr(self, name)
            if value is not None:
                words += [name, str(int(value))]
        if self.infinite:
            words.append("infinite")
        if self.searchmoves:
            words += ["searchmoves", *self.searchmoves]
        return " ".join(words)

    def __str__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                 if getattr(self, f.name) not in (None, False, ())]
        return " ".join(parts) or "until stop"


def _ms(seconds: float | None, exact: bool = True) -> int | float | None:
    """Seconds as milliseconds: a whole number for a time bound (at least 1), as is for a clock."""
    if seconds is None:
        return None
    return max(1, round(seconds * 1000)) if exact else seconds * 1000


GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")


def parse_go(args: Sequence[str]) -> tuple[Limit, list[str]]:
    """A UCI ``go`` command's arguments as a limit, and the words it had to ignore (a bad or
    missing number, an unknown word), so that a GUI hears about them but the engine still
    searches.  As GUIs expect: ``mate`` n is depth 2n+1; a zero depth, nodes or movetime is 1;
    a negative clock (some GUIs send one near the flag) is 0; ``ponder`` searches like ``infinite``."""
    values: dict[str, int] = {}
    ignored: list[str] = []
    searchmoves: list[str] = []
    infinite = False
    i = 0
    while i < len(args):
        word = args[i]
        if word in GO_NUMBERS:
            value = _int(args[i + 1]) if i + 1 < len(args) else None
            if value is None or (value < 0 and word not in ("wtime", "btime")):
                ignored.append(word)
            else:
                values[word] = max(0, value)
            i += 2
        elif word in ("infinite", "ponder"):
            infinite = True
            i += 1
        elif word == "searchmoves":
            i += 1
            while i < len(args) and args[i] not in GO_NUMBERS and args[i] not in ("infinite", "ponder"):
                searchmoves.append(args[i])
                i += 1
        else:
            ignored.append(word)
            i += 1
    for key in ("depth", "nodes", "movetime"):
        if values.get(key) == 0:
            values[key] = 1
    if values.get("movestogo") == 0:
        del values["movestogo"]  # no moves to go: the time manager's own estimate
    mate = values.pop("mate", 0)
    if mate:  # every bound applies: a depth given too may be the smaller
        values["depth"] = min(MAX_DEPTH, 2 * mate + 1, values.get("depth") or MAX_DEPTH)
    if values.get("depth", 0) > MAX_DEPTH:
        values["depth"] = MAX_DEPTH
    return Limit(**values, infinite=infinite, searchmoves=tuple(searchmoves)), ignored


def _int(text: str) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


LimitLike = Limit | chess.engine.Limit  # what every player's ``play`` takes


def as_limit(limit: LimitLike) -> Limit:
    """A move's limit given either way: ours as it is, python-chess's converted
    (:meth:`Limit.from_engine`), so that code written for python-chess engines drives any
    Concilio player unchanged."""
    if isinstance(limit, Limit):
        return limit
    if isinstance(limit, chess.engine.Limit):
        return Limit.from_engine(limit)
    raise LimitError(f"expected a concilio.Limit or a chess.engine.Limit, got {type(limit).__name__}: {limit!r}")
