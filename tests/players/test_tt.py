"""The transposition table (``players.core.tt``): sizing, the packed entry, what a store keeps,
Hyatt's lockless check, the busy marks and the exchange of entries between searches."""
import math
import random

import numpy as np
import pytest

from players.core.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    busy_with,
    clear_busy,
    clear_table,
    entry_bound,
    entry_depth,
    entry_eval,
    entry_move,
    entry_score,
    mark_busy,
    new_table,
    pack_entry,
    table_entries,
    tt_export,
    tt_export_deep,
    tt_import,
    tt_probe,
    tt_store,
)

KEY = np.uint64(0x9E3779B97F4A7C15)


def same_slot(tt, key: np.uint64) -> np.uint64:
    """Another key that lands in ``key``'s slot (differs only above the index bits)."""
    return key ^ np.uint64(tt[0].shape[0] << 4)


def test_a_table_has_a_power_of_two_of_slots_and_refuses_a_size_that_is_not_positive():
    assert table_entries(16) == 1 << 20  # 16 MiB of 16-byte slots
    assert table_entries(3) == 1 << 17  # 196,608 slots fit: rounded down to a power of two
    assert table_entries(0.001) == 1024  # never fewer
    for bad in (0, -1, math.nan):
        with pytest.raises(ValueError, match="hash size must be positive"):
            table_entries(bad)
    slots, busy = new_table(1)
    assert slots.shape == (2 * 65536,) and slots.dtype == np.uint64 and busy.shape == (1 << 14,)


def test_an_entry_unpacks_to_what_was_packed_at_every_field_s_limits():
    rng = random.Random(43)
    cases = [(0x1FFFF, BOUND_EXACT, 255, 32767, -32768), (0, 0, 0, -32768, 32767), (1, BOUND_LOWER, 1, -1, 1)]
    cases += [(rng.randrange(1 << 17), rng.randrange(4), rng.randrange(256), rng.randrange(-32768, 32768),
               rng.randrange(-32768, 32768)) for _ in range(500)]
    for move, bound, depth, score, static_eval in cases:
        e = pack_entry(move, bound, depth, score, static_eval)
        assert (entry_move(e), entry_bound(e), entry_depth(e), entry_score(e), entry_eval(e)) == \
            (move, bound, depth, score, static_eval)


def test_a_stored_entry_is_found_by_its_own_key_only():
    tt = new_table(1)
    tt_store(tt, KEY, 1234, BOUND_EXACT, 6, -75, 20)
    e = tt_probe(tt, KEY)
    assert (entry_move(e), entry_bound(e), entry_depth(e), entry_score(e), entry_eval(e)) == (1234, BOUND_EXACT, 6,
                                                                                             -75, 20)
    assert tt_probe(tt, same_slot(tt, KEY)) == 0  # the same slot, another position
    assert tt_probe(tt, np.uint64(0)) == 0  # an empty slot is never an entry for key 0
    clear_table(tt)
    assert tt_probe(tt, KEY) == 0


def test_a_store_keeps_a_much_deeper_bound_and_the_old_move_when_it_has_none():
    tt = new_table(1)
    tt_store(tt, KEY, 77, BOUND_LOWER, 10, 50, 0)
    tt_store(tt, KEY, 88, BOUND_UPPER, 7, 10, 0)  # 3 plies shallower, a bound: the deep entry stays
    assert entry_move(tt_probe(tt, KEY)) == 77 and entry_depth(tt_probe(tt, KEY)) == 10
    tt_store(tt, KEY, 0, BOUND_UPPER, 8, 10, 0)  # 2 plies shallower: replaces, keeping the move
    e = tt_probe(tt, KEY)
    assert (entry_move(e), entry_bound(e), entry_depth(e)) == (77, BOUND_UPPER, 8)
    tt_store(tt, KEY, 0, BOUND_LOWER, 20, 30, 0)
    tt_store(tt, KEY, 99, BOUND_EXACT, 1, 5, 0)  # an exact value replaces whatever depth
    assert (entry_move(tt_probe(tt, KEY)), entry_depth(tt_probe(tt, KEY))) == (99, 1)
    other = same_slot(tt, KEY)
    tt_store(tt, other, 5, BOUND_UPPER, 0, 0, 0)  # another position always takes the slot
    assert tt_probe(tt, KEY) == 0 and entry_move(tt_probe(tt, other)) == 5
    tt_store(tt, KEY, 1, BOUND_LOWER, 300, 0, 0)
    assert entry_depth(tt_probe(tt, KEY)) == 255  # depths beyond the field are clamped
    tt_store(tt, KEY, 1, BOUND_EXACT, -3, 0, 0)
    assert entry_depth(tt_probe(tt, KEY)) == 0


def test_a_torn_slot_answers_nothing():
    """Lockless hashing: another process's entry beside this key's check word fails the test
    instead of answering for the wrong position."""
    tt = new_table(1)
    tt_store(tt, KEY, 1234, BOUND_EXACT, 6, -75, 20)
    slots = tt[0]
    i = int(np.where(slots != 0)[0][0])
    slots[i + 1] = np.uint64(pack_entry(999, BOUND_EXACT, 9, 300, 0))  # the data word alone rewritten
    assert tt_probe(tt, KEY) == 0


def test_busy_marks_are_cleared_only_by_their_own_key():
    tt = new_table(1)
    busy = tt[1]
    other = KEY ^ np.uint64(busy.shape[0] << 2)  # the same mark slot
    assert not busy_with(busy, KEY)
    mark_busy(busy, KEY)
    assert busy_with(busy, KEY) and not busy_with(busy, other)
    mark_busy(busy, other)  # another search took the mark slot
    clear_busy(busy, KEY)
    assert busy_with(busy, other)
    clear_busy(busy, other)
    assert not busy_with(busy, other)


def test_exported_entries_are_the_deepest_and_an_import_keeps_what_is_deeper():
    rng = np.random.default_rng(7)
    source = new_table(1, 1)
    keys = rng.integers(1, 2 ** 63, 300, dtype=np.uint64)
    depths = rng.integers(0, 30, 300)
    for key, depth in zip(keys, depths):
        tt_store(source, key, 1, BOUND_EXACT, int(depth), int(depth), 0)
    stored = [k for k in keys if tt_probe(source, k) != 0]
    sent_keys, sent_data = tt_export(source, 20)
    assert len(sent_keys) == 20
    assert min(entry_depth(d) for d in sent_data) >= sorted((entry_depth(tt_probe(source, k)) for k in stored),
                                                           reverse=True)[19]
    for key, data in zip(sent_keys, sent_data):
        assert tt_probe(source, key) == data  # each key is the one its entry was stored under

    target = new_table(1, 1)
    deep, shallow = sent_keys[0], sent_keys[1]
    tt_store(target, deep, 2, BOUND_EXACT, 255, 0, 0)  # deeper than anything sent: kept
    tt_store(target, shallow, 2, BOUND_EXACT, 0, 0, 0)  # shallower: replaced
    tt_import(target, sent_keys, sent_data)
    assert entry_depth(tt_probe(target, deep)) == 255
    for key, data in zip(sent_keys[1:], sent_data[1:]):
        assert tt_probe(target, key) == data


def _export_deep_by_sorting(tt, min_depth, count):
    """The lazy cluster's export as its definition reads: every used slot deep enough, stably
    sorted deepest first, the first ``count``."""
    stored, data = tt[0][0::2], tt[0][1::2].view(np.int64)
    used = np.nonzero(stored)[0]
    depths = (data[used] >> 19) & 0xFF
    used, depths = used[depths >= min_depth], depths[depths >= min_depth]
    used = used[np.argsort(-depths, kind="stable")[:count]]
    return stored[used] ^ data[used].astype(np.uint64), data[used]


@pytest.mark.parametrize("seed", range(6))
def test_the_deep_export_sends_the_deepest_entries_ties_in_slot_order(seed):
    rng = np.random.default_rng(seed)
    tt = new_table(0.05)
    n = tt[0].size // 2
    used = rng.random(n) < rng.choice([0.01, 0.3, 1.0])
    depth = rng.integers(0, rng.choice([3, 12, 64, 256]), n).astype(np.uint64)
    data = rng.integers(0, 1 << 19, n).astype(np.uint64) | (depth << np.uint64(19))
    keys = rng.integers(1, 1 << 62, n).astype(np.uint64)
    tt[0][0::2] = np.where(used, keys ^ data, 0)
    tt[0][1::2] = np.where(used, data, 0)
    # small counts fill the selection's pool many times over; 10**9 must not allocate per count
    for min_depth, count in [(0, 1), (4, 3), (1, 7), (0, 40), (2, 256), (0, 4 * n), (70, 5), (0, 10**9)]:
        keys_out, data_out = tt_export_deep(tt, min_depth, count)
        want_keys, want_data = _export_deep_by_sorting(tt, min_depth, count)
        assert keys_out.dtype == np.uint64 and data_out.dtype == np.int64
        assert np.array_equal(keys_out, want_keys) and np.array_equal(data_out, want_data)
        assert set(keys_out.tolist()) <= set(keys[used].tolist())
    assert tt_export_deep(tt, 0, 0)[0].size == 0
