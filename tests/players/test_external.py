"""External engines: a binary found on PATH or in Debian's game folders (which are not on
every PATH), and one that is missing named with how to install it."""
import os
import stat

import pytest

from players import external
from players.external import EngineNotFoundError, find_engine_binary


def executable(folder, name):
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_an_engine_off_the_path_is_found_in_the_game_folders(tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    engine = executable(games, "fakechess")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(external, "SEARCH_DIRS", (str(tmp_path / "none"), str(games)))
    assert find_engine_binary("fakechess") == str(engine)
    on_path = tmp_path / "bin"
    on_path.mkdir()
    first = executable(on_path, "fakechess")
    monkeypatch.setenv("PATH", str(on_path))
    assert find_engine_binary("fakechess") == str(first)  # PATH comes first


def test_a_path_is_taken_as_given_and_a_missing_engine_says_how_to_install_it(tmp_path, monkeypatch):
    engine = executable(tmp_path, "mine")
    assert find_engine_binary(str(engine)) == str(engine)
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(EngineNotFoundError, match="is not an executable file"):
        find_engine_binary(str(plain))
    monkeypatch.setenv("PATH", os.devnull)
    monkeypatch.setattr(external, "SEARCH_DIRS", (str(tmp_path / "none"),))
    with pytest.raises(EngineNotFoundError, match=r"'nochess' not found on PATH .*apt-get install nochess"):
        find_engine_binary("nochess")
