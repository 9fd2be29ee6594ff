"""The claim that one process plays a match folder: where the file system cannot lock, it says so."""
import errno

import pytest

from base.errors import ConcilioError
from tournaments.match import claim


def test_a_file_system_that_does_not_lock_is_named_not_a_traceback(tmp_path, monkeypatch):
    def no_locks(f, how):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(claim.fcntl, "flock", no_locks)
    with pytest.raises(ConcilioError, match=r"out/\.playing: this file system does not lock files "
                                            r"\(No locks available\); give the match a folder on a local disk"):
        with claim.claimed(tmp_path / "out" / claim.PLAYING):
            pass


def test_a_look_at_the_holder_does_not_take_the_claim_away(tmp_path, monkeypatch):
    # holder() holds a shared lock for an instant; a taker meeting only that look tries again
    path = tmp_path / claim.PLAYING
    real, refused = claim.fcntl.flock, []

    def busy_once(f, how):
        if how & claim.fcntl.LOCK_EX and not refused:
            refused.append(how)
            raise BlockingIOError
        return real(f, how)
    monkeypatch.setattr(claim.fcntl, "flock", busy_once)
    with claim.claimed(path) as mine:
        assert mine and refused
