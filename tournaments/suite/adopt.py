"""Keeping a store's searches across an engine change that changed no search.

A store's budget key names the engine (``base.fingerprint``), so that a search made by other
code is never mistaken for this code's.  A refactor that moves files changes the fingerprint
without changing one node of any search (the bench signature says so for its positions, not
for a store's).  Adopting proves it for the store: a random sample of the old engine's rows is
searched again by this engine, exactly as phase 1 searched them, and only if every one is
identical (move, score, PV, depth, nodes, the margin probe and the PV end's terms) are the old
rows copied under the new key.  The old rows stay, so the step loses nothing.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from base.errors import ConcilioError
from ensemble.config import InstanceConfig
from players.limits import Limit
from tournaments.suite.search import search_batch
from tournaments.suite.store import SearchStore, StoredSearch


class AdoptError(ConcilioError, ValueError):
    """The old engine's searches differ from this engine's: they cannot be adopted."""


@dataclass(frozen=True)
class Adopted:
    checked: int  # rows searched again and found identical
    copied: int  # rows now stored under the new key (already there: not counted)


def same_search(old: StoredSearch, new: StoredSearch) -> bool:
    a, b = old.result, new.result
    return ((a.bestmove, a.score_cp, a.mate, tuple(a.pv), a.depth, a.nodes, a.second_score, a.root_moves_searched)
            == (b.bestmove, b.score_cp, b.mate, tuple(b.pv), b.depth, b.nodes, b.second_score, b.root_moves_searched)
            and tuple(old.leaf.nets) == tuple(new.leaf.nets) and old.leaf.result == new.leaf.result)


def adopt_searches(store: SearchStore, instances: dict[str, InstanceConfig], old_budget: str, new_budget: str,
                   limits: Limit, sample: int = 200, seed: int = 1) -> Adopted:
    """Copy ``instances``' rows of ``old_budget`` to ``new_budget`` once ``sample`` of them,
    drawn at random, are found identical when searched again; ``AdoptError`` names the first
    that is not (and nothing is copied)."""
    if old_budget == new_budget:
        raise AdoptError(f"the store's key {old_budget!r} is already this engine's")
    rows = [(key, fen) for key in instances for fen in sorted(store.done(key, old_budget))]
    if not rows:
        raise AdoptError(f"no searches of these instances under {old_budget!r}")
    chosen = random.Random(seed).sample(rows, min(sample, len(rows)))
    probe = " probe" in old_budget
    by_instance: dict[str, list[str]] = {}
    for key, fen in chosen:
        by_instance.setdefault(key, []).append(fen)
    for key, fens in by_instance.items():
        stored = store.searches(key, old_budget)
        for new in search_batch(key, instances[key], fens, limits, new_budget, probe):
            old = stored[new.fen]
            if not same_search(old, new):
                r, s = old.result, new.result
                raise AdoptError(f"{key} at {new.fen}: the stored search ({r.bestmove} {r.score_cp} cp, depth "
                                 f"{r.depth}, {r.nodes} nodes) differs from this engine's ({s.bestmove} "
                                 f"{s.score_cp} cp, depth {s.depth}, {s.nodes} nodes): search afresh")
    copied = 0
    for key in instances:
        old_rows = store.searches(key, old_budget)
        copied += store.add_searches(StoredSearch(s.fen, key, new_budget, s.result, s.leaf)
                                     for s in old_rows.values())
    return Adopted(len(chosen), copied)
