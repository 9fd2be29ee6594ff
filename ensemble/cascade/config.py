"""Cascade files (``configs/cascade/*.yaml``)::

    name: cascade-2
    ensemble: tuned            # phase 1: an ensemble file (its instances and its criterion)
    decomposition: abdada      # phase 2: a decomposition file over a shared table
                               # (abdada, or lazy_smp with shared_table: true)
    share: 0.4                 # phase 1's share of the move's budget (0 < share < 1)
    max_candidates: 0          # 0: every distinct proposal; k: the k the criterion values most
    unanimous: widen           # one candidate: play it at once (play), or spend phase 2 on a search of
                               # every root move (widen: a fixed budget per move is not wasted)
    in_process: false          # both phases in the calling process: the instances one after another,
                               # the team on its threads (equal-time node budgets: games in parallel)

The ensemble's instances run on its own workers and the decomposition's threads on its
own; the two phases never overlap, so on n cores each phase has them all.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from base.config import (ConfigError, YamlSource, check_keys, check_kind, get_bool, get_int, get_number,
                         load_checked)
from ensemble.config import EnsembleConfig, load_ensemble
from players.decomposition.config import DecompositionConfig, load_decomposition
from players.decomposition.registry import WALL
from players.player import Settings

TOP_KEYS = {"kind", "name", "description", "ensemble", "decomposition", "share", "max_candidates", "unanimous",
            "in_process"}
UNANIMOUS = ("play", "widen", "search")


@dataclass(frozen=True)
class CascadeConfig:
    name: str
    ensemble: EnsembleConfig
    decomposition: DecompositionConfig
    share: float = 0.4
    max_candidates: int = 0
    unanimous: str = "widen"
    source: str = ""

    def player_settings(self) -> Settings:
        """The player's settings: the decomposition's (its phase 2 is the longer search), with
        the ensemble's budget mode (UCI lists them before it builds the player)."""
        return replace(self.decomposition.player_settings(), budget_mode=self.ensemble.budget.mode)


def load_cascade(path: str | Path | None = None, text: str | None = None) -> CascadeConfig:
    """Read and validate a cascade file (and the two files it names); ``ConfigError`` lists every problem."""
    return load_checked(path, text, "cascade", lambda src, folder, given: _parse(src))


def _searches_candidates(decomposition: DecompositionConfig) -> bool:
    """Whether phase 2 can search the candidates alone: its root restricted on the wall clock,
    every worker searching from that root over one shared table (abdada, lazy_smp with
    shared_table: true)."""
    row = decomposition.row
    return WALL in row.searchmoves and row.shares_table(decomposition.shared_table)


def _parse(src: YamlSource) -> CascadeConfig | None:
    data = src.data
    if not isinstance(data, dict):
        raise ConfigError([f"{src.name}: expected a mapping"])
    check_keys(src, data, (), TOP_KEYS)
    check_kind(src, data, "cascade")
    ensemble = decomposition = None
    for key in ("ensemble", "decomposition"):
        if key not in data:
            src.problem((key,), f"missing '{key}': the {'first' if key == 'ensemble' else 'second'} phase's file")
    if "ensemble" in data:
        try:
            ensemble = load_ensemble(str(data["ensemble"]))
        except ConfigError as exc:
            src.problem(("ensemble",), f"ensemble {data['ensemble']!r}: " + "; ".join(exc.problems))
    if "decomposition" in data:
        try:
            decomposition = load_decomposition(str(data["decomposition"]))
        except ConfigError as exc:
            src.problem(("decomposition",), f"decomposition {data['decomposition']!r}: " + "; ".join(exc.problems))
    if decomposition is not None and not _searches_candidates(decomposition):
        src.problem(("decomposition",), f"{decomposition.algorithm}: phase 2 searches the candidates only, which "
                                        "needs abdada or lazy_smp with shared_table: true")
    share = get_number(src, data, ("share",), 0.4, 0.0)
    if not 0 < share < 1:
        src.problem(("share",), f"share must be between 0 and 1 (exclusive), got {share!r}")
    top = get_int(src, data, ("max_candidates",), 0, 0)
    unanimous = str(data.get("unanimous", "widen"))
    if unanimous not in UNANIMOUS:
        src.problem(("unanimous",), f"{unanimous!r} is not one of {', '.join(UNANIMOUS)}")
    if get_bool(src, data, ("in_process",), False) and ensemble is not None and decomposition is not None:
        ensemble = replace(ensemble, cluster=replace(ensemble.cluster, inline=True, workers=ensemble.cluster.workers
                                                     or len(ensemble.instances)))
        decomposition = replace(decomposition, in_process=True)
    if src.problems:
        return None
    assert ensemble is not None and decomposition is not None
    return CascadeConfig(str(data.get("name", Path(src.name).stem)), ensemble, decomposition, share, top or 0,
                         unanimous, src.name)
