"""``--scheduler`` for every long command: its units of work (games, searches) on the
workers of a running Dask scheduler instead of a local cluster.  The command line beats the
file's ``cluster: {scheduler: …}``; the command's own ``--concurrency`` / ``--workers`` caps
how many run at once there."""
from __future__ import annotations

import argparse
from dataclasses import replace


def add_scheduler(q: argparse.ArgumentParser, units: str, file: bool = True) -> None:
    """--scheduler, read by :func:`remote_of`; ``units``: what runs there (games, searches);
    ``file``: whether the command's file may name a scheduler too."""
    q.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help=f"run the {units} on the workers of this running Dask scheduler, one per worker thread"
                        + (" (overrides the file's cluster:)" if file else ""))


def remote_of(args: argparse.Namespace, given=None, slots: int | None = None):
    """The scheduler the command runs on (a ``base.cluster.Remote``): ``--scheduler`` (checked:
    a wrong address is one line, exit 2), else the file's ``given``; at most ``slots`` at once
    when the command line says so.  None: a local run."""
    from base.cluster import remote
    address = getattr(args, "scheduler", None)
    if address:
        return remote(address, "--scheduler", slots or (given.slots if given is not None else None))
    return given.capped(slots) if given is not None else None


def with_workers(config, args: argparse.Namespace):
    """A suite's or tune's file as the command line adjusts it: ``--workers`` sizes the local
    cluster (or caps the slots on a scheduler), ``--scheduler`` overrides the file's."""
    if args.workers:
        config = replace(config, workers=args.workers)
    return replace(config, remote=remote_of(args, config.remote, args.workers))
