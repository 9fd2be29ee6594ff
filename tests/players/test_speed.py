"""Time-equivalent node budgets: the table's arithmetic, every player scaling by it, the
shipped table's coverage, what the table says it was measured with, and the match file's
checks."""
import json
import logging
from dataclasses import replace
from datetime import datetime
from types import SimpleNamespace

import chess
import pytest

import players.speed as speed
from base.config import ConfigError
from base.fingerprint import ROOT, engine_fingerprint
from ensemble.config import Budget, load_ensemble
from evaluation.spec import FULL_ENGINE, EvalSpec
from players.limits import Limit
from players.player import InstancePlayer
from players.speed import (SpeedTable, SpeedTableError, default_speed_table, equal_time, load_speed_table,
                            other_engine)

MB = EvalSpec.parse("MB")
TWO = SpeedTable({FULL_ENGINE.mask: 1.0, MB.mask: 2.0})


@pytest.fixture
def table(monkeypatch):
    t = SpeedTable({FULL_ENGINE.mask: 1.0, MB.mask: 2.0, EvalSpec.parse("MX").mask: 1.5}, {"abdada/2": 1.8})
    monkeypatch.setattr(speed, "_DEFAULT", t)
    return t


def test_the_arithmetic_of_the_table(table):
    asked = Limit(nodes=1000, equal_time=True)
    assert table.speed(MB) == 2.0 and equal_time(asked, MB) == Limit(nodes=2000)
    assert equal_time(asked, MB, cores_share=0.5).nodes == 1000
    assert equal_time(asked, MB, cores_share=3).nodes == 2000  # more cores than instances: no gain per instance
    assert equal_time(asked, algorithm="abdada", workers=2).nodes == 1800
    assert equal_time(asked, algorithm="abdada", workers=1).nodes == 1000
    assert equal_time(Limit(nodes=1000), MB) == Limit(nodes=1000)  # not marked equal_time: as it is
    assert equal_time(Limit(movetime=100, equal_time=True), MB).movetime == 100  # no nodes to scale
    with pytest.raises(SpeedTableError, match="no measured speed for mask MK"):
        table.instance(EvalSpec.parse("MK"))
    with pytest.raises(SpeedTableError, match="no measured team speed for abdada/4"):
        table.team("abdada", 4)


def test_a_table_round_trips_and_a_bad_one_is_named(tmp_path, table):
    path = tmp_path / "speed.json"
    path.write_text(table.to_json())
    assert load_speed_table(path) == table
    path.write_text("{\"masks\": 5}")
    with pytest.raises(SpeedTableError, match=f"{path}: not a speed table"):
        load_speed_table(path)


def test_an_instance_searches_its_time_equivalent_nodes(table):
    player = InstancePlayer(MB)
    plain = player.play(chess.Board(), Limit(nodes=3000))
    player.new_game()
    scaled = player.play(chess.Board(), Limit(nodes=3000, equal_time=True))
    assert plain.nodes <= 3000 * 1.05 < scaled.nodes <= 6000 * 1.05


def test_an_ensemble_shares_its_cores_among_its_instances(table):
    config = load_ensemble(text="name: t\ninstances: [MB, MX, MBXKPAR]\n")
    budget = Budget(Limit(nodes=3000)).equal_time(config.instances, cores=2)
    assert [budget.limits(3, i).nodes for i in range(3)] == [4000, 3000, 2000]  # speed x 2/3


def test_the_shipped_table_covers_every_mask_with_material_and_abdada():
    shipped = load_speed_table()
    assert all(m in shipped.masks for m in range(64, 128))
    assert shipped.masks[FULL_ENGINE.mask] == 1.0  # by definition: its own measured ratio divides the rest
    assert shipped.masks[EvalSpec.parse("M").mask] > 1.0  # material alone is the cheapest evaluation
    assert 1.0 < shipped.team("abdada", 2) <= 2.0
    assert "concilio speed-table" in shipped.measured


@pytest.fixture
def shipped(monkeypatch, tmp_path):
    """``default_speed_table`` reading a file of the test's own, as a fresh process would."""
    path = tmp_path / "speed.json"
    monkeypatch.setattr(speed, "_shipped", lambda: path)
    monkeypatch.setattr(speed, "_DEFAULT", None)
    return path


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "concilio.speed" and r.levelno == logging.WARNING]


def test_a_table_of_another_engine_warns_once_naming_both(shipped, caplog):
    shipped.write_text(replace(TWO, engine="0123456789ab").to_json())
    with caplog.at_level(logging.WARNING, logger="concilio.speed"):
        first = default_speed_table()
        assert default_speed_table() is first
    assert first.speed(MB) == 2.0  # a warning: the budgets still work
    [warning] = _warnings(caplog)
    assert str(shipped) in warning and "engine 0123456789ab" in warning and engine_fingerprint() in warning


def test_a_table_of_this_engine_does_not_warn(shipped, caplog):
    shipped.write_text(replace(TWO, engine=engine_fingerprint()).to_json())
    with caplog.at_level(logging.WARNING, logger="concilio.speed"):
        assert default_speed_table().engine == engine_fingerprint()
    assert _warnings(caplog) == []


def test_a_table_from_before_the_engine_was_kept_loads_and_warns(shipped, caplog):
    shipped.write_text(json.dumps({"measured": "by hand", "masks": {"127": 1.0, str(MB.mask): 2.0}, "teams": {}}))
    with caplog.at_level(logging.WARNING, logger="concilio.speed"):
        old = default_speed_table()
    assert old.engine is None and old.bench is None and old.speed(MB) == 2.0
    [warning] = _warnings(caplog)
    assert "an unknown engine" in warning and engine_fingerprint() in warning


def test_a_parallel_match_warns_where_it_runs_not_only_on_its_workers(shipped, caplog, monkeypatch, tmp_path):
    import tournaments.match.run as match_run
    from tournaments.match.config import load_match
    shipped.write_text(TWO.to_json())
    monkeypatch.setattr(match_run, "_play", lambda *args: False)  # the workers, which read it too, faked
    path = tmp_path / "m.yaml"
    path.write_text(f"players: [{{name: mb, instance: MB}}]\ngames: 2\nconcurrency: 2\n"
                    f"time_control: {{nodes: 500, equal_time: true}}\noutput: {tmp_path / 'out'}\n")
    with caplog.at_level(logging.WARNING, logger="concilio.speed"):
        match_run.run_match(load_match(path), progress=False, out=lambda line: None)
    [warning] = _warnings(caplog)
    assert "an unknown engine" in warning


def test_speed_table_writes_what_it_was_measured_with(tmp_path, monkeypatch):
    """The command's file, with the timing faked: the fields, not the speeds, are under test."""
    import players.speed_measure as measure
    from concilio.cli import main
    monkeypatch.setattr(measure, "mask_speeds", lambda masks, *a, **k: {m: 1.0 if m == 127 else 1.25 for m in masks})
    monkeypatch.setattr(measure, "team_speed", lambda team, *a, **k: ("abdada/2", 1.8))
    monkeypatch.setattr(measure, "run_bench", lambda: SimpleNamespace(nodes=123456))
    out = tmp_path / "speed.json"
    assert main(["speed-table", "--out", str(out), "--team", "abdada"]) == 0
    data = json.loads(out.read_text())
    assert data["engine"] == engine_fingerprint() and data["bench"] == 123456
    assert data["processor"] == measure.processor_name() and data["processor"]
    assert data["commit"] == measure.git_commit() and (data["commit"] or not (ROOT / ".git").exists())
    assert datetime.fromisoformat(data["date"]).tzinfo is not None
    assert "concilio speed-table" in data["measured"] and data["masks"]["64"] == 1.25
    assert data["teams"] == {"abdada/2": 1.8}
    assert other_engine(load_speed_table(out), out) is None
    assert measure.git_commit(tmp_path) is None  # not a checkout


def test_equal_time_needs_nodes_and_our_own_players(tmp_path):
    from tournaments.match.config import load_match
    path = tmp_path / "m.yaml"
    path.write_text(f"players: [{{name: a, full: true}}, {{name: b, uci: [stockfish]}}]\n"
                    f"time_control: {{movetime: 100, equal_time: true}}\noutput: {tmp_path / 'out'}\n")
    with pytest.raises(ConfigError) as err:
        load_match(path)
    assert "m.yaml:2: time_control.equal_time: equal_time scales a node budget" in str(err.value)
    assert "external engine's nodes are not comparable" in str(err.value)
