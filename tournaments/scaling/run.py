"""Playing a sweep's points: each one an ordinary match in its own folder, so that a point
resumes where it stopped, and a point finished is never replayed."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from base.cluster import Remote

from tournaments.match.claim import claimed, holder
from tournaments.match.config import MatchConfig
from tournaments.match.run import MatchHeldError, MatchOutcome, run_match
from tournaments.scaling.config import SweepConfig


def _play(match: MatchConfig, title: str, concurrency: int | None, progress: bool,
          out: Callable[[str], None], remote: Remote | None = None) -> MatchOutcome:
    """One resumable match of the sweep (a point or a duel), its summary lines printed; its
    games on ``remote``'s workers where the sweep names a scheduler."""
    if concurrency:
        match = replace(match, concurrency=concurrency)
    if remote is not None:
        match = match.on_scheduler(remote)
    out(f"{title}; {match.describe_time_controls()}; output {match.output}")
    outcome = run_match(match, progress=progress, out=out)
    for s in outcome.summaries:
        out(s.line(match))
    return outcome


def play_points(sweep: SweepConfig, arms: tuple[str, ...] = (), workers: tuple[int, ...] = (),
                concurrency: int | None = None, progress: bool = True,
                out: Callable[[str], None] = print) -> list[tuple[str, int, MatchOutcome]]:
    """Play (or resume) the chosen points one after the other, k by k.  A point another process
    is playing is passed over, so that lanes can share a sweep; if any was, the call ends with
    :class:`MatchHeldError` naming them, after playing the rest."""
    played, held = [], []
    for arm, k in sweep.points(arms, workers):
        try:
            played.append((arm.key, k, _play(sweep.point_match(arm, k), f"point {arm.key}{k}: {arm.label}",
                                             concurrency, progress, out, sweep.remote)))
        except MatchHeldError as exc:
            out(f"point {arm.key}{k}: passed over ({exc})")
            held.append(str(exc))
    if held:
        raise MatchHeldError("; ".join(held))
    return played


def play_duel(sweep: SweepConfig, first: str, second: str, concurrency: int | None = None, progress: bool = True,
              out: Callable[[str], None] = print) -> MatchOutcome:
    """Play (or resume) the duel of two points, until its SPRT decides."""
    return _play(sweep.duel_match(first, second), f"duel {first} against {second}", concurrency, progress, out,
                 sweep.remote)


@dataclass(frozen=True)
class PendingDuel:
    """An overlapping pair whose duel is not over: its folder's games so far, and who holds it."""

    first: str
    second: str
    games: int
    claimed_by: str = ""  # "host:pid" of the process playing it, if any
    engines: tuple[str, ...] = ()  # the engine fingerprints its games were played by
    llr: float | None = None  # the SPRT's log-likelihood ratio so far; None before the first pair


def pending_duels(sweep: SweepConfig) -> list[PendingDuel]:
    """The duels still owed: every overlapping pair of finished points (``report.overlapping``,
    an arm and its variant left out) whose duel has not stopped, smallest k first (the cheapest
    games), a duel already begun in its folder's order (either order of the two names)."""
    from tournaments.scaling.report import collect, overlapping, read_duel
    played = {frozenset(d): d for d in sweep.duels()}
    pairs = overlapping(collect(sweep), sweep.ceiling, sweep.variants())
    owed = []
    for first, second in sorted(pairs, key=lambda pair: sweep.parse_point(pair[0])[1]):
        first, second = played.get(frozenset((first, second)), (first, second))
        result, records = read_duel(sweep, first, second)
        if result is not None and result.finished:
            continue
        owed.append(PendingDuel(first, second, len(records), holder(_claim_path(sweep, first, second)),
                                tuple(sorted({r.engine for r in records if r.engine})),
                                None if result is None or result.sprt is None else result.sprt.llr))
    return owed


def _claim_path(sweep: SweepConfig, first: str, second: str) -> Path:
    """The lock file of a duel's claim (beside the duels' folders, never archived)."""
    return sweep.output / "duels" / ".claims" / f"{first}-vs-{second}"


def play_duel_claimed(sweep: SweepConfig, first: str, second: str, concurrency: int | None = None,
                      progress: bool = True, out: Callable[[str], None] = print) -> MatchOutcome | None:
    """``play_duel`` under the duel's claim; None (nothing played) when another process holds it."""
    path = _claim_path(sweep, first, second)
    with claimed(path) as mine:
        if not mine:
            return None
        return play_duel(sweep, first, second, concurrency, progress, out)


def play_duels(sweep: SweepConfig, concurrency: int | None = None, progress: bool = True,
               out: Callable[[str], None] = print) -> list[tuple[str, str, MatchOutcome]]:
    """Play every duel still owed, cheapest first, one after another; several processes (one a
    core) can run this at once, each claiming the next unclaimed duel.  Resumable like every
    match: a duel stopped half way resumes in its folder."""
    from base.fingerprint import engine_fingerprint
    now = engine_fingerprint()
    played: list[tuple[str, str, MatchOutcome]] = []
    told: set[tuple[str, str]] = set()
    while True:
        tried = {(a, b) for a, b, _ in played}  # a duel that stopped short (a match error) is not retried here
        pending = []
        for d in pending_duels(sweep):
            if d.engines and d.engines != (now,):
                if (d.first, d.second) not in told:  # the match would refuse to mix two engines' games
                    out(f"duel {d.first} against {d.second}: its {d.games} games were played by engine "
                        f"{', '.join(d.engines)}, this installation is {now}; resume it from a checkout of that "
                        "engine (concilio scaling duel)")
                    told.add((d.first, d.second))
            elif not d.claimed_by and (d.first, d.second) not in tried:
                pending.append(d)
        for d in pending:
            with claimed(_claim_path(sweep, d.first, d.second)) as mine:
                if not mine:
                    continue  # taken since the list was made
                if not any((o.first, o.second) == (d.first, d.second) for o in pending_duels(sweep)):
                    break  # finished since the list was made: look again
                played.append((d.first, d.second, play_duel(sweep, d.first, d.second, concurrency, progress,
                                                            out)))
                break
        else:
            return played
