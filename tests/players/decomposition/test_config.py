"""Decomposition files: every problem is named with file, line and field."""

import pytest

from players.decomposition.config import load_decomposition
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
