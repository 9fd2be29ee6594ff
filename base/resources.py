"""Where Concilio's own files are: the configs and data sets it ships, and the user's
folders for configs and the numba cache.

A wheel installs ``configs/`` and ``data/`` inside the ``concilio`` package; a clone
(and an editable install) keeps them at the repository root.  Nothing here reads
outside those two places and the user's own folders, so a clone works with nothing
beside it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

# A wheel puts configs/ and data/ inside the concilio package (pyproject package-dir), which sits
# beside base/ in site-packages as it does at the root of a checkout.
ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "concilio"
DATA_PREFIX = "data:"
CONFIG_PATH_ENV = "CONCILIO_CONFIG_PATH"
COMPILED_SEARCH = "*/search.*.nbi"  # numba's index of players/core/search.py, in the cache folder's players_core/
COLD_NOTICE_ENV = "CONCILIO_COMPILE_NOTICE"  # set once the notice is out: worker processes stay quiet


def packaged(folder: str) -> Path:
    """``configs`` or ``data`` as shipped: inside the installed package, else the checkout's."""
    inside = PACKAGE / folder
    return inside if inside.is_dir() else ROOT / folder


def data_file(relative: str | Path) -> Path:
    """A packaged data set, e.g. ``data_file("suites/wac.epd")``."""
    return packaged("data") / relative


def user_config_dirs() -> list[Path]:
    """The user's config folders, searched before the packaged ones: every folder in
    ``$CONCILIO_CONFIG_PATH`` (separated like ``PATH``), then ``~/.config/concilio``."""
    listed = [Path(p).expanduser() for p in os.environ.get(CONFIG_PATH_ENV, "").split(os.pathsep) if p]
    from platformdirs import user_config_dir
    return listed + [Path(user_config_dir("concilio", appauthor=False))]


def user_cache_dir() -> Path:
    from platformdirs import user_cache_dir as cache_dir
    return Path(cache_dir("concilio", appauthor=False))


def resolve_data_reference(text: str, folder: Path) -> Path | None:
    """A file named inside a config: ``data:suites/wac.epd`` is a packaged data set; any
    other path is taken relative to the config's own folder, then to the current
    directory.  None when it exists nowhere."""
    if text.startswith(DATA_PREFIX):
        path = data_file(text[len(DATA_PREFIX):].lstrip("/"))
        return path if path.exists() else None
    path = Path(text).expanduser()
    candidates = [path] if path.is_absolute() else [folder / path, Path.cwd() / path]
    return next((p for p in candidates if p.exists()), None)


def use_user_numba_cache() -> Path:
    """Point numba's cache at the user's cache folder (or ``NUMBA_CACHE_DIR``), in a
    subfolder named by the engine's fingerprint (``base.fingerprint``).

    Numba writes its cache beside the source files by default: inside site-packages
    for an installed Concilio, where ``pip uninstall`` leaves the folders behind and a
    later editable install is shadowed by them.  Called by every package that holds
    jitted code, before the first ``@njit``; the environment variable also reaches
    the Dask worker processes this process starts.
    """
    from base.fingerprint import engine_fingerprint
    base = Path(os.environ.get("NUMBA_CACHE_DIR") or user_cache_dir() / "numba")
    # One folder per engine: numba would reuse code compiled against old tables.  A child
    # process inherits the folder; it keeps it when it runs the same engine.
    own = f"engine-{engine_fingerprint()}"
    folder = str(base if base.name == own else base / own)
    os.environ["NUMBA_CACHE_DIR"] = folder
    # numba reads the variable when it is imported; importing it here would cost every command
    # (``concilio uci``'s first answer among them) half a second.
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = folder
    announce_cold_compile(Path(folder))
    return Path(folder)


def compiled(folder: Path) -> bool:
    """Whether the numba cache ``folder`` holds the compiled search (its index files), so that
    importing the engine loads code rather than compiling it for about a minute."""
    return any(folder.glob(COMPILED_SEARCH))


def announce_cold_compile(folder: Path) -> None:
    """One line on standard error before an empty cache is filled, once per process tree (a
    child inherits the notice): a first run is otherwise a minute of silence."""
    if os.environ.get(COLD_NOTICE_ENV) or compiled(folder):
        return
    os.environ[COLD_NOTICE_ENV] = "1"
    print(f"concilio: compiling the engine, about a minute, once (numba cache {folder})", file=sys.stderr,
          flush=True)


_CODE_ROOT = Path(__file__).resolve().parent.parent  # the folder holding the code packages (a checkout, site-packages)


def share_numba_cache() -> None:
    """Key numba's cache by each file's place among the packages (``players/core``), not by the
    absolute path of the checkout or environment that holds it.  Numba checks a cached
    function against its file's content (a hash) anyway; keyed by path, every fresh clone, CI
    run or new virtual environment compiled the engine again (a minute and a half), beside a
    cache that held the same code.  Called by the packages with jitted code before their first
    ``@njit``; a numba whose internals moved keeps its own keys."""
    try:
        from numba.core import caching
        base_locator = caching.UserProvidedCacheLocator
        locators = caching.CacheImpl._locator_classes
    except (ImportError, AttributeError):
        return
    if any(getattr(k, "concilio", False) for k in locators):
        return

    class PackageLocator(base_locator):  # type: ignore[misc, valid-type]
        concilio = True

        @classmethod
        def get_suitable_cache_subpath(cls, py_file: str) -> str:
            return "_".join(Path(py_file).resolve().parent.relative_to(_CODE_ROOT).parts)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(py_file).resolve().is_relative_to(_CODE_ROOT):
                return None  # someone else's jitted code: numba's own keys
            return super().from_function(py_func, py_file)

    locators.insert(0, PackageLocator)
