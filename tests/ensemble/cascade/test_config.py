"""Cascade files: a bad one names its field; in_process runs both phases in the calling
process, so that games may run side by side."""
import pytest

from base.config import ConfigError
from ensemble.cascade.config import is_cascade_file, load_cascade
from tests.ensemble.cascade.cascade_files import ENSEMBLE, write
from tournaments.match.config import load_match


@pytest.mark.parametrize("change, message", [
    ({"share": 1.5}, "cascade.yaml:4: share: share must be between 0 and 1"),
    ({"decomposition": "algorithm: pv_split\nworkers: 2\n"}, "pv_split: phase 2 searches the candidates only"),
    ({"unanimous": "vote"}, "'vote' is not one of play, widen, search"),
])
def test_bad_cascade_files_name_the_field(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        load_cascade(write(tmp_path, **change))


def test_an_in_process_cascade_may_share_the_machine_with_other_games(tmp_path):
    cascade = write(tmp_path)
    cascade.write_text(cascade.read_text().replace("pair.yaml", "pair2.yaml") + "in_process: true\n")
    (tmp_path / "pair2.yaml").write_text(ENSEMBLE.replace("cluster: {inline: true}\n", "cluster: {workers: 2}\n"))
    config = load_cascade(cascade)
    assert config.ensemble.cluster.inline and config.ensemble.cluster.workers == 2
    assert config.decomposition.in_process
    match = tmp_path / "m.yaml"
    match.write_text(f"players: [{{name: c, cascade: {cascade}}}, {{name: f, full: true}}]\ngames: 2\n"
                     f"time_control: {{nodes: 500, equal_time: true}}\nconcurrency: 2\noutput: {tmp_path / 'out'}\n")
    assert load_match(match).concurrency == 2


def test_a_cascade_file_is_told_from_other_configs_by_its_two_phases(tmp_path):
    assert is_cascade_file(write(tmp_path))
    (tmp_path / "ensemble.yaml").write_text(ENSEMBLE)
    (tmp_path / "broken.yaml").write_text("ensemble: [unclosed\n")
    assert not is_cascade_file(tmp_path / "ensemble.yaml") and not is_cascade_file(tmp_path / "broken.yaml")
