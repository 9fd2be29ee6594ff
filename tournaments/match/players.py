"""The players of a match file: any player of the catalog (``ensemble.catalog``), with the
match's own budget for it where the file gives one (node or time odds).

Each entry is built by the catalog into a :class:`players.player.Player`; a player never
raises for a bad move or a dead engine — its answer carries the error and the game runner
scores it as a forfeit.  External engines are restarted after a crash or a timeout.
"""
from __future__ import annotations

from dataclasses import dataclass

from ensemble.catalog import PlayerSpec, build
from players.player import Player
from tournaments.games.game import TimeControl


@dataclass(frozen=True)
class PlayerEntry(PlayerSpec):
    """A player as the match file names it (plain data: it travels to Dask workers)."""

    time_control: TimeControl | None = None  # this player's own budget (odds); None: the match's

    def build(self) -> Player:
        """The player, ready to play: its workers started, its compiled code loaded (else
        numba's load, seconds, would fall inside the first timed move)."""
        return build(self).start()
