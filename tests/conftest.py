"""Test fixtures: the data sets that ship with Concilio, and the ``--slow`` switch."""
from pathlib import Path

import pytest

from concilio.resources import packaged


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The packaged data (``data/`` of the checkout, or of the installed package)."""
    return packaged("data")


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (CI does)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
