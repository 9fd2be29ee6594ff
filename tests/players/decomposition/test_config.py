"""Decomposition files: every problem is named with file, line and field."""

import subprocess
import sys
from pathlib import Path

import pytest

from players.decomposition.config import load_decomposition
from players.decomposition.options import MasterTreeConfig, RootPolicyConfig
from players.decomposition.runner import open_runner


def test_bad_decomposition_files_are_named():
    from base.config import ConfigError
    with pytest.raises(ConfigError, match="unknown algorithm 'dts'"):
        load_decomposition(text="algorithm: dts\n")
    with pytest.raises(ConfigError, match="abdada defers moves through a shared table"):
        load_decomposition(text="algorithm: abdada\n")
    assert load_decomposition(text="algorithm: abdada\nshared_table: true\n").search.defer
    with pytest.raises(ConfigError, match="threads.*local cluster"):
        load_decomposition(text="algorithm: abdada\nshared_table: true\nthreads: true\n"
                                "cluster: {scheduler: 'tcp://10.0.0.1:8786'}\n")
    assert load_decomposition("abdada").threads and not load_decomposition(text="algorithm: lazy_smp\n").threads
    with pytest.raises(ValueError, match="local cluster"):
        open_runner(2, "tcp://10.0.0.1:8786", threads=True)
    with pytest.raises(ConfigError, match="search.mask"):
        load_decomposition(text="algorithm: pv_split\nsearch: {mask: MQ}\n")
    with pytest.raises(ConfigError, match="speculative.*only root_split"):
        load_decomposition(text="algorithm: pv_split\nspeculative: true\n")
    with pytest.raises(ConfigError, match="margin"):
        load_decomposition(text="algorithm: root_split\nspeculative: true\nmargin: -5\n")
    config = load_decomposition(text="algorithm: root_split\nspeculative: true\nmargin: 40\nnull_window: false\n")
    assert config.master_options() == {"score_sharing": True, "min_split_depth": 5, "null_window": False,
                                       "speculative": True, "margin": 40, "whole_budget": False}


def test_ybw_files():
    """ybw's split points live in one process's memory: several workers must be its threads;
    without a min_split_depth it follows Stockfish's rule (0 here, resolved by thread count)."""
    from base.config import ConfigError
    from players.decomposition.ybw import ybw_min_split
    with pytest.raises(ConfigError, match="ybw's split points.*threads: true"):
        load_decomposition(text="algorithm: ybw\nworkers: 2\n")
    assert load_decomposition(text="algorithm: ybw\nworkers: 1\n").min_split_depth == 0
    config = load_decomposition(text="algorithm: ybw\nworkers: 8\nthreads: true\n")
    assert ybw_min_split(config.min_split_depth, 8) == 7 and ybw_min_split(config.min_split_depth, 2) == 4
    shipped = load_decomposition("ybw")
    assert (shipped.algorithm, shipped.workers, shipped.min_split_depth, shipped.threads, shipped.shared_table) == \
        ("ybw", 2, 4, True, True)
    assert not shipped.search.defer


ROOT = Path(__file__).resolve().parents[3]
SHIPPED = sorted((ROOT / "configs" / "decomposition").glob("*.yaml"))


def test_reading_every_shipped_file_loads_no_engine():
    """A decomposition file is read without the compiled search: on an empty numba cache its
    first import compiles for a minute, and ``concilio uci`` must say ``uciok`` at once.  The
    player's module is as light: the search loads when a player is built.  (A speedup file's
    variants are decomposition mappings too, with the file's search options.)"""
    probe = ("import sys\n"
             "import yaml\n"
             "from players.decomposition.config import load_decomposition\n"
             "import players.decomposition.player\n"
             "read = 0\n"
             f"for path in {[str(p) for p in SHIPPED]!r}:\n"
             "    data = yaml.safe_load(open(path))\n"
             "    if 'algorithms' not in data:\n"
             "        load_decomposition(path); read += 1\n"
             "        continue\n"
             "    for item in data['algorithms']:\n"
             "        fields = {k: v for k, v in item.items() if k != 'name'}\n"
             "        load_decomposition(text=yaml.safe_dump({**fields, 'search': data.get('search') or {}})); read += 1\n"
             "print(read, [m for m in sys.modules if m.startswith('players.core') or m == 'players.searcher'])\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    read, loaded = done.stdout.split(" ", 1)
    assert int(read) > len(SHIPPED) and loaded.strip() == "[]", done.stdout


def test_every_algorithm_is_a_row_whose_entry_points_exist():
    """The registry names each algorithm once, in the order files list them; a row that runs on
    a team names both its team and its run, and both import."""
    from players.decomposition import registry
    assert registry.ALGORITHMS == ("root_split", "peer", "pv_split", "dynamic_split", "lazy_smp", "abdada", "ybw",
                                   "aspiration", "lazy_cluster", "master_tree", "tree_split", "mandatory_first",
                                   "uidpabs", "mixed", "fresh_cluster")
    assert registry.names(lambda r: issubclass(r.options, MasterTreeConfig)) == ("master_tree", "tree_split",
                                                                                  "mandatory_first")
    assert registry.names(lambda r: issubclass(r.options, RootPolicyConfig)) == ("uidpabs", "mixed")
    for row in registry.ROWS:
        assert (row.team is None) == (row.run is None), row.name
        assert all(callable(entry.load()) for entry in (row.team, row.run) if entry is not None), row.name
        assert set(row.searchmoves) <= set(row.clocks) and row.shared_memory in ("never", "optional", "required",
                                                                                 "threads"), row.name
    with pytest.raises(KeyError):
        registry.row("dts")


def test_the_rows_answer_what_other_layers_ask():
    """The cascade's phase 2 needs a root restricted on the wall clock over one shared table;
    the speedup's node clock runs one wall-clock master as it is (parallel aspiration)."""
    from players.decomposition import registry
    over_table = lambda shared: registry.names(lambda r: registry.WALL in r.searchmoves and r.shares_table(shared))
    assert (over_table(False), over_table(True)) == (("abdada",), ("lazy_smp", "abdada"))
    assert registry.names(lambda r: r.node_master) == ("aspiration",)
    assert all(registry.NODE in r.clocks for r in registry.ROWS if r.node_master)


@pytest.mark.parametrize("text, clock, team", [
    ("algorithm: pv_split", "wall", False), ("algorithm: pv_split\nnode_clock: true", "node", True),
    ("algorithm: aspiration", "wall", False), ("algorithm: lazy_cluster", "node", True),
    ("algorithm: mixed", "node", True), ("algorithm: fresh_cluster", "node", True),
    ("algorithm: fresh_cluster\nrealtime: true", "wall", True)])
def test_the_options_say_what_runs_a_file(text, clock, team):
    """No options of its own: the wall clock's master; options: the row's team."""
    config = load_decomposition(text=text + "\n")
    assert config.clock == clock and (config.options is not None) == team
