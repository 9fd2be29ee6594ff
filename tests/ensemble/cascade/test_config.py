"""Cascade files: a bad one names its field, one of another kind says so; in_process runs
both phases in the calling process, so that games may run side by side."""
import pytest

from base.config import ConfigError
from ensemble.cascade.config import load_cascade
from tests.ensemble.cascade.cascade_files import ENSEMBLE, write
from tournaments.match.config import load_match


@pytest.mark.parametrize("change, message", [
    ({"share": 1.5}, "cascade.yaml:4: share: share must be between 0 and 1"),
    ({"decomposition": "algorithm: pv_split\nworkers: 2\n"}, "pv_split: phase 2 searches the candidates only"),
    ({"decomposition": "algorithm: lazy_smp\nworkers: 2\n"}, "lazy_smp: phase 2 searches the candidates only, "
                                                              "which needs abdada or lazy_smp with shared_table: true"),
    ({"decomposition": "algorithm: ybw\nworkers: 2\nthreads: true\nshared_table: true\n"},
     "ybw: phase 2 searches the candidates only"),  # its root can be restricted, but its table is a process's
    ({"decomposition": "algorithm: fresh_cluster\nworkers: 2\n"}, "fresh_cluster: phase 2 searches the candidates"),
    ({"unanimous": "vote"}, "'vote' is not one of play, widen, search"),
])
def test_bad_cascade_files_name_the_field(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        load_cascade(write(tmp_path, **change))


@pytest.mark.parametrize("decomposition", ["algorithm: abdada\nworkers: 2\nshared_table: true\n",
                                           "algorithm: lazy_smp\nworkers: 2\nshared_table: true\n"])
def test_phase_2_searches_over_one_shared_table(tmp_path, decomposition):
    assert load_cascade(write(tmp_path, decomposition=decomposition)).decomposition.shared_table


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


def test_a_cascade_file_may_say_what_it_is_and_one_of_another_kind_is_named(tmp_path):
    """Files are told apart by ``kind:`` or their folder (``ensemble.catalog``), never by their keys."""
    cascade = write(tmp_path)
    cascade.write_text("kind: cascade\n" + cascade.read_text())
    assert load_cascade(cascade).name == "c"
    cascade.write_text(cascade.read_text().replace("kind: cascade", "kind: ensemble"))
    with pytest.raises(ConfigError, match="cascade.yaml:1: kind: this file is a 'ensemble' player, read here as "
                                          "'cascade'"):
        load_cascade(cascade)
