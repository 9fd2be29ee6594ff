"""The lazy cluster that exchanges fresh deep entries while it searches (issue 58), on the node
clock: k workers with tables of their own, none restarted, meeting every ``batch`` nodes.

Each worker is a plain :class:`players.searcher.Searcher` running its whole iterative deepening
in a thread of its own, with lazy SMP's depth skipping for workers i > 0 (Stockfish 9's
``SkipSize``/``SkipPhase``, ``lockstep.skips``).  Its two engine hooks
(``players.core.exchange``) are on: every table store of depth >= the send threshold also goes
into its outbox (the deepest stored since its last send, Stockfish cluster's ``TTCache``), and
its search pauses, without unwinding, at every multiple of ``batch`` nodes.

At checkpoint t (every worker paused at t·batch nodes, or finished) the coordinator, in this
thread, takes each paused worker's outbox (that worker's message of the round), routes it, and
stores in each paused receiver's table what is due: a message sent at s nodes is due when the
receiver reaches s + ``latency``, i.e. at checkpoint t + ceil(latency / batch); messages are
stored in (round, sender) order with ``tt_import`` (which keeps a deeper entry already there; a
slot holds key ^ entry, so the full 64-bit key is checked).  Then it releases the workers to
pause again at (t + 1)·batch.  Every worker's search up to a checkpoint depends only on the
position, its history and what it was delivered at earlier checkpoints, so the answer is a pure
function of (position, config, game so far), whatever the threads' timing or cores.

Topologies:

* ``all``: every worker's own entries go to every other worker;
* ``ring`` (Stockfish's cluster): worker w sends to w + 1 only; its message holds its own entries
  and, forwarded, every part it was delivered at this checkpoint from w − 1, except the part that
  began at w + 1.  An entry thus reaches the worker j steps away after j·ceil(latency / batch)
  batches, and each entry travels k − 1 hops at most (Stockfish's buffer of one part per rank,
  in which a rank overwrites its own).  A finished worker still relays (its link stays up).

The send threshold is fixed (Stockfish's depth > 3, i.e. ``threshold`` 4) or adaptive
(Texel's: up by one for a worker whose outbox overflowed in a round, down by one, not below 1,
when a send left it less than half full), kept per worker from move to move.  As in Stockfish an
outbox is not emptied between moves (the stores after a move's last checkpoint go out in the next
move's first round; ``carry=False`` drops them), so the share of sent entries stored during this
move is measured, not assumed.

The answer is Stockfish's cluster vote (``cluster.cpp``, ``pick_moves``): every worker's last
completed iteration gives ``votes[move] += score - min_score + depth``; worker 0's move stands
unless another worker's move has strictly more votes (the first such worker, in index order,
answers with its score, depth and PV).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Callable

import numpy as np

from players.core.context import MAX_PLY
from players.core.exchange import configure, paused_at, release, set_move, set_pause, set_threshold, take_outbox
from players.core.tt import ENTRY_BYTES, tt_import
from players.limits import Limit
from players.position import Position
from players.result import SearchResult
from players.searcher import Searcher, as_position
from .lockstep import WorkerAnswer, skips
from .options import FreshClusterOptions
from .result import ExchangeCounts, ParallelResult

TOPOLOGIES = ("all", "ring")
POLL_SECONDS = 0.0002  # the coordinator's wait step: short, and no core burnt


@dataclass(frozen=True)
class FreshClusterConfig:
    """A fresh lazy cluster's settings (the future YAML ``workers``, ``batch``, ...)."""

    workers: int = 4
    batch: int = 1000  # nodes between two checkpoints (exchange rounds)
    threshold: int = 4  # entries stored at least this deep are sent (Stockfish: depth > 3)
    adaptive: bool = False  # Texel's threshold, moved by each round's overflow
    buffer: int = 16  # outbox entries (Stockfish's TTCacheSize), at most OUTBOX_MAX
    topology: str = "ring"
    latency: int = 1000  # nodes from a send to the receiver's store
    carry: bool = True  # a move's last deep stores go out in the next move's first round (Stockfish)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"a cluster needs at least one worker, got {self.workers}")
        if self.batch < 1:
            raise ValueError(f"batch must be at least one node, got {self.batch}")
        if not 1 <= self.threshold <= 255:
            raise ValueError(f"threshold must lie in 1..255, got {self.threshold}")
        if self.topology not in TOPOLOGIES:
            raise ValueError(f"topology must be one of {TOPOLOGIES}, got {self.topology!r}")
        if self.latency < 0 or (self.topology == "ring" and self.latency == 0):
            raise ValueError(f"latency must be >= 0 nodes (>= 1 on a ring), got {self.latency}")

    @property
    def delay_rounds(self) -> int:
        """Checkpoints from a message's send to its store."""
        return math.ceil(self.latency / self.batch)


@dataclass(frozen=True)
class Part:
    """Entries that began in one worker's outbox, as a message carries them."""

    origin: int
    keys: np.ndarray  # uint64
    entries: np.ndarray  # int64, packed
    stamps: np.ndarray  # the move each was stored in

    @property
    def size(self) -> int:
        return int(self.keys.size)


@dataclass(frozen=True)
class Message:
    sender: int
    receiver: int
    round: int
    parts: tuple[Part, ...]

    @property
    def entries(self) -> int:
        return sum(p.size for p in self.parts)


def route(topology: str, k: int, round_: int, own: dict[int, Part], delivered: dict[int, list[Message]]
          ) -> list[Message]:
    """The messages of one round, in sender order: ``own[w]`` is worker w's outbox of the round
    (missing for a finished worker), ``delivered[w]`` what w was delivered at this checkpoint.
    On a ring, w forwards the parts delivered to it except those that began at w + 1 (a
    finished worker too: its link stays up)."""
    out = []
    for w in range(k):
        if topology == "all":
            if w in own and own[w].size:
                out.extend(Message(w, r, round_, (own[w],)) for r in range(k) if r != w)
            continue
        nxt = (w + 1) % k
        if nxt == w:
            continue
        parts = [own[w]] if w in own and own[w].size else []
        parts += [p for m in delivered.get(w, []) for p in m.parts if p.origin != nxt and p.size]
        if parts:
            out.append(Message(w, nxt, round_, tuple(parts)))
    return out


class Postman:
    """The network on the node clock: what each checkpoint sends and delivers."""

    def __init__(self, topology: str, workers: int, delay_rounds: int) -> None:
        if topology == "ring" and delay_rounds < 1:
            raise ValueError("a ring forwards what it was delivered: its messages need a round at least")
        self.topology, self.workers, self.delay = topology, workers, delay_rounds
        self.inbox: dict[int, dict[int, list[Message]]] = {}  # checkpoint -> receiver -> messages

    def exchange(self, round_: int, own: dict[int, Part]) -> tuple[dict[int, list[Message]], list[Message]]:
        """Checkpoint ``round_``: (what each worker is delivered now, in (round, sender) order;
        the messages sent now, given each worker's outbox ``own``)."""
        delivered = self.inbox.pop(round_, {})
        sent = route(self.topology, self.workers, round_, own, delivered)
        for m in sent:
            self.inbox.setdefault(round_ + self.delay, {}).setdefault(m.receiver, []).append(m)
        if self.delay == 0:  # stored at once
            for r, ms in self.inbox.pop(round_, {}).items():
                delivered.setdefault(r, []).extend(ms)
        return delivered, sent


def adapt(threshold: int, sent: int, dropped: int, buffer: int) -> int:
    """Texel's adaptive threshold after a send: up by one when the outbox overflowed, down by one
    (not below 1) when the send left it less than half full (on the node clock and in real time alike)."""
    if dropped > 0:
        return min(255, threshold + 1)
    if 2 * sent < buffer:
        return max(1, threshold - 1)
    return threshold


def cluster_vote(answers: list[WorkerAnswer]) -> WorkerAnswer:
    """Stockfish cluster's ``pick_moves``: ``votes[move] += score - min_score + depth``; worker
    0 answers unless a worker's move has strictly more votes (the first such one answers)."""
    low = min(a.score for a in answers)
    votes: dict[str, int] = {}
    for a in answers:
        votes[a.move] = votes.get(a.move, 0) + a.score - low + a.depth
    best = answers[0]
    for a in answers[1:]:
        if votes[a.move] > votes[best.move]:
            best = a
    return best


def voted(answers: list[WorkerAnswer], worker_nodes: tuple[int, ...], messages: int, sent: int,
          exchange: ExchangeCounts, seconds: float, iterations: Callable[[int], Sequence] = lambda w: (),
          **clock) -> ParallelResult:
    """The cluster's move, on either clock: the vote over the workers' answers (``iterations``:
    the answering worker's), with the exchange's metrics and ``clock``'s."""
    best = cluster_vote(answers)
    return ParallelResult("fresh_cluster", best.move, best.score, best.depth, best.pv, sum(worker_nodes), worker_nodes,
                          messages, tuple(iterations(best.worker)), seconds, worker=best.worker, entries_sent=sent,
                          answers=tuple(answers), depths=tuple(a.depth for a in answers), exchange=exchange, **clock)


class _Worker:
    """A worker's thread for one move: its search, then its result (or its error)."""

    def __init__(self, index: int, searcher: Searcher, root: Position, limit: Limit, max_depth: int,
                 searchmoves: tuple[str, ...] = ()) -> None:
        self.index = index
        self.result: SearchResult | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        skip = None if index == 0 else (lambda d: skips(index, d, max_depth))
        self.thread = threading.Thread(target=self._run, args=(searcher, root, limit, skip, searchmoves or None),
                                       daemon=True, name=f"fresh-cluster-{index}")

    def _run(self, searcher: Searcher, root: Position, limit: Limit, skip, searchmoves) -> None:
        try:
            self.result = searcher.search(root, limit, skip=skip, searchmoves=searchmoves)  # on a copy of its own
        except BaseException as e:  # reported by the coordinator
            self.error = e
        finally:
            self.done.set()


class FreshCluster:
    """k workers kept for a game (tables, adaptive thresholds and outboxes carry over)."""

    def __init__(self, config: FreshClusterConfig, make_searcher: Callable[[], Searcher] = Searcher) -> None:
        self.config = config
        self.searchers = [make_searcher() for _ in range(config.workers)]
        self.thresholds = [config.threshold] * config.workers
        for s in self.searchers:
            configure(s.ctx, config.threshold, config.buffer)
        self.moves = 0

    def new_game(self) -> None:
        """Forget the game: tables, history, killers, outboxes and adapted thresholds."""
        self.thresholds = [self.config.threshold] * self.config.workers
        for s in self.searchers:
            s.new_game()
            configure(s.ctx, self.config.threshold, self.config.buffer)
        self.moves = 0

    def close(self) -> None:
        """Nothing to let go: each move's threads are joined before it answers (a team's face)."""

    def search(self, position: Position | str, nodes: int | None, depth: int | None = None,
               perturb: Callable[[int], None] | None = None, *, searchmoves: tuple[str, ...] = (),
               stopped: Callable[[], bool] | None = None) -> ParallelResult:
        """One move: ``nodes`` per worker (and at most ``depth`` plies; None: ``depth`` alone).
        ``perturb(worker)``, if given, runs in the coordinator before each release (tests:
        random sleeps).  ``searchmoves`` restrict every worker's root; ``stopped()`` (a deadline,
        a stop order) is asked at every checkpoint, and once true every worker is stopped there
        and answers with its last completed iteration."""
        if nodes is None and depth is None:
            raise ValueError("a fresh cluster needs a node budget per worker or a depth")
        if nodes is not None and nodes < 1:
            raise ValueError(f"a node budget per worker is needed, got {nodes}")
        cfg = self.config
        start = time.perf_counter()
        self.moves += 1
        root = as_position(position)  # a Position keeps the game's moves: repetitions count
        limit = Limit(nodes=nodes, depth=depth)
        nodes = math.inf if nodes is None else nodes  # checkpoints until every worker is done
        max_depth = min(depth or MAX_PLY - 1, MAX_PLY - 1)
        for w, s in enumerate(self.searchers):
            if not cfg.carry:
                take_outbox(s.ctx)  # the last move's leftovers, dropped
            set_move(s.ctx, self.moves)
            set_threshold(s.ctx, self.thresholds[w])
            set_pause(s.ctx, cfg.batch if cfg.batch < nodes else 0)
        workers = [_Worker(w, s, root, limit, max_depth, searchmoves) for w, s in enumerate(self.searchers)]
        for w in workers:
            w.thread.start()
        counts = {"rounds": 0, "messages": 0, "sent": 0, "originated": 0, "fresh": 0}
        try:
            self._coordinate(workers, nodes, counts, perturb, stopped)
        except BaseException:
            for w, s in zip(workers, self.searchers):  # never leave a thread paused
                if not w.done.is_set():
                    s.stop()
                    release(s.ctx, 0)
            raise
        finally:
            for w in workers:
                w.thread.join()
        for w in workers:
            if w.error is not None:
                raise w.error
        answers = [WorkerAnswer(w.index, w.result.bestmove, w.result.score_cp, w.result.depth, w.result.pv)
                   for w in workers]
        exchange = ExchangeCounts(counts["rounds"], counts["originated"], counts["fresh"],
                                  ENTRY_BYTES * counts["sent"], tuple(self.thresholds))
        # T_k: the checkpoint at which every worker was done, as the lazy cluster's slices
        return voted(answers, tuple(w.result.nodes for w in workers), counts["messages"], counts["sent"], exchange,
                     time.perf_counter() - start, lambda w: workers[w].result.iterations,
                     slices=counts["rounds"] + 1, slice_nodes=cfg.batch)

    def _coordinate(self, workers: list[_Worker], nodes: float, counts: dict[str, int],
                    perturb: Callable[[int], None] | None, stopped: Callable[[], bool] | None = None) -> None:
        """Hold the checkpoints until every worker has finished."""
        cfg, k = self.config, self.config.workers
        postman = Postman(cfg.topology, k, cfg.delay_rounds)
        t = 0
        while True:
            t += 1
            checkpoint = t * cfg.batch
            if checkpoint >= nodes:
                return  # no pause left: the workers run to their budgets (joined by the caller)
            paused = self._wait(workers, checkpoint)
            if not paused:
                return
            counts["rounds"] += 1
            own = {}
            for w in paused:
                keys, entries, stamps, _, dropped = take_outbox(self.searchers[w].ctx)
                own[w] = Part(w, keys, entries, stamps)
                counts["originated"] += keys.size
                counts["fresh"] += int(np.count_nonzero(stamps == self.moves))
                if cfg.adaptive:
                    self._adapt(w, keys.size, dropped)
            delivered, sent = postman.exchange(t, own)
            counts["messages"] += len(sent)
            counts["sent"] += sum(m.entries for m in sent)
            for r in paused:
                for m in delivered.get(r, []):
                    for p in m.parts:
                        if p.size:
                            tt_import(self.searchers[r].tt, p.keys, p.entries)
            following = (t + 1) * cfg.batch
            if stopped is not None and stopped():
                for w in paused:
                    self.searchers[w].stop()  # it answers from its last completed iteration
            for w in paused:
                if perturb is not None:
                    perturb(w)
                release(self.searchers[w].ctx, following if following < nodes else 0)

    def _wait(self, workers: list[_Worker], checkpoint: int) -> list[int]:
        """Wait until each worker is paused at ``checkpoint`` or finished; the paused ones."""
        while True:
            paused, running = [], False
            for w in workers:
                at = paused_at(self.searchers[w.index].ctx)
                if at:
                    if at != checkpoint:
                        raise RuntimeError(f"worker {w.index} paused at {at} nodes, not at {checkpoint}")
                    paused.append(w.index)
                elif not w.done.is_set():
                    running = True
            if not running:
                return paused
            time.sleep(POLL_SECONDS)

    def _adapt(self, w: int, sent: int, dropped: int) -> None:
        """Texel's rule for worker ``w``'s threshold, after a send of ``sent`` entries."""
        self.thresholds[w] = adapt(self.thresholds[w], sent, dropped, self.config.buffer)
        set_threshold(self.searchers[w].ctx, self.thresholds[w])


def node_config(options: FreshClusterOptions) -> FreshClusterConfig:
    """A file's options as the node clock's cluster takes them."""
    return FreshClusterConfig(options.workers, options.batch, options.threshold, options.adaptive, options.buffer,
                              options.topology, options.latency, options.carry)
