"""Model files that selection criteria name (``model: FILE``), read once per process: the
criterion runs on every move, the file does not change under it."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from base.resources import resolve_data_reference

T = TypeVar("T")
_LOADED: dict[tuple[str, str], object] = {}


def cached_model(name: object, criterion: str, command: str, load: Callable[[Path], T]) -> T:
    """The model ``name`` stands for (a path, or ``data:models/...``), loaded by ``load`` the
    first time; ``ValueError`` names the criterion and the ``concilio`` command that writes one
    when there is no such file."""
    if not isinstance(name, (str, Path)) or not str(name):
        raise ValueError(f"{criterion}: no model (give model: FILE; {command} writes one)")
    found = resolve_data_reference(str(name), Path.cwd())
    if found is None:
        raise ValueError(f"{criterion}: no such model file: {name}")
    key = (criterion, str(Path(found).resolve()))
    if key not in _LOADED:
        _LOADED[key] = load(found)
    return _LOADED[key]  # type: ignore[return-value]
