"""Direct channels between a Dask runner and its slots: how a job travels on plain TCP.

A job for a slot goes as one message on a connection of its own (the standard library's
``multiprocessing.connection`` over TCP, authenticated with the runner's random key) into a
thread of the slot's worker, and its answer comes back the same way.  A round trip costs
about 0.05 ms on a local cluster; the same job as a Dask actor call costs 1-2 ms (the
client's and the worker's event loops, the actor executor, msgpack framing each way), which
was most of an ensemble's coordination per move.  Dask still starts, watches and restarts
the workers, carries the runner's state (its ``WorkerPlugin``) and delivers signals on the
worker's event loop; only the jobs take the short way.

The runner opens channels only where the cluster's own comm is plain TCP: on TLS a side
channel would bypass the cluster's encryption, so jobs there stay actor calls.
"""
from __future__ import annotations

import os
import pickle
import queue
import socket
import struct
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from multiprocessing import AuthenticationError, Pipe
from multiprocessing.connection import Connection, answer_challenge, deliver_challenge, wait
from typing import Any, Protocol

import cloudpickle

HANDSHAKE_ERRORS = (OSError, EOFError, AuthenticationError)
CONNECT_TIMEOUT_S = 5.0  # a firewall that drops the port would otherwise hold the start for minutes
HANDSHAKE_TIMEOUT_S = 5  # a peer that connects and says nothing must not hold a thread for good
DEAD_PEER_S = 30  # as Dask's own comms (distributed.comm.timeouts.tcp): a vanished host is noticed


def _tune(sock: socket.socket) -> None:
    """No Nagle delay (a message over 16 KiB is written in two parts: the second would wait
    ~40 ms for the first's acknowledgement), and keepalive probes with a user timeout, so that
    a host that vanishes without closing its connections is noticed as Dask's comms notice it."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    probes, interval = 10, 2
    for name, value in (("TCP_KEEPIDLE", DEAD_PEER_S - probes * interval), ("TCP_KEEPINTVL", interval),
                        ("TCP_KEEPCNT", probes), ("TCP_USER_TIMEOUT", DEAD_PEER_S * 1000)):
        if hasattr(socket, name):  # Linux; elsewhere the system's keepalive defaults
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def _timeouts(sock: socket.socket, seconds: int) -> None:
    """Kernel timeouts on reads and writes (0: none); the descriptor stays blocking."""
    value = struct.pack("ll", seconds, 0)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, value)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)


def handshake(sock: socket.socket, authkey: bytes, serving: bool) -> Connection:
    """A connected socket as an authenticated ``Connection`` (both sides prove the key, as
    ``multiprocessing.connection`` does), within ``HANDSHAKE_TIMEOUT_S``; the socket object
    is closed, the connection keeps its own descriptor."""
    try:
        _tune(sock)
        _timeouts(sock, HANDSHAKE_TIMEOUT_S)
        connection = Connection(os.dup(sock.fileno()))
        try:
            if serving:
                deliver_challenge(connection, authkey)
                answer_challenge(connection, authkey)
            else:
                answer_challenge(connection, authkey)
                deliver_challenge(connection, authkey)
            _timeouts(sock, 0)
        except BaseException:
            connection.close()
            raise
    finally:
        sock.close()
    return connection


def dump_answer(ok: bool, value: Any) -> bytes:
    """An answer as bytes: ``(True, value)`` or ``(False, exception)``; an exception that
    will not pickle travels as a RuntimeError naming it."""
    try:
        return pickle.dumps((ok, value), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a value or error the standard pickler cannot take
        try:
            return cloudpickle.dumps((ok, value), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001
            error = value if not ok else exc
            return pickle.dumps((False, RuntimeError(f"{type(error).__name__}: {error} (could not be sent back: "
                                                     f"{exc})")), protocol=pickle.HIGHEST_PROTOCOL)


def run_payload(payload: bytes, run: Callable[[Callable, tuple], Any], where: str) -> bytes:
    """A job's bytes in, its answer's bytes out; the job's error is the answer, with the
    worker's traceback as a note (the exception itself, and its message, are unchanged)."""
    try:
        fn, args = pickle.loads(payload)
        return dump_answer(True, run(fn, args))
    except BaseException as exc:  # noqa: BLE001 - handed to the coordinator
        exc.add_note(f"(raised on {where})\n{traceback.format_exc()}")
        return dump_answer(False, exc)


class ChannelServer:
    """The worker end: a listener on the worker's host; each connection is one slot, read by
    one thread and served by another in the order its jobs came (so the coordinator's sends
    never wait for a running job)."""

    def __init__(self, host: str, authkey: bytes, run: Callable[[Callable, tuple], Any], where: str) -> None:
        self._authkey = authkey
        self._run = run
        self._where = where
        self._socket = socket.create_server((host, 0), backlog=64)
        self.address: tuple[str, int] = self._socket.getsockname()[:2]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="concilio-channel-accept").start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                sock, _ = self._socket.accept()
            except OSError:
                if not self._closed:
                    time.sleep(0.1)  # out of descriptors, say: try again, without spinning
                continue
            threading.Thread(target=self._slot, args=(sock,), daemon=True, name="concilio-channel-slot").start()

    def _slot(self, sock: socket.socket) -> None:
        """One connection: its handshake (a stranger without the key is dropped here, not in
        the accepting thread), then its jobs, read by a second thread and run by this one."""
        try:
            connection = handshake(sock, self._authkey, serving=True)
        except HANDSHAKE_ERRORS:
            return
        jobs: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        threading.Thread(target=self._receive, args=(connection, jobs), daemon=True, name="concilio-channel-in").start()
        self._serve(connection, jobs)

    @staticmethod
    def _receive(connection: Connection, jobs: queue.SimpleQueue) -> None:
        try:
            while True:
                jobs.put(connection.recv_bytes())
        except (EOFError, OSError):  # the coordinator closed its end: the slot ends
            jobs.put(None)

    def _serve(self, connection: Connection, jobs: queue.SimpleQueue) -> None:
        while (payload := jobs.get()) is not None:
            answer = run_payload(payload, self._run, self._where)
            try:
                connection.send_bytes(answer)
            except OSError:
                break
        connection.close()

    def close(self) -> None:
        """Stop accepting (shutting the listening socket down wakes the accepting thread);
        the slots end as their coordinator closes its ends."""
        if self._closed:
            return
        self._closed = True
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._socket.close()


class Answerable(Protocol):
    def answer(self, data: bytes) -> None: ...

    def lost(self, error: BaseException) -> None: ...


class Channels:
    """The coordinator's end: a connection per slot, and one thread that reads every
    answer and hands it to its job (a slot answers its jobs in the order they were sent).
    ``on_lost(slot, error)`` turns a broken connection into the error its jobs get."""

    def __init__(self, authkey: bytes, on_lost: Callable[[int, BaseException], BaseException]) -> None:
        self.authkey = authkey
        self._on_lost = on_lost
        self._lock = threading.Lock()
        self._slots: dict[Connection, int] = {}
        self._by_slot: dict[int, tuple[Connection, threading.Lock, deque[Answerable]]] = {}
        self._wake_read, self._wake_write = Pipe(duplex=False)
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True, name="concilio-channels")
        self._reader.start()

    def open(self, slot: int, address: tuple[str, int]) -> None:
        """Connect a slot; ``OSError`` (or ``AuthenticationError``) when the worker's port
        cannot be reached from here."""
        sock = socket.create_connection(tuple(address), timeout=CONNECT_TIMEOUT_S)
        sock.settimeout(None)  # blocking again: the handshake sets kernel timeouts of its own
        connection = handshake(sock, self.authkey, serving=False)
        with self._lock:
            self._slots[connection] = slot
            self._by_slot[slot] = (connection, threading.Lock(), deque())
        self._wake()

    def has(self, slot: int) -> bool:
        return slot in self._by_slot

    def send(self, slot: int, payload: bytes, job: Answerable) -> None:
        """Send a job; a connection already broken (or broken meanwhile) fails it."""
        entry = self._by_slot.get(slot)
        if entry is None:
            job.lost(self._on_lost(slot, EOFError("no channel")))
            return
        connection, send_lock, pending = entry
        with send_lock:  # the order of ``pending`` is the order on the wire
            with self._lock:
                current = self._by_slot.get(slot) is entry  # not dropped since it was looked up
                if current:
                    pending.append(job)
            if not current:
                job.lost(self._on_lost(slot, EOFError("closed")))
                return
            try:
                connection.send_bytes(payload)
            except BaseException as exc:  # the stream's state is unknown: the slot's channel is done
                self._drop(connection, exc)
                if not isinstance(exc, (OSError, ValueError, TypeError)):
                    raise  # a Ctrl-C: the job failed with its slot, the caller still stops

    def _wake(self) -> None:
        try:
            self._wake_write.send_bytes(b"")
        except OSError:
            pass

    def _read(self) -> None:
        while True:
            with self._lock:
                connections = list(self._slots)
            try:
                readable = wait(connections + [self._wake_read])
            except (OSError, ValueError):  # a connection closed by a sender meanwhile: look again
                if self._closed:
                    return
                continue
            for ready in readable:
                if ready is self._wake_read:
                    ready.recv_bytes()
                    if self._closed:
                        return
                    continue
                try:
                    data = ready.recv_bytes()
                except (EOFError, OSError) as exc:
                    self._drop(ready, exc)
                    continue
                with self._lock:
                    slot = self._slots.get(ready)
                    pending = self._by_slot[slot][2] if slot is not None else None
                    job = pending.popleft() if pending else None
                if job is not None:
                    job.answer(data)

    def _drop(self, connection: Connection, why: BaseException) -> None:
        """A broken connection: every job waiting on it gets its slot's loss."""
        with self._lock:
            slot = self._slots.pop(connection, None)
            entry = self._by_slot.pop(slot, None) if slot is not None else None
            jobs = list(entry[2]) if entry is not None else []
            if entry is not None:
                entry[2].clear()
        connection.close()
        if slot is None:
            return
        error = self._on_lost(slot, why)
        for job in jobs:
            job.lost(error)

    def drop(self, slot: int) -> None:
        """Close a slot's channel (its worker is known to be gone)."""
        entry = self._by_slot.get(slot)
        if entry is not None:
            self._drop(entry[0], EOFError("closed"))

    def close(self) -> None:
        """Stop reading and close every connection (the worker ends of the slots end)."""
        if self._closed:
            return
        self._closed = True
        self._wake()
        self._reader.join(timeout=5)
        for connection in list(self._slots):
            self._drop(connection, EOFError("closed"))
        if not self._reader.is_alive():  # else it still reads a message: it returns when that ends
            self._wake_read.close()
            self._wake_write.close()
