"""Peer cooperation's round on Dask (``algorithm: peer``): after the eldest root move, the
workers take the other moves from a shared counter (the agenda) with no master handing them
out, each searched against the best score published so far, a better score published under a
shared lock; with ``score_sharing`` a watcher thread keeps a running search's bound fresh.

Why Dask's ``Variable`` and ``Lock``: the agenda and the best score live in the scheduler,
where every worker reaches them without the master.  The policy (:mod:`.split_policies`)
yields a ``Peers`` round; the wall driver runs it here (in process, where there is no
scheduler, the policy hands the moves out as root splitting does).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from base.cluster import worker_address
from players.core.search import INF
from players.position import Position
from .worker import WallJob, run


@dataclass(frozen=True)
class PeerResult:
    worker: str
    searched: tuple[tuple[str, int, int, tuple[str, ...]], ...]  # (move, score from the root, nodes, pv)
    seconds: float


def peer_round(master, fen: str, moves: tuple[str, ...], request) -> list[tuple[str, int, tuple[str, ...]]]:
    """One round on every worker of ``master``'s runner: every move of ``request.agenda`` searched
    once, as (move, score from the root's side, PV from the root), in the workers' order."""
    from distributed import Variable
    runner = master.runner
    tag = f"{master.key}-peer-{next(master._ids)}"
    shared = Variable(f"{tag}-best", client=runner.client)
    counter = Variable(f"{tag}-next", client=runner.client)
    shared.set((request.best, request.eldest))
    counter.set(0)
    agenda = tuple(m for m, _ in request.agenda)
    depths = dict(request.agenda)
    job = PeerJob(fen, moves, agenda, depths, tag, master.score_sharing)
    futures = [runner.submit_to(w, run, master.key, master.options, f"{tag}-w{w}", job, key=f"{tag}-w{w}")
               for w in range(runner.workers)]
    results = [f.result() for f in futures]
    runner.messages += len(agenda) * 2 + sum(len(r.searched) for r in results)
    searched = []
    for r in results:
        master.tally.busy += r.seconds
        for move, s, nodes, pv in r.searched:
            master.tally.nodes += nodes
            master.tally.jobs += 1
            searched.append((move, s, pv))
    shared.delete()
    counter.delete()
    return searched


@dataclass(frozen=True)
class PeerJob(WallJob):
    """A worker's part of the round: take the next root move from the shared counter until none
    is left; search it against the shared best score; publish a better score under the shared
    lock.  With ``share`` a watcher thread refreshes the running search's bound."""

    fen: str
    moves: tuple[str, ...]
    agenda: tuple[str, ...]
    depth_by_move: dict
    tag: str
    share: bool

    def run(self, searcher, job_id: str) -> PeerResult:
        from distributed import Lock, Variable
        counter, best, lock = Variable(f"{self.tag}-next"), Variable(f"{self.tag}-best"), Lock(f"{self.tag}-lock")
        start = time.perf_counter()
        done = []
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(0.02):
                try:
                    current = best.get(timeout=1)[0]
                except Exception:  # noqa: BLE001 - the watcher is an optimisation only
                    continue
                searcher.set_shared_beta(-current)
        watcher = threading.Thread(target=watch, daemon=True) if self.share else None
        if watcher is not None:
            watcher.start()
        try:
            while True:
                with lock:
                    index = counter.get()
                    counter.set(index + 1)
                if index >= len(self.agenda):
                    break
                move = self.agenda[index]
                alpha = best.get()[0]
                pos = Position.from_fen(self.fen, tuple(self.moves) + (move,))
                score, nodes, pv = searcher.search_node(pos, self.depth_by_move[move], 1, -INF, -alpha,
                                                        self.share)
                s = -score
                if s > alpha:
                    with lock:
                        if s > best.get()[0]:
                            best.set((s, move))
                done.append((move, s, nodes, (move,) + pv))
        finally:
            stop.set()
        return PeerResult(worker_address(), tuple(done), time.perf_counter() - start)
