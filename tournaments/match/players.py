"""The players of a match file: our full engine, a single instance, an ensemble, the
decomposition player, the cascade, or an external engine over UCI / XBoard (python-chess).

Each entry builds a :class:`players.player.Player`; a player never raises for a bad
move or a dead engine — its answer carries the error and the game runner scores it
as a forfeit.  External engines are restarted after a crash or a timeout.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ensemble.config import load_ensemble
from ensemble.player import EnsemblePlayer
from evaluation.spec import CATEGORIES, EvalSpec
from ensemble.cascade.config import load_cascade
from ensemble.cascade.player import CascadePlayer
from players.decomposition.config import load_decomposition
from players.decomposition.player import DecompositionPlayer
from players.external import ExternalPlayer
from players.player import InstancePlayer, Player

from tournaments.games.game import TimeControl


@dataclass(frozen=True)
class PlayerEntry:
    """A player as the match file names it (plain data: it travels to Dask workers)."""

    name: str
    kind: str  # full | instance | ensemble | decomposition | cascade | uci | xboard
    mask: str | None = None
    weights: Any = None
    ensemble: str | None = None
    selection: dict = field(default_factory=dict)
    command: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    timeout: float = 10.0  # seconds an external engine may exceed its move's budget before forfeiting
    decomposition: str | None = None
    cascade: str | None = None
    distributed: bool = False  # an ensemble on its own Dask workers instead of inline
    workers: int | None = None  # a distributed ensemble's local cluster size
    time_control: TimeControl | None = None  # this player's own budget (odds); None: the match's

    def build(self) -> Player:
        """The player, ready to play (its workers started, its code loaded)."""
        player: Player
        if self.kind in ("full", "instance"):
            player = InstancePlayer(EvalSpec.parse(self.mask or CATEGORIES, self.weights), self.name)
        elif self.kind == "ensemble":
            config = load_ensemble(self.ensemble)
            if self.selection:
                params = dict(self.selection)
                criterion = params.pop("criterion", config.selection.criterion)
                config = config.with_selection(criterion, **params)
            if self.workers:
                config = replace(config, cluster=replace(config.cluster, workers=self.workers, dashboard=False))
            if not self.distributed:  # the instances search in the game's own process
                config = replace(config, cluster=replace(config.cluster, inline=True))
            player = EnsemblePlayer(config, name=self.name)
        elif self.kind == "decomposition":
            player = DecompositionPlayer(load_decomposition(self.decomposition), name=self.name)
        elif self.kind == "cascade":
            player = CascadePlayer(load_cascade(self.cascade), name=self.name)
        elif self.kind in ("uci", "xboard"):
            player = ExternalPlayer(self.name, self.command, self.options, self.kind, self.timeout)
        else:
            raise ValueError(f"player {self.name}: unknown kind {self.kind!r}")
        return player.start()  # else numba's load (~3 s) would fall inside the first timed move
