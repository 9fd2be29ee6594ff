"""One recipe for a searcher: ``SearcherSpec.build`` searches the same tree as a Searcher built
by hand from the same knowledge, table and options, and the recipe carries every option."""
import pickle

from evaluation.spec import EvalSpec
from players.limits import Limit
from players.searcher import Searcher
from players.searcher_spec import SearcherSpec

MIDGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2NP1/PP2PPBP/R2Q1RK1 w - - 0 9"


def test_a_built_searcher_searches_the_tree_of_one_built_by_hand():
    spec = EvalSpec.parse("MBXP", {"M": 1.0, "B": 2.0, "X": 0.5, "P": 1.0})
    recipe = SearcherSpec.of(spec, 2, lmr=False, aspiration=50)
    assert recipe.eval_spec == spec
    built = recipe.build().search(MIDGAME, Limit(depth=6))
    by_hand = Searcher(spec, 2, lmr=False, aspiration=50).search(MIDGAME, Limit(depth=6))
    assert (built.bestmove, built.score_cp, built.nodes) == (by_hand.bestmove, by_hand.score_cp, by_hand.nodes)
    default = Searcher(spec, 2).search(MIDGAME, Limit(depth=6))
    assert default.nodes != built.nodes  # the options reached the search: without them, another tree


def test_the_recipe_travels_and_caps_the_depth():
    recipe = pickle.loads(pickle.dumps(SearcherSpec("MKP", 1, depth_cap=3)))
    result = recipe.build().search(MIDGAME, Limit(depth=8))
    assert result.depth == 3 and recipe.eval_spec.letters == "MKP"
