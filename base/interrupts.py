"""Stopping a long command on Ctrl-C or SIGTERM: once, in the main process, with its work kept.

A terminal sends Ctrl-C's SIGINT to the whole foreground process group: the command, its
Dask worker processes and the engines they run.  Only the command should act on it: it
leaves its loop, commits nothing more, closes its workers (which quit their engines) and
exits.  So:

* :func:`stop_on_signals` (the CLI, around a long command) turns SIGINT and SIGTERM into
  :class:`Interrupted` in the main thread.
* :func:`deaf_children` (the cluster while it starts, an engine while it opens) blocks both
  signals in the threads made meanwhile: Dask's event loop, whose worker processes and their
  engines inherit the mask, or python-chess's, whose engine does: a Ctrl-C never kills a
  worker half-way through a game, nor an engine under its player.
* :func:`held_signals` notes a signal that arrives while a cluster starts or closes and
  raises it once that is done, so it never leaves a cluster half-made or half-closed.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The command was asked to stop by a signal; ``exit_code`` is the shell's 128 + its number.
    A ``KeyboardInterrupt``, so everything that lets Ctrl-C through lets this through too."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    def __str__(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """The first SIGINT or SIGTERM raises :class:`Interrupted` here, so the command's
    ``finally`` blocks close its cluster; later ones are ignored, as they would interrupt that
    cleanup (a few seconds) and leave workers behind.  SIGINT is listened to even when the
    process started with it ignored, as a shell's ``command &`` starts it without job control:
    a long command stopped with ``kill -INT`` must stop, and it keeps its work."""
    if not _in_main_thread():
        yield
        return
    stopping = False

    def interrupt(signum: int, frame) -> None:
        nonlocal stopping
        if not stopping:
            stopping = True
            raise Interrupted(signum)

    previous = {signum: signal.signal(signum, interrupt) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def held_signals() -> Iterator[None]:
    """SIGINT and SIGTERM arriving inside are noted, then raised on the way out (where the
    handlers in force before decide what they do)."""
    if not _in_main_thread():
        yield
        return
    noted: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, frame: noted.append(signum))
                for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if noted:
            signal.raise_signal(noted[0])


@contextmanager
def deaf_children() -> Iterator[None]:
    """Threads started inside (and processes they start, and theirs) block SIGINT and
    SIGTERM for good; this thread blocks them only inside, and a signal blocked meanwhile
    is delivered on the way out."""
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX: nothing to inherit
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
