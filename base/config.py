"""Config files for every command: the name lookup, and YAML read with ``safe_load``
semantics plus the line of every field, so that a validation message can say
``configs/x.yaml:12: selection.weights: ...``.

A name (``quick``, ``3b``, ``abdada``) is looked up in this order: a path as given;
the current directory; the user's folders (``$CONCILIO_CONFIG_PATH``, then
``~/.config/concilio``), directly or in the kind's subfolder; the configs shipped with
the package.  The first file found wins, so a user's ``3b.yaml`` overrides the shipped one.

PyYAML's safe loader keeps no positions; composing the same text into nodes (no
object construction) gives them.  Duplicate keys, which ``safe_load`` silently
resolves to the last one, are reported as problems.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from base.errors import ConcilioError
from base.resources import packaged, user_config_dirs

FieldPath = tuple[object, ...]
KINDS = ("ensembles", "tournaments", "suites", "decomposition", "tuning", "cascade", "engines", "scaling")


class ConfigError(ConcilioError, ValueError):
    """Every problem found in a configuration file, one per line of the message."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class ConfigNotFound(ConfigError):
    """A config name that resolves nowhere; the message lists every place looked at."""


def load_checked(path: str | Path | None, text: str | None, kind: str, parse) -> Any:
    """Find (``path`` may be a name of ``kind``), read and validate a config file:
    ``parse(src, folder, given)`` builds it and reports problems on ``src``; every problem
    is raised at once, each with its file, line and field."""
    given = str(path) if path is not None else "<text>"
    if path is not None and text is None:
        path = find_config(path, kind)
    src = load_yaml(path, text)
    config = parse(src, Path(path).resolve().parent if path is not None else Path.cwd(), given)
    if src.problems:
        raise ConfigError(src.problems)
    assert config is not None
    return config


def config_candidates(name: str | Path, kinds: tuple[str, ...]) -> list[Path]:
    """Every file a config name may stand for, in lookup order."""
    given = Path(name).expanduser()
    files = [given.name] if given.suffix in (".yaml", ".yml") else [f"{given.name}.yaml", f"{given.name}.yml"]
    out = [given]
    if given.parent != Path("."):  # a path with folders: only that path, with or without .yaml
        return out + ([] if given.suffix else [given.with_name(f) for f in files])
    out += [Path.cwd() / f for f in files]
    for folder in user_config_dirs():
        out += [folder / f for f in files] + [folder / kind / f for kind in kinds for f in files]
    out += [packaged("configs") / kind / f for kind in kinds for f in files]
    return list(dict.fromkeys(out))


def find_config(name: str | Path, *kinds: str) -> Path:
    """The file a config name stands for (see the module's docstring); ``kinds`` are the
    subfolders of ``configs/`` that hold this command's files, e.g. ``"tournaments"``."""
    unknown = [k for k in kinds if k not in KINDS]
    assert not unknown, f"unknown config kinds {unknown}"
    candidates = config_candidates(name, kinds)
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        raise ConfigNotFound([f"{name}: no such config; looked for"] + [f"  {p}" for p in candidates]
                             + ["the shipped ones, by kind:"] + [f"  {kind}: {', '.join(names)}"
                                                                 for kind, names in shipped_names(kinds).items()])
    return found


def shipped_names(kinds: tuple[str, ...]) -> dict[str, list[str]]:
    """The names of the configs shipped with the package, by kind (a kind with none left out):
    what a user may give without a file of their own."""
    found = {kind: sorted({p.stem for p in (packaged("configs") / kind).glob("*.y*ml")}) for kind in kinds}
    return {kind: names for kind, names in found.items() if names}


@dataclass
class YamlSource:
    """Parsed data plus where each field path sits in the file."""

    name: str
    data: Any
    lines: dict[FieldPath, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def line(self, path: FieldPath) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), None)

    def problem(self, path: FieldPath, message: str) -> None:
        line = self.line(path)
        where = f"{self.name}:{line}" if line else self.name
        dotted = format_path(path)
        self.problems.append(f"{where}: {dotted + ': ' if dotted else ''}{message}")


@dataclass
class Located:
    """A part of a YAML file (the mapping at ``prefix``) validated on its own: its problems
    are reported at their place in the whole file (``speedup.yaml:12: algorithms[2].algorithm``)."""

    source: YamlSource
    prefix: FieldPath

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def problems(self) -> list[str]:
        return self.source.problems

    def line(self, path: FieldPath) -> int | None:
        return self.source.line(self.prefix + path)

    def problem(self, path: FieldPath, message: str) -> None:
        self.source.problem(self.prefix + path, message)


def format_path(path: FieldPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def load_yaml(path: str | Path | None = None, text: str | None = None) -> YamlSource:
    """Read a YAML file (or text); syntax errors raise ``ConfigError`` with line and column."""
    name = str(path) if path is not None else "<text>"
    if text is None:
        try:
            text = Path(path).read_text()  # type: ignore[arg-type]
        except OSError as exc:
            raise ConfigError([f"{name}: cannot read: {exc.strerror or exc}"]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        reason = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{where}: YAML syntax error: {reason}"]) from None
    source = YamlSource(name, data)
    if node is not None:
        _index(node, (), source)
    return source


def _index(node: yaml.Node, path: FieldPath, source: YamlSource) -> None:
    source.lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[object] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            child = path + (key,)
            if key in seen:
                source.lines[child] = key_node.start_mark.line + 1
                source.problem(child, "duplicate key (YAML would silently keep the last one)")
            seen.add(key)
            source.lines[child] = key_node.start_mark.line + 1
            _index(value_node, child, source)
            source.lines[child] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, path + (i,), source)


# --- field checks shared by every config schema ------------------------------------------------

def check_kind(src: YamlSource, data: dict, expected: str) -> None:
    """A player file may say what it is (``kind: ensemble``); one read as another kind is
    named with its line, rather than failing on keys that the other kind lacks."""
    kind = data.get("kind", expected)
    if kind != expected:
        src.problem(("kind",), f"this file is a {kind!r} player, read here as {expected!r}")

def check_keys(src: YamlSource, mapping: dict, path: FieldPath, allowed: set[str]) -> None:
    for key in mapping:
        if key not in allowed:
            src.problem(path + (key,), f"unknown key; expected one of {', '.join(sorted(allowed))}")


def as_mapping(src: YamlSource, value: Any, path: FieldPath) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        src.problem(path, f"expected a mapping, got {type(value).__name__} {value!r}")
        return None
    return value


def get_bool(src: YamlSource, data: dict, path: FieldPath, default: bool) -> bool:
    value = data.get(path[-1], default)
    if not isinstance(value, bool):
        src.problem(path, f"expected true or false, got {value!r}")
        return default
    return value


def get_int(src: YamlSource, data: dict, path: FieldPath, default: int | None, low: int = 1,
         high: int | None = None) -> int | None:
    key = path[-1]
    if key not in data or data[key] is None:
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        src.problem(path, f"expected an integer, got {value!r}")
        return default
    if value < low or (high is not None and value > high):
        src.problem(path, f"{value} is out of range ({low}..{high if high is not None else ''})")
        return default
    return value


def get_number(src: YamlSource, data: dict, path: FieldPath, default: float, low: float = 0) -> float:
    key = path[-1]
    if key not in data:
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
        src.problem(path, f"expected a number >= {low}, got {value!r}")
        return default
    return float(value)
