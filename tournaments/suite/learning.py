"""Training the learned selection criterion inside a suite run: the ensembles' stored
decisions on the training suites become one row per candidate (``ensemble.features``),
labelled by whether the candidate is a best move, and ``ensemble.learned.fit_model``
chooses and fits the ranker.  Its cross-validation, and the dynamic criterion's, groups
decisions by the game their position comes from (``SuitePosition.game``), so no game sits
on both sides of a fold.  The report says what it was trained on, its cross-validated Val
beside majority's on the same decisions, and the features that matter."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ensemble.dynamic import CONTEXT, DynamicWeights, fit_weights
from ensemble.features import feature_matrix
from ensemble.learned import LearnedModel, fit_model, top_per_group
from ensemble.model_file import save_model
from ensemble.ballot import SelectionInput
from ensemble.selection import select
from tournaments.records.epd import Suite
from tournaments.suite.store import SearchStore
from tournaments.suite.config import SuiteRunConfig
from tournaments.suite.metrics import StoreView


@dataclass
class Training:
    model: LearnedModel
    path: Path
    decisions: int
    majority_val: float
    suites: tuple[str, ...]
    players: tuple[str, ...]
    # (criterion, suite, player, fen) -> the move the criterion picks by a fold that never saw the position
    held_out: dict[tuple[str, str, str, str], str]
    dynamic: DynamicWeights
    dynamic_path: Path

    @property
    def files(self) -> dict[str, Path]:
        return {"learned": self.path, "dynamic": self.dynamic_path}

    def markdown(self) -> str:
        cv = ", ".join(f"{kind} {v['val']:.3f} ± {v['val_sd']:.3f}" for kind, v in self.model.cv.items())
        rows = "\n".join(f"| {name} | {value:.4f} |" for name, value in self.model.importances[:15])
        return (f"## Learned criterion\n\nTrained on {', '.join(self.suites)} ({self.model.positions} positions) "
                f"from {self.model.games} games, with the decisions of {', '.join(self.players)}: {self.decisions} "
                f"decisions, {self.model.rows} candidates. Val under 5-fold cross-validation grouped by game: {cv} "
                f"(kept: {self.model.kind}); majority on the same decisions: {self.majority_val:.3f}. Saved as "
                f"`{self.path}`. On the training suites, its rows below are held out: each position's move "
                f"is chosen by the fold's model that never saw the position's game (ties to the first candidate); "
                f"only the other suites test the saved model itself.\n\nFeatures that matter (permutation importance, ROC AUC lost on a held-out fold):\n\n"
                f"| feature | importance |\n|---|---:|\n{rows}\n\n"
                f"## Dynamic criterion\n\nLog-weight of each category per unit of the position's "
                f"{', '.join(CONTEXT)} (an instance weighs exp of its categories' mean), fitted on the same "
                f"decisions; 5-fold CV grouped by game, Val {self.dynamic.cv_val:.3f}. Saved as `{self.dynamic_path}`.\n\n"
                f"| category | {' | '.join(CONTEXT)} |\n|---|{'---:|' * len(CONTEXT)}\n"
                + "\n".join(f"| {c} | {' | '.join(f'{t:+.2f}' for t in row)} |" for c, row in self.dynamic.describe()))


def train_selection(config: SuiteRunConfig, suites: list[Suite], store: SearchStore) -> Training:
    learn = config.learn
    assert learn is not None
    view = StoreView(store, config.budget_key)
    players = [p for p in config.players if not p.is_single and (not learn.players or p.name in learn.players)]
    inputs: list[SelectionInput] = []
    keys: list[tuple[str, str, str]] = []
    solved_sets: list[set[str]] = []
    games: list[str] = []
    fen_games: dict[str, str] = {}  # a position met again (another suite) stays in its first game's fold
    for suite in suites:
        if suite.name not in learn.suites:
            continue
        for player in players:
            positions, ballots_per_position, stored = view.decisions(player, suite)
            for p, ballots in zip(positions, ballots_per_position):
                inputs.append(SelectionInput(ballots, view.evidence(p.fen, ballots, stored), None, p.fen))
                keys.append((suite.name, player.name, p.fen))
                solved_sets.append({b.move for b in ballots if p.solved_by(b.move)})
                games.append(fen_games.setdefault(p.fen, p.game))
    rows, groups, moves = feature_matrix(inputs)
    solved = [m in solved_sets[g] for g, m in zip(groups, moves)]
    model, ranks = fit_model(rows, groups, solved, [games[g] for g in groups], positions=len(fen_games),
                             trained_on=f"{', '.join(learn.suites)} / {', '.join(p.name for p in players)}")
    majority = [select("majority", inp).move in won for inp, won in zip(inputs, solved_sets)]
    path = save_model(model, learn.model)
    held_out = {("learned", *keys[g]): move for g, move in top_per_group(ranks, groups, moves).items()}
    weights, chosen = fit_weights(inputs, solved_sets, games, trained_on=model.trained_on)
    held_out.update({("dynamic", *key): move for key, move in zip(keys, chosen)})
    dynamic_path = weights.save(Path(learn.model).with_suffix(".dynamic.json"))
    return Training(model, path, len(inputs), sum(majority) / len(majority), tuple(learn.suites),
                    tuple(p.name for p in players), held_out, weights, dynamic_path)
