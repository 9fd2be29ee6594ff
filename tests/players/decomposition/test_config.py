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
                                       "speculative": True, "margin": 40}
