"""The score-based criteria's evidence: every instance's view of the root and of each
ballot's PV end, from the root side, with a PV that cannot be replayed cut where it breaks."""
import chess

from ensemble.ballot import Ballot
from ensemble.evidence import evidence_from_terms, gather_evidence, pv_end
from evaluation.spec import EvalSpec
from players.result import MATE_CP, SearchResult
from players.trace import PositionTerms, position_terms

# Black to move can take White's undefended queen on d4 with the knight.
HANGING_QUEEN = "r1bqkb1r/pppp1ppp/2n2n2/8/3Q4/8/PPP2PPP/RNB1KBNR b KQkq - 0 5"


def test_a_pv_is_replayed_up_to_its_first_move_that_cannot_be_played():
    root = chess.Board()
    assert pv_end(root, ["e2e4", "e7e5", "g1f3"]).fen() == \
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert pv_end(root, ["e2e4", "e2e4", "g1f3"]) == pv_end(root, ["e2e4"])  # illegal second move
    assert pv_end(root, ["e2e4", "zz", "e7e5"]) == pv_end(root, ["e2e4"])  # not a move at all
    assert root.fen() == chess.STARTING_FEN and not root.move_stack  # the root is left as it was


def test_values_follow_each_instance_s_mask_and_weights_from_the_root_side():
    root, leaf = PositionTerms((100, 20, 0, 0, -10, 0, 0)), PositionTerms((-300, 20, 0, 0, -10, 0, 0))
    specs = [EvalSpec.parse("M"), EvalSpec.parse("MP", [2, 1, 1, 1, 1, 1, 1]), EvalSpec.parse("BP")]
    black = evidence_from_terms(root, [leaf, PositionTerms((0,) * 7, 1)], specs, chess.BLACK)
    assert black.root_eval == (-100, -190, -10)  # White's nets, seen by Black
    assert black.leaf_eval == ((300, 610, -10), (-MATE_CP,) * 3)  # the second PV ends in White's mate
    assert black.root_nets == root.nets and black.leaf_nets == (leaf.nets, (0,) * 7)


def test_taking_a_hanging_queen_is_a_gain_only_for_instances_that_count_material():
    root = chess.Board(HANGING_QUEEN)
    take = SearchResult("c6d4", 0, None, ("c6d4",), 1, 1, 1, 1, 1, 0.0)
    quiet = SearchResult("a7a6", 0, None, ("a7a6",), 1, 1, 1, 1, 1, 0.0)
    ballots = [Ballot("(M)", EvalSpec.parse("M"), take), Ballot("(BX)", EvalSpec.parse("BX"), quiet)]
    evidence = gather_evidence(root, ballots)
    assert evidence.root_nets == position_terms(root).nets
    m_gain = evidence.leaf_eval[0][0] - evidence.root_eval[0]  # (M) on its own PV
    assert 900 < m_gain < 1300  # about a queen, for Black
    assert evidence.leaf_eval[1][0] == evidence.root_eval[0]  # a quiet move changes no material
