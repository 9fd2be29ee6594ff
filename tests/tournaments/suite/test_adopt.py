"""Adopting an older engine's stored searches: only when the searches, repeated, are identical."""
from __future__ import annotations

import pytest

from ensemble.config import InstanceConfig
from evaluation.spec import EvalSpec
from players.limits import Limit
from tournaments.suite.adopt import AdoptError, adopt_searches
from tournaments.suite.search import search_batch
from tournaments.suite.store import SearchStore

FENS = ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "8/8/3k4/8/3PK3/8/8/8 w - - 0 1",
        "r3k2r/ppp2ppp/2n5/3q4/3P4/2P5/P4PPP/R2QKB1R b KQkq - 0 12")
OLD, NEW = "nodes=800 engine=old", "nodes=800 engine=new"


@pytest.fixture
def store(tmp_path):
    instance = InstanceConfig.of("MBX", EvalSpec.parse("MBX"))
    with SearchStore(tmp_path / "s.sqlite") as s:
        s.add_searches(search_batch("MBX", instance, FENS, Limit(nodes=800), OLD, False))
        yield s, {"MBX": instance}


def test_identical_searches_are_adopted(store):
    s, instances = store
    done = adopt_searches(s, instances, OLD, NEW, Limit(nodes=800), sample=2)
    assert (done.checked, done.copied) == (2, 3)
    assert s.done("MBX", NEW) == set(FENS) == s.done("MBX", OLD)  # the old rows stay
    assert s.searches("MBX", NEW)[FENS[0]].result.bestmove == s.searches("MBX", OLD)[FENS[0]].result.bestmove


def test_a_changed_search_blocks_adoption(store):
    s, instances = store
    with s.db:
        s.db.execute("UPDATE searches SET score = score + 1 WHERE budget = ?", (OLD,))
    with pytest.raises(AdoptError, match="differs from this engine's"):
        adopt_searches(s, instances, OLD, NEW, Limit(nodes=800), sample=1)
    assert s.done("MBX", NEW) == set()  # nothing copied


def test_nothing_to_adopt_is_an_error(store):
    s, instances = store
    with pytest.raises(AdoptError, match="no searches"):
        adopt_searches(s, instances, "nodes=800 engine=other", NEW, Limit(nodes=800))
