"""The kinds of player, one object each, as python-chess has one protocol class per engine
protocol: how a :class:`PlayerSpec` of that kind is read (its file, a match file's entry),
what it builds, and what it says before it is built (its name, its settings, its default
limit).  ``ensemble.catalog`` finds a player's kind and asks it; nothing else switches on a
kind's name.

Reading a kind never loads the compiled engine: a player is named wherever a GUI waits ten
seconds for ``uciok``, and the engine's first load compiles it (a minute on an empty numba
cache).  So each kind imports its player class in ``build``, where the player is made.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from base.config import ConfigError, FieldPath, YamlSource, as_mapping, get_bool
from ensemble.cascade.config import CascadeConfig, load_cascade
from ensemble.config import SCHEDULER_ADDRESS, EnsembleConfig, load_ensemble
from ensemble.selection import SelectionError, check_params
from evaluation.spec import CATEGORIES, EvalSpec, EvalSpecError
from players.decomposition.config import DecompositionConfig, load_decomposition
from players.limits import Limit
from players.player import InstancePlayer, Player, Settings, instance_name

DEFAULT_MOVETIME_MS = 1000  # a move's limit where nothing sets one: an ensemble file's default budget too

Config = EvalSpec | EnsembleConfig | DecompositionConfig | CascadeConfig | None
Events = Callable[[str], None] | None


@dataclass(frozen=True)
class PlayerSpec:
    """A player as plain data: what ``ensemble.catalog.build`` makes.  ``config`` is an
    instance's mask, or the file (path or name) of an ensemble, decomposition or cascade; the
    other fields adjust what the file says, each for the kinds named."""

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

    @property
    def of_kind(self) -> Kind:
        return KINDS[self.kind]

    def with_criterion(self, criterion: str) -> PlayerSpec:
        """This ensemble with another selection criterion (its default parameters)."""
        if self.kind != "ensemble":
            raise ConfigError([f"{self.name}: a selection criterion is an ensemble's; "
                               f"this player's kind is {self.kind}"])
        spec = replace(self, selection={"criterion": criterion})
        spec.of_kind.load(spec)  # an unknown criterion is named now
        return spec

    def with_scheduler(self, address: str, given_as: str = "scheduler") -> PlayerSpec:
        """This ensemble or decomposition on the Dask cluster at ``address`` (``tcp://host:port``;
        anything else is a ``ConfigError`` naming ``given_as``, the option or field it came from)."""
        if not SCHEDULER_ADDRESS.match(address):
            raise ConfigError([f"{given_as} {address!r} is not a Dask scheduler address: give tcp://host:port, "
                               f"e.g. tcp://10.0.0.5:8786"])
        if not self.of_kind.has_workers:
            raise ConfigError([f"{self.name}: only ensembles and decomposition players run on a Dask scheduler; "
                               f"this player's kind is {self.kind}"])
        return replace(self, scheduler=address, workers=None, inline=False if self.kind == "ensemble" else None)


@dataclass(frozen=True)
class Entry:
    """A match file's player entry, as a kind reads it: ``value`` is what its kind's key holds
    (``ensemble: 3b``), ``data`` the whole entry, ``path`` where it sits in the file."""

    src: YamlSource
    data: Mapping[str, Any]
    path: FieldPath
    name: str
    workers: int | None
    timeout: float

    @property
    def value(self) -> Any:
        return self.data[self.key]

    @property
    def key(self) -> str:
        return next(k for k in ENTRY_KEYS if k in self.data)

    def problem(self, message: str, field_name: str | None = None) -> None:
        self.src.problem(self.path + ((field_name or self.key),), message)


class Kind:
    """One kind of player.  ``folder``: where its files sit under ``configs/`` (a file there
    needs no ``kind:``); ``has_workers``: a local cluster's size or a scheduler may be given."""

    name: ClassVar[str] = ""
    folder: ClassVar[str | None] = None
    has_workers: ClassVar[bool] = False

    def load(self, spec: PlayerSpec) -> Config:
        """What the spec's file holds, with the spec's adjustments, checked (``ConfigError``)."""
        return None

    def build(self, spec: PlayerSpec, config: Config, events: Events) -> Player:
        raise NotImplementedError

    def settings(self, spec: PlayerSpec, config: Config) -> Settings:
        """The player's settings before it is built (UCI lists its options from them)."""
        return self.build(spec, config, None).settings

    def default_name(self, config: Config) -> str:
        """How UCI's ``id name`` and ``concilio play`` name a player its file does not name."""
        return self.name

    def default_limit(self, config: Config) -> Limit:
        """A move's limit where the caller sets none."""
        return Limit(movetime=DEFAULT_MOVETIME_MS)

    def in_process(self, config: Config) -> bool:
        """Whether the player runs inside its game's process (no cluster of its own), so that a
        match can run games in parallel."""
        return True

    def from_entry(self, entry: Entry) -> PlayerSpec | None:
        """A match file's entry of this kind (``decomposition: lazy-cluster``), or None after
        naming its problem in the entry's source."""
        return PlayerSpec(self.name, entry.name, str(entry.value), workers=entry.workers)


class InstanceKind(Kind):
    name = "instance"

    def load(self, spec: PlayerSpec) -> EvalSpec:
        return EvalSpec.parse(spec.config or CATEGORIES, spec.weights)

    def build(self, spec: PlayerSpec, config: Config, events: Events) -> Player:
        assert isinstance(config, EvalSpec)
        return InstancePlayer(config, spec.name, team=abdada_team)

    def default_name(self, config: Config) -> str:
        assert isinstance(config, EvalSpec)
        return instance_name(config)

    def from_entry(self, entry: Entry) -> PlayerSpec | None:
        if entry.key == "full":
            return PlayerSpec("instance", entry.name, CATEGORIES)
        try:
            EvalSpec.parse(entry.value, entry.data.get("weights"))
        except EvalSpecError as exc:
            entry.problem(str(exc))
            return None
        return PlayerSpec("instance", entry.name, str(entry.value), entry.data.get("weights"))


class EnsembleKind(Kind):
    name = "ensemble"
    folder = "ensembles"
    has_workers = True

    def load(self, spec: PlayerSpec) -> EnsembleConfig:
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

    def build(self, spec: PlayerSpec, config: Config, events: Events) -> Player:
        from ensemble.player import EnsemblePlayer
        assert isinstance(config, EnsembleConfig)
        return EnsemblePlayer(config, on_event=events, name=spec.name)

    def settings(self, spec: PlayerSpec, config: Config) -> Settings:
        assert isinstance(config, EnsembleConfig)
        return config.player_settings()

    def default_name(self, config: Config) -> str:
        assert isinstance(config, EnsembleConfig)
        return f"ensemble {config.name} {config.notation}"

    def default_limit(self, config: Config) -> Limit:
        assert isinstance(config, EnsembleConfig)
        return config.budget.limit

    def from_entry(self, entry: Entry) -> PlayerSpec | None:
        selection = as_mapping(entry.src, entry.data.get("selection"), entry.path + ("selection",)) or {}
        if selection:
            params = dict(selection)
            try:
                check_params(str(params.pop("criterion", None)), params)
            except SelectionError as exc:
                entry.problem(str(exc), "selection")
                return None
        # In a match an ensemble's instances search in its game's process unless it is distributed.
        return PlayerSpec("ensemble", entry.name, str(entry.value), selection=dict(selection),
                          inline=not distributed(entry), workers=entry.workers)


class DecompositionKind(Kind):
    name = "decomposition"
    folder = "decomposition"
    has_workers = True

    def load(self, spec: PlayerSpec) -> DecompositionConfig:
        config = load_decomposition(spec.config)
        if spec.workers:
            config = config.with_workers(spec.workers)
        if spec.scheduler:
            config = replace(config, scheduler=spec.scheduler)
        return config

    def build(self, spec: PlayerSpec, config: Config, events: Events) -> Player:
        from players.decomposition.player import DecompositionPlayer
        assert isinstance(config, DecompositionConfig)
        return DecompositionPlayer(config, name=spec.name)

    def settings(self, spec: PlayerSpec, config: Config) -> Settings:
        assert isinstance(config, DecompositionConfig)
        return config.player_settings()

    def default_name(self, config: Config) -> str:
        assert isinstance(config, DecompositionConfig)
        return f"decomposition {config.name} ({config.algorithm}, {config.workers} workers)"

    def in_process(self, config: Config) -> bool:
        assert isinstance(config, DecompositionConfig)
        return config.in_process


class CascadeKind(Kind):
    name = "cascade"
    folder = "cascade"

    def load(self, spec: PlayerSpec) -> CascadeConfig:
        return load_cascade(spec.config)

    def build(self, spec: PlayerSpec, config: Config, events: Events) -> Player:
        from ensemble.cascade.player import CascadePlayer
        assert isinstance(config, CascadeConfig)
        return CascadePlayer(config, name=spec.name)

    def settings(self, spec: PlayerSpec, config: Config) -> Settings:
        assert isinstance(config, CascadeConfig)
        return config.player_settings()

    def default_name(self, config: Config) -> str:
        assert isinstance(config, CascadeConfig)
        return f"cascade {config.name}"

    def in_process(self, config: Config) -> bool:
        assert isinstance(config, CascadeConfig)
        return config.decomposition.in_process and config.ensemble.cluster.inline

    def default_limit(self, config: Config) -> Limit:
        assert isinstance(config, CascadeConfig)
        return config.ensemble.budget.limit

    def from_entry(self, entry: Entry) -> PlayerSpec | None:
        return PlayerSpec("cascade", entry.name, str(entry.value))


class EngineKind(Kind):
    """An external engine over UCI or XBoard, through python-chess."""

    def __init__(self, protocol: str, folder: str | None = None) -> None:
        self.protocol = protocol
        self.folder = folder  # type: ignore[misc] - one folder for both protocols, named by the first

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.protocol

    def build(self, spec: PlayerSpec, config: Config, events: Events) -> Player:
        from players.external import ExternalPlayer
        return ExternalPlayer(spec.name, spec.command, dict(spec.options), self.protocol, spec.timeout)

    def from_entry(self, entry: Entry) -> PlayerSpec | None:
        command = engine_command(entry.value)
        if command is None:
            entry.problem("expected the engine's command line, e.g. [gnuchess, --uci]")
            return None
        options = as_mapping(entry.src, entry.data.get("options"), entry.path + ("options",)) or {}
        return PlayerSpec(self.protocol, entry.name, command=command, options=dict(options), timeout=entry.timeout)


KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    InstanceKind(), EnsembleKind(), DecompositionKind(), CascadeKind(), EngineKind("uci", "engines"),
    EngineKind("xboard"))}
# A match entry names its player by one of these keys: a kind, ``full`` (the full engine) or
# ``player`` (any name or file the catalog knows).
ENTRY_KEYS = ("full", "instance", "ensemble", "uci", "xboard", "decomposition", "cascade", "player")


def engine_command(value: Any) -> tuple[str, ...] | None:
    """An engine's command line as a file gives it (a string or a list of words), or None."""
    command = value.split() if isinstance(value, str) else value
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        return None
    return tuple(command)


def distributed(entry: Entry) -> bool:
    return get_bool(entry.src, entry.data, entry.path + ("distributed",), False)


def abdada_team(spec: EvalSpec, threads: int, hash_mb: float) -> Any:
    """An instance on several threads of its process: ABDADA over one shared table."""
    from players.decomposition.team import TeamSearcher
    return TeamSearcher(spec, threads, hash_mb)
