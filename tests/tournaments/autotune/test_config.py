"""Auto-tune files: bad settings named with their line and field, a pool too small for the
sizes asked, an unknown ensemble to compare with."""
import pytest

from base.config import ConfigError
from tests.tournaments.autotune.tune_files import tiny_set, write_config
from tournaments.autotune.config import load_autotune


@pytest.mark.parametrize("extra, message", [
    ("objective: elo\n", "objective 'elo' is not one of points, val"),
    ("criteria: [global_minimax]\n", "only criteria that read the ballots alone"),
])
def test_bad_settings_are_named_with_their_line(data_dir, tmp_path, extra, message):
    path = write_config(tmp_path, tiny_set(data_dir, tmp_path))
    text = path.read_text()
    key = extra.split(":")[0]
    text = "\n".join(line for line in text.splitlines() if not line.startswith(key + ":")) + "\n" + extra
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_autotune(path)
    line = text.splitlines().index(extra.strip()) + 1
    assert f"tune.yaml:{line}: " in str(err.value) and message in str(err.value)


def test_a_pool_and_sizes_that_cannot_work_are_refused(data_dir, tmp_path):
    path = write_config(tmp_path, tiny_set(data_dir, tmp_path))
    path.write_text(path.read_text().replace("size: {min: 2, max: 2}", "size: {min: 2, max: 5}")
                    .replace("emphasis", "x") + "")
    with pytest.raises(ConfigError, match="5 members from a pool of 3"):
        load_autotune(path)
    path.write_text(path.read_text().replace("pool: {instances: [MB, MBX], full: true}",
                                             "pool: {instances: [MB], full: false, emphasis: [-1]}"))
    with pytest.raises(ConfigError) as err:
        load_autotune(path)
    assert "pool.emphasis[0]: factor -1" in str(err.value) and "a pool of 1 instance(s)" in str(err.value)


def test_an_unknown_ensemble_is_named_under_its_own_field(data_dir, tmp_path):
    path = write_config(tmp_path, tiny_set(data_dir, tmp_path))
    path.write_text(path.read_text().replace("compare: []", "compare: [3b, no-such-ensemble]"))
    with pytest.raises(ConfigError) as err:
        load_autotune(path)
    assert "compare[1]: ensemble 'no-such-ensemble'" in str(err.value)


def test_one_file_serves_every_team_size():
    config = load_autotune("scaling-d")
    eight = config.of_size(8)
    assert (eight.min_size, eight.max_size) == (8, 8)
    assert eight.out.name == "scaling-d-8.yaml" and eight.report.name == "autotune-scaling-d-8"
    with pytest.raises(ConfigError, match="size 40 from a pool of 34"):
        config.of_size(40)
