"""One process at a time: a claim on a file that a match folder (or a duel in a queue) is
being played.  Two processes playing one match would both append every game, and the second
one's start rewrites the games file under the first; the claim makes the second stop instead.

An exclusive ``flock``: two processes never both get it, and a process that dies releases it
with no clean-up.  (A lock on a network file system is only as good as its ``flock``; play one
folder from one machine, or on a file system that honours it.)"""
from __future__ import annotations

import fcntl
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from base.errors import ConcilioError

PLAYING = ".playing"  # in a match's output folder: the claim of the process playing it


def holder(path: Path) -> str:
    """Who holds the claim now: the "host:pid" its holder wrote, or "" when no process holds
    its lock (no file, a holder that finished, or one that died: the kernel dropped its lock)."""
    try:
        with path.open("r") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return f.read().strip() or "another process"
            fcntl.flock(f, fcntl.LOCK_UN)
            return ""
    except FileNotFoundError:
        return ""


@contextmanager
def claimed(path: Path) -> Iterator[bool]:
    """Hold the claim for this process while the block runs (True), or find it held (False)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        f = path.open("a+")
    except OSError as exc:
        raise ConcilioError(f"{path.parent}: cannot write a claim file there ({exc.strerror})") from None
    with f:
        if not _lock(f, path):
            yield False
            return
        f.seek(0)
        f.truncate()
        f.write(f"{socket.gethostname()}:{os.getpid()}\n")
        f.flush()
        try:
            yield True
        finally:
            f.seek(0)
            f.truncate()  # the file stays (removing a lock file races with its next taker); its lock goes
            fcntl.flock(f, fcntl.LOCK_UN)


def _lock(f, path: Path) -> bool:
    """Take the exclusive lock, or find it held.  ``holder`` takes a shared lock for an instant to
    look; a taker that meets only that look tries again (a few times, 20 ms apart)."""
    for attempt in range(3):
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if attempt < 2:
                time.sleep(0.02)
        except OSError as exc:  # ENOLCK, EOPNOTSUPP: NFS without lockd, some FUSE or SMB mounts
            raise ConcilioError(f"{path}: this file system does not lock files ({exc.strerror}); give the "
                                "match a folder on a local disk") from None
    return False
