"""``--scheduler`` on every long command (issue 63): a wrong address is one line and exit 2
before anything runs; a file's ``cluster:`` section is checked with its line; the command
line beats the file and the command's own cap applies there."""
from __future__ import annotations

import argparse

import pytest

from concilio.cli import main
from concilio.commands.scheduler import remote_of

COMMANDS = [
    ["match", "quick"],
    ["suite", "smoke"],
    ["scaling", "play", "sweep"],
    ["scaling", "duel", "F4", "F2"],
    ["scaling", "duels", "sweep"],
    ["autotune", "distribution"],
    ["label", "STORE"],
    ["speedup", "speedup"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_wrong_address_is_one_line_and_exit_2(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing is written where the test runs
    assert main([*command, "--scheduler", "10.0.0.5:8786"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--scheduler '10.0.0.5:8786' is not a Dask scheduler address: give tcp://host:port" in \
        err[0], err
    assert not (tmp_path / "STORE").exists()


def test_a_match_file_s_cluster_is_checked_with_its_line(tmp_path):
    from base.config import ConfigError
    from tournaments.match.config import load_match
    path = tmp_path / "m.yaml"
    head = "time_control: {nodes: 100}\nplayers:\n  - {name: m, "
    path.write_text(head + "instance: MKP}\ncluster: {scheduler: host:8786, slots: 0}\n")
    with pytest.raises(ConfigError) as info:
        load_match(path)
    assert "m.yaml:4: cluster.scheduler: 'host:8786' is not a scheduler address" in str(info.value)
    assert "cluster.slots: 0 is out of range" in str(info.value)
    path.write_text(head + "decomposition: pv-split}\ncluster: {scheduler: tcp://h:8786}\n")
    with pytest.raises(ConfigError, match="cannot play on a scheduler's workers"):
        load_match(path)
    path.write_text(head + "instance: MKP}\ncluster: {scheduler: tcp://h:8786, slots: 8}\n")
    assert load_match(path).remote.slots == 8


def test_the_command_line_beats_the_file():
    from base.cluster import Remote
    file = Remote("tcp://a:8786", 8)
    args = argparse.Namespace(scheduler=None)
    assert remote_of(args, None, 4) is None  # a local run: --concurrency sizes the local cluster
    assert remote_of(args, file, None) == file and remote_of(args, file, 2) == Remote("tcp://a:8786", 2)
    args.scheduler = "tcp://b:8786"
    assert remote_of(args, file, None) == Remote("tcp://b:8786", 8)
    assert remote_of(args, None, 3) == Remote("tcp://b:8786", 3)
