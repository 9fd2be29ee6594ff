"""The runner on Dask workers (a ``base.runner.Runner``).

Each thread of each worker is a *slot* that runs one job at a time.  A job travels from here
straight to its slot's worker and back, pickled as one bytes object, with no scheduler round
trip and no task graph: on a plain-TCP cluster over the slot's direct channel
(``base.runner.channel``, about 0.05 ms a round trip), otherwise as a call of the slot's
long-lived Dask actor (:class:`Slot`, 1-2 ms; a task through the scheduler costs several
times that).  Short signals (stop orders, new bounds) go to the actor and run on the
worker's event loop, where they reach the job running in the slot's thread.

What the jobs keep resident lives in a :class:`StatePlugin`, a Dask ``WorkerPlugin``
registered for this runner on every worker (and on any worker that joins later).  Its
teardown, when the runner closes (the plugin is unregistered) or the worker closes (a
cluster that shuts down, after a Ctrl-C too), stops the searches, quits the engines and
releases the tables the runner's jobs left there.
"""
from __future__ import annotations

import contextvars
import logging
import pickle
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import cloudpickle
from distributed.diagnostics.plugin import WorkerPlugin

from base.cluster import Cluster, ClusterError, open_cluster
from base.runner.channel import HANDSHAKE_ERRORS, ChannelServer, Channels
from base.runner.feed import RESUME, feed
from base.runner.protocol import SchedulerLost, WorkerLost
from base.runner.state import WorkerState, in_state, run_in_state

log = logging.getLogger("concilio.runner")
START_TIMEOUT_S = 120.0  # a slot's actor and its warm-up (a first compile may take a minute)
REVIVE_TIMEOUT_S = 30.0  # a slot on a worker that joined later (it has loaded nothing yet: no compile)
WAITING_SAID_EVERY_S = 5.0  # how often a runner waiting for its first workers says so
LOST_ACTOR = ("Unable to contact Actor's worker", "Worker holding Actor was lost")


def _pack(fn: Callable, args: tuple) -> bytes:
    """A job as one bytes object: by the standard pickler (C, fast) when it can, else by
    cloudpickle (a function defined in a test or a notebook, a lambda)."""
    if getattr(fn, "__module__", None) != "__main__":  # a worker has another __main__: by value
        try:
            return pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, AttributeError, TypeError):
            pass
    return cloudpickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)


class QuietHeartbeat(logging.Filter):
    """A worker whose scheduler closed first (a local cluster's shutdown, after a Ctrl-C above
    all) logs its failed heartbeat as an ERROR with a traceback, into the command's stderr; the
    runner reports a lost scheduler itself (``SchedulerLost``), so the worker's line says nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "during heartbeat" not in record.getMessage()


QUIET_HEARTBEAT = QuietHeartbeat()


class StatePlugin(WorkerPlugin):
    """One runner's resident objects in one worker process.  ``setup`` opens the worker's
    end of the slots' direct channels (plain TCP only), and gives the worker's actors a
    thread per worker thread (Dask runs all the actors of a worker in one thread, and the
    slots of a worker must run at the same time when jobs travel as actor calls);
    ``teardown`` closes the channels and lets every resident object go (``WorkerState.close``)."""

    def __init__(self, name: str, authkey: bytes = b"") -> None:
        self.name = name
        self.authkey = authkey
        self.state = WorkerState(name)
        self.server: ChannelServer | None = None
        self.context: contextvars.Context | None = None  # Dask's worker context, for jobs on the channels

    def __getstate__(self) -> dict:
        return {"name": self.name, "authkey": self.authkey}  # the objects stay where they were made

    def __setstate__(self, data: dict) -> None:
        self.__init__(data["name"], data.get("authkey", b""))

    def setup(self, worker) -> None:
        logging.getLogger("distributed.worker").addFilter(QUIET_HEARTBEAT)  # the same filter once, however many runners
        threads = max(1, worker.state.nthreads)
        old = worker.executors.get("actor")
        if getattr(old, "_max_workers", 1) < threads:
            worker.executors["actor"] = ThreadPoolExecutor(threads, thread_name_prefix="concilio-slot")
            if old is not None:
                old.shutdown(wait=False)
        if self.authkey and worker.address.startswith("tcp://"):
            from distributed.comm.addressing import get_address_host
            try:
                self.server = ChannelServer(get_address_host(worker.address), self.authkey, self._run, worker.address)
            except OSError:  # no port to listen on: this worker's jobs stay actor calls
                self.server = None

    def _run(self, fn: Callable, args: tuple) -> Any:
        """A job that came on a channel, run as Dask runs an actor's: in the worker's context
        (a job may use ``get_worker``, or Dask's ``Lock`` and ``Variable``)."""
        if self.context is None:
            return run_in_state(self.state, fn, args)
        return self.context.copy().run(run_in_state, self.state, fn, args)

    def teardown(self, worker) -> None:
        if self.server is not None:
            self.server.close()
        self.state.close()


class Slot:
    """The worker end of a slot (a Dask actor): runs jobs in its thread, signals on the
    worker's event loop, each inside its runner's state on this worker."""

    def __init__(self, runner: str) -> None:
        self.runner = runner

    def _plugin(self) -> StatePlugin:
        from distributed import get_worker
        worker = get_worker()
        plugin = worker.plugins.get(self.runner)
        if plugin is None:
            raise ClusterError(f"worker {worker.address} holds nothing for {self.runner}: its runner has closed")
        return plugin

    def _state(self) -> WorkerState:
        return self._plugin().state

    def call(self, payload: bytes) -> bytes:
        """One job, ``(function, arguments)`` pickled together: Dask would serialize each
        argument of an actor call on its own, at several times the cost."""
        fn, args = pickle.loads(payload)
        return pickle.dumps(run_in_state(self._state(), fn, args), protocol=pickle.HIGHEST_PROTOCOL)

    async def channel(self) -> tuple[str, int] | None:
        """Where this worker's end of the direct channels listens (none: jobs come as calls)."""
        plugin = self._plugin()
        server = plugin.server
        if server is None:
            return None
        plugin.context = contextvars.copy_context()  # an actor's coroutine runs in the worker's context
        return server.address

    async def signal(self, payload: bytes) -> bytes:
        """A short function (or coroutine) on the worker's event loop: it reaches the jobs
        running in this worker's slots."""
        fn, args = pickle.loads(payload)
        with in_state(self._state()):
            value = fn(*args)
            if hasattr(value, "__await__"):
                value = await value
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


@dataclass
class _Place:
    address: str
    actor: Any
    alive: bool = True


class SlotJob:
    """A job sent to a slot.  The client's event loop waits for the answer and wakes
    whoever waits in ``DaskRunner.first_done`` or ``wait``: no thread per job."""

    def __init__(self, runner: DaskRunner, slot: int, key: str) -> None:
        self.key = key
        self.slot = slot
        self._runner = runner
        self.finished: float | None = None  # when its answer came (perf_counter): how late it was
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None

    async def _watch(self, future) -> None:
        """The answer of an actor call."""
        try:
            self._value = pickle.loads(await future)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever asks for the result
            self._error = self._runner._explain(exc, self.slot)
        self._finish()

    def answer(self, data: bytes) -> None:
        """The answer that came back on the slot's channel: ``(ok, value or error)``."""
        try:
            ok, value = pickle.loads(data)
        except BaseException as exc:  # noqa: BLE001 - a result that cannot be read here
            ok, value = False, exc
        if ok:
            self._value = value
        else:
            self._error = value
        self._finish()

    def lost(self, error: BaseException) -> None:
        self._fail(error)

    def _fail(self, error: BaseException) -> SlotJob:
        self._error = error
        self._finish()
        return self

    def _finish(self) -> None:
        with self._runner._finished:
            self.finished = time.perf_counter()
            self._done = True
            self._runner._load[self.slot] -= 1
            self._runner._finished.notify_all()

    def done(self) -> bool:
        return self._done

    def result(self, timeout: float | None = None) -> Any:
        if not self._runner._until(lambda: self._done, timeout):
            raise TimeoutError(f"job {self.key} did not answer within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._value

    def exception(self) -> BaseException | None:
        return self._error if self._done else None

    def cancel(self) -> None:
        """A job sent cannot be withdrawn: a signal stops what it runs."""


class DaskRunner:
    """Slots on the workers of a Dask cluster (a ``base.runner.Runner``).  ``start`` opens a
    cluster of its own (closed with the runner); given a :class:`base.cluster.Cluster`, the
    runner borrows it and, on closing, only lets go of what its jobs left on the workers.
    ``warm`` runs once in every slot before the first job (loading compiled code).  Until
    ``min_workers`` have joined (at most ``worker_timeout`` seconds, ``START_TIMEOUT_S`` by
    default) it says every few seconds to ``tell`` how many of the ``wanted`` worker threads
    there are.  A slot per worker thread, those of workers that join later too, or at most
    ``slots`` live ones (an experiment told to use fewer of a shared cluster's threads)."""

    def __init__(self, cluster: Cluster, *, own: bool = False, warm: Callable[[], Any] | None = None,
                 min_workers: int = 1, direct: bool = True, wanted: int | None = None,
                 tell: Callable[[str], None] | None = None, worker_timeout: float | None = None,
                 slots: int | None = None) -> None:
        self.cluster = cluster
        self.most = slots
        self.client = cluster.client
        self.local = cluster.local is not None
        self.messages = 0
        self.name = f"concilio-runner-{uuid.uuid4().hex[:8]}"
        self.homes: dict[Hashable, int] = {}  # where each job's ``home`` ran last
        self._own = own
        self._warm = warm
        self._places: list[_Place] = []
        self._load: list[int] = []  # jobs sent to each slot and not answered yet
        self._finished = threading.Condition()
        self._here = WorkerState(f"{self.name} (coordinator)")
        self._closed = False
        self._channels = Channels(secrets.token_bytes(32), self._lost)  # used by the slots of plain-TCP workers
        try:
            authkey = self._channels.authkey if direct else b""  # no key: the workers open no channel
            self.client.register_plugin(StatePlugin(self.name, authkey), name=self.name)
            threads = self._wait_for_workers(min_workers, wanted or min_workers,
                                             START_TIMEOUT_S if worker_timeout is None else worker_timeout,
                                             tell or (lambda line: log.warning("%s", line)))
            self._add_slots(threads)
        except BaseException:
            self.close()
            raise

    @classmethod
    def start(cls, workers: int | None = 2, scheduler: str | None = None, *, threads_per_worker: int = 1,
              dashboard: bool = False, warm: Callable[[], Any] | None = None, min_workers: int = 1,
              direct: bool = True, wanted: int | None = None, tell: Callable[[str], None] | None = None,
              worker_timeout: float | None = None, slots: int | None = None) -> DaskRunner:
        """A runner on a local cluster of ``workers`` processes (or the workers of
        ``scheduler``, once ``min_workers`` have joined), closed with the runner.
        ``direct=False`` sends every job as an actor call (to measure what the channels save)."""
        cluster = open_cluster(workers or 2, scheduler, threads_per_worker, dashboard)
        try:
            return cls(cluster, own=True, warm=warm, min_workers=min_workers, direct=direct, wanted=wanted, tell=tell,
                       worker_timeout=worker_timeout, slots=slots)
        except BaseException:
            cluster.close()
            raise

    # --- slots ----------------------------------------------------------------------------------------
    def _wait_for_workers(self, least: int, wanted: int, timeout: float, tell: Callable[[str], None]
                          ) -> dict[str, int]:
        """The threads of each worker, once ``least`` workers have joined; until then, every
        few seconds, ``tell`` how many of the ``wanted`` threads are there: a scheduler
        nobody has started workers for must not look like a hang."""
        deadline = time.monotonic() + timeout
        said = None
        while True:
            threads = self.cluster.worker_threads()
            if len(threads) >= least:
                return threads
            now = time.monotonic()
            if now >= deadline:
                address = getattr(getattr(self.client, "scheduler", None), "address", "SCHEDULER")
                raise ClusterError(f"{self.cluster.description}: {len(threads)} of {least} Dask worker(s) joined "
                                   f"in {timeout:g} s; start them with `dask worker {address} --nthreads 1`")
            if said is None or now - said >= WAITING_SAID_EVERY_S:
                tell(f"waiting for workers ({sum(threads.values())}/{wanted}) on the {self.cluster.description}")
                said = now
            time.sleep(0.2)

    def _add_slots(self, threads: dict[str, int]) -> list[int]:
        """A slot per thread of each of these workers, in an order that spreads consecutive
        slots over the workers (slot i on worker i mod n first)."""
        order = sorted(threads)
        addresses = [a for t in range(max(threads.values(), default=0)) for a in order if t < threads[a]]
        if self.most is not None:
            addresses = addresses[:max(0, self.most - sum(p.alive for p in self._places))]
            if not addresses:
                return []
        first = len(self._places)
        futures = [self.client.submit(Slot, self.name, actor=True, workers=[a], allow_other_workers=False, pure=False,
                                      key=f"{self.name}-slot-{first + i}-{uuid.uuid4().hex[:6]}")
                   for i, a in enumerate(addresses)]
        try:
            actors = [f.result(timeout=START_TIMEOUT_S if not first else REVIVE_TIMEOUT_S) for f in futures]
        except BaseException:
            self.client.cancel(futures)
            raise
        with self._finished:
            self._places += [_Place(a, actor) for a, actor in zip(addresses, actors)]
            self._load += [0] * len(addresses)
        for slot, actor in enumerate(actors, first):
            address = actor.channel().result(timeout=REVIVE_TIMEOUT_S)
            if address is None:
                continue
            try:
                self._channels.open(slot, address)
            except HANDSHAKE_ERRORS as exc:  # a firewall between us: actor calls
                log.warning("no direct channel to %s (%s): its jobs go as Dask actor calls", addresses[slot - first], exc)
        new = list(range(first, len(self._places)))
        if self._warm is not None:
            for job in [self.submit_to(i, self._warm) for i in new]:
                job.result(timeout=10 * START_TIMEOUT_S)
        self.messages = 0
        return new

    @property
    def workers(self) -> int:
        """The slots: jobs that can run at once (a lost one counts until a live one replaces it)."""
        return len(self._places)

    @property
    def direct(self) -> list[int]:
        """The slots whose jobs travel on a direct channel (the others' go as actor calls)."""
        return [i for i in range(len(self._places)) if self._channels.has(i)]

    @property
    def processes(self) -> int:
        return len({p.address for p in self._places if p.alive})

    def live(self) -> list[int]:
        """The slots whose worker is alive; a worker that joined since (a nanny's restart of
        one that died) gets slots first."""
        if self.client.status != "running":  # the scheduler is gone: so are its workers, for us
            alive = {}
        else:
            alive = self.cluster.worker_threads()
        running = self.client.status == "running"
        for slot, place in enumerate(self._places):
            if place.alive and place.address not in alive:
                place.alive = False
                if running:  # known gone; without a scheduler, jobs under way may still answer
                    self._channels.drop(slot)
        known = {p.address for p in self._places}  # a lost worker may linger in the list a moment
        joined = {a: n for a, n in alive.items() if a not in known}
        if joined and not self._closed:
            try:
                self._add_slots(joined)
            except Exception:  # noqa: BLE001 - a worker still starting, or gone again: next time
                pass
        return [i for i, p in enumerate(self._places) if p.alive]

    def where(self, slot: int) -> str | None:
        place = self._places[slot % len(self._places)]
        return place.address if place.alive else None

    def _explain(self, exc: BaseException, slot: int) -> BaseException:
        """A job's error as the caller should see it: a worker (or scheduler) that is gone
        becomes :class:`base.runner.WorkerLost`; the job's own errors pass unchanged."""
        from distributed.comm.core import CommClosedError
        lost = isinstance(exc, CommClosedError) or (type(exc) in (OSError, RuntimeError)
                                                     and str(exc).startswith(LOST_ACTOR))
        return self._lost(slot, exc) if lost else exc

    def _lost(self, slot: int, exc: BaseException) -> BaseException:
        """The error of a job whose slot's worker (or the scheduler) is gone."""
        if self._closed:
            return WorkerLost(f"{self.name} has closed")
        place = self._places[slot]
        place.alive = False
        if self.client.status != "running":
            return SchedulerLost(f"the Dask scheduler is gone ({self.cluster.description}, client "
                                 f"{self.client.status}); finished work is kept: {RESUME}")
        return WorkerLost(f"worker {place.address} is gone ({exc})")

    # --- jobs ------------------------------------------------------------------------------------------
    def submit(self, fn: Callable, *args, key: str = "", home: Hashable | None = None) -> SlotJob:
        """A job for the least busy live slot; the one that ran the job with the same ``home``
        before (the same subtree one iteration shallower: its table holds the hash moves),
        if it is no busier."""
        with self._finished:
            live = [i for i, p in enumerate(self._places) if p.alive] or list(range(len(self._places)))
            index = min(live, key=lambda i: self._load[i])
            preferred = self.homes.get(home) if home is not None else None
            if preferred is not None and self._places[preferred].alive and self._load[preferred] <= self._load[index]:
                index = preferred
            if home is not None:
                if len(self.homes) > 100_000:  # a long match: forget old positions
                    self.homes.clear()
                self.homes[home] = index
        return self.submit_to(index, fn, *args, key=key)

    def submit_to(self, slot: int, fn: Callable, *args, key: str = "") -> SlotJob:
        """A job for one slot (the one whose worker holds what the job needs)."""
        slot %= len(self._places)
        place = self._places[slot]
        self.messages += 2  # the job out, its result back
        with self._finished:
            self._load[slot] += 1
        job = SlotJob(self, slot, key or f"job-{time.perf_counter_ns()}")
        if not place.alive:
            return job._fail(WorkerLost(f"worker {place.address} is gone"))
        payload = _pack(fn, args)
        if self._channels.has(slot):
            self._channels.send(slot, payload, job)
            return job
        try:
            future = place.actor.call(payload)
        except Exception as exc:  # noqa: BLE001 - the actor's worker was lost before this call
            return job._fail(self._explain(exc, slot))
        self.client.loop.add_callback(job._watch, future)
        return job

    def _until(self, condition: Callable[[], bool], timeout: float | None) -> bool:
        """Wait for ``condition`` (checked whenever a job finishes); False on timeout.  The
        wait wakes every second, so that a Ctrl-C is acted on at once."""
        deadline = None if timeout is None else time.perf_counter() + timeout
        with self._finished:
            while not condition():
                left = 1.0 if deadline is None else min(1.0, deadline - time.perf_counter())
                if left <= 0:
                    return False
                self._finished.wait(left)
        return True

    def first_done(self, jobs: Sequence[SlotJob]) -> SlotJob:
        self._until(lambda: any(j.done() for j in jobs), None)
        return next(j for j in jobs if j.done())

    def wait(self, jobs: Iterable[SlotJob], timeout: float | None = None) -> bool:
        jobs = list(jobs)
        return self._until(lambda: all(j.done() for j in jobs), timeout)

    def map(self, fn: Callable, argument_lists: Iterable[tuple], *,
            on_error: Callable[[tuple, BaseException], None] | None = None) -> Iterator[tuple[tuple, Any]]:
        return feed(self, fn, argument_lists, on_error)

    # --- signals ---------------------------------------------------------------------------------------
    def _signal_places(self, slots: Iterable[int] | None) -> list[_Place]:
        chosen = self._places if slots is None else [self._places[i % len(self._places)] for i in slots]
        firsts: dict[str, _Place] = {}
        for place in chosen:
            if place.alive:
                firsts.setdefault(place.address, place)
        return list(firsts.values())

    def signal(self, fn: Callable, *args, slots: Iterable[int] | None = None) -> None:
        """``fn(*args)`` on the event loop of every worker process holding one of ``slots``
        (all by default), once per process; not waited for."""
        payload = _pack(fn, args)
        places = self._signal_places(slots)
        self.messages += len(places)
        for place in places:
            try:
                place.actor.signal(payload)
            except Exception:  # noqa: BLE001 - a lost worker has nothing to stop
                place.alive = False

    def everywhere(self, fn: Callable, *args, timeout: float | None = None) -> list:
        """``fn(*args)`` on the event loop of every live worker process, waited for (at most
        ``timeout`` seconds in all); the answers (a worker lost meanwhile, or not answering
        in time, gives none)."""
        payload = _pack(fn, args)
        places = self._signal_places(None)
        self.messages += len(places)
        calls = []
        for place in places:
            try:
                calls.append(place.actor.signal(payload))
            except Exception:  # noqa: BLE001
                place.alive = False
        out = []
        until = time.perf_counter() + (START_TIMEOUT_S if timeout is None else timeout)
        for call in calls:
            try:
                out.append(pickle.loads(call.result(timeout=max(0.001, until - time.perf_counter()))))
            except (OSError, RuntimeError):  # gone (nothing of this runner is left on it), or late (TimeoutError)
                continue
        return out

    def here(self):
        """This process's own state for the runner (let go when the runner closes)."""
        return in_state(self._here)

    # --- the end ---------------------------------------------------------------------------------------
    def close(self) -> None:
        """Let go of everything the jobs left on the workers (the plugin's teardown: on an
        existing scheduler's workers too, which stay up for the next command), then close the
        cluster (or the client) if it is this runner's own."""
        if self._closed:
            return
        self._closed = True
        self._channels.close()  # jobs still waiting fail: the runner has closed
        for place in self._places:
            place.alive, place.actor = False, None  # the actors go with their references
        try:
            if not (self._own and self.local):  # an existing scheduler's workers outlive us: they let go now
                try:
                    self.client.unregister_worker_plugin(self.name)
                except Exception:  # noqa: BLE001 - a client or worker that is gone keeps nothing of ours
                    pass
            if self._own:
                self.cluster.close()  # a local cluster's workers close, tearing their plugins down
        finally:
            self._here.close()

    def __enter__(self) -> DaskRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
