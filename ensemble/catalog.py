"""The catalog: every kind of player, from a name or a file, as one plain description
(:class:`PlayerSpec`) and one way to build it (:func:`build`).

Kinds (``ensemble.kinds``): ``instance`` (the searcher with a subset of the categories: a
mask such as ``MKP`` or ``76``; no name at all is the full engine), ``ensemble``,
``decomposition``, ``cascade``, and external engines over ``uci`` or ``xboard``.
:func:`describe` reads a name the way every command does: a mask is an instance; anything
else is a config found as ``base.config.find_config`` finds it (a path, the current
directory, the user's folders, the shipped ``configs/``), and its kind is what the file says
(``kind:``), else the ``configs/`` folder it sits in (``ensembles/``, ``decomposition/``,
``cascade/``, ``engines/``), else an ensemble, the player file ``concilio play`` and ``uci``
always read.  Nothing is guessed from the keys a file happens to have.

A spec is plain data (it travels to a match's Dask workers) and is checked when it is made:
a bad file is an error before any worker starts.  Describing and loading never load the
compiled engine; ``build`` makes the player, not started.  UCI, ``concilio play``, matches
and the Python API then use only the :class:`players.player.Player` protocol.  This module
sits with the ensembles because it builds players made of players; the players' layer below
cannot name them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from base.config import (ConfigError, ConfigNotFound, YamlSource, as_mapping, check_keys, find_config, get_int,
                         get_number, load_checked, load_yaml)
from evaluation.spec import CATEGORIES, EvalSpec, EvalSpecError
from players.limits import Limit
from players.player import Player, Settings, instance_name

from ensemble.kinds import (DEFAULT_MOVETIME_MS, ENTRY_KEYS, KINDS, Config, Entry, PlayerSpec, distributed,
                            engine_command)
from ensemble.selection import SelectionError

__all__ = ["DEFAULT_MOVETIME_MS", "KINDS", "PlayerSpec", "build", "default_limit", "describe", "entry", "file_kind",
           "in_process", "load", "settings"]

FOLDERS = {kind.folder: name for name, kind in KINDS.items() if kind.folder}
# Keys only another kind's file has: an ensemble file outside configs/ holding one is named with it.
KIND_HINTS = {"algorithm": ("a decomposition", "decomposition"), "command": ("an external engine", "uci"),
              "decomposition": ("a cascade", "cascade")}
CONFIG_KINDS = tuple(FOLDERS)  # where a player's name is looked up
INSTANCE_KEYS = {"kind", "name", "description", "mask", "weights"}
ENGINE_KEYS = {"kind", "name", "description", "command", "options", "timeout"}
ENTRY_COMMON_KEYS = {"name", "weights", "selection", "options", "timeout", "distributed", "workers", "time_control"}


def describe(target: str | Path | None = None, *, name: str | None = None) -> PlayerSpec:
    """The player a name or a file stands for (see the module's docstring), checked: a file
    that is not found, not valid, or of an unknown kind raises ``ConfigError`` naming the
    file, line and field; a bad mask ``EvalSpecError``."""
    text = "" if target is None else str(target).strip()
    if not text:
        return PlayerSpec("instance", name or instance_name(EvalSpec()), CATEGORIES)
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
    return replace(spec, name=name or KINDS[kind].default_name(config))


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
    return spec.of_kind.load(spec)


def build(spec: PlayerSpec, events: Callable[[str], None] | None = None) -> Player:
    """The player, not started (``start`` it, or use it as a context manager).  ``events``
    hears what happens outside a move (an ensemble's instance lost and rebuilt)."""
    return spec.of_kind.build(spec, load(spec), events)


def settings(spec: PlayerSpec) -> Settings:
    """The player's settings before it is built: what UCI lists as its options while the
    engine loads."""
    return spec.of_kind.settings(spec, load(spec))


def default_limit(spec: PlayerSpec) -> Limit:
    """A move's limit where the caller sets none: an ensemble's (and a cascade's) file budget,
    else ``DEFAULT_MOVETIME_MS``."""
    return spec.of_kind.default_limit(load(spec))


def in_process(spec: PlayerSpec) -> bool:
    """Whether the player runs inside its game's process (no cluster of its own): a match
    runs such games in parallel."""
    return spec.of_kind.in_process(load(spec))


def entry(src: YamlSource, data: dict, path: tuple, timeout: float = 10.0) -> PlayerSpec | None:
    """A match file's player entry (``{name: lc8, decomposition: lazy-cluster, workers: 8}``)
    as the catalog's spec, checked the way the catalog checks a player (its file loaded); None
    after naming every problem in ``src``."""
    check_keys(src, data, path, ENTRY_COMMON_KEYS | set(ENTRY_KEYS))
    keys = [k for k in ENTRY_KEYS if k in data]
    if len(keys) != 1:
        src.problem(path, f"give exactly one of {', '.join(ENTRY_KEYS)}")
        return None
    key = keys[0]
    name = str(data.get("name", data[key] if key in ("instance", "ensemble", "decomposition", "cascade", "player")
                        else key))
    workers = get_int(src, data, path + ("workers",), None, 1, 512)
    given = Entry(src, data, path, name, workers, timeout)
    if key == "player":
        spec = _named_entry(given)
    else:
        spec = KINDS["instance" if key == "full" else key].from_entry(given)
    if spec is None or spec.kind in ("instance", "uci", "xboard"):
        return spec
    try:
        load(spec)
    except (ConfigError, SelectionError) as exc:
        src.problem(path + (key,), "; ".join(getattr(exc, "problems", [str(exc)])))
        return None
    return spec


# --- internals --------------------------------------------------------------------------------

def _named_entry(given: Entry) -> PlayerSpec | None:
    """``player: NAME``: any player the catalog knows, with the entry's workers."""
    try:
        spec = describe(str(given.value), name=given.name)
    except (ConfigError, EvalSpecError) as exc:
        given.problem("; ".join(getattr(exc, "problems", [str(exc)])))
        return None
    if spec.kind == "ensemble":  # in a match, an ensemble's instances search in its game's process
        spec = replace(spec, inline=not distributed(given))
    if given.workers is None:
        return spec
    if not spec.of_kind.has_workers:
        given.problem(f"{spec.name} is an {spec.kind}: only ensembles and decomposition players have workers",
                      "workers")
        return None
    return replace(spec, workers=given.workers)


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
        command = engine_command(data.get("command"))
        if command is None:
            src.problem(("command",), "expected the engine's command line, e.g. [gnuchess, --uci]")
            return None
        options = as_mapping(src, data.get("options"), ("options",)) or {}
        timeout = get_number(src, data, ("timeout",), 10.0, low=0.1)
        return PlayerSpec(kind, name or str(data.get("name", path.stem)), None, command=command,
                          options=dict(options), timeout=timeout)
    return load_checked(path, None, "engines", parse)
