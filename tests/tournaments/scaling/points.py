"""Small sweeps and points with estimates made by hand, for the across-budgets tests."""
from tournaments.scaling.report import PointResult
from tournaments.statistics.elo import Z95, EloEstimate, elo_from_score

TEXT = """\
name: {name}
nodes: {nodes}
workers: [4]
games: 4
openings: {{file: data:openings/sf-multipv-16plies-1000.epd, seed: 43}}
output: runs/{name}
arms:
  F: {{label: ceiling, player: MBXKPAR, budget: total, way: ceiling}}
  L: {{label: lazy, player: lazy-cluster-in-process, workers: k, way: message_passing}}
  N: {{label: fresh, player: fresh-cluster, workers: k, way: message_passing}}
  C: {{label: consult, player: scaling-c-4, workers: k, way: ensemble}}
  X: {{label: no way, player: MBXKPAR, budget: total}}
"""


def estimate(score: float, se: float, games: int = 400) -> EloEstimate:
    """An estimate whose interval is the score ± 1.96 se, as the match statistics build it."""
    return EloEstimate(games, score, elo_from_score(score), elo_from_score(score - Z95 * se),
                       elo_from_score(score + Z95 * se), 0.5, se)


def point(arm: str, score: float, se: float = 0.02, games: int = 400, played: int | None = None,
          k: int = 4) -> PointResult:
    """A point at k of ``played`` games whose estimate used ``games`` of them (whole pairs)."""
    return PointResult(arm, arm, k, 1000, games if played is None else played, 400, (0, 0, 0),
                       estimate(score, se, games), "", "")
