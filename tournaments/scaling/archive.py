"""A sweep's games carried between machines: ``archive`` compresses every point's and duel's
finished games into a folder that is committed, ``restore`` puts them back where ``play`` and
``duel`` resume from.

A sweep takes days of one core, and the machine that starts a point is often not the one that
finishes it: the games in the results folder are the sweep's state, and the runs folder only a
working copy of it.  Neither step ever shortens a record: a torn last line (a game being
written) stays behind, and a copy with fewer games never replaces one with more."""
from __future__ import annotations

import lzma
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from base.errors import ConcilioError
from tournaments.match.claim import PLAYING, holder
from tournaments.scaling.config import SweepConfig

GAMES, ARCHIVED, SUMMARY = "games.jsonl", "games.jsonl.xz", "summary.md"


@dataclass(frozen=True)
class Copied:
    """One point's or duel's games moved by ``archive`` or ``restore``."""

    folder: str  # relative to the sweep's output: ``L-16``, ``duels/D4-vs-L4``
    games: int  # the games the copy now holds
    before: int  # the games the destination held


def archive(sweep: SweepConfig, results: Path) -> list[Copied]:
    """Every point and duel whose games in the runs folder outnumber those in ``results``, and
    every one whose summary was rewritten (``match --summary-only``) over the games archived."""
    out = []
    for name in _folders(sweep.output):
        lines = _whole_lines((sweep.output / name / GAMES).read_bytes())
        target = results / name
        before = _count(_read_xz(target / ARCHIVED))
        summary = sweep.output / name / SUMMARY
        text = summary.read_bytes() if summary.exists() else None
        archived = (target / SUMMARY).read_bytes() if (target / SUMMARY).exists() else None
        grew = len(lines) > before
        # A summary beside fewer games than the archive's describes other games: never copied.
        rewritten = len(lines) == before and text is not None and text != archived
        if not (grew or rewritten):
            continue
        if grew:
            target.mkdir(parents=True, exist_ok=True)
            partial = target / (ARCHIVED + ".part")
            partial.write_bytes(lzma.compress(b"".join(lines), preset=9))
            partial.replace(target / ARCHIVED)  # a kill mid-write leaves the old archive whole
        if text is not None:
            (target / SUMMARY).write_bytes(text)
        out.append(Copied(name, len(lines), before))
    return out


def restore(sweep: SweepConfig, results: Path) -> list[Copied]:
    """Every archived point and duel with more games than its runs folder holds, put back there;
    nothing at all while one of them is being played (its games file would change under it)."""
    ahead = list(_ahead(sweep, results))
    busy = [f"{sweep.output / name} ({who})" for name, _, _ in ahead
            if (who := holder(sweep.output / name / PLAYING))]
    if busy:
        raise ConcilioError(f"restore: {', '.join(busy)} being played; stop it, then restore (nothing was copied)")
    out = []
    for name, lines, before in ahead:
        target = sweep.output / name
        target.mkdir(parents=True, exist_ok=True)
        partial = target / (GAMES + ".part")
        partial.write_bytes(b"".join(lines))
        partial.replace(target / GAMES)
        out.append(Copied(name, len(lines), before))
    return out


class BehindArchiveError(ConcilioError, RuntimeError):
    """The runs folder holds fewer games than the committed archive (a fresh clone, or a pull
    that brought games): a report from it would print older numbers than the repository's,
    and with ``--document`` write them over the page's."""


def require_restored(sweep: SweepConfig, given: str) -> None:
    """Raise :class:`BehindArchiveError` naming the folders ``restore`` would fill, if any."""
    results = sweep.archive
    behind = [f"{name} holds {before} of {len(lines)}" for name, lines, before in _ahead(sweep, results)]
    if behind:
        shown = ", ".join(behind[:4]) + (f" and {len(behind) - 4} more folders" if len(behind) > 4 else "")
        raise BehindArchiveError(
            f"{sweep.output} holds fewer games than the committed {results} ({shown}): run "
            f"`concilio scaling restore {given}` first (it never shortens a local record)")


def _ahead(sweep: SweepConfig, results: Path) -> Iterator[tuple[str, list[bytes], int]]:
    """(folder, archived games, games in the runs folder) for every archived point and duel
    that holds more games than its runs folder, one folder in memory at a time."""
    for name in _folders(results, ARCHIVED):
        lines = _whole_lines(_read_xz(results / name / ARCHIVED))
        local = sweep.output / name / GAMES
        before = _count(local.read_bytes()) if local.exists() else 0
        if len(lines) > before:
            yield name, lines, before


def _folders(root: Path, file: str = GAMES) -> list[str]:
    """Point folders (``F-16``) and duel folders (``duels/D4-vs-L4``) under ``root`` holding ``file``."""
    if not root.is_dir():
        return []
    found = [p.parent.relative_to(root) for p in root.glob(f"*/{file}")]
    found += [p.parent.relative_to(root) for p in root.glob(f"duels/*/{file}")]
    return sorted(p.as_posix() for p in found)


def _read_xz(path: Path) -> bytes:
    return lzma.decompress(path.read_bytes()) if path.exists() else b""


def _whole_lines(data: bytes) -> list[bytes]:
    """The complete lines of a record (a game still being written has no newline yet)."""
    lines = data.splitlines(keepends=True)
    return [line for line in lines if line.endswith(b"\n") and line.strip()]


def _count(data: bytes) -> int:
    return len(_whole_lines(data))
