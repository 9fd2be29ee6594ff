"""The direct channels a Dask runner's jobs travel on (base/runner/channel.py), both ends in this
process: answers reach their own jobs in order, a job's error comes back as itself, a broken
connection fails exactly the jobs that waited on it, and a stranger without the key is
refused."""
import pickle
import threading
import time
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client

import pytest

from base.runner.channel import Channels, ChannelServer


class Job:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value = None
        self.error: BaseException | None = None

    def answer(self, data: bytes) -> None:
        ok, value = pickle.loads(data)
        self.value, self.error = (value, None) if ok else (None, value)
        self.done.set()

    def lost(self, error: BaseException) -> None:
        self.error = error
        self.done.set()

    def result(self):
        assert self.done.wait(10), "no answer"
        if self.error is not None:
            raise self.error
        return self.value


class Lost(RuntimeError):
    pass


def _nap_then(seconds: float, value):
    time.sleep(seconds)
    return value


def _fail(message: str):
    raise KeyError(message)


def _unpicklable():
    return threading.Lock()


@pytest.fixture
def ends():
    key = b"k" * 32
    server = ChannelServer("127.0.0.1", key, lambda fn, args: fn(*args), "test worker")
    channels = Channels(key, lambda slot, why: Lost(f"slot {slot} lost: {why!r}"))
    yield server, channels
    channels.close()
    server.close()


def _send(channels: Channels, slot: int, fn, *args) -> Job:
    job = Job()
    channels.send(slot, pickle.dumps((fn, args)), job)
    return job


def test_each_slot_answers_its_jobs_in_order_and_slots_run_at_the_same_time(ends):
    server, channels = ends
    channels.open(0, server.address)
    channels.open(1, server.address)
    started = time.perf_counter()
    first = [_send(channels, 0, _nap_then, 0.3, i) for i in range(2)]
    second = _send(channels, 1, _nap_then, 0.3, "other")
    assert [j.result() for j in first] == [0, 1] and second.result() == "other"
    elapsed = time.perf_counter() - started
    assert 0.55 < elapsed < 3.0  # slot 0's two jobs one after the other; slot 1's beside them


def test_a_jobs_error_comes_back_as_itself_with_the_workers_traceback(ends):
    server, channels = ends
    channels.open(0, server.address)
    with pytest.raises(KeyError, match="no such instance") as info:
        _send(channels, 0, _fail, "no such instance").result()
    assert any("raised on test worker" in note and "_fail" in note for note in info.value.__notes__)
    with pytest.raises(RuntimeError, match="could not be sent back"):
        _send(channels, 0, _unpicklable).result()
    assert _send(channels, 0, _nap_then, 0, 7).result() == 7  # the slot still serves


def test_a_broken_connection_fails_the_jobs_that_waited_on_it_and_no_other(ends):
    server, channels = ends
    channels.open(0, server.address)
    channels.open(1, server.address)
    waiting = _send(channels, 0, _nap_then, 0.5, "late")
    elsewhere = _send(channels, 1, _nap_then, 0.5, "kept")
    channels.drop(0)  # as when slot 0's worker is found gone
    with pytest.raises(Lost, match="slot 0 lost"):
        waiting.result()
    assert elsewhere.result() == "kept"
    assert not channels.has(0)
    with pytest.raises(Lost, match="slot 0 lost"):  # a job sent afterwards fails at once
        _send(channels, 0, _nap_then, 0, 1).result()


def test_closing_fails_what_still_waits(ends):
    server, channels = ends
    channels.open(0, server.address)
    waiting = _send(channels, 0, _nap_then, 1.0, "never read")
    channels.close()
    with pytest.raises(Lost, match="slot 0 lost"):
        waiting.result()


def test_a_stranger_without_the_key_is_refused_and_the_server_goes_on(ends):
    server, channels = ends
    with pytest.raises(AuthenticationError):
        Client(server.address, authkey=b"x" * 32)
    channels.open(0, server.address)
    assert _send(channels, 0, _nap_then, 0, "ok").result() == "ok"


def test_a_silent_peer_holds_neither_the_other_connections_nor_the_close(ends):
    import socket
    server, channels = ends
    silent = socket.create_connection(server.address)  # connects, never answers the challenge
    try:
        opened = threading.Thread(target=channels.open, args=(0, server.address))
        opened.start()
        opened.join(3)
        assert not opened.is_alive(), "a silent peer held the handshake of the next connection"
        assert _send(channels, 0, _nap_then, 0, "ok").result() == "ok"
        closing = threading.Thread(target=server.close)
        closing.start()
        closing.join(3)
        assert not closing.is_alive(), "a silent peer held the server's close"
    finally:
        silent.close()


def test_a_channel_sends_at_once_and_notices_a_vanished_host():
    """No Nagle delay (a large message's second write would wait for an acknowledgement),
    keepalive with a user timeout, and no read timeout left from the handshake."""
    import os
    import socket
    import struct

    from base.runner.channel import handshake
    key = b"k" * 32
    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []
    serving = threading.Thread(target=lambda: accepted.append(handshake(listener.accept()[0], key, serving=True)))
    serving.start()
    connection = handshake(socket.create_connection(listener.getsockname()), key, serving=False)
    serving.join(5)
    try:
        for end in (connection, accepted[0]):
            sock = socket.socket(fileno=os.dup(end.fileno()))
            try:
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
                if hasattr(socket, "TCP_USER_TIMEOUT"):
                    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 30_000
                assert struct.unpack("ll", sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16)) == (0, 0)
            finally:
                sock.close()
        big = os.urandom(60_000)
        connection.send_bytes(big)
        assert accepted[0].recv_bytes() == big
    finally:
        connection.close()
        accepted[0].close()
        listener.close()
