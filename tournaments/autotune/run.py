"""``concilio autotune``: search a pool of instances for the ensemble that maximises the
objective on the training set, then judge the choice where it was not made.

1. Phase 1 (as in a suite run): every pool instance searches every training position;
   the instances of the tuned and compared ensembles search the confirmation suites.
   Everything is stored, so reruns and other runs sharing the store redo nothing.
2. The training set is split by opening: the games of ``validate`` of the openings are
   held out (a held-out game never starts where a tune game did).  For each
   criterion, ``ensemble.autotune.greedy_with_swaps`` picks a set on the rest (the tune
   split); the best (set, criterion) pair is kept.  Each compared ensemble gets the
   criterion that serves it best on the tune split too, so the comparison is fair.
3. On the held-out games and on every confirmation suite, the tuned ensemble is compared
   with the full engine and with each compared ensemble (exact McNemar on Val, Holm and
   Benjamini-Hochberg over each suite's family).
4. The tuned ensemble is written as an ensemble YAML that ``concilio play``, ``match``
   and suite configs read.
"""
from __future__ import annotations

import csv
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

import yaml

from base.errors import ConcilioError
from base.runner import Runner, borrowed_or_own
from ensemble.autotune import TuneResult, greedy_with_swaps
from ensemble.config import EnsembleConfig, InstanceConfig
from ensemble.ballot import Ballot, SelectionInput
from ensemble.selection import select
from evaluation.spec import CATEGORIES, FULL_ENGINE
from players.limits import Limit
from tournaments.autotune.config import AutotuneConfig
from tournaments.records.epd import Suite, SuitePosition
from tournaments.statistics.stats import McNemar, adjust_mcnemar, mcnemar
from tournaments.suite.store import SearchStore
from tournaments.suite.config import FULL_LABEL, CriterionSpec, PlayerSpec, instance_key
from tournaments.suite.metrics import Score, StoreView, score_moves
from tournaments.suite.report import markdown_table
from tournaments.suite.run import read_suites
from tournaments.suite.adopt import adopt_searches
from tournaments.suite.search import run_phase1

TUNED = "tuned"


class AutotuneError(ConcilioError, ValueError):
    """Training positions that cannot serve the run's objective (exit 2 with the reason)."""


@dataclass
class Contender:
    """A player of the comparison: its instances and the criterion it plays with."""

    player: PlayerSpec
    criterion: CriterionSpec | None  # None for the full engine
    tune_value: float = 0.0  # objective on the tune split, with that criterion


@dataclass
class SuiteComparison:
    suite: str
    role: str
    scores: dict[str, Score]  # contender name -> score
    versus: dict[tuple[str, str], McNemar] = field(default_factory=dict)  # (tuned, other) -> test
    points_gain: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # other -> tuned − other, CI


@dataclass
class AutotuneOutcome:
    config: AutotuneConfig
    tuned: Contender
    results: dict[str, TuneResult]  # criterion label -> search
    contenders: list[Contender]
    comparisons: list[SuiteComparison]
    tune_positions: int
    validate_positions: int
    searches_added: int
    files: list[Path]
    rule_scores: dict[str, float] = field(default_factory=dict)  # rule_choice cv: criterion -> held-fold mean


def split_held_out(positions: list[SuitePosition], share: float, seed: int,
                   group: Callable[[SuitePosition], str] = lambda p: p.opening_group) -> tuple[list, list]:
    """(tune, validate): ``share`` of the groups, drawn with ``seed``, are held out whole.
    By default a group is an opening (``SuitePosition.opening_group``): every game begun
    from it falls on one side, so no held-out game starts where a tune game did."""
    groups = sorted({group(p) for p in positions})
    random.Random(seed).shuffle(groups)
    held = set(groups[:round(share * len(groups))])
    return [p for p in positions if group(p) not in held], [p for p in positions if group(p) in held]


def train_splits(config: AutotuneConfig, warn: Callable[[str], None]) -> tuple[list, list]:
    """(tune, held-out) positions of ``config``'s training set, split by opening as the tune does."""
    from tournaments.suite.config import SuiteRunConfig
    pseudo = SuiteRunConfig(config.name, (config.train,), (), config.budget, (), config.store, config.report,
                            config.workers, False, config.source)
    train = read_suites(pseudo, warn)[0]
    return split_held_out(train.positions, config.validate, config.split_seed)


def position_value(position: SuitePosition, move: str, objective: str) -> float:
    """What one move earns: STS points (best = 10) or 1 for a best move."""
    return float(position.points_for(move)) if objective == "points" else float(position.solved_by(move))


def played_moves(ballots_per_position: list[tuple[Ballot, ...]], positions: list[SuitePosition],
                 criterion: CriterionSpec | None) -> list[str]:
    if criterion is None:
        return [ballots[0].move for ballots in ballots_per_position]
    return [select(criterion.name, SelectionInput(ballots, key=p.fen), **criterion.params).move
            for ballots, p in zip(ballots_per_position, positions)]


class PoolBallots:
    """Every pool instance's stored ballot on every position, for cheap set evaluation."""

    def __init__(self, view: StoreView, pool: tuple[InstanceConfig, ...], positions: list[SuitePosition]) -> None:
        stored = [view.searches(instance_key(inst)) for inst in pool]
        self.positions = [p for p in positions if all(p.fen in s for s in stored)]
        self.missing = len(positions) - len(self.positions)
        self.ballots = [[Ballot(inst.label, inst.spec, s[p.fen].result) for p in self.positions]
                        for inst, s in zip(pool, stored)]

    def for_set(self, members: tuple[int, ...]) -> list[tuple[Ballot, ...]]:
        return [tuple(self.ballots[i][k] for i in members) for k in range(len(self.positions))]

    def objective(self, members: tuple[int, ...], criterion: CriterionSpec, objective: str,
                  among: Sequence[int] | None = None) -> float:
        """The mean objective of the set's moves, over every position or those at ``among``."""
        ballots, positions = self.for_set(members), self.positions
        if among is not None:
            ballots, positions = [ballots[i] for i in among], [positions[i] for i in among]
        moves = played_moves(ballots, positions, criterion)
        return mean(position_value(p, m, objective) for p, m in zip(positions, moves))


def cross_validated_rules(pool: PoolBallots, config: AutotuneConfig) -> dict[str, float]:
    """Each criterion's score on positions its set never saw: the tune split in ``config.folds``
    folds of whole openings (``GroupKFold``); for each fold the set is chosen on the others
    with that criterion and scored on it; the mean over every tune position, each held out
    once.  A rule that only looks good on the positions its set was chosen on loses here."""
    from sklearn.model_selection import GroupKFold
    groups = [p.opening_group for p in pool.positions]
    if len(set(groups)) < 2:
        raise AutotuneError(f"{config.source}: rule_choice cv needs at least two openings in the tune split of "
                            f"{config.train.path}, it has {len(set(groups))}")
    folds = GroupKFold(n_splits=min(config.folds, len(set(groups))))
    scores: dict[str, float] = {}
    for crit in config.criteria:
        total = 0.0
        for chosen_on, held in folds.split(groups, groups=groups):
            chosen = greedy_with_swaps(
                len(config.pool), lambda m, c=crit, on=chosen_on: pool.objective(m, c, config.objective, on),
                min_size=config.min_size, max_size=config.max_size, swap_passes=config.swap_passes)
            total += len(held) * pool.objective(chosen.best, crit, config.objective, held)
        scores[crit.label] = total / len(groups)
    return scores


def run_autotune(config: AutotuneConfig, *, search: bool = True, progress: bool = True, runner: Runner | None = None,
                 warn=lambda line: print(line, file=sys.stderr), adopt: str | None = None,
                 verify: int = 200) -> AutotuneOutcome:
    """``adopt``: an older engine fingerprint whose stored searches this engine takes over once
    ``verify`` of them, searched again, are identical (``tournaments.suite.adopt``)."""
    from tournaments.suite.config import SuiteRunConfig
    pseudo = SuiteRunConfig(config.name, (config.train, *config.confirm), (), config.budget, (), config.store,
                            config.report, config.workers, False, config.source)
    suites = read_suites(pseudo, warn)
    train, confirm = suites[0], suites[1:]
    unrecorded = sum(p.source.startswith("selfplay:") and not p.opening for p in train.positions)
    if unrecorded:
        warn(f"{config.train.path}: {unrecorded} self-play positions have no recorded opening (c2); their games are "
             "held out by game and may share an opening with tune games")
    tune_positions, validate_positions = split_held_out(train.positions, config.validate, config.split_seed)
    if config.objective == "points" and any(not p.points for p in train.positions):
        raise AutotuneError(f"{config.train.path}: objective 'points' needs points (c0) on every position; "
                         "use objective: val")
    kind, amount = next(iter(config.budget.items()))
    limits = Limit(**{kind: amount})
    full = InstanceConfig.of(FULL_LABEL, FULL_ENGINE)
    on_train = {instance_key(i): i for i in (*config.pool, full, *(i for p in config.compare for i in p.instances))}
    added = 0
    # One runner for both searches (training and confirmation positions), when it searches.
    with SearchStore(config.store) as store, borrowed_or_own(config.workers if search else 1, runner,
                                                               remote=config.remote if search else None,
                                                               dashboard=False) as runner:
        if adopt:
            done = adopt_searches(store, on_train, f"{kind}={amount} engine={adopt}", config.budget_key, limits, verify)
            warn(f"adopted engine {adopt}'s searches: {done.checked} searched again, all identical; "
                 f"{done.copied} rows copied to {config.budget_key!r}")
        if search:
            added += run_phase1(store, on_train, train.positions, limits, config.budget_key, False, config.workers,
                                runner=runner, progress=progress)
        view = StoreView(store, config.budget_key)
        tune = PoolBallots(view, config.pool, tune_positions)
        if tune.missing:
            warn(f"{tune.missing} tune positions lack pool searches (rerun with search) and are left out")
        results = {}
        for crit in config.criteria:
            results[crit.label] = greedy_with_swaps(
                len(config.pool), lambda m, c=crit: tune.objective(m, c, config.objective),
                min_size=config.min_size, max_size=config.max_size, swap_passes=config.swap_passes)
        rule_scores = cross_validated_rules(tune, config) if config.rule_choice == "cv" else {}
        chosen_by = rule_scores or {label: r.value for label, r in results.items()}
        best_label = max(chosen_by, key=chosen_by.get)  # first criterion wins a tie
        best = results[best_label]
        criterion = next(c for c in config.criteria if c.label == best_label)
        tuned = Contender(PlayerSpec(TUNED, tuple(config.pool[i] for i in best.best)), criterion, best.value)
        contenders = [tuned, Contender(PlayerSpec(FULL_LABEL, (full,)), None)]
        contenders[1].tune_value = _value(view, contenders[1], tune_positions, config.objective)
        for player in config.compare:
            tried = [(_value(view, Contender(player, c), tune_positions, config.objective), c)
                     for c in config.criteria]
            value, crit = max(tried, key=lambda t: t[0])
            contenders.append(Contender(player, crit, value))
        # Confirmation suites: the contenders' instances only.
        needed = {instance_key(i): i for c in contenders for i in c.player.instances}
        if search:
            for suite in confirm:
                added += run_phase1(store, needed, suite.positions, limits, config.budget_key, False, config.workers,
                                    runner=runner, progress=progress)
            view = StoreView(store, config.budget_key)  # the searches just added, too
        held = Suite(f"{train.name} (held-out games)", train.path, validate_positions, [])
        comparisons = [_compare(view, contenders, held, "validate", warn)]
        comparisons += [_compare(view, contenders, suite, "confirm", warn) for suite in confirm]
    files = write_outputs(config, tuned, results, contenders, comparisons, len(tune.positions),
                          len(validate_positions), added, rule_scores)
    return AutotuneOutcome(config, tuned, results, contenders, comparisons, len(tune.positions),
                           len(validate_positions), added, files, rule_scores)


@dataclass(frozen=True)
class TeamReading:
    """A written team read again on its tune file's two splits, beside the full engine: a team's
    held-out points when the run that chose it kept no report, or a check that a store still
    reproduces the points its YAML was chosen with."""

    team: str
    criterion: str
    tune: float
    held_out: float
    full_tune: float
    full_held_out: float
    tune_positions: int
    held_out_positions: int
    rules: tuple[tuple[str, float, float], ...] = ()  # the file's criteria on this team: (label, tune, held-out)


def read_team(config: AutotuneConfig, team: EnsembleConfig, *, search: bool = True, progress: bool = True,
              runner: Runner | None = None,
              warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> TeamReading:
    """Mean points (or Val) of ``team`` under its own criterion, under each criterion of
    ``config``, and of the full engine, on the tune split and on the held-out games of
    ``config``'s training set; searches only the team's instances and the full engine
    (``search``), at the file's budget."""
    tune_positions, held_positions = train_splits(config, warn)
    if not held_positions:
        raise AutotuneError(f"{config.source}: train.validate {config.validate:g} holds out no game of "
                            f"{config.train.path}; a team is read on its held-out games")
    if config.objective == "points" and any(not p.points for p in tune_positions + held_positions):
        raise AutotuneError(f"{config.train.path}: objective 'points' needs points (c0) on every position; "
                            "use objective: val")
    kind, amount = next(iter(config.budget.items()))
    full = InstanceConfig.of(FULL_LABEL, FULL_ENGINE)
    needed = {instance_key(i): i for i in (*team.instances, full)}
    criterion = CriterionSpec(team.selection.criterion, dict(team.selection.params))
    players = (Contender(PlayerSpec(team.name, tuple(team.instances)), criterion), Contender(PlayerSpec(FULL_LABEL,
                                                                                                         (full,)), None))
    with SearchStore(config.store) as store:
        if search:
            with borrowed_or_own(config.workers, runner, remote=config.remote, dashboard=False) as lent:
                run_phase1(store, needed, tune_positions + held_positions, Limit(**{kind: amount}),
                           config.budget_key, False, config.workers, runner=lent, progress=progress)
        view = StoreView(store, config.budget_key)
        # Every number on the same positions: those both the team and the full engine have searched.
        splits = []
        for split in (tune_positions, held_positions):
            kept = [{p.fen for p in _ballots(view, c.player, split)[0]} for c in players]
            splits.append([p for p in split if p.fen in kept[0] and p.fen in kept[1]])
        counts = [len(split) for split in splits]
        if min(counts) == 0:
            raise AutotuneError(f"{config.store}: no searches of both {team.name}'s instances and the full engine on "
                                f"{config.train.path} at {config.budget_key}; run without --no-search")
        tune_positions, held_positions = splits
        values = [[_value(view, c, split, config.objective) for split in splits] for c in players]
        rules = tuple((c.label, *(_value(view, Contender(players[0].player, c), split, config.objective)
                                  for split in (tune_positions, held_positions))) for c in config.criteria)
    return TeamReading(team.name, criterion.label, values[0][0], values[0][1], values[1][0], values[1][1], *counts,
                       rules)


def _ballots(view: StoreView, player: PlayerSpec, positions: list[SuitePosition]):
    suite = Suite("", "", positions, [])
    return view.decisions(player, suite)[:2]


def _value(view: StoreView, contender: Contender, positions: list[SuitePosition], objective: str) -> float:
    kept, ballots = _ballots(view, contender.player, positions)
    moves = played_moves(ballots, kept, contender.criterion)
    return mean(position_value(p, m, objective) for p, m in zip(kept, moves)) if kept else 0.0


def _compare(view: StoreView, contenders: list[Contender], suite: Suite, role: str, warn) -> SuiteComparison:
    """Every contender on the positions all of them have searched; the tuned one against
    each other contender, one McNemar family per suite."""
    players = [c.player for c in contenders]
    common = [p for p in suite.positions
              if all(p.fen in view.searches(instance_key(i)) for pl in players for i in pl.instances)]
    if len(common) < len(suite.positions):
        warn(f"{suite.name}: {len(suite.positions) - len(common)} of {len(suite.positions)} positions lack "
             "searches of some contender and are left out (rerun with search)")
    scores = {}
    moves_of = {}
    for c in contenders:
        kept, ballots = _ballots(view, c.player, common)
        moves = moves_of[c.player.name] = played_moves(ballots, kept, c.criterion)
        scores[c.player.name] = score_moves(suite.name, c.player, c.criterion.label if c.criterion else "", kept,
                                            ballots, moves)
    tuned = scores[TUNED]
    others = [name for name in scores if name != TUNED]
    tests = adjust_mcnemar([mcnemar(tuned.solved, scores[name].solved) for name in others])
    gains = {}
    if common and all(p.points for p in common):
        for name in others:
            ours = [position_value(p, m, "points") for p, m in zip(common, moves_of[TUNED])]
            theirs = [position_value(p, m, "points") for p, m in zip(common, moves_of[name])]
            gains[name] = paired_mean_difference(ours, theirs)
    return SuiteComparison(suite.name, role, scores, {(TUNED, name): t for name, t in zip(others, tests)}, gains)


def paired_mean_difference(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """Mean of a − b with its 95% t interval (paired: the same positions)."""
    from scipy.stats import t as student
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    m = sum(d) / n
    if n < 2:
        return m, m, m
    sd = (sum((x - m) ** 2 for x in d) / (n - 1)) ** 0.5
    half = float(student.ppf(0.975, n - 1)) * sd / n ** 0.5
    return m, m - half, m + half


def ensemble_yaml(config: AutotuneConfig, tuned: Contender, result: TuneResult) -> str:
    """The tuned ensemble as a file ``concilio play``/``match`` and suite configs read."""
    instances = []
    for inst in tuned.player.instances:
        entry: dict = {"mask": inst.spec.letters}
        extra = {c: float(w) for c, w in zip(CATEGORIES, inst.spec.weights) if inst.spec.uses(c) and w != 1.0}
        if extra:
            entry["weights"] = extra
        instances.append(entry)
    criterion = tuned.criterion
    assert criterion is not None
    (kind, amount), = config.budget.items()
    body = {"name": config.out.stem, "instances": instances,
            "selection": {"criterion": criterion.name, **{k: v for k, v in criterion.params.items()
                                                          if k != "seed"}},
            "budget": {kind: amount, "budget_mode": "per_instance"},
            "cluster": {"workers": len(instances)}}
    header = (f"# Written by `concilio autotune {config.source}`: the set and criterion with the best "
              f"{config.objective} ({result.value:.4f}) on the tune split of {config.train.path.name} at "
              f"{config.budget_key} per instance, by greedy forward selection and swaps over a pool of "
              f"{len(config.pool)} instances ({result.evaluations} sets judged).  Judge it on other positions: "
              "the run's report compares it on held-out games and on the confirmation suites.\n")
    return "".join(f"# {line}\n" if line else "#\n" for line in _wrap(header[2:-1])) + \
        yaml.safe_dump(body, sort_keys=False, default_flow_style=None)


def _wrap(text: str, width: int = 92) -> list[str]:
    import textwrap
    return textwrap.wrap(text, width)


def write_outputs(config: AutotuneConfig, tuned: Contender, results: dict[str, TuneResult],
                  contenders: list[Contender], comparisons: list[SuiteComparison], n_tune: int, n_validate: int,
                  added: int, rule_scores: dict[str, float] | None = None) -> list[Path]:
    best = results[tuned.criterion.label] if tuned.criterion else next(iter(results.values()))
    config.out.parent.mkdir(parents=True, exist_ok=True)
    config.out.write_text(ensemble_yaml(config, tuned, best))
    config.report.mkdir(parents=True, exist_ok=True)
    report = config.report / "report.md"
    report.write_text(report_markdown(config, tuned, results, contenders, comparisons, n_tune, n_validate, added,
                                      rule_scores or {}))
    trajectory = config.report / "trajectory.csv"
    with trajectory.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["criterion", "step", "action", "members", config.objective])
        for label, result in results.items():
            for k, step in enumerate(result.steps, 1):
                w.writerow([label, k, step.action, " ".join(config.pool[i].label for i in step.members),
                            f"{step.value:.4f}"])
    return [config.out, report, trajectory]


def report_markdown(config: AutotuneConfig, tuned: Contender, results: dict[str, TuneResult],
                    contenders: list[Contender], comparisons: list[SuiteComparison], n_tune: int, n_validate: int,
                    added: int, rule_scores: dict[str, float] | None = None) -> str:
    name = lambda members: "".join(config.pool[i].label for i in members)  # noqa: E731
    lines = [f"# Auto-tuned distribution `{config.name}`", "",
             f"Config `{config.source}`. Pool of {len(config.pool)} instances; {config.budget_key} per instance and "
             f"position; objective: mean {config.objective} of the moves played. Tune split: {n_tune} positions of "
             f"{config.train.path.name}; {n_validate} positions, the games of {round(config.validate * 100)}% of its "
             f"openings (seed {config.split_seed}), are held out. Phase 1 added {added} searches.", "",
             "## The search, per criterion (tune split)", ""]
    rule_scores = rule_scores or {}
    rows = [[label, name(r.best), str(len(r.best)), f"{r.value:.4f}", str(r.evaluations),
             ", ".join(f"{k}: {v:.4f}" for k, (_, v) in sorted(r.by_size.items()))]
            + ([f"{rule_scores[label]:.4f}"] if rule_scores else [])
            for label, r in results.items()]
    lines.append(markdown_table(["criterion", "best set", "size", config.objective, "sets judged",
                                 "greedy best by size"]
                                + ([f"{config.objective}, {config.folds}-fold CV"] if rule_scores else []), rows))
    if rule_scores:
        lines += ["", f"The criterion is chosen by its {config.folds}-fold cross-validated {config.objective} "
                  "(whole openings per fold, one fold an opening where the tune split has fewer; the set chosen "
                  "on the other folds, scored on the held one), and its set is then chosen on the whole tune "
                  "split."]
    lines += ["", f"Kept: **{name(results[tuned.criterion.label].best)}** with `{tuned.criterion.label}`, written to "
              f"`{config.out}`. Each compared ensemble plays with the criterion that serves it best on the tune "
              "split:", ""]
    lines.append(markdown_table(["player", "criterion", f"tune {config.objective}"],
                                [[c.player.name, c.criterion.label if c.criterion else "(engine)",
                                  f"{c.tune_value:.4f}"] for c in contenders]))
    for comp in comparisons:
        tuned_score = comp.scores[TUNED]
        lines += ["", f"## {comp.suite} ({comp.role}: nothing was chosen on it)", "",
                  f"{tuned_score.n} positions. 'tuned vs' is the exact McNemar test of the tuned ensemble against "
                  f"that player (+positions only the tuned one solves / −only the other does), Holm and BH over the "
                  f"{len(comp.versus)} comparisons of this suite; '*' marks Holm p < 0.05. 'points gain' is the "
                  "tuned ensemble's mean points per position minus the other's, with its paired 95% t interval.", ""]
        rows = []
        for player, s in comp.scores.items():
            test = comp.versus.get((TUNED, player))
            pts = f"{s.points / s.n:.3f}" if s.max_points else "-"
            gain = comp.points_gain.get(player)
            rows.append([player, s.criterion or "(engine)", s.cd.format(), s.val.format(), f"{s.cs:.3f}", pts,
                         test.format() if test else "",
                         f"{gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]" if gain else ""])
        lines.append(markdown_table(["player", "criterion", "C_D", "Val", "C_s", "points/pos", "tuned vs",
                                     "points gain"], rows))
    return "\n".join(lines) + "\n"


def format_outcome(outcome: AutotuneOutcome) -> str:
    t = outcome.tuned
    lines = [f"tuned: {''.join(i.label for i in t.player.instances)} with {t.criterion.label}; "
             f"tune {outcome.config.objective} {t.tune_value:.4f}"]
    for comp in outcome.comparisons:
        s = comp.scores[TUNED]
        full = comp.scores.get(FULL_LABEL)
        line = f"{comp.suite} ({comp.role}, {s.n} positions): tuned Val {s.val.value:.3f}"
        if full is not None:
            line += f", full {full.val.value:.3f} ({comp.versus[(TUNED, FULL_LABEL)].format()})"
        lines.append(line)
    return "\n".join(lines) + "\n" + f"written: {', '.join(str(p) for p in outcome.files)}"
