"""Selection criteria on hand-built vote sets whose right answer is worked out by hand."""
import math

import pytest

from ensemble.ballot import Ballot, Evidence, SelectionInput
from ensemble.selection import CRITERIA, SelectionError, select
from evaluation.spec import EvalSpec
from players.result import IterationInfo, SearchResult


def result(move, score=0, depth=8, n=0, iterations=(), second=None, mate=None, pv=None):
    return SearchResult(move, score, mate, tuple(pv or (move,)), depth, n, 30, depth, 1000, 0.1,
                        tuple(iterations), "", second)


def ballot(letters, move, **kw):
    return Ballot(f"({letters})", EvalSpec.parse(letters), result(move, **kw))


def run(name, ballots, evidence=Evidence(), search=None, key="pos", **params):
    return select(name, SelectionInput(tuple(ballots), evidence, search, key), **params)


def test_every_criterion_is_registered():
    assert set(CRITERIA) == {"majority", "weighted_majority", "depth_confidence", "local_minimax",
                             "global_minimax", "posterior", "posterior_simplified", "deepest",
                             "priority_sets", "score_weighted", "confidence", "optimistic", "thread_vote",
                             "learned", "dynamic", "calibrated_vote", "two_stage", "routed"}


# --- majority ---------------------------------------------------------------------------------

def test_majority_plays_the_most_voted_move():
    s = run("majority", [ballot("MB", "e2e4"), ballot("MX", "d2d4"), ballot("MK", "e2e4")])
    assert s.move == "e2e4" and s.values == {"e2e4": 2, "d2d4": 1} and s.tie_break is None


def test_majority_tie_is_a_seeded_draw():
    votes = [ballot("MB", "e2e4"), ballot("MX", "d2d4")]
    picks = {run("majority", votes, key="p", seed=s).move for s in range(20)}
    assert picks == {"e2e4", "d2d4"}  # both possible ...
    again = [run("majority", votes, key="p", seed=5).move for _ in range(5)]
    assert len(set(again)) == 1  # ... and reproducible for one seed and position
    assert run("majority", votes, key="p", seed=5).tie_break == "draw"


def test_single_voter_wins_every_criterion_without_evidence():
    one = [ballot("MB", "g1f3", depth=3)]
    for name in ("majority", "weighted_majority", "depth_confidence", "deepest", "confidence"):
        assert run(name, one).move == "g1f3"


def test_no_ballots_is_an_error():
    with pytest.raises(SelectionError, match="no ballots"):
        run("majority", [])


# --- weighted majority --------------------------------------------------------------------------

def test_generalised_weights_let_one_material_heavy_voter_beat_two_light_ones():
    # (MB): mean(30, 21) = 25.5; (MAR) twice: mean(30, 3, 1) = 11.33 each = 22.67.
    votes = [ballot("MB", "e2e4"), ballot("MAR", "d2d4"), ballot("MAR", "d2d4")]
    s = run("weighted_majority", votes, weights="generalised")
    assert s.move == "e2e4"
    assert s.values["e2e4"] == pytest.approx(25.5)
    assert s.values["d2d4"] == pytest.approx(2 * 34 / 3)


def test_simple_weights_are_majority_with_a_weighted_tie_break():
    votes = [ballot("MB", "e2e4"), ballot("MAR", "d2d4"), ballot("MAR", "d2d4")]
    assert run("weighted_majority", votes, weights="simple").move == "d2d4"  # 2 votes beat 1
    tie = [ballot("MB", "e2e4"), ballot("MR", "d2d4")]  # 125.5 against 115.5
    s = run("weighted_majority", tie, weights="simple")
    assert s.move == "e2e4" and s.values == {"e2e4": 125.5, "d2d4": 115.5}


def test_custom_weights_need_all_seven():
    with pytest.raises(SelectionError, match="weight for X"):
        run("weighted_majority", [ballot("MB", "e2e4")], weights={"M": 1, "B": 2})


# --- depth confidence and deepest ---------------------------------------------------------------

def test_depth_confidence_resolves_a_vote_tie_by_depth_then_root_moves():
    votes = [ballot("MB", "e2e4", depth=9, n=3), ballot("MX", "d2d4", depth=9, n=12)]
    s = run("depth_confidence", votes)
    assert s.values == {"e2e4": 903, "d2d4": 912} and s.move == "d2d4"
    # Two shallow votes still beat one deep vote: 2 * (100*7) > 100*10.
    votes = [ballot("MB", "e2e4", depth=7), ballot("MK", "e2e4", depth=7), ballot("MX", "d2d4", depth=10, n=20)]
    assert run("depth_confidence", votes).move == "e2e4"
    assert run("depth_confidence", votes, c=1000).move == "e2e4"


def test_deepest_counts_only_the_deepest_instances():
    votes = [ballot("MB", "e2e4", depth=7), ballot("MK", "e2e4", depth=7), ballot("MX", "d2d4", depth=10)]
    s = run("deepest", votes)
    assert s.move == "d2d4" and s.values["e2e4"] == -math.inf and s.values["d2d4"] == 1


# --- local and global minimax -------------------------------------------------------------------

def two_voter_evidence():
    # Root evaluations f_0(P) = 10, f_1(P) = -20.  Voter 0 (e2e4) reaches a leaf it scores
    # +110 and voter 1 scores -220; voter 1 (d2d4) reaches a leaf both score +40.
    return Evidence(root_eval=(10, -20), leaf_eval=((110, -220), (40, 40)))


def test_local_minimax_trusts_each_voter_on_its_own_evaluation():
    votes = [ballot("MB", "e2e4"), ballot("MX", "d2d4")]
    s = run("local_minimax", votes, two_voter_evidence())
    assert s.values == {"e2e4": 100, "d2d4": 60} and s.move == "e2e4"


def test_global_minimax_exposes_a_move_ruinous_on_another_axis():
    votes = [ballot("MB", "e2e4"), ballot("MX", "d2d4")]
    s = run("global_minimax", votes, two_voter_evidence())
    # e2e4: (110-10) + (-220+20) = -100; d2d4: (40-10) + (40+20) = 90.
    assert s.values == {"e2e4": -100, "d2d4": 90} and s.move == "d2d4"


def test_minimax_criteria_refuse_missing_evidence():
    with pytest.raises(SelectionError, match="evaluations"):
        run("local_minimax", [ballot("MB", "e2e4")])


# --- posterior search ---------------------------------------------------------------------------

def fake_search(scores):
    calls = []

    def search(moves, depth):
        calls.append((tuple(moves), depth))
        return {m: scores[m] for m in moves}
    return search, calls


def test_posterior_general_searches_every_candidate():
    search, calls = fake_search({"e2e4": 15, "d2d4": 40, "g1f3": 5})
    votes = [ballot("MB", "e2e4"), ballot("MK", "e2e4"), ballot("MX", "d2d4"), ballot("MP", "g1f3")]
    s = run("posterior", votes, search=search)
    assert s.move == "d2d4" and calls == [(("e2e4", "d2d4", "g1f3"), 3)]


def test_posterior_simplified_searches_only_the_most_voted():
    search, calls = fake_search({"e2e4": 15, "d2d4": 40, "g1f3": 5, "c2c4": 30})
    votes = [ballot("MB", "e2e4"), ballot("MK", "e2e4"), ballot("MX", "c2c4"), ballot("MA", "c2c4"),
             ballot("MP", "d2d4")]
    s = run("posterior_simplified", votes, search=search, depth=4)
    assert calls == [(("e2e4", "c2c4"), 4)]
    assert s.move == "c2c4" and s.values["d2d4"] == -math.inf


# --- priority sets ------------------------------------------------------------------------------

def test_priority_sets_high_group_decides_low_group_breaks_ties():
    votes = [ballot("MBXKPAR", "e2e4"), ballot("MBXKPA", "d2d4"), ballot("MB", "d2d4"), ballot("MX", "d2d4"),
             ballot("MK", "c2c4")]
    high = ["MBXKPAR", "(MBXKPA)"]
    s = run("priority_sets", votes, high=high)
    assert s.move == "d2d4"  # high tie 1-1; the low group has d2d4 twice
    assert s.values["c2c4"] == -math.inf
    votes[2] = ballot("MB", "e2e4")
    votes[3] = ballot("MX", "e2e4")
    assert run("priority_sets", votes, high=high).move == "e2e4"
    # Three low votes cannot overturn the high group's majority.
    votes = [ballot("MBXKPAR", "e2e4"), ballot("MB", "d2d4"), ballot("MX", "d2d4"), ballot("MK", "d2d4")]
    assert run("priority_sets", votes, high=["MBXKPAR"]).move == "e2e4"


def test_priority_sets_without_a_high_voter_fall_back_to_the_others():
    votes = [ballot("MB", "d2d4"), ballot("MX", "d2d4"), ballot("MK", "c2c4")]
    assert run("priority_sets", votes, high=["MBXKPAR"]).move == "d2d4"


# --- score weighted and confidence --------------------------------------------------------------

def test_score_weighted_favours_the_voter_that_found_a_gain():
    votes = [ballot("MB", "e2e4", score=300), ballot("MX", "d2d4", score=-100), ballot("MK", "d2d4", score=-100)]
    ev = Evidence(root_eval=(0, 0, 0), leaf_eval=((0, 0, 0),) * 3)
    s = run("score_weighted", votes, ev)
    # 2σ(1.5) = 1.635 against 2 · 2σ(-0.5) = 2 · 0.755 = 1.510.
    assert s.values["e2e4"] == pytest.approx(2 / (1 + math.exp(-1.5)))
    assert s.values["d2d4"] == pytest.approx(4 / (1 + math.exp(0.5)))
    assert s.move == "e2e4"
    # Equal gains: plain majority.
    votes = [ballot("MB", "e2e4", score=50), ballot("MX", "d2d4", score=50), ballot("MK", "d2d4", score=50)]
    assert run("score_weighted", votes, ev).move == "d2d4"


def iters(*moves):
    return tuple(IterationInfo(d + 1, d + 1, 0, None, 10, 0.1, (m,)) for d, m in enumerate(moves))


def test_confidence_prefers_a_decisive_stable_voter():
    decisive = ballot("MB", "e2e4", score=120, second=20, iterations=iters("e2e4", "e2e4", "e2e4", "e2e4"))
    unsure1 = ballot("MX", "d2d4", score=10, second=5, iterations=iters("c2c4", "d2d4", "c2c4", "d2d4"))
    unsure2 = ballot("MK", "d2d4", score=10, second=10, iterations=iters("d2d4", "g1f3", "g1f3", "d2d4"))
    s = run("confidence", [decisive, unsure1, unsure2])
    # (0.5 + 1) * (1 + 100/100) = 3.0 against (0.5+0.5)*(1.05) + (0.5+0.5)*1 = 2.05.
    assert s.values["e2e4"] == pytest.approx(3.0)
    assert s.values["d2d4"] == pytest.approx(2.05)
    assert s.move == "e2e4"


def test_unknown_criterion_and_parameter_are_named():
    with pytest.raises(SelectionError, match="unknown selection criterion 'vote'"):
        run("vote", [ballot("MB", "e2e4")])
    with pytest.raises(SelectionError, match="unknown parameter"):
        run("majority", [ballot("MB", "e2e4")], depth=3)


# --- controls without category knowledge ------------------------------------------------------

THREE = [("MB", "e2e4", 30, 10), ("MX", "d2d4", 50, 8), ("MK", "e2e4", 10, 12)]  # letters, move, score, depth


def test_optimistic_follows_the_highest_own_score():
    s = run("optimistic", [ballot(l, m, score=sc, depth=d) for l, m, sc, d in THREE])
    assert s.move == "d2d4" and s.values == {"e2e4": 30, "d2d4": 50}  # though e2e4 has two votes


def test_thread_vote_weighs_score_above_the_lowest_and_depth():
    # lowest score 10; e2e4: (30-10+14)*10 + (10-10+14)*12 = 340 + 168 = 508; d2d4: (50-10+14)*8 = 432.
    s = run("thread_vote", [ballot(l, m, score=sc, depth=d) for l, m, sc, d in THREE])
    assert s.move == "e2e4" and s.values == {"e2e4": 508, "d2d4": 432}
    # With no constant, the lowest-scoring voter adds nothing: e2e4 200, d2d4 320.
    flat = run("thread_vote", [ballot(l, m, score=sc, depth=d) for l, m, sc, d in THREE], c=1e-9)
    assert flat.move == "d2d4"
