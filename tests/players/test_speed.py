"""Time-equivalent node budgets: the table's arithmetic, every player scaling by it, the
shipped table's coverage, and the match file's checks."""
import chess
import pytest

import players.speed as speed
from concilio.config import ConfigError
from ensemble.config import Budget, load_config
from evaluation.spec import FULL_ENGINE, EvalSpec
from players.player import InstancePlayer, MoveLimits
from players.searcher import Searcher
from players.speed import SpeedTable, SpeedTableError, load_speed_table

MB = EvalSpec.parse("MB")


@pytest.fixture
def table(monkeypatch):
    t = SpeedTable({FULL_ENGINE.mask: 1.0, MB.mask: 2.0, EvalSpec.parse("MX").mask: 1.5}, {"abdada/2": 1.8})
    monkeypatch.setattr(speed, "_DEFAULT", t)
    return t


def test_the_arithmetic_of_the_table(table):
    assert table.instance_nodes(MB, 1000) == 2000
    assert table.instance_nodes(MB, 1000, cores_share=0.5) == 1000
    assert table.instance_nodes(MB, 1000, cores_share=3) == 2000  # more cores than instances: no gain per instance
    assert table.team_nodes("abdada", 2, 1000) == 1800 and table.team_nodes("abdada", 1, 1000) == 1000
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
    player = InstancePlayer(Searcher(MB))
    plain = player.play(chess.Board(), MoveLimits(nodes=3000))
    player.new_game()
    scaled = player.play(chess.Board(), MoveLimits(nodes=3000, equal_time=True))
    assert plain.nodes <= 3000 * 1.05 < scaled.nodes <= 6000 * 1.05


def test_an_ensemble_shares_its_cores_among_its_instances(table):
    config = load_config(text="name: t\ninstances: [MB, MX, MBXKPAR]\n")
    budget = Budget(nodes=3000).equal_time(config.instances, cores=2)
    assert [budget.limits(3, i).nodes for i in range(3)] == [4000, 3000, 2000]  # speed x 2/3


def test_the_shipped_table_covers_every_mask_with_material_and_abdada():
    shipped = load_speed_table()
    assert all(m in shipped.masks for m in range(64, 128))
    assert shipped.masks[FULL_ENGINE.mask] == 1.0  # by definition: its own measured ratio divides the rest
    assert shipped.masks[EvalSpec.parse("M").mask] > 1.0  # material alone is the cheapest evaluation
    assert 1.0 < shipped.team("abdada", 2) <= 2.0
    assert "concilio speed-table" in shipped.measured


def test_equal_time_needs_nodes_and_our_own_players(tmp_path):
    from tournaments.match_config import load_match_config
    path = tmp_path / "m.yaml"
    path.write_text(f"players: [{{name: a, full: true}}, {{name: b, uci: [stockfish]}}]\n"
                    f"time_control: {{movetime: 100, equal_time: true}}\noutput: {tmp_path / 'out'}\n")
    with pytest.raises(ConfigError) as err:
        load_match_config(path)
    assert "m.yaml:2: time_control.equal_time: equal_time scales a node budget" in str(err.value)
    assert "external engine's nodes are not comparable" in str(err.value)
