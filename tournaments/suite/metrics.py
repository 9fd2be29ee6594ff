"""Phase 2 of a suite run: score players and selection criteria from the store.

For a player G on a suite: ``C_D`` = share of positions where a best move is among
G's candidates (its potential), ``Val`` = share where the move G plays is a best
move, ``C_s = Val / C_D`` (how much of the potential the criterion realises), and on
STS the points of the moves played, per theme and in total.  A single engine has one
candidate, so its C_D is its Val.  Every Val is also compared with the full engine's
on the same positions (exact McNemar).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import chess

from ensemble.evidence import evidence_from_terms
from ensemble.ballot import Ballot, Evidence, SelectionInput
from ensemble.selection import CRITERIA, select
from players.limits import Limit
from tournaments.records.epd import Suite
from tournaments.statistics.stats import McNemar, Proportion, adjust_mcnemar, mcnemar, proportion
from tournaments.suite.store import SearchStore
from tournaments.suite.config import FULL_LABEL, CriterionSpec, PlayerSpec, SuiteRunConfig, instance_key

log = logging.getLogger("concilio.suite")


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
    versus_full: McNemar | None = None
    single: bool = False

    @property
    def cs(self) -> float:
        return self.val.value / self.cd.value if self.cd.value else 0.0


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
    view = StoreView(store, config.budget_key)
    posterior = PosteriorCache(store)
    scores: list[Score] = []
    for player in config.players:
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
    _compare_with_full(scores)
    return scores


def score_moves(suite: str, player: PlayerSpec, criterion: str, positions, ballots_per_position, moves) -> Score:
    """A player's C_D, Val and points from the moves it played (one per position)."""
    solved = [p.solved_by(m) for p, m in zip(positions, moves)]
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
                 points, max_points, themes, solved, None, player.is_single)


def _compare_with_full(scores: list[Score]) -> None:
    """Every score against the full engine on the same suite (exact McNemar, raw p-values:
    ``adjust_comparisons`` adjusts them once the whole report is known)."""
    full = {s.suite: s for s in scores if s.player == FULL_LABEL and s.single}
    for s in scores:
        if s.suite in full and s is not full[s.suite]:
            s.versus_full = mcnemar(s.solved, full[s.suite].solved)


def adjust_comparisons(scores: list[Score], roles: dict[str, str] | None = None) -> dict[str, int]:
    """Adjust the comparisons with the full engine (Holm and Benjamini-Hochberg), one family
    per suite role (``roles``: suite name -> explore | choose | confirm): a confirmation is
    not diluted by the many comparisons a choice was made from, nor can it hide among them.
    Returns each family's size."""
    roles = roles or {}
    families: dict[str, list[Score]] = {}
    for s in scores:
        if s.versus_full is not None:
            families.setdefault(roles.get(s.suite, "explore"), []).append(s)
    for family in families.values():
        for s, test in zip(family, adjust_mcnemar([s.versus_full for s in family])):
            s.versus_full = test
    return {role: len(family) for role, family in families.items()}