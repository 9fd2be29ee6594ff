"""The catalog: every kind of player, from a name or a file, as one plain description
(:class:`PlayerSpec`) and one way to build it (:func:`build`).

Kinds: ``instance`` (the searcher with a subset of the categories: a mask such as ``MKP``
or ``76``; no name at all is the full engine), ``ensemble``, ``decomposition``,
``cascade``, and external engines over ``uci`` or ``xboard``.  :func:`describe` reads a
name the way every command does: a mask is an instance; anything else is a config found
as ``base.config.find_config`` finds it (a path, the current directory, the user's
folders, the shipped ``configs/``), and its kind is what the file says (``kind:``), else
the ``configs/`` folder it sits in (``ensembles/``, ``decomposition/``, ``cascade/``,
``engines/``), else an ensemble, the player file ``concilio play`` and ``uci`` always read.
Nothing is guessed from the keys a file happens to have.

A spec is plain data (it travels to a match's Dask workers) and is checked when it is made:
a bad file is an error before any worker starts.  ``build`` makes the player, not started;
UCI, ``concilio play``, matches and the Python API then use only the
:class:`players.player.Player` protocol.  This module sits with the ensembles because it
builds players made of players; the players' layer below cannot name them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from base.config import (ConfigError, ConfigNotFound, YamlSource, as_mapping, check_keys, find_config, get_number,
                         load_checked, load_yaml)
from ensemble.cascade.config import CascadeConfig, load_cascade
from ensemble.cascade.player import CascadePlayer
from ensemble.config import SCHEDULER_ADDRESS, EnsembleConfig, load_ensemble
from ensemble.player import EnsemblePlayer
from evaluation.spec import CATEGORIES, EvalSpec, EvalSpecError
from players.decomposition.config import DecompositionConfig, load_decomposition
from players.decomposition.player import DecompositionPlayer
from players.external import ExternalPlayer
from players.limits import Limit
from players.player import InstancePlayer, Player, instance_name

KINDS = ("instance", "ensemble", "decomposition", "cascade", "uci", "xboard")
FOLDERS = {"ensembles": "ensemble", "decomposition": "decomposition", "cascade": "cascade", "engines": "uci"}
# Keys only another kind's file has: an ensemble file outside configs/ holding one is named with it.
KIND_HINTS = {"algorithm": ("a decomposition", "decomposition"), "command": ("an external engine", "uci"),
              "decomposition": ("a cascade", "cascade")}
CONFIG_KINDS = ("ensembles", "decomposition", "cascade", "engines")  # where a player's name is looked up
INSTANCE_KEYS = {"kind", "name", "description", "mask", "weights"}
ENGINE_KEYS = {"kind", "name", "description", "command", "options", "timeout"}
DEFAULT_MOVETIME_MS = 1000  # a move's limit where nothing sets one: an ensemble file's default budget too

Config = EvalSpec | EnsembleConfig | DecompositionConfig | CascadeConfig | None


@dataclass(frozen=True)
class PlayerSpec:
    """A player as plain data: what :func:`build` makes.  ``config`` is an instance's mask,
    or the file (path or name) of an ensemble, decomposition or cascade; the other fields
    adjust what the file says, each for the kinds named."""

    kind: str
    name: str
    config: str | None = None
    weights: Any = None  # instance: by letter ({B: 2}) or seven numbers
    selection: Mapping[str, Any] = field(default_factory=dict)  # ensemble: criterion (and parameters) for the file's
    command: tuple[str, ...] = ()  # uci, xboard: the engine's command line
    options: Mapping[str, Any] = field(default_factory=dict)  # uci, xboard: engine options
    timeout: float = 10.0  # uci, xboard: seconds an engine may exceed its move's budget before forfeiting
    inline: bool | None = None  # ensemble: instances in this process (True), on Dask workers (False); None: the file's
    workers: int | None = None  # ensemble, decomposition: the local cluster's size instead of the file's
    scheduler: str | None = None  # ensemble, decomposition: a running Dask scheduler (tcp://host:port)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError([f"player {self.name}: unknown kind {self.kind!r}; known: {', '.join(KINDS)}"])

    def with_criterion(self, criterion: str) -> PlayerSpec:
        """This ensemble with another selection criterion (its default parameters)."""
        if self.kind != "ensemble":
            raise ConfigError([f"{self.name}: a selection criterion is an ensemble's; "
                               f"this player's kind is {self.kind}"])
        spec = replace(self, selection={"criterion": criterion})
        load(spec)  # an unknown criterion is named now
        return spec

    def with_scheduler(self, address: str, given_as: str = "scheduler") -> PlayerSpec:
        """This ensemble or decomposition on the Dask cluster at ``address`` (``tcp://host:port``;
        anything else is a ``ConfigError`` naming ``given_as``, the option or field it came from)."""
        if not SCHEDULER_ADDRESS.match(address):
            raise ConfigError([f"{given_as} {address!r} is not a Dask scheduler address: give tcp://host:port, "
                               f"e.g. tcp://10.0.0.5:8786"])
        if self.kind not in ("ensemble", "decomposition"):
            raise ConfigError([f"{self.name}: only ensembles and decomposition players run on a Dask scheduler; "
                               f"this player's kind is {self.kind}"])
        return replace(self, scheduler=address, workers=None, inline=False if self.kind == "ensemble" else None)


def describe(target: str | Path | None = None, *, name: str | None = None) -> PlayerSpec:
    """The player a name or a file stands for (see the module's docstring), checked: a file
    that is not found, not valid, or of an unknown kind raises ``ConfigError`` naming the
    file, line and field; a bad mask ``EvalSpecError``."""
    text = "" if target is None else str(target).strip()
    if not text:
        spec = EvalSpec()
        return PlayerSpec("instance", name or instance_name(spec), CATEGORIES)
    try:
        spec = EvalSpec.parse(text)
    except EvalSpecError as exc:
        not_a_mask = exc
    else:
        return PlayerSpec("instance", name or instance_name(spec), text)
    try:
        path = find_config(text, *CONFIG_KINDS)
    except ConfigNotFound:
        if _looks_like_mask(text):  # MKPZ: a mistyped mask, not a config name
            raise EvalSpecError(f"{_mask_problem(text, not_a_mask)}, and no config is named {text}") from None
        raise
    kind = file_kind(path)
    if kind in ("uci", "xboard", "instance"):
        return _player_file(path, kind, name)
    spec = PlayerSpec(kind, name or "", str(path))
    config = load(spec)
    return replace(spec, name=name or _default_name(kind, config))


def file_kind(path: Path) -> str:
    """What a player file is: its ``kind:``, else its ``configs/`` folder, else an ensemble."""
    src = load_yaml(path)
    data = src.data
    declared = data.get("kind") if isinstance(data, dict) else None
    if declared is None:
        if path.parent.name in FOLDERS:
            return FOLDERS[path.parent.name]
        hinted = [key for key in KIND_HINTS if isinstance(data, dict) and key in data and "instances" not in data]
        for key in hinted:  # said, not guessed: read as an ensemble, the file would fail key by key
            src.problem((key,), f"{KIND_HINTS[key][0]}'s key, and outside configs/<kind>/ a player file is read as "
                                f"an ensemble unless it says what it is: add `kind: {KIND_HINTS[key][1]}`")
        if hinted:
            raise ConfigError(src.problems)
        return "ensemble"
    if declared not in KINDS:
        src.problem(("kind",), f"unknown kind {declared!r}; known: {', '.join(KINDS)}")
        raise ConfigError(src.problems)
    return str(declared)


def load(spec: PlayerSpec) -> Config:
    """What the spec's file holds, with the spec's adjustments (None for an external engine):
    every problem raised as ``ConfigError`` (a bad mask as ``EvalSpecError``)."""
    if spec.kind == "instance":
        return EvalSpec.parse(spec.config or CATEGORIES, spec.weights)
    if spec.kind == "ensemble":
        return _ensemble(spec)
    if spec.kind == "decomposition":
        config = load_decomposition(spec.config)
        if spec.workers:
            config = config.with_workers(spec.workers)
        if spec.scheduler:
            config = replace(config, scheduler=spec.scheduler)
        return config
    if spec.kind == "cascade":
        return load_cascade(spec.config)
    return None


def build(spec: PlayerSpec, events: Callable[[str], None] | None = None) -> Player:
    """The player, not started (``start`` it, or use it as a context manager).  ``events``
    hears what happens outside a move (an ensemble's instance lost and rebuilt)."""
    config = load(spec)
    if spec.kind == "instance":
        assert isinstance(config, EvalSpec)
        return InstancePlayer(config, spec.name)
    if spec.kind == "ensemble":
        assert isinstance(config, EnsembleConfig)
        return EnsemblePlayer(config, on_event=events, name=spec.name)
    if spec.kind == "decomposition":
        assert isinstance(config, DecompositionConfig)
        return DecompositionPlayer(config, name=spec.name)
    if spec.kind == "cascade":
        assert isinstance(config, CascadeConfig)
        return CascadePlayer(config, name=spec.name)
    return ExternalPlayer(spec.name, spec.command, dict(spec.options), spec.kind, spec.timeout)


def default_limit(spec: PlayerSpec) -> Limit:
    """A move's limit where the caller sets none: an ensemble's (and a cascade's) file budget,
    else ``DEFAULT_MOVETIME_MS``."""
    config = load(spec)
    if isinstance(config, EnsembleConfig):
        return config.budget.limit
    if isinstance(config, CascadeConfig):
        return config.ensemble.budget.limit
    return Limit(movetime=DEFAULT_MOVETIME_MS)


# --- internals --------------------------------------------------------------------------------

def _ensemble(spec: PlayerSpec) -> EnsembleConfig:
    config = load_ensemble(spec.config)
    if spec.selection:
        params = dict(spec.selection)
        criterion = params.pop("criterion", config.selection.criterion)
        config = config.with_selection(str(criterion), **params)  # SelectionError names a bad one
    cluster = config.cluster
    if spec.workers:
        cluster = replace(cluster, workers=spec.workers, dashboard=False)
    if spec.scheduler:
        cluster = replace(cluster, scheduler=spec.scheduler, workers=None)
    if spec.inline is not None:
        cluster = replace(cluster, inline=spec.inline)
    return replace(config, cluster=cluster)


def _default_name(kind: str, config: Config) -> str:
    """How UCI's ``id name`` and ``concilio play`` name a player the file does not name."""
    if isinstance(config, EnsembleConfig):
        return f"ensemble {config.name} {config.notation}"
    if isinstance(config, DecompositionConfig):
        return f"decomposition {config.name} ({config.algorithm}, {config.workers} workers)"
    if isinstance(config, CascadeConfig):
        return f"cascade {config.name}"
    return kind


def _looks_like_mask(text: str) -> bool:
    """Capital letters of which some are categories (MKPZ), or a number (200): what a user
    typing a mask types.  Config names are lower case (3b, abdada, gnuchess)."""
    return text.isdigit() or (text.isalpha() and text.isupper() and any(c in CATEGORIES for c in text))


def _mask_problem(text: str, exc: EvalSpecError) -> str:
    """Why a mask-like name is no mask, in the user's words: which letters are not categories."""
    bad = sorted({c for c in text if c.isalpha() and c not in CATEGORIES}, key=text.index)
    if not bad:
        return str(exc)
    return (f"{text}: {', '.join(bad)} {'is not a category' if len(bad) == 1 else 'are not categories'} "
            f"(the categories are {' '.join(CATEGORIES)})")


def _player_file(path: Path, kind: str, name: str | None) -> PlayerSpec:
    """An instance file (``kind: instance``, ``mask``, ``weights``) or an external engine's
    (``kind: uci`` or ``xboard``, or a file in ``engines/``: ``command``, ``options``, ``timeout``)."""
    def parse(src: YamlSource, folder: Path, given: str) -> PlayerSpec | None:
        data = as_mapping(src, src.data, ()) if src.data is not None else None
        if data is None:
            src.problem((), "expected a mapping")
            return None
        if kind == "instance":
            check_keys(src, data, (), INSTANCE_KEYS)
            try:
                spec = EvalSpec.parse(data.get("mask", CATEGORIES), data.get("weights"))
            except EvalSpecError as exc:
                src.problem(("weights",) if str(exc).startswith("weights") else ("mask",), str(exc))
                return None
            own_name = f"instance {data['name']} ({spec.letters})" if "name" in data else instance_name(spec)
            return PlayerSpec("instance", name or own_name, str(data.get("mask", CATEGORIES)), data.get("weights"))
        check_keys(src, data, (), ENGINE_KEYS)
        command = data.get("command")
        if isinstance(command, str):
            command = command.split()
        if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
            src.problem(("command",), "expected the engine's command line, e.g. [gnuchess, --uci]")
            return None
        options = as_mapping(src, data.get("options"), ("options",)) or {}
        timeout = get_number(src, data, ("timeout",), 10.0, low=0.1)
        return PlayerSpec(kind, name or str(data.get("name", path.stem)), None, command=tuple(command),
                          options=dict(options), timeout=timeout)
    return load_checked(path, None, "engines", parse)
