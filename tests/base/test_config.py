"""The config lookup every command shares: order, user folders, the ``data:`` prefix,
outputs under the current directory, and the message for a name found nowhere."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from base.config import ConfigNotFound, find_config
from base.resources import packaged, resolve_data_reference
from tournaments.match.config import load_match
from tournaments.suite.config import load_suite

ENSEMBLE = "instances: [{mask: MB}, {mask: MX}]\nselection: {criterion: majority}\n"


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """An empty current directory and user folders of our own (not the tester's)."""
    cwd, user, extra = tmp_path / "cwd", tmp_path / "home-config", tmp_path / "extra"
    for folder in (cwd, user, extra):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user))
    monkeypatch.setenv("CONCILIO_CONFIG_PATH", str(extra))
    return cwd, user / "concilio", extra


def test_lookup_order_is_path_cwd_user_folders_then_packaged(isolated):
    cwd, home, extra = isolated
    shipped = packaged("configs") / "ensembles" / "3b.yaml"
    assert find_config("3b", "ensembles") == shipped
    (home / "ensembles").mkdir(parents=True)
    (home / "ensembles" / "3b.yaml").write_text(ENSEMBLE)
    assert find_config("3b", "ensembles") == home / "ensembles" / "3b.yaml"
    (extra / "3b.yaml").write_text(ENSEMBLE)
    assert find_config("3b", "ensembles") == extra / "3b.yaml"  # $CONCILIO_CONFIG_PATH before ~/.config
    (cwd / "3b.yaml").write_text(ENSEMBLE)
    assert find_config("3b", "ensembles") == cwd / "3b.yaml"
    assert find_config(str(shipped), "ensembles") == shipped  # a path as given wins over everything


def test_a_kind_only_finds_its_own_folder(isolated):
    assert find_config("quick", "tournaments").parent.name == "tournaments"
    with pytest.raises(ConfigNotFound):
        find_config("quick", "ensembles")


def test_a_name_found_nowhere_lists_every_place_and_exits_2(isolated):
    cwd, home, extra = isolated
    with pytest.raises(ConfigNotFound) as info:
        find_config("nowhere", "suites")
    looked = "\n".join(info.value.problems)
    for place in (cwd / "nowhere.yaml", extra / "suites" / "nowhere.yaml", home / "nowhere.yaml",
                  packaged("configs") / "suites" / "nowhere.yaml"):
        assert str(place) in looked
    done = subprocess.run([sys.executable, "-m", "concilio", "match", "nowhere"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "nowhere: no such config; looked for" in done.stderr and "configs/tournaments/nowhere.yaml" in done.stderr


def test_a_name_found_nowhere_lists_the_shipped_names_by_kind(isolated):
    with pytest.raises(ConfigNotFound) as info:
        find_config("nowhere", "suites", "tuning")
    problems = info.value.problems
    listed = problems[problems.index("the shipped ones, by kind:") + 1:]
    shipped = {kind: sorted(p.stem for p in (packaged("configs") / kind).glob("*.yaml")) for kind in ("suites", "tuning")}
    assert listed == [f"  suites: {', '.join(shipped['suites'])}", f"  tuning: {', '.join(shipped['tuning'])}"]
    assert "smoke" in shipped["suites"] and "distribution" in shipped["tuning"]


def test_data_prefix_names_packaged_data_from_any_folder(tmp_path):
    wac = resolve_data_reference("data:suites/wac.epd", tmp_path)
    assert wac == packaged("data") / "suites" / "wac.epd" and wac.is_file()
    assert resolve_data_reference("data:suites/missing.epd", tmp_path) is None
    (tmp_path / "mine.epd").write_text("")
    assert resolve_data_reference("mine.epd", tmp_path) == tmp_path / "mine.epd"


def test_outputs_go_under_the_current_directory_and_reports_name_the_config_as_given(isolated):
    match = load_match("quick")
    assert not match.output.is_absolute() and match.output == Path("runs/quick")
    assert match.source == "quick"
    suite = load_suite("smoke")
    assert suite.store == Path("results/smoke.sqlite") and suite.report == Path("reports/smoke")
    assert suite.source == "smoke"
    assert all(s.path.is_relative_to(packaged("data")) for s in suite.suites)


def test_no_shipped_config_reads_outside_the_package():
    def strings(value):
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [value] if isinstance(value, str) else []
    for path in packaged("configs").rglob("*.yaml"):
        for text in strings(yaml.safe_load(path.read_text())):
            assert "../" not in text and not text.startswith("/"), f"{path}: {text}"


def test_every_shipped_config_loads_with_its_kind():
    """A shipped file that its command would refuse is a defect nobody sees until they run it."""
    from ensemble.catalog import describe
    from ensemble.config import load_ensemble
    from ensemble.cascade.config import load_cascade
    from players.decomposition.config import load_decomposition
    from tournaments.autotune.config import load_autotune
    from tournaments.match.config import load_match
    from tournaments.scaling.config import load_sweep
    from tournaments.speedup.run import load_speedup
    from tournaments.suite.config import load_suite
    loaders = {"ensembles": load_ensemble, "cascade": load_cascade, "decomposition": load_decomposition,
               "tuning": load_autotune, "tournaments": load_match, "suites": load_suite, "engines": describe,
               "scaling": load_sweep}
    seen = set()
    for path in sorted(packaged("configs").rglob("*.yaml")):
        kind = path.parent.name
        if kind == "decomposition" and path.stem.startswith("speedup"):
            load_speedup(path)
        else:
            loaders[kind](path)
        seen.add(kind)
    assert seen == set(loaders)
