"""An ensemble of k instances at N nodes each beside the full engine at k × N: searched once
per distinct total, scored as a player of its own, a second comparison in the same family;
and the sign test on points beside McNemar on solved, adjusted over the same families."""
import textwrap

import pytest
from scipy.stats import binomtest

from players.result import SearchResult
from players.trace import PositionTerms
from tournaments.statistics.stats import McNemar, proportion
from tournaments.suite.config import FULL_LABEL, instance_key, load_suite, total_label
from tournaments.suite.metrics import Comparison, Score, adjust_comparisons, sign_test
from tournaments.suite.run import run_suite, total_note
from tournaments.suite.store import SearchStore, StoredSearch
from tests.tournaments.suite.suite_files import EPD, P1, P2, P3, P4


def write_config(tmp_path, budget="nodes: 400", extra=""):
    (tmp_path / "tiny.epd").write_text(EPD)
    (tmp_path / "trio.yaml").write_text("name: trio\ninstances: [MB, MX, MK]\n")
    (tmp_path / "duo.yaml").write_text("name: duo\ninstances: [MB, MX]\n")
    (tmp_path / "trio2.yaml").write_text("name: trio2\ninstances: [MB, MX, MBX]\n")
    ensembles = ", ".join(f"'{tmp_path / f}'" for f in ("trio.yaml", "duo.yaml", "trio2.yaml"))
    (tmp_path / "run.yaml").write_text(textwrap.dedent(f"""
        name: totals
        suites: [{{path: tiny.epd}}]
        players: {{ensembles: [{ensembles}], instances: [MB], full: true}}
        budget: {{{budget}}}
        criteria: [majority, depth_confidence]
        store: {tmp_path / "store.sqlite"}
        report: {tmp_path / "report"}
        workers: 1
    """) + extra)
    return load_suite(tmp_path / "run.yaml")


def test_the_full_engine_at_each_total_is_searched_once_and_scored_as_a_player(tmp_path):
    config = write_config(tmp_path)
    assert [(r.name, r.nodes) for r in config.total_references()] == [("(MBXKPAR) @1200", 1200),
                                                                      ("(MBXKPAR) @800", 800)]
    first = run_suite(config, progress=False)
    # MB, MX, MK, MBX and the full engine at 400; the full engine at 1200 (trio, trio2) and 800 (duo).
    assert first.searches_added == 5 * 4 + 2 * 4
    with SearchStore(config.store) as store:
        full = instance_key(config.total_references()[0].instances[0])
        for nodes in (1200, 800):
            rows = store.searches(full, config.key_for({"nodes": nodes}))
            assert set(rows) == {P1, P2, P3, P4}
            assert all(400 < r.result.nodes <= nodes for r in rows.values())  # searched at its own budget
    again = run_suite(config, progress=False)
    assert again.searches_added == 0  # the store resumes
    scores = {(s.player, s.criterion): s for s in again.scores}
    for label in ("(MBXKPAR) @1200", "(MBXKPAR) @800"):
        assert scores[(label, "")].single and scores[(label, "")].n == 4 and not scores[(label, "")].comparisons
    assert [c.reference for c in scores[("trio", "majority")].comparisons] == [FULL_LABEL, "(MBXKPAR) @1200"]
    assert [c.reference for c in scores[("duo", "depth_confidence")].comparisons] == [FULL_LABEL, "(MBXKPAR) @800"]
    assert [c.reference for c in scores[("(MB)", "")].comparisons] == [FULL_LABEL]
    # One family: (MB) once, 3 ensembles × 2 criteria twice each.
    report = (tmp_path / "report" / "report.md").read_text()
    assert "over the same comparisons: explore 13 (" in report
    assert "`(MBXKPAR) @1200` for k = 3, `(MBXKPAR) @800` for k = 2" in report
    assert "| tiny | (MBXKPAR) @800 | " in report and "(reference at k×N)" in report
    assert "|  | (MBXKPAR) @800 |\n" in report  # duo's C_D row (no thesis C_D) names its reference


def test_no_total_with_a_movetime_budget_or_when_switched_off(tmp_path):
    timed = write_config(tmp_path, budget="movetime: 50")
    assert timed.total_references() == ()
    assert "No comparison at an ensemble's total compute: the budget (movetime)" in total_note(timed)
    off = write_config(tmp_path, extra="full_at_total: false\n")
    assert off.total_references() == () and "full_at_total: false" in total_note(off)


# (move) per instance and position, at the run's 400 nodes and (full engine) at the trio's 1200.
VOTES = {
    ("MB", 400): {P1: "e2e4", P2: "c7c5", P3: "d7d5", P4: "e7e5"},
    ("MX", 400): {P1: "d2d4", P2: "c7c5", P3: "d7d5", P4: "c7c5"},
    ("MK", 400): {P1: "d2d4", P2: "e7e5", P3: "d7d5", P4: "g8f6"},
    ("MBXKPAR", 400): {P1: "e2e4", P2: "e7e5", P3: "g8f6", P4: "e7e5"},
    ("MBXKPAR", 1200): {P1: "g1f3", P2: "c7c5", P3: "g8f6", P4: "e7e5"},
}
DEPTHS = {"MB": {P4: 10}}  # everyone else at depth 8


def test_the_ensemble_s_two_comparisons_on_a_hand_made_store(tmp_path):
    (tmp_path / "tiny.epd").write_text(EPD)
    (tmp_path / "trio.yaml").write_text("name: trio\ninstances: [MB, MX, MK]\n")
    (tmp_path / "run.yaml").write_text(f"name: hand\nsuites: [{{path: tiny.epd}}]\n"
                                       f"players: {{ensembles: ['{tmp_path / 'trio.yaml'}'], full: true}}\n"
                                       f"budget: {{nodes: 400}}\ncriteria: [depth_confidence]\n"
                                       f"store: {tmp_path / 's.sqlite'}\nreport: {tmp_path / 'r'}\n")
    config = load_suite(tmp_path / "run.yaml")
    with SearchStore(config.store) as store:
        for (letters, nodes), moves in VOTES.items():
            inst = next(i for i in [*config.instances().values()] if i.spec.letters == letters)
            rows = []
            for fen, move in moves.items():
                depth = DEPTHS.get(letters, {}).get(fen, 8)
                result = SearchResult(move, 0, None, (move,), depth, 0, 20, depth, nodes, 0.01, (), fen)
                rows.append(StoredSearch(fen, instance_key(inst), config.key_for({"nodes": nodes}), result,
                                         PositionTerms((0,) * 7)))
            store.add_searches(rows)
        for fen in (P1, P2, P3, P4):
            store.add_position(fen, PositionTerms((0,) * 7))
    outcome = run_suite(config, search=False, progress=False)
    scores = {s.player: s for s in outcome.scores}
    assert scores[total_label(1200)].val.successes == 3 and scores[total_label(1200)].points == 0
    trio = scores["trio"]
    # Depth confidence plays d4 (5 points, not best), c5, d5, e5.  Points: e4 10, d4 5 on p1;
    # elsewhere 1 for the best move.  Against the full engine at 400 (e4 10, e5 0, Nf6 1, e5 1):
    # McNemar +1 (p2) / -2 (p1, p3); sign +1 (p2) / -2 (p1 5 < 10, p3 0 < 1).
    at_n, at_total = trio.at_budget, trio.at_total
    assert (at_n.solved.only_a, at_n.solved.only_b) == (1, 2) and (at_n.points.only_a, at_n.points.only_b) == (1, 2)
    # Against the full engine at 1200 (Nf3 0, c5 1, Nf6 1, e5 1): McNemar +0/-1 (p3);
    # the sign test also sees p1, where d4's 5 points beat Nf3's none: +1/-1.
    assert at_total.reference == "(MBXKPAR) @1200"
    assert (at_total.solved.only_a, at_total.solved.only_b) == (0, 1)
    assert (at_total.points.only_a, at_total.points.only_b) == (1, 1)
    assert at_total.points.p_value == pytest.approx(binomtest(1, 2).pvalue)
    # The family: the trio twice, nothing else (the full engine is the reference).
    report = (tmp_path / "r" / "report.md").read_text()
    assert "over the same comparisons: explore 2 (" in report
    row = next(line for line in report.splitlines() if line.startswith("| tiny | trio | depth_confidence"))
    assert "| +1/-2 p=1.000 Holm 1.000 BH 1.000 | +1/-2 p=1.000 Holm 1.000 BH 1.000 | +0/-1 p=1.000" in row
    assert row.endswith("| +1/-1 p=1.000 Holm 1.000 BH 1.000 |")


def test_the_sign_test_counts_positions_where_points_differ():
    player = [10, 5, 3, 3, 0, 7, 7, 1, 2, 0, 4, 4]
    reference = [5, 0, 0, 3, 0, 3, 3, 0, 1, 6, 6, 4]  # 7 above, 2 below, 3 tied
    test = sign_test(player, reference)
    assert (test.only_a, test.only_b) == (7, 2)
    assert test.p_value == pytest.approx(binomtest(7, 9).pvalue) == pytest.approx(0.1796875)
    assert sign_test([1, 2], [1, 2]).p_value == 1.0
    with pytest.raises(ValueError):
        sign_test([1], [1, 2])


def test_both_tests_are_adjusted_over_the_same_family_with_known_holm_values():
    def score(player, p_solved, p_points):
        s = Score("wac", player, "majority", 10, proportion(5, 10), proportion(5, 10), 0, 0)
        for ref, a, b in zip((FULL_LABEL, total_label(800)), p_solved, p_points):
            s.comparisons.append(Comparison(ref, McNemar(1, 0, a), McNemar(1, 0, b)))
        return s
    scores = [score("duo", (0.01, 0.04), (0.2, 0.5)), score("trio", (0.03, 0.005), (0.01, 0.04))]
    assert adjust_comparisons(scores) == {"explore": 4}
    solved = [c.solved for s in scores for c in s.comparisons]
    points = [c.points for s in scores for c in s.comparisons]
    # Holm on (0.01, 0.04, 0.03, 0.005): sorted ×4, ×3, ×2, ×1 then made monotone.
    assert [t.p_holm for t in solved] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [t.p_bh for t in solved] == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # The sign test's p-values (0.2, 0.5, 0.01, 0.04) over the same four comparisons.
    assert [t.p_holm for t in points] == pytest.approx([0.4, 0.5, 0.04, 0.12])
    assert scores[1].at_total.solved.significant and not scores[0].at_total.solved.significant
