"""What an ensemble decided and why: the instances that voted and those left out, the
candidates ordered by the criterion's value, the move played."""
import math
import pickle

from ensemble.decision import Decision, InstanceReport
from players.result import SearchResult


def answer(move, score, depth=8):
    return SearchResult(move, score, None, (move,), depth, 20, 20, depth, 40_000, 0.5)


REPORTS = (
    InstanceReport("(MB)", "M=1 B=1", "tcp://w1", answer("e2e4", 30)),
    InstanceReport("(MX)", "M=1 X=2", "tcp://w2", answer("d2d4", 25)),
    InstanceReport("(MK)", "M=1 K=1", "tcp://w3", answer("e2e4", 40), excluded="missed the deadline"),
    InstanceReport("(MP)", "M=1 P=1", None, None, excluded="worker lost"),
)


def decision(**changes):
    fields = dict(move="e2e4", criterion="majority", fen="startpos", reports=REPORTS,
                  values={"d2d4": 1.0, "e2e4": 1.0, "c2c4": -math.inf, "b2b3": 1.0}, votes={"e2e4": 2, "d2d4": 1},
                  tie_break="seeded draw", elapsed=0.51)
    fields.update(changes)
    return Decision(**fields)


def test_only_the_instances_that_answered_in_time_vote():
    d = decision()
    assert [r.label for r in d.excluded] == ["(MK)", "(MP)"]
    assert [r.bestmove for r in d.results] == ["e2e4", "d2d4"] and d.candidates == ("e2e4", "d2d4")
    assert pickle.loads(pickle.dumps(d)) == d  # stored with a game


def test_the_report_orders_candidates_by_value_then_votes_and_marks_the_move_played():
    text = decision().format().splitlines()
    rows = text[text.index("criterion majority") + 2:]
    # a tie on value: more votes first, then by name; no value at all last
    assert [row.split()[0] for row in rows[:4]] == ["e2e4", "d2d4", "b2b3", "c2c4"]
    assert rows[0].endswith("<- played") and rows[3].split()[1:] == ["0", "-"]
    assert "tie broken by seeded draw" in text and text[-2:] == ["decided in 0.51 s", "bestmove e2e4"]
    excluded = [row for row in text if "excluded:" in row]
    assert len(excluded) == 2 and excluded[1].endswith("-  excluded: worker lost")
    assert "weights (MX): M=1 X=2" in text  # shown because one instance is weighted


def test_a_fallback_replaces_the_vote_and_unit_weights_are_not_listed():
    plain = tuple(InstanceReport(r.label, "M=1 B=1", r.worker, r.result) for r in REPORTS[:2])
    text = decision(reports=plain, fallback="no instance answered").format()
    assert "fallback: no instance answered" in text and "criterion majority" not in text
    assert "weights " not in text
