"""The scalar term values: one row per term, and the index names the jitted evaluation reads
them by point at the rows of those names."""
import numpy as np

from evaluation import params
from evaluation.spec import CATEGORIES


def test_every_index_name_points_at_the_row_of_its_term():
    assert params.N_PARAMS == len(params.TERMS) == len(params.PARAM_NAMES) == len(params.DEFAULT_PARAMS)
    for i, name in enumerate(params.PARAM_NAMES):
        assert getattr(params, name.upper()) == i, name
    assert len(set(params.PARAM_NAMES)) == params.N_PARAMS


def test_the_values_are_the_terms_middlegame_and_endgame_pairs():
    assert params.DEFAULT_PARAMS.dtype == np.int64 and params.DEFAULT_PARAMS.shape == (params.N_PARAMS, 2)
    for i, (name, category, mg, eg) in enumerate(params.TERMS):
        assert category in CATEGORIES and tuple(params.DEFAULT_PARAMS[i]) == (mg, eg), name
    pawn, queen = params.DEFAULT_PARAMS[params.PAWN_VALUE], params.DEFAULT_PARAMS[params.QUEEN_VALUE]
    assert (queen > 8 * pawn).all()  # a queen is worth more than the pawns that could promote to it
