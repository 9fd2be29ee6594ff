"""Fixtures of the decomposition tests: the Bratko-Kopec positions and their sequential
fixed-depth scores under the exact (pruning-free) search every algorithm must reproduce."""
import pytest

from players.decomposition.options import SearcherConfig
from players.limits import Limit
from tournaments.records.epd import read_suite

EXACT = SearcherConfig(null_move=False, lmr=False, futility=False, exact=True)


@pytest.fixture(scope="session")
def bk(data_dir):
    positions = read_suite(data_dir / "suites" / "bratko-kopec.epd").positions
    assert len(positions) == 24
    return positions


@pytest.fixture(scope="session")
def sequential(bk):
    out = []
    for p in bk:
        r = EXACT.make_searcher().search(p.fen, Limit(depth=4))
        out.append((r.score_cp, r.bestmove))
    return out
