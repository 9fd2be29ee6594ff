"""Phase 1 of a suite run: every distinct instance searches every position once per
budget it is needed at (the run's; the full engine's also at each ensemble's total)
(the thesis's optimisation: an instance shared by several players is searched once),
in parallel on Dask workers through one runner (``base.runner``), each finished batch
committed to the store at once.

Each position is searched with a fresh hash table, so a result depends only on the
position, the instance and the budget — the store's key — and not on which worker
ran it or in which order.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Sequence

import chess

from base.cluster import Remote
from base.runner import Resident, Runner, borrowed_or_own
from ensemble.config import InstanceConfig
from ensemble.evidence import pv_end
from players.limits import Limit
from players.searcher import Searcher
from players.trace import position_terms
from tournaments.records.epd import SuitePosition
from tournaments.suite.store import SearchStore, StoredSearch

log = logging.getLogger("concilio.suite")
BATCH = 8  # positions per task: small enough that a killed run loses little

_SEARCHERS: Resident[Searcher] = Resident("suite.searchers")  # an instance's searcher, kept between batches


@dataclass(frozen=True)
class SearchSet:
    """Instances that search every position under one budget: its limit and its store key.
    A run has one per budget (the run's, and the full engine's at each ensemble's total)."""

    instances: dict[str, InstanceConfig]
    limits: Limit
    budget: str


@dataclass(frozen=True)
class Job:
    key: str
    instance: InstanceConfig
    fens: tuple[str, ...]
    limits: Limit
    budget: str


def search_batch(key: str, instance: InstanceConfig, fens: Sequence[str], limits: Limit, budget: str,
                 margin_probe: bool) -> list[StoredSearch]:
    """Runs on a worker: search each position from a fresh hash table, add the PV end's terms."""
    searcher = _SEARCHERS.get_or_create(key, instance.make_searcher)
    out = []
    for fen in fens:
        searcher.new_game()
        result = searcher.search(fen, limits, margin_probe=margin_probe)
        leaf = position_terms(pv_end(chess.Board(fen), result.pv))
        out.append(StoredSearch(fen, key, budget, result, leaf))
    return out


def pending_jobs(store: SearchStore, sets: Sequence[SearchSet], fens: Sequence[str]) -> list[Job]:
    jobs = []
    for group in sets:
        for key, inst in group.instances.items():
            done = store.done(key, group.budget)
            todo = [f for f in dict.fromkeys(fens) if f not in done]
            for i in range(0, len(todo), BATCH):
                jobs.append(Job(key, inst, tuple(todo[i:i + BATCH]), group.limits, group.budget))
    return jobs


def run_phase1(store: SearchStore, instances: dict[str, InstanceConfig], positions: Sequence[SuitePosition],
               limits: Limit, budget: str, margin_probe: bool, workers: int, runner: Runner | None = None,
               progress: bool = True) -> int:
    """``run_searches`` under one budget."""
    return run_searches(store, [SearchSet(instances, limits, budget)], positions, margin_probe, workers, runner,
                        progress)


def run_searches(store: SearchStore, sets: Sequence[SearchSet], positions: Sequence[SuitePosition],
                 margin_probe: bool, workers: int, runner: Runner | None = None, progress: bool = True,
                 remote: Remote | None = None) -> int:
    """Search what the store lacks, on ``runner`` (lent by the caller) or on a runner of its
    own (``workers`` Dask workers, this process for one, or the workers of ``remote``'s
    scheduler); returns the number of searches added.  A batch that fails is reported; the
    others are kept, and a rerun retries it."""
    fens = [p.fen for p in positions]
    for fen in dict.fromkeys(fens):
        store.add_position(fen, position_terms(chess.Board(fen)))
    jobs = pending_jobs(store, sets, fens)
    total = sum(len(j.fens) for j in jobs)
    if not jobs:
        return 0
    from tqdm import tqdm
    added = 0
    failures = []

    def failed(args: tuple, exc: BaseException) -> None:
        failures.append(args)
        log.error("a search batch failed (%s: %s); rerun to retry it", type(exc).__name__, exc)

    batches = [(j.key, j.instance, j.fens, j.limits, j.budget, margin_probe) for j in jobs]
    with tqdm(total=total, unit="search", desc="phase 1", disable=not progress, smoothing=0.05) as bar, \
            borrowed_or_own(workers, runner, remote=remote, tell=tqdm.write, dashboard=False) as used:
        for args, rows in used.map(search_batch, batches, on_error=failed):
            added += store.add_searches(rows)
            bar.update(len(args[2]))
    if failures:
        log.error("%d batch(es) failed; finished searches are stored, rerun to complete", len(failures))
    return added
