"""Suite files: a role must be known, and the learned criterion never trains on a suite
that confirms choices."""
import pytest

from base.config import ConfigError
from tests.tournaments.suite.suite_files import EPD
from tournaments.suite.config import load_suite


def test_a_suite_role_must_be_known(tmp_path):
    (tmp_path / "s.epd").write_text(EPD)
    text = (f"name: roles\nsuites:\n  - {{path: {tmp_path / 's.epd'}, role: train}}\n"
            "players: {instances: [MB]}\nbudget: {nodes: 500}\n")
    with pytest.raises(ConfigError, match=r"suites\[0\]\.role: role 'train' is not one of explore, choose, confirm"):
        load_suite(text=text)


def test_the_learned_criterion_never_trains_on_a_confirm_suite(tmp_path):
    (tmp_path / "s.epd").write_text(EPD)
    head = (f"name: learn\nsuites:\n  - {{path: {tmp_path / 's.epd'}, name: a, role: choose}}\n"
            f"  - {{path: {tmp_path / 's.epd'}, name: b, role: confirm}}\n"
            "players: {ensembles: [3b]}\nbudget: {nodes: 500}\ncriteria: [majority, learned]\n")
    with pytest.raises(ConfigError, match="suite 'b' confirms choices: it cannot also train the model"):
        load_suite(text=head + "learn: {suites: [b]}\n")
    with pytest.raises(ConfigError, match=r"(?s)no suite named 'c'.*no ensemble named '6b'"):
        load_suite(text=head + "learn: {suites: [c], players: [6b]}\n")
    with pytest.raises(ConfigError, match=r"criteria\[1\]: learned: give model: FILE, or a learn block"):
        load_suite(text=head)
    with pytest.raises(ConfigError, match=r"learn.model: the trained model is saved as plain JSON"):
        load_suite(text=head + "learn: {suites: [a], model: out/m.joblib}\n")
    config = load_suite(text=head + "learn: {suites: [a], model: out/m.json}\n")
    assert config.learn.suites == ("a",) and str(config.learn.model) == "out/m.json"
