"""Playing a sweep's points: each one an ordinary match in its own folder, so that a point
resumes where it stopped, and a point finished is never replayed."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tournaments.match.config import MatchConfig
from tournaments.match.run import MatchOutcome, run_match
from tournaments.scaling.config import SweepConfig


def _play(match: MatchConfig, title: str, concurrency: int | None, progress: bool,
          out: Callable[[str], None]) -> MatchOutcome:
    """One resumable match of the sweep (a point or a duel), its summary lines printed."""
    if concurrency:
        match = replace(match, concurrency=concurrency)
    out(f"{title}; {match.describe_time_controls()}; output {match.output}")
    outcome = run_match(match, progress=progress, out=out)
    for s in outcome.summaries:
        out(s.line(match))
    return outcome


def play_points(sweep: SweepConfig, arms: tuple[str, ...] = (), workers: tuple[int, ...] = (),
                concurrency: int | None = None, progress: bool = True,
                out: Callable[[str], None] = print) -> list[tuple[str, int, MatchOutcome]]:
    """Play (or resume) the chosen points one after the other, k by k."""
    return [(arm.key, k, _play(sweep.point_match(arm, k), f"point {arm.key}{k}: {arm.label}", concurrency, progress,
                               out))
            for arm, k in sweep.points(arms, workers)]


def play_duel(sweep: SweepConfig, first: str, second: str, concurrency: int | None = None, progress: bool = True,
              out: Callable[[str], None] = print) -> MatchOutcome:
    """Play (or resume) the duel of two points, until its SPRT decides."""
    return _play(sweep.duel_match(first, second), f"duel {first} against {second}", concurrency, progress, out)
