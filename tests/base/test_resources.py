"""What ships with Concilio and where it caches: the package list matches the tree,
the data sets are there, and numba's cache stays out of the installed modules."""
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from base.resources import PACKAGE, packaged

ROOT = PACKAGE.parent


def test_every_code_package_ships_and_configs_and_data_ride_along():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {str(p.parent.relative_to(ROOT)).replace(os.sep, ".") for p in ROOT.glob("*/**/__init__.py")
             if p.parts[len(ROOT.parts)] not in ("tests", "build", "benchmarks")}
    assert set(setup["packages"]) == found | {"concilio.configs", "concilio.data"}
    assert setup["package-dir"] == {"concilio.configs": "configs", "concilio.data": "data"}


def test_packaged_data_sets_are_complete():
    data = packaged("data")
    expected = {"perft/perftsuite.epd": 126, "suites/wac.epd": 299, "suites/bratko-kopec.epd": 24,
                "suites/kaufman.epd": 25, "suites/silent-but-deadly.epd": 134, "suites/sts-1-10.epd": 1000,
                "openings/8moves_v3-1000.epd": 1000}
    for name, records in expected.items():
        lines = [line for line in (data / name).read_text(errors="replace").splitlines() if line.strip("\x00 \r")]
        assert len(lines) == records, name
        assert f"`{name}`" in (data / "README.md").read_text(), f"{name} has no origin in data/README.md"


def test_numba_caches_in_the_user_folder_unless_told_otherwise(tmp_path):
    """In a folder per engine: numba checks only a function's own file, and code compiled
    against old piece-square tables (evaluation/tables.py) would otherwise be reused."""
    from base.fingerprint import engine_fingerprint
    own = f"engine-{engine_fingerprint()}"
    # The packages that hold jitted code choose the folder when imported, before numba reads it;
    # that the compiled code then lands there is tested by the cold start in tests/concilio/test_uci.py.
    probe = "import players, numba, os; print(numba.config.CACHE_DIR, os.environ['NUMBA_CACHE_DIR'])"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")

    def folders() -> set[Path]:
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
        return {Path(p) for p in done.stdout.split()}
    assert folders() == {tmp_path / "cache" / "concilio" / "numba" / own}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "chosen")
    assert folders() == {tmp_path / "chosen" / own}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "chosen" / own)  # what a child process inherits: kept
    assert folders() == {tmp_path / "chosen" / own}


def test_a_cold_cache_is_announced_once_on_standard_error(tmp_path, monkeypatch, capsys):
    """A first run compiles for a minute: one line says so before it, and only once (a worker
    process inherits the notice); a cache that holds the search says nothing."""
    from base.resources import COLD_NOTICE_ENV, announce_cold_compile
    monkeypatch.delenv(COLD_NOTICE_ENV, raising=False)
    announce_cold_compile(tmp_path)
    announce_cold_compile(tmp_path)
    assert capsys.readouterr().err.count("compiling the engine, about a minute, once") == 1
    monkeypatch.delenv(COLD_NOTICE_ENV)
    (tmp_path / "core_0123").mkdir()
    (tmp_path / "core_0123" / "search.negamax-329.py311.nbi").write_bytes(b"")
    announce_cold_compile(tmp_path)
    assert capsys.readouterr().err == ""


def test_the_compiled_engine_is_found_by_every_checkout_of_the_same_code():
    # Keyed by the package's folder, not the checkout's absolute path: a fresh clone, CI or a new
    # virtual environment loads the code compiled for the same engine (numba checks its content).
    import players.core.search as search
    from base.fingerprint import engine_fingerprint
    path = Path(search.negamax._cache._cache_path)
    assert (path.parent.name, path.name) == (f"engine-{engine_fingerprint()}", "players_core")
