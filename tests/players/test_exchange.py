"""The cluster hooks of the search (``players.core.exchange``): the outbox of deep stores and the
pause at exact node counts, and that neither changes the search."""
import threading
import time

import numpy as np

from players.core.context import C_EXCHANGE, C_STATS, S_NODES, X_PAUSES
from players.core.exchange import configure, outbox_add, paused_at, release, set_move, set_pause, take_outbox
from players.core.tt import entry_depth, new_table, pack_entry, tt_probe, tt_store, BOUND_EXACT
from players.limits import Limit
from players.searcher import Searcher

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def entry(depth: int, move: int = 1) -> int:
    return int(pack_entry(move, BOUND_EXACT, depth, 0, 0))


def test_tt_store_returns_the_packed_entry_or_zero():
    tt = new_table(1, 1)
    key = np.uint64(0x1234567890ABCDEF)
    e = tt_store(tt, key, 77, BOUND_EXACT, 10, 5, 3)
    assert e == tt_probe(tt, key) and entry_depth(e) == 10
    assert tt_store(tt, key, 88, 1, 5, 0, 0) == 0  # a shallower bound leaves the deep entry: nothing stored


def test_outbox_keeps_the_deepest_and_overwrites_a_key():
    ctx = Searcher(hash_mb=1).ctx
    configure(ctx, 4, capacity=3)
    set_move(ctx, 7)
    for key, depth in [(1, 5), (2, 4), (3, 6)]:
        outbox_add(ctx, np.uint64(key), entry(depth))
    outbox_add(ctx, np.uint64(2), entry(9))  # the same key: overwritten in place
    outbox_add(ctx, np.uint64(4), entry(3))  # full, and shallower than all: dropped
    outbox_add(ctx, np.uint64(5), entry(8))  # full: takes the shallowest's (key 1, depth 5) place
    keys, entries, stamps, saves, dropped = take_outbox(ctx)
    assert keys.tolist() == [5, 2, 3]
    assert [entry_depth(int(e)) for e in entries] == [8, 9, 6]
    assert stamps.tolist() == [7, 7, 7] and saves == 6 and dropped == 2
    assert take_outbox(ctx)[0].size == 0  # taken: empty


def test_outbox_on_does_not_change_the_search():
    plain = Searcher(hash_mb=2).search(FEN, Limit(nodes=30000))
    s = Searcher(hash_mb=2)
    configure(s.ctx, 4, capacity=16)
    r = s.search(FEN, Limit(nodes=30000))
    assert (r.bestmove, r.score_cp, r.depth, r.nodes, r.pv) == (plain.bestmove, plain.score_cp, plain.depth,
                                                                plain.nodes, plain.pv)
    keys, entries, _, saves, _ = take_outbox(s.ctx)
    assert 0 < keys.size <= 16 and saves >= keys.size
    assert all(entry_depth(int(e)) >= 4 for e in entries)


def test_pauses_at_exact_counts_without_changing_the_search():
    """Paused at 700, 1400, ... nodes, released from this thread: the same tree as unpaused."""
    plain = Searcher(hash_mb=2).search(FEN, Limit(nodes=5000))
    s = Searcher(hash_mb=2)
    set_pause(s.ctx, 700)
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", s.search(FEN, Limit(nodes=5000))))
    worker.start()
    seen = []
    while worker.is_alive():
        at = paused_at(s.ctx)
        if at:
            seen.append((at, int(s.ctx[C_STATS][S_NODES])))
            release(s.ctx, at + 700)
        time.sleep(0.0005)
    worker.join()
    assert seen == [(n, n) for n in range(700, 5000, 700)]
    assert s.ctx[C_EXCHANGE][X_PAUSES] == len(seen)
    r = out["r"]
    assert s.search(FEN, Limit(nodes=800)).nodes == 800  # a pause point is for one search only
    assert (r.bestmove, r.score_cp, r.depth, r.nodes, r.pv) == (plain.bestmove, plain.score_cp, plain.depth,
                                                                plain.nodes, plain.pv)
