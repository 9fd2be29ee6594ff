"""Phase 2 of a suite run: score players and selection criteria from the store.

For a player G on a suite: ``C_D`` = share of positions where a best move is among
G's candidates (its potential), ``Val`` = share where the move G plays is a best
move, ``C_s = Val / C_D`` (how much of the potential the criterion realises), and on
STS the points of the moves played, per theme and in total.  A single engine has one
candidate, so its C_D is its Val.  Every player is compared with the full engine on the
same positions, and an ensemble of k instances also with the full engine at k × N nodes
(what it spends in all): each comparison an exact McNemar test on solved and an exact
sign test on points.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import chess

from ensemble.evidence import evidence_from_terms
from ensemble.ballot import Ballot, Evidence, SelectionInput
from ensemble.selection import CRITERIA, select
from players.limits import Limit
from tournaments.records.epd import Suite, SuitePosition
from tournaments.statistics.stats import McNemar, Proportion, adjust_mcnemar, mcnemar, proportion
from tournaments.suite.store import SearchStore
from tournaments.suite.config import FULL_LABEL, CriterionSpec, PlayerSpec, SuiteRunConfig, instance_key

log = logging.getLogger("concilio.suite")


@dataclass(frozen=True)
class Comparison:
    """A player against a reference player on the positions both have: McNemar's exact test
    on solved, and the exact sign test on points.  The sign test has McNemar's shape (+ the
    positions where the player scores more, − fewer, a binomial p on those; McNemar's test
    is the sign test of 0/1 outcomes), so both are adjusted and printed alike."""

    reference: str  # the reference's label: FULL_LABEL, or ``total_label(k × N)``
    solved: McNemar
    points: McNemar


@dataclass
class Score:
    suite: str
    player: str
    criterion: str  # "" for a single engine
    n: int
    cd: Proportion
    val: Proportion
    points: int
    max_points: int
    themes: dict[str, tuple[int, int]] = field(default_factory=dict)  # theme -> (points, max)
    solved: list[bool] = field(default_factory=list, repr=False)
    comparisons: list[Comparison] = field(default_factory=list)  # vs the full engine at N, then at k × N
    single: bool = False
    fens: list[str] = field(default_factory=list, repr=False)  # the positions of ``solved`` and ``gained``
    gained: list[int] = field(default_factory=list, repr=False)  # points per position (``position_points``)

    @property
    def cs(self) -> float:
        return self.val.value / self.cd.value if self.cd.value else 0.0

    @property
    def at_budget(self) -> Comparison | None:
        """The comparison with the full engine at the run's budget."""
        return next((c for c in self.comparisons if c.reference == FULL_LABEL), None)

    @property
    def at_total(self) -> Comparison | None:
        """The comparison with the full engine at this ensemble's total nodes (k × N)."""
        return next((c for c in self.comparisons if c.reference != FULL_LABEL), None)

    @property
    def versus_full(self) -> McNemar | None:
        """McNemar on solved against the full engine at the run's budget."""
        return self.at_budget.solved if self.at_budget else None


class PosteriorCache:
    """Full-engine searches of single candidate moves, stored so that reruns reuse them."""

    def __init__(self, store: SearchStore) -> None:
        self.store = store
        self._searcher = None

    def search_for(self, fen: str):
        def search(moves: Sequence[str], depth: int) -> dict[str, int]:
            known = self.store.posterior(fen, depth)
            missing = [m for m in moves if m not in known]
            if missing:
                if self._searcher is None:
                    from players.searcher import Searcher
                    self._searcher = Searcher()
                fresh = {}
                for move in missing:
                    self._searcher.new_game()
                    fresh[move] = self._searcher.search(fen, Limit(depth=depth), searchmoves=[move]).score_cp
                self.store.add_posterior(fen, depth, fresh)
                known.update(fresh)
            return {m: known[m] for m in moves}
        return search


class StoreView:
    """The store's searches for one budget, read once per instance, and the root terms."""

    def __init__(self, store: SearchStore, budget: str) -> None:
        self.store = store
        self.budget = budget
        self.roots = store.position_terms()
        self._cache: dict[str, dict] = {}

    def searches(self, key: str) -> dict:
        if key not in self._cache:
            self._cache[key] = self.store.searches(key, self.budget)
        return self._cache[key]

    def decisions(self, player: PlayerSpec, suite: Suite) -> tuple[list, list[tuple[Ballot, ...]], list[dict]]:
        """The suite's positions every instance of ``player`` has searched, each with its
        ballots, and the player's stored searches (one dict per instance)."""
        stored = [self.searches(instance_key(inst)) for inst in player.instances]
        positions = [p for p in suite.positions if all(p.fen in s for s in stored)]
        if len(positions) < len(suite.positions):
            log.warning("%s on %s: %d of %d positions lack searches (rerun phase 1)", player.name, suite.name,
                        len(suite.positions) - len(positions), len(suite.positions))
        ballots = [tuple(Ballot(inst.label, inst.spec, s[p.fen].result) for inst, s in zip(player.instances, stored))
                   for p in positions]
        return positions, ballots, stored

    def evidence(self, fen: str, ballots: Sequence[Ballot], stored: Sequence[dict]) -> Evidence:
        leaves = [s[fen].leaf for s in stored]
        return evidence_from_terms(self.roots[fen], leaves, [b.spec for b in ballots], chess.Board(fen).turn)


def score_suite(config: SuiteRunConfig, suite: Suite, store: SearchStore, *,
                trained: Mapping[str, str] | None = None,
                held_out: Mapping[tuple[str, str, str, str], str] | None = None) -> list[Score]:
    """Every player and criterion on ``suite``.  ``trained`` maps a trained criterion
    (learned, dynamic) to the model file this run made; ``held_out[criterion, suite,
    player, fen]`` is the move that criterion picks on a position it was trained on, by a
    fold that never saw the position: used there instead of the in-sample choice."""
    views: dict[int | None, StoreView] = {}
    posterior = PosteriorCache(store)
    scores: list[Score] = []
    for player in config.players + config.total_references():
        if player.nodes not in views:
            views[player.nodes] = StoreView(store, config.key_for(config.player_budget(player)))
        view = views[player.nodes]
        positions, ballots_per_position, stored = view.decisions(player, suite)
        criteria = [CriterionSpec("", {})] if player.is_single else list(config.criteria)
        for crit in criteria:
            moves = []
            for p, ballots in zip(positions, ballots_per_position):
                if player.is_single:
                    moves.append(ballots[0].move)
                    continue
                key = (crit.name, suite.name, player.name, p.fen)
                if held_out and trained and crit.params.get("model") == trained.get(crit.name) and key in held_out:
                    moves.append(held_out[key])
                    continue
                spec = CRITERIA[crit.name]
                evidence = view.evidence(p.fen, ballots, stored) if spec.needs_evidence else Evidence()
                inp = SelectionInput(ballots, evidence, posterior.search_for(p.fen) if spec.needs_search else None,
                                     p.fen)
                moves.append(select(crit.name, inp, **crit.params).move)
            scores.append(score_moves(suite.name, player, crit.label if crit.name else "", positions,
                                 ballots_per_position, moves))
    totals = {p.name: ref.name for p in config.players if (ref := config.total_reference(p)) is not None}
    _compare_with_full(scores, totals)
    return scores


def score_moves(suite: str, player: PlayerSpec, criterion: str, positions, ballots_per_position, moves) -> Score:
    """A player's C_D, Val and points from the moves it played (one per position)."""
    solved = [p.solved_by(m) for p, m in zip(positions, moves)]
    gained = [position_points(p, m) for p, m in zip(positions, moves)]
    potential = [any(p.solved_by(b.move) for b in ballots) for p, ballots in zip(positions, ballots_per_position)]
    themes: dict[str, tuple[int, int]] = {}
    points = max_points = 0
    for p, m in zip(positions, moves):
        if not p.points:
            continue
        got, best = p.points_for(m), max(p.points.values())
        points += got
        max_points += best
        t = themes.get(p.theme or "(none)", (0, 0))
        themes[p.theme or "(none)"] = (t[0] + got, t[1] + best)
    n = len(positions)
    return Score(suite, player.name, criterion, n, proportion(sum(potential), n), proportion(sum(solved), n),
                 points, max_points, themes, solved, [], player.is_single, [p.fen for p in positions], gained)


def position_points(position: SuitePosition, move: str) -> int:
    """The points of ``move`` for the sign test: the suite's (STS), or 1 for a best move on a
    position without points (WAC), where the sign test is then McNemar's."""
    return position.points_for(move) if position.points else int(position.solved_by(move))


def sign_test(a: Sequence[float], b: Sequence[float]) -> McNemar:
    """Exact two-sided sign test of paired points: + where ``a`` scores more, − where less,
    ties carry no information; that is McNemar's exact test of 'scored more' against
    'scored less' (a binomial test on the positions where they differ)."""
    if len(a) != len(b):
        raise ValueError("paired points must have the same length")
    return mcnemar([x > y for x, y in zip(a, b)], [x < y for x, y in zip(a, b)])


def compare(score: Score, reference: Score) -> Comparison:
    """``score`` against ``reference`` on the positions both were scored on (raw p-values)."""
    theirs = {f: (s, g) for f, s, g in zip(reference.fens, reference.solved, reference.gained)}
    pairs = [((s, g), theirs[f]) for f, s, g in zip(score.fens, score.solved, score.gained) if f in theirs]
    return Comparison(reference.player, mcnemar([a[0] for a, _ in pairs], [b[0] for _, b in pairs]),
                      sign_test([a[1] for a, _ in pairs], [b[1] for _, b in pairs]))


def _compare_with_full(scores: list[Score], totals: Mapping[str, str]) -> None:
    """Every score against the full engine on the same suite, and an ensemble's also against
    the full engine at its total nodes (``totals``: player -> that reference's label); raw
    p-values: ``adjust_comparisons`` adjusts them once the whole report is known."""
    singles = {(s.suite, s.player): s for s in scores if s.single}
    references = {FULL_LABEL, *totals.values()}
    for s in scores:
        if s.single and s.player in references:
            continue
        for label in (FULL_LABEL, totals.get(s.player)):
            reference = singles.get((s.suite, label))
            if reference is not None and reference.n:  # none without its searches (phase 1 not run)
                s.comparisons.append(compare(s, reference))


def adjust_comparisons(scores: list[Score], roles: dict[str, str] | None = None) -> dict[str, int]:
    """Adjust the comparisons with the full engine (Holm and Benjamini-Hochberg), one family
    per suite role (``roles``: suite name -> explore | choose | confirm): a confirmation is
    not diluted by the many comparisons a choice was made from, nor can it hide among them.
    An ensemble's comparisons at N and at k × N are both members; McNemar's p-values and the
    sign test's are each adjusted over the same family.  Returns each family's size."""
    roles = roles or {}
    families: dict[str, list[tuple[Score, int]]] = {}
    for s in scores:
        for i in range(len(s.comparisons)):
            families.setdefault(roles.get(s.suite, "explore"), []).append((s, i))
    for family in families.values():
        tests = [s.comparisons[i] for s, i in family]
        solved = adjust_mcnemar([c.solved for c in tests])
        points = adjust_mcnemar([c.points for c in tests])
        for (s, i), c, a, b in zip(family, tests, solved, points):
            s.comparisons[i] = replace(c, solved=a, points=b)
    return {role: len(family) for role, family in families.items()}
