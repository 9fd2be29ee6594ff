"""``concilio autotune`` end to end on a tiny labelled set; the held-out split by opening."""
import re
from dataclasses import replace
from itertools import combinations

import pytest

from ensemble.config import load_ensemble
from tests.tournaments.autotune.tune_files import tiny_set, write_config
from tournaments.autotune.config import load_autotune
from tournaments.autotune.run import AutotuneError, PoolBallots, read_team, run_autotune, split_held_out
from tournaments.records.epd import read_suite
from tournaments.suite.store import SearchStore
from tournaments.suite.metrics import StoreView


def test_split_keeps_openings_whole_and_is_reproducible(data_dir):
    positions = read_suite(data_dir / "training" / "selfplay-5k.epd").positions[:400]
    tune, held = split_held_out(positions, 0.3, 1)
    assert len(tune) + len(held) == 400
    assert not {p.opening for p in tune} & {p.opening for p in held}
    assert not {p.game for p in tune} & {p.game for p in held}
    assert 0.2 < len({p.opening for p in held}) / len({p.opening for p in positions}) < 0.4
    assert split_held_out(positions, 0.3, 1) == (tune, held)
    assert all(p.game.startswith("selfplay:") and p.game.count(":") == 1 and p.opening for p in positions)


def test_no_held_out_game_shares_an_opening_with_a_tune_game_as_under_the_old_split(data_dir):
    positions = read_suite(data_dir / "training" / "selfplay-5k.epd").positions

    def shared(tune, held):
        seen = {p.opening for p in tune}
        return len({p.game for p in held if p.opening in seen}), len({p.game for p in held})

    # distribution.yaml's split (0.3, seed 1): by game, 110 of the 240 held-out games began where a tune game did.
    assert shared(*split_held_out(positions, 0.3, 1, lambda p: p.game)) == (110, 240)
    assert shared(*split_held_out(positions, 0.3, 1)) == (0, 233)


def test_autotune_keeps_the_best_pair_and_writes_a_playable_ensemble(data_dir, tmp_path):
    config = load_autotune(write_config(tmp_path, tiny_set(data_dir, tmp_path)))
    assert [i.spec.letters for i in config.pool] == ["MBXKPAR", "MB", "MBX"]
    outcome = run_autotune(config, progress=False)
    assert outcome.searches_added == 3 * 16  # the confirmation suite holds the same positions: nothing more
    tune, _ = split_held_out(read_suite(config.train.path).positions, 0.25, 3)
    with SearchStore(config.store) as store:
        pool = PoolBallots(StoreView(store, config.budget_key), config.pool, tune)
        # A pool of three and pairs only: one swap pass reaches every pair, so the search is exhaustive.
        cells = [(pool.objective(pair, crit, "points"), crit.name, pair)
                 for crit in config.criteria for pair in combinations(range(3), 2)]
    best = max(value for value, _, _ in cells)
    assert outcome.tuned.tune_value == pytest.approx(best)
    # Ties are common on 16 positions: the written ensemble must be one of the best cells.
    winners = {(name, tuple(sorted(config.pool[i].spec.letters for i in pair)))
               for value, name, pair in cells if value == pytest.approx(best)}
    tuned = load_ensemble(config.out)
    assert (tuned.selection.criterion, tuple(sorted(i.spec.letters for i in tuned.instances))) in winners
    report = (tmp_path / "report" / "report.md").read_text()
    assert "held-out games" in report and "again (confirm" in report and "of its openings" in report
    assert [c.role for c in outcome.comparisons] == ["validate", "confirm"]
    # Rerun: everything is in the store.
    assert run_autotune(config, progress=False).searches_added == 0
    # A training set without openings is split by game, and the run says so.
    bare = config.train.path.with_name("bare.epd")
    bare.write_text(re.sub(r' c2 "[^"]*";', "", config.train.path.read_text()))
    warnings = []
    again = load_autotune(write_config(tmp_path, bare))
    assert run_autotune(again, progress=False, warn=warnings.append).searches_added == 0
    assert any("16 self-play positions have no recorded opening" in w for w in warnings)


def test_reading_a_written_team_reproduces_its_tune_points_and_scores_its_held_out_games(data_dir, tmp_path):
    config = load_autotune(write_config(tmp_path, tiny_set(data_dir, tmp_path)))
    fresh = replace(config, store=tmp_path / "empty.sqlite")
    with pytest.raises(AutotuneError, match="no searches of both"):
        read_team(fresh, load_ensemble("3a"), search=False,
                  progress=False)
    outcome = run_autotune(config, progress=False)
    team = load_ensemble(config.out)
    reading = read_team(config, team, progress=False)
    assert reading.tune == pytest.approx(outcome.tuned.tune_value)
    assert reading.full_tune == pytest.approx(outcome.contenders[1].tune_value)
    tune, held = split_held_out(read_suite(config.train.path).positions, 0.25, 3)
    assert (reading.tune_positions, reading.held_out_positions) == (len(tune), len(held))
    members = tuple(next(i for i, p in enumerate(config.pool) if p.spec == inst.spec) for inst in team.instances)
    criterion = next(c for c in config.criteria if c.name == team.selection.criterion)
    with SearchStore(config.store) as store:
        on_held = PoolBallots(StoreView(store, config.budget_key), config.pool, held)
        assert reading.held_out == pytest.approx(on_held.objective(members, criterion, "points"))
        on_tune = PoolBallots(StoreView(store, config.budget_key), config.pool, tune)
        # Every criterion of the file on this team; the team's own gives its own numbers.
        assert [label for label, _, _ in reading.rules] == [c.label for c in config.criteria]
        for c, (_, tune_value, held_value) in zip(config.criteria, reading.rules):
            assert tune_value == pytest.approx(on_tune.objective(members, c, "points"))
            assert held_value == pytest.approx(on_held.objective(members, c, "points"))
        own = dict((label, (t, h)) for label, t, h in reading.rules)[criterion.label]
        assert own == pytest.approx((reading.tune, reading.held_out))


def test_autotune_read_prints_both_splits_and_a_missing_store_exits_2(data_dir, tmp_path, capsys):
    from concilio.cli import main
    tune_file = write_config(tmp_path, tiny_set(data_dir, tmp_path))
    assert main(["autotune", str(tune_file), "--read", "3a", "--no-search", "--quiet"]) == 2
    assert "no searches of both 3a's instances and the full engine" in capsys.readouterr().err
    assert main(["autotune", str(tune_file), "--read", "3a", "--quiet"]) == 0
    out = capsys.readouterr().out
    tune, held = (int(n) for n in re.findall(r"(\d+) positions: \d+\.\d{4} \(full engine \d+\.\d{4}\)", out))
    assert tune + held == 16 and "3a (weighted_majority)" in out
    assert "under majority: tune " in out and "under depth_confidence: tune " in out


def test_rule_choice_cv_scores_each_rule_on_folds_its_set_never_saw(data_dir, tmp_path, monkeypatch):
    from sklearn.model_selection import GroupKFold

    from ensemble.autotune import greedy_with_swaps
    from tournaments.autotune.run import cross_validated_rules
    train = tiny_set(data_dir, tmp_path, n=40)
    config = load_autotune(write_config(tmp_path, train, "rule_choice: cv\nfolds: 3\n"))
    assert (config.rule_choice, config.folds) == ("cv", 3)
    outcome = run_autotune(config, progress=False)
    tune, _ = split_held_out(read_suite(config.train.path).positions, 0.25, 3)
    with SearchStore(config.store) as store:
        pool = PoolBallots(StoreView(store, config.budget_key), config.pool, tune)
    groups = [p.opening_group for p in pool.positions]
    assert len(set(groups)) >= 3
    # By hand: choose on two folds, score on the third, weight by its positions.
    for crit in config.criteria:
        total = 0.0
        for on, held in GroupKFold(n_splits=3).split(groups, groups=groups):
            best = greedy_with_swaps(3, lambda m: pool.objective(m, crit, "points", on), min_size=2, max_size=2,
                                     swap_passes=config.swap_passes).best
            assert not {groups[i] for i in on} & {groups[i] for i in held}  # no opening on both sides
            total += len(held) * pool.objective(best, crit, "points", held)
        assert outcome.rule_scores[crit.label] == pytest.approx(total / len(groups))
    assert cross_validated_rules(pool, config) == outcome.rule_scores
    kept = max(outcome.rule_scores, key=outcome.rule_scores.get)
    assert outcome.tuned.criterion.label == kept
    assert "3-fold CV" in (tmp_path / "report" / "report.md").read_text()
    # The folds decide, not the tune split: make the rule with the lower tune value win the folds.
    from tournaments.autotune import run as autotune_run
    values = {label: r.value for label, r in outcome.results.items()}
    loser = min(values, key=values.get)
    assert values[loser] < max(values.values())
    monkeypatch.setattr(autotune_run, "cross_validated_rules",
                        lambda pool, config: {label: float(label == loser) for label in values})
    assert run_autotune(config, progress=False).tuned.criterion.label == loser


def test_a_bad_rule_choice_is_named_with_its_line(data_dir, tmp_path):
    from base.config import ConfigError
    path = write_config(tmp_path, tiny_set(data_dir, tmp_path), "rule_choice: vote\nfolds: 1\n")
    with pytest.raises(ConfigError) as caught:
        load_autotune(path)
    text = str(caught.value)
    assert "rule_choice 'vote' is not one of tune, cv" in text and "folds" in text and "tune.yaml:" in text


def test_reading_a_team_needs_held_out_games_and_both_searches(data_dir, tmp_path):
    config = load_autotune(write_config(tmp_path, tiny_set(data_dir, tmp_path)))
    with pytest.raises(AutotuneError, match="holds out no game"):
        read_team(replace(config, validate=0.0), load_ensemble("3a"), search=False, progress=False)
    run_autotune(config, progress=False)  # the pool (MB, MBX, full) searched
    with SearchStore(config.store) as store:  # the full engine's searches gone: nothing to compare on
        store.db.execute("DELETE FROM searches WHERE instance LIKE 'MBXKPAR|w=1,1,1,1,1,1,1|%'")
        store.db.commit()
    with pytest.raises(AutotuneError, match="no searches of both"):
        read_team(config, load_ensemble(config.out), search=False, progress=False)


def test_rule_choice_cv_needs_two_openings(data_dir, tmp_path):
    from tournaments.autotune.run import cross_validated_rules
    config = load_autotune(write_config(tmp_path, tiny_set(data_dir, tmp_path, n=3), "rule_choice: cv\n"))
    with SearchStore(config.store) as store:
        pool = PoolBallots(StoreView(store, config.budget_key), config.pool, [])
    with pytest.raises(AutotuneError, match="at least two openings"):
        cross_validated_rules(pool, config)
