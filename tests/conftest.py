"""Test fixtures: the data sets that ship with Concilio, the engine README.md names, and the
``--slow`` switch."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from base.resources import packaged

# The folder of the cold-start probe the controller started (tests/concilio/cold_start_probe.py);
# the test processes inherit it and read the probe's result there.
COLD_START_ENV = "CONCILIO_TEST_COLD_START"
COLD_START_PROBE = Path(__file__).resolve().parent / "concilio" / "cold_start_probe.py"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The packaged data (``data/`` of the checkout, or of the installed package)."""
    return packaged("data")


@pytest.fixture(scope="session")
def readme_bench() -> tuple[int, int]:
    """(depth, nodes): the bench signature README.md states, the one place the current engine's
    signature is written down.  ``test_cli`` checks ``concilio bench`` against it, ``test_docs``
    the engine each result document names."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    stated = re.search(r"Bench signature \(`concilio bench`, depth (\d+)\): (\d+) nodes", readme)
    assert stated, "README.md states no bench signature"
    return int(stated.group(1)), int(stated.group(2))


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (CI does)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    """Fill the numba cache once, before the test processes start.  In a fresh checkout it is
    empty (numba keys its cache by each source file's path and time), and every test process
    and Dask worker that started meanwhile would compile the engine for itself: a minute each,
    with two cores shared among them."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: its controller has done it
        return
    if config.getoption("--slow") and COLD_START_ENV not in os.environ:
        # The suite's one cold compile, a minute, started now: on the core this warm-up leaves idle.
        folder = tempfile.mkdtemp(prefix="concilio-cold-start-")
        os.environ[COLD_START_ENV] = folder
        config._cold_start = (folder, subprocess.Popen([sys.executable, str(COLD_START_PROBE), folder],
                                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    import players.core.shared_search  # noqa: F401 - compiles when imported (explicit signatures)
    import players.threads.ybw_search  # noqa: F401
    from players.bench import run_bench
    run_bench(depth=3)  # the search and the evaluation, compiled at their first call


def pytest_unconfigure(config):
    started = getattr(config, "_cold_start", None)
    if started is not None:
        folder, process = started
        process.kill()
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(COLD_START_ENV, None)
