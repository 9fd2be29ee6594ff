"""The search's state record (``players.core.context``): what a new one holds, that its fields
are views of it, and a clear error for evaluation parameters of the wrong shape."""
import numpy as np
import pytest

from evaluation.params import DEFAULT_PARAMS
from players.core.context import (
    C_OPTS,
    C_PARAMS,
    C_STATS,
    C_WEIGHTS,
    O_EXACT,
    O_FUTILITY,
    O_LMR,
    O_MASK,
    O_NULL_MOVE,
    S_NODES,
    new_context,
)


def test_a_new_record_holds_the_instance_s_mask_weights_options_and_parameters():
    weights = np.array([1.0, 2.0, 0.5, 1.0, 1.0, 0.0, 1.5])
    params = DEFAULT_PARAMS + 1
    ctx = new_context(0b1011001, weights, null_move=False, lmr=True, futility=False, params=params, exact=True)
    opts = ctx[C_OPTS]
    assert (opts[O_MASK], opts[O_NULL_MOVE], opts[O_LMR], opts[O_FUTILITY], opts[O_EXACT]) == (0b1011001, 0, 1, 0, 1)
    assert np.array_equal(ctx[C_WEIGHTS], weights)
    assert np.array_equal(ctx[C_PARAMS], params)
    assert not ctx[C_STATS].any()
    assert np.array_equal(new_context(127, np.ones(7))[C_PARAMS], DEFAULT_PARAMS)


def test_fields_are_views_of_the_record():
    """The search reads and writes through ``ctx[field]``: a copy would lose its counts."""
    ctx = new_context(127, np.ones(7))
    stats = ctx[C_STATS]
    stats[S_NODES] = 12345
    assert ctx[C_STATS][S_NODES] == 12345


def test_parameters_of_the_wrong_shape_are_refused_by_name():
    with pytest.raises(ValueError, match=r"evaluation parameters must have shape"):
        new_context(127, np.ones(7), params=np.zeros(3, np.int64))
