"""The sweep file: each point is the match it should be (player, budget, workers), bad files
are named with their line, and a point played twice is resumed, not replayed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from base.config import ConfigError
from base.errors import ConcilioError
from ensemble.catalog import load
from tournaments.scaling.config import load_sweep
from tournaments.scaling.report import collect, table, write_report
from tournaments.match.claim import PLAYING, claimed
from tournaments.match.run import MatchHeldError
from tournaments.scaling.run import play_points

SWEEP = """\
name: t
nodes: 1000
workers: [2, 4]
games: 2
openings: {{file: data:openings/sf-multipv-16plies-1000.epd, seed: 43}}
max_plies: 12
concurrency: 1
output: {out}
arms:
  F: {{label: full at k N, player: MBXKPAR, budget: total}}
  L: {{label: lazy cluster, player: lazy-cluster-in-process, workers: k, budget: per_worker}}
  C: {{label: only at 4, player: {{4: MBXKPAR}}}}
  D: {{label: an ensemble, player: {{2: scaling-d-2}}, workers: k, equal_time: true}}
"""


def sweep(tmp_path: Path, text: str = SWEEP):
    return load_sweep(text=text.format(out=tmp_path / "runs"))


def test_points_budgets_and_workers(tmp_path):
    s = sweep(tmp_path)
    assert [(a.key, k) for a, k in s.points()] == [("F", 2), ("L", 2), ("D", 2), ("F", 4), ("L", 4), ("C", 4)]
    f4 = s.point_match(s.arm("F"), 4)
    assert f4.time_control("F4").per_move.nodes == 4000  # total: k x N for one search
    assert f4.time_control("full").per_move.nodes == 1000
    l4 = s.point_match(s.arm("L"), 4)
    assert l4.time_control("L4").per_move.nodes == 1000  # per worker
    config = load(l4.entry("L4"))
    assert config.workers == 4 and config.options.workers == 4  # the node clock counts the same workers
    assert l4.output == tmp_path / "runs" / "L-4"
    assert s.points(("C",), ()) == [(s.arm("C"), 4)]
    d2 = s.point_match(s.arm("D"), 2)
    ensemble = load(d2.entry("D2"))
    # in a match an ensemble searches inside its game's worker: a daemon process cannot start a cluster
    assert ensemble.cluster.inline is True and ensemble.cluster.workers == 2
    assert d2.time_control("D2").per_move.equal_time and d2.time_control("full").per_move.equal_time is False


@pytest.mark.parametrize("arm, message", [
    ("{label: x, player: MBXKPAR, budget: half}", "arms.X.budget: 'half' is not one of total, per_worker"),
    ("{label: x, player: MBXKPAR, workers: k}", "arms.X.workers: MBXKPAR is an instance"),
    ("{label: x, player: {3: MBXKPAR}}", "arms.X.player[3]: k = 3 is not among the sweep's workers"),
    ("{label: x, player: no-such-player}", "arms.X.player:"),
])
def test_bad_arm_is_named_with_its_line(tmp_path, arm, message):
    text = SWEEP.replace("  C: {{label: only at 4, player: {{4: MBXKPAR}}}}", "  X: " + arm.replace("{", "{{")
                         .replace("}", "}}"))
    with pytest.raises(ConfigError) as err:
        sweep(tmp_path, text)
    assert any(message in p and ":12:" in p for p in err.value.problems), err.value.problems


def test_point_is_played_resumed_and_reported(tmp_path):
    s = sweep(tmp_path)
    play_points(s, ("F",), (2,), progress=False, out=lambda _: None)
    lines = (tmp_path / "runs" / "F-2" / "games.jsonl").read_text().splitlines()
    assert len(lines) == 2 and {json.loads(x)["white"] for x in lines} == {"F2", "full"}
    outcome = play_points(s, ("F",), (2,), progress=False, out=lambda _: None)[0][2]
    assert outcome.played == 0  # finished games are read back, never replayed
    said: list[str] = []
    with claimed(s.output / "F-4" / PLAYING):  # another lane plays F4: passed over, and said so
        with pytest.raises(MatchHeldError, match=r"F-4: another process \("):
            play_points(s, ("F",), progress=False, out=said.append)
    assert any(line.startswith("point F4: passed over") for line in said)
    assert not (s.output / "F-4" / "games.jsonl").exists()
    points = collect(s)
    assert [(p.arm, p.k, p.games) for p in points] == [("F", 2, 2)]
    assert points[0].nodes.startswith("2000 ")  # the arm's player spent k x N per move
    doc = tmp_path / "doc.md"
    other = "<!-- map table: begin -->\nkept\n<!-- map table: end -->\n"  # another sweep's, on the same page
    doc.write_text("intro\n<!-- t table: begin -->\nold\n<!-- t table: end -->\n" + other + "after\n")
    table_file, image = write_report(s, tmp_path / "report", doc)
    text = doc.read_text()
    assert "old" not in text and "| F | 2 | 2,000 | 2 |" in text and text.endswith(other + "after\n")
    assert table_file.read_text().count("| F | 2 |") == 1 and image is not None and image.exists()
    assert table(s, [])[-1].startswith("|---")


def test_from_leaves_out_the_smaller_k(tmp_path):
    text = SWEEP.replace("workers: k, budget: per_worker}}", "workers: k, budget: per_worker, from: 4}}")
    s = sweep(tmp_path, text)
    assert [(a.key, k) for a, k in s.points(("L",))] == [("L", 4)]
    assert s.arm("L").player(2) is None and s.arm("F").player(2) == "MBXKPAR"


def test_a_duel_is_the_two_points_against_each_other_with_an_sprt(tmp_path):
    s = sweep(tmp_path)
    duel = s.duel_match("F4", "l2")
    assert [p.name for p in duel.players] == ["F4", "L2"] and duel.baseline == "L2"
    assert duel.time_control("F4").per_move.nodes == 4000 and duel.time_control("L2").per_move.nodes == 1000
    assert load(duel.entry("L2")).workers == 2
    assert duel.sprt is not None and (duel.sprt.elo0, duel.sprt.elo1) == (0, 20) and duel.games == 2000
    assert duel.output == tmp_path / "runs" / "duels" / "F4-vs-l2"
    assert duel.openings == s.point_match(s.arm("F"), 4).openings  # the sweep's book, less the training openings
    for bad, message in [("F4 F4", "two different points"), ("C2 F4", "arm C has no player at k = 2"),
                         ("4F F2", "is not a point"), ("Z2 F2", "no arm 'Z'")]:
        with pytest.raises(ConfigError, match=message):
            s.duel_match(*bad.split())


def test_a_duel_played_is_resumed_and_reported_beside_the_points(tmp_path):
    from dataclasses import replace

    from tournaments.match.run import run_match
    s = sweep(tmp_path)
    duel = replace(s.duel_match("F4", "F2"), games=2)
    run_match(duel, progress=False, out=lambda _: None)
    assert run_match(duel, progress=False, out=lambda _: None).played == 0
    assert s.duels() == [("F4", "F2")]
    table_file, _ = write_report(s, tmp_path / "report")
    row = next(line for line in table_file.read_text().splitlines() if line.startswith("| F4 against F2 |"))
    # Two games of the sweep's 2000, undecided: running, so no p (testing at every look is peeking).
    assert row.split(" | ")[1] == "2 (running)" and "llr" in row.lower()
    assert row.strip("| ").split(" | ")[-2:] == ["-", "-"]


def test_a_duel_is_tested_once_it_has_stopped():
    from dataclasses import replace

    from tournaments.scaling.report import duel_finished
    from tournaments.statistics.elo import SprtState
    duel = load_sweep(text=SWEEP.format(out="runs")).duel_match("F4", "F2")
    duel = replace(duel, sprt=replace(duel.sprt, min_games=400))
    h1, open_ = SprtState(3.0, -2.94, 2.94), SprtState(1.0, -2.94, 2.94)
    assert duel_finished(400, h1, duel) and duel_finished(976, h1, duel)
    assert not duel_finished(120, h1, duel)  # decided early, but the minimum is not played yet
    assert not duel_finished(1500, open_, duel) and duel_finished(2000, open_, duel)  # the most games end it
    assert duel_finished(450, SprtState(-3.0, -2.94, 2.94), duel)  # H0 ends it too


def test_each_point_shows_its_share_of_the_ceilings_gain_at_the_same_k(tmp_path):
    from tournaments.scaling.report import PointResult
    from tournaments.statistics.elo import EloEstimate
    s = sweep(tmp_path)
    assert s.ceiling == "F"

    def point(arm: str, k: int, elo: float) -> PointResult:
        return PointResult(arm, arm, k, 1000, 400, 400, (1, 1, 1), EloEstimate(400, 0.5, elo, elo - 30, elo + 30, 0.9),
                           "-", "-")
    rows = table(s, [point("F", 2, 200), point("D", 2, 50), point("L", 2, -20), point("D", 4, 80)])
    cells = {r.split(" | ")[0] + r.split(" | ")[1]: r.split(" | ")[6] for r in rows if r.startswith("| ") and "---" not in r
             and not r.startswith("| arm")}
    assert cells == {"| F2": "-", "| D2": "25%", "| L2": "-10%", "| D4": "-"}  # no F4 point: no share
    with pytest.raises(ConfigError, match="ceiling: 'Z' is not one of the arms"):
        sweep(tmp_path, SWEEP.replace("name: t\n", "name: t\nceiling: Z\n"))


def test_the_trend_is_elo_per_doubling_of_k_through_the_baseline_at_one(tmp_path):
    from tournaments.scaling.report import PointResult, trends
    from tournaments.statistics.elo import EloEstimate
    text = SWEEP.format(out=tmp_path / "runs").replace("workers: [2, 4]", "workers: [1, 2, 4]")
    s = load_sweep(text=text.replace("budget: total}", "budget: total, from: 2}"))

    def point(arm: str, k: int, elo: float, games: int = 400) -> PointResult:
        return PointResult(arm, arm, k, 1000, games, 400, (1, 1, 1), EloEstimate(400, 0.5, elo, elo - 40, elo + 40, 0.9),
                           "-", "-")
    found = {t.arm: t for t in trends(s, [point("F", 2, 200), point("F", 4, 400), point("D", 2, 50),
                                           point("D", 4, 90, games=100)])}
    assert set(found) == {"F"}  # D: one finished point (k = 4 still running), and D is not the baseline at k = 1
    f = found["F"]
    assert f.points == 3 and f.per_doubling == pytest.approx(200, abs=0.5)
    assert f.at == pytest.approx({4: 400, 8: 600}, abs=1)


def test_the_points_read_across_by_k_with_each_arm_s_share_of_the_ceiling(tmp_path):
    from tournaments.scaling.report import PointResult, by_k
    from tournaments.statistics.elo import EloEstimate
    s = sweep(tmp_path)

    def point(arm: str, k: int, elo: float | None, games: int = 400) -> PointResult:
        estimate = None if elo is None else EloEstimate(games, 0.5, elo, elo - 30, elo + 30, 0.9)
        return PointResult(arm, arm, k, 1000, games, 400, (1, 1, 1), estimate, "-", "-")
    lines = by_k(s, [point("F", 2, 200), point("L", 2, -20), point("D", 2, 50, games=100),
                     point("F", 4, 300, games=50), point("L", 4, 30), point("C", 4, None, games=1)])
    assert lines[0] == "| k | F | L | C | D | share of F's gain |"
    rows = {line.split(" | ")[0]: line.split(" | ")[1:] for line in lines[2:]}
    # k = 2: D still running (no share until it finishes); C has no point at 2
    assert rows["| 2"] == ["+200 [+170, +230]", "-20 [-50, +10]", "-", "+50 [+20, +80] (100 of 400)", "L -10% |"]
    # k = 4: the ceiling still running, so no shares; C has games but no finished pair yet
    assert rows["| 4"] == ["+300 [+270, +330] (50 of 400)", "+30 [+0, +60]", "(1 of 400)", "-", "- |"]


def test_pairs_whose_intervals_overlap_are_listed_stronger_first_and_their_duels_named(tmp_path):
    from tournaments.scaling.report import PointResult, overlap_lines, overlapping
    from tournaments.statistics.elo import EloEstimate
    s = sweep(tmp_path)

    def point(arm: str, k: int, low: float, high: float, games: int = 400) -> PointResult:
        return PointResult(arm, arm, k, 1000, games, 400, (1, 1, 1),
                           EloEstimate(games, 0.5, (low + high) / 2, low, high, 0.9), "-", "-")
    points = [point("F", 2, 0, 100),  # the ceiling: never a pair
              point("L", 2, -40, 20), point("D", 2, 10, 70), point("C", 4, 30, 90), point("L", 4, -30, 29),
              point("D", 4, 29, 60, games=200)]  # running: not yet a pair
    assert overlapping(points, "F") == [("D2", "L2")]  # 10 <= 20; C4 and L4 miss by one Elo
    points[-1] = point("D", 4, 29, 60)
    assert overlapping(points, "F") == [("D2", "L2"), ("C4", "D4"), ("D4", "L4")]
    # Each pair says where its duel stands, whichever order the duel was played in.
    from tournaments.scaling.report import DuelResult
    from tournaments.statistics.elo import SprtState
    elo = EloEstimate(400, 0.58, 55.6, 26.2, 85.4, 0.9999)
    duels = [DuelResult("L2", "D2", 400, (1, 1, 1), elo, SprtState(3.1, -2.94, 2.94), True),
             DuelResult("C4", "D4", 120, (1, 1, 1), elo, SprtState(0.914, -2.94, 2.94), False)]
    assert overlap_lines(s, points, duels)[1] == (
        "Finished points at one k whose intervals overlap (3 pairs, 2 of their duels not finished; "
        "`concilio scaling duels` plays them; a finished duel shows its first point's Elo against the second and "
        "the SPRT's decision): D2–L2 (L2 +56 [+26, +85], H1), C4–D4 (running: 120 games, LLR 0.91), D4–L4 (owed).")
    # Once every overlapping pair's duel has finished, the line says so instead of pointing to the queue.
    done = [DuelResult("D4", "L4", 400, (1, 1, 1), elo, SprtState(3.1, -2.94, 2.94), True),
            DuelResult("C4", "D4", 400, (1, 1, 1), elo, SprtState(-3.0, -2.94, 2.94), True), duels[0]]
    assert overlap_lines(s, points, done)[1].startswith(
        "Finished points at one k whose intervals overlap (3 pairs, every duel finished; a finished duel shows")
    # An arm marked as another's variant (one algorithm under two rules) is paired with it no more.
    assert overlapping(points, "F", {frozenset(("D", "L"))}) == [("C4", "D4")]


TWO_ARMS = """\
name: t
nodes: 300
workers: [2, 4]
games: 2
openings: {{file: data:openings/sf-multipv-16plies-1000.epd, seed: 43}}
max_plies: 8
concurrency: 1
output: {out}
arms:
  X: {{label: one search, player: MBXKPAR, budget: total}}
  Y: {{label: a reduced one, player: MBXKP, budget: total, variant_of: X}}
  Z: {{label: another, player: MBXP, budget: total}}
"""


def _overlapping_points():
    from tournaments.scaling.report import PointResult
    from tournaments.statistics.elo import EloEstimate

    def point(arm: str, k: int, low: float, high: float) -> PointResult:
        return PointResult(arm, arm, k, 300, 2, 2, (1, 0, 1), EloEstimate(2, 0.5, (low + high) / 2, low, high, 0.9),
                           "-", "-")
    # At 4: X and Z overlap; at 2: X, Y, Z all do, but X and Y are one algorithm.
    return [point("X", 4, 0, 50), point("Z", 4, 10, 40), point("X", 2, 0, 60), point("Y", 2, 10, 50),
            point("Z", 2, -20, 20)]


def test_the_duels_owed_are_the_overlapping_pairs_cheapest_first_less_those_that_stopped(tmp_path, monkeypatch):
    from dataclasses import replace

    from tournaments.match.run import run_match
    from tournaments.scaling import config as sweep_config
    from tournaments.scaling import report
    from tournaments.scaling.run import pending_duels
    s = load_sweep(text=TWO_ARMS.format(out=tmp_path / "runs"))
    assert s.variants() == {frozenset(("X", "Y"))}
    monkeypatch.setattr(report, "collect", lambda sweep: _overlapping_points())
    assert [(d.first, d.second, d.games) for d in pending_duels(s)] == [("X2", "Z2", 0), ("Y2", "Z2", 0),
                                                                        ("X4", "Z4", 0)]
    # A duel begun in the other order keeps its folder's order and shows its games.
    run_match(replace(s.duel_match("Z4", "X4"), games=2), progress=False, out=lambda _: None)
    from base.fingerprint import engine_fingerprint
    assert [(d.first, d.second, d.games, d.engines) for d in pending_duels(s)][-1] == ("Z4", "X4", 2,
                                                                                       (engine_fingerprint(),))
    # ... and where its SPRT stands (a duel with no games has none).
    from tournaments.match.run import read_records, summarise
    z4 = s.duel_match("Z4", "X4")
    assert [d.llr for d in pending_duels(s)] == [None, None, summarise(z4, read_records(z4.output))[0].sprt(z4).llr]
    # At its most games a duel has stopped: owed no more.
    monkeypatch.setattr(sweep_config, "DUEL_GAMES", 2)
    assert [(d.first, d.second) for d in pending_duels(s)] == [("X2", "Z2"), ("Y2", "Z2")]


def test_a_duel_is_held_by_one_process_and_a_dead_process_holds_nothing(tmp_path):
    import os
    import socket
    import subprocess
    import sys

    from tournaments.match.claim import holder
    path = tmp_path / "duels" / ".claims" / "X2-vs-Z2"
    with claimed(path) as mine:
        assert mine and holder(path) == f"{socket.gethostname()}:{os.getpid()}"
        with claimed(path) as again:
            assert not again  # a second taker, even in this process, finds it held
    assert holder(path) == "" and path.read_text() == ""  # released: the file stays, empty
    path.write_text("some-host:1\n")  # words left by nobody who holds the lock mean nothing
    assert holder(path) == ""
    process = subprocess.Popen([sys.executable, "-c", f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
from pathlib import Path
from tournaments.match.claim import claimed
with claimed(Path({str(path)!r})) as mine:
    print(mine, flush=True)
    time.sleep(60)
"""], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "True"
        assert holder(path) == f"{socket.gethostname()}:{process.pid}"
        with claimed(path) as mine:
            assert not mine
    finally:
        process.kill()
        process.wait()
    with claimed(path) as mine:
        assert mine  # the kernel dropped the dead holder's lock: no clean-up needed


def test_duels_plays_each_owed_duel_once_and_releases_its_claim(tmp_path, monkeypatch):
    from tournaments.scaling import config as sweep_config
    from tournaments.scaling import report
    from tournaments.scaling.run import pending_duels, play_duels
    s = load_sweep(text=TWO_ARMS.format(out=tmp_path / "runs"))
    monkeypatch.setattr(report, "collect", lambda sweep: _overlapping_points()[:2])  # X4 and Z4 only
    monkeypatch.setattr(sweep_config, "DUEL_GAMES", 2)
    played = play_duels(s, progress=False, out=lambda _: None)
    assert [(a, b, o.played) for a, b, o in played] == [("X4", "Z4", 2)]
    claims = list((s.output / "duels" / ".claims").iterdir())
    assert pending_duels(s) == [] and [c.read_text() for c in claims] == [""]  # played, and released
    assert play_duels(s, progress=False, out=lambda _: None) == []


def test_games_are_archived_and_restored_whole_and_never_shortened(tmp_path):
    import lzma

    from tournaments.scaling.archive import archive, restore
    s = sweep(tmp_path)
    results = tmp_path / "results"
    point, duel = s.output / "F-2", s.output / "duels" / "F4-vs-F2"
    for folder in (point, duel):
        folder.mkdir(parents=True)
    (point / "games.jsonl").write_text('{"id": "0-0"}\n{"id": "0-1"}\n{"id": "1-')  # a game being written
    (duel / "games.jsonl").write_text('{"id": "0-0"}\n')
    (duel / "summary.md").write_text("# duel\n")
    copied = archive(s, results)
    assert [(c.folder, c.before, c.games) for c in copied] == [("F-2", 0, 2), ("duels/F4-vs-F2", 0, 1)]
    assert lzma.decompress((results / "F-2" / "games.jsonl.xz").read_bytes()) == b'{"id": "0-0"}\n{"id": "0-1"}\n'
    assert (results / "duels" / "F4-vs-F2" / "summary.md").read_text() == "# duel\n"
    assert archive(s, results) == []  # nothing new
    (duel / "summary.md").write_text("# duel, rewritten\n")  # match --summary-only over the same games
    assert [(c.folder, c.before, c.games) for c in archive(s, results)] == [("duels/F4-vs-F2", 1, 1)]
    assert (results / "duels" / "F4-vs-F2" / "summary.md").read_text() == "# duel, rewritten\n"
    assert archive(s, results) == []
    (point / "games.jsonl").write_text('{"id": "0-0"}\n')  # a shorter local copy never shrinks the archive
    (point / "summary.md").write_text("# one game\n")  # nor does its summary replace the archive's
    assert archive(s, results) == []
    assert not (results / "F-2" / "summary.md").exists()
    with claimed(point / PLAYING):  # a lane playing F-2: its games file is not replaced under it
        with pytest.raises(ConcilioError, match=r"F-2 \(.*\) being played; stop it, then restore"):
            restore(s, results)
    assert (point / "games.jsonl").read_text() == '{"id": "0-0"}\n'
    restored = restore(s, results)
    assert [(c.folder, c.before, c.games) for c in restored] == [("F-2", 1, 2)]
    assert (point / "games.jsonl").read_text() == '{"id": "0-0"}\n{"id": "0-1"}\n'
    (duel / "games.jsonl").write_text('{"id": "0-0"}\n{"id": "0-1"}\n')  # the local copy ran ahead
    assert restore(s, results) == []
    assert (duel / "games.jsonl").read_text().count("\n") == 2


def test_a_report_from_a_runs_folder_behind_the_archive_stops_and_names_restore(tmp_path, monkeypatch, capsys):
    # A fresh clone (or a pull that brought games) reported without restore would print, and with
    # --document write over the page, older numbers than the committed ones.
    from concilio.cli import main
    from tournaments.scaling.archive import BehindArchiveError, archive, require_restored, restore
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(SWEEP.format(out="runs") + "archive: results\n")
    s = load_sweep(tmp_path / "s.yaml")
    point = s.output / "F-2"
    point.mkdir(parents=True)
    (point / "games.jsonl").write_text('{"id": "0-0"}\n{"id": "0-1"}\n')
    archive(s, s.archive)
    require_restored(s, "s.yaml")  # as many games here as archived: nothing to say
    (point / "games.jsonl").write_text('{"id": "0-0"}\n')
    with pytest.raises(BehindArchiveError, match=r"F-2 holds 1 of 2\).*concilio scaling restore s.yaml"):
        require_restored(s, "s.yaml")
    assert main(["scaling", "report", "s.yaml", "--output", "out"]) == 2
    assert "restore s.yaml" in capsys.readouterr().err and not (tmp_path / "out").exists()
    assert main(["scaling", "budgets", "s.yaml", "--output", "out"]) == 2
    restore(s, s.archive)
    require_restored(s, "s.yaml")


def test_pairs_at_one_k_are_tested_opening_by_opening_and_holm_adjusted_over_the_file(tmp_path):
    from tournaments.scaling.report import PointResult, pair_lines, pair_tests
    from tournaments.statistics.elo import EloEstimate, elo_from_score
    s = sweep(tmp_path)

    def point(arm: str, k: int, scores: list[float], games: int = 400) -> PointResult:
        mean = sum(scores) / len(scores)
        estimate = EloEstimate(games, mean, elo_from_score(mean), -100, 100, 0.5, 0.1)
        return PointResult(arm, arm, k, 1000, games, 400, (1, 1, 1), estimate, "-", "-", tuple(enumerate(scores)))
    # four openings; a pair's score is both its games' points over 2
    points = [point("F", 2, [1, 1, 1, 0.75]),  # the ceiling: in no pair
              point("L", 2, [0.5, 0.5, 0.25, 0.75]), point("D", 2, [1, 0.5, 0.75, 1]),
              point("C", 4, [0.5, 0.5, 0.5, 0.5]), point("D", 4, [0.75, 0.5, 0.5, 0.5]),
              point("H", 4, [1, 1, 1, 1], games=200)]  # unfinished: in no pair
    tests = pair_tests(points, "F")
    assert [(t.first, t.second) for t in tests] == [("D2", "L2"), ("D4", "C4")]
    # By hand: differences 0.5, 0, 0.5, 0.25: mean 0.3125, variance 0.04296875, se 0.10364,
    # z 3.0151, p 0.0025688; differences 0.25, 0, 0, 0: z 0.0625 / 0.054127 = 1.1547, p 0.24821;
    # Holm over the two: 2 x 0.0025688, then 0.24821
    assert tests[0].p == pytest.approx(0.0025688, rel=1e-4) and tests[0].holm == pytest.approx(0.0051377, rel=1e-4)
    assert tests[1].p == pytest.approx(0.24821, rel=1e-4) and tests[1].holm == pytest.approx(0.24821, rel=1e-4)
    assert tests[0].apart == pytest.approx(elo_from_score(0.8125) - elo_from_score(0.5))
    # What an opening gives both alike cancels: a constant lead of 1/4 on openings that swing
    # from 0 to 1 is as clear as the same lead on level openings
    swing = pair_tests([point("L", 2, [1, 0.25, 0.5, 0.75]), point("D", 2, [0.75, 0, 0.25, 0.5])], "F")
    assert swing[0].p == 0.0  # no spread in the differences at all
    (s.output / "duels" / "D2-vs-L2").mkdir(parents=True)
    # The report's family is the pairs the file defines, L2–D2 and L4–C4; L4 is unfinished, so
    # L4–C4 counts at p = 1: Holm 2 x 0.0025688 for D2–L2
    lines = pair_lines(s, points[:4] + [point("L", 4, [0.5, 0.5, 0.5, 0.5], games=200)])
    assert "(1 of the 2 pairs the sweep defines" in lines[1]
    assert lines[-1] == "| D2–L2 | +255 | 0.0026 | 0.0051 | played |"
    # A point without its openings' scores orders nothing; two points alike on every opening neither
    bare = PointResult("D", "D", 2, 1000, 400, 400, (1, 1, 1), points[2].elo, "-", "-")
    assert [t.p for t in pair_tests([points[1], bare], "F")] == [1.0]
    alike = pair_tests([point("L", 2, [0.5, 1, 0.5, 0]), point("D", 2, [0.5, 1, 0.5, 0])], "F")
    assert [(t.p, t.holm) for t in alike] == [(1.0, 1.0)]


def test_a_variant_of_no_arm_or_of_itself_is_named_with_its_line(tmp_path):
    for bad, message in [("variant_of: W", "arms.Y.variant_of: 'W' is not one of the arms X, Y, Z"),
                         ("variant_of: Y", "arms.Y.variant_of: expected another arm's key")]:
        text = TWO_ARMS.replace("variant_of: X", bad).format(out=tmp_path / "runs")
        with pytest.raises(ConfigError, match=message):
            load_sweep(text=text)


def test_duels_list_names_each_owed_duel_and_who_plays_it(tmp_path, monkeypatch, capsys):
    import os
    import socket

    from concilio.cli import main
    from tournaments.scaling import report
    path = tmp_path / "two.yaml"
    path.write_text(TWO_ARMS.format(out=tmp_path / "runs"))
    assert main(["scaling", "duels", str(path), "--list"]) == 0
    assert capsys.readouterr().out.strip().endswith("0 duel(s) owed")  # no finished point: nothing to settle
    monkeypatch.setattr(report, "collect", lambda sweep: _overlapping_points())
    with claimed(tmp_path / "runs" / "duels" / ".claims" / "Y2-vs-Z2"):
        assert main(["scaling", "duels", str(path), "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["X2 against Z2: 0 games", f"Y2 against Z2: 0 games, playing in {socket.gethostname()}:{os.getpid()}",
                   "X4 against Z4: 0 games", "3 duel(s) owed"]


def test_duels_leaves_a_duel_begun_by_another_engine_to_that_engine_s_checkout(tmp_path, monkeypatch):
    import json
    from dataclasses import replace

    from base.fingerprint import engine_fingerprint
    from tournaments.match.run import run_match
    from tournaments.scaling import config as sweep_config
    from tournaments.scaling import report
    from tournaments.scaling.run import play_duels
    s = load_sweep(text=TWO_ARMS.format(out=tmp_path / "runs"))
    monkeypatch.setattr(report, "collect", lambda sweep: _overlapping_points()[:2])
    run_match(replace(s.duel_match("X4", "Z4"), games=1), progress=False, out=lambda _: None)
    games = s.output / "duels" / "X4-vs-Z4" / "games.jsonl"
    record = json.loads(games.read_text().splitlines()[0])
    games.write_text(json.dumps({**record, "engine": "0123456789ab"}) + "\n")  # as if an older engine played it
    monkeypatch.setattr(sweep_config, "DUEL_GAMES", 2)
    said = []
    assert play_duels(s, progress=False, out=said.append) == []
    assert said == ["duel X4 against Z4: its 1 games were played by engine 0123456789ab, this installation is "
                    f"{engine_fingerprint()}; resume it from a "
                    "checkout of that engine (concilio scaling duel)"]


def test_a_duel_another_process_plays_is_not_played_twice(tmp_path, capsys):
    from concilio.cli import main
    path = tmp_path / "two.yaml"
    path.write_text(TWO_ARMS.format(out=tmp_path / "runs"))
    with claimed(tmp_path / "runs" / "duels" / ".claims" / "X4-vs-Z4"):
        assert main(["scaling", "duel", "X4", "Z4", "--sweep", str(path), "--quiet"]) == 1
    assert "duel X4 against Z4: another process is playing it" in capsys.readouterr().err
    assert not (tmp_path / "runs" / "duels" / "X4-vs-Z4" / "games.jsonl").exists()


def test_duels_are_holm_adjusted_over_the_declared_family_so_a_later_duel_takes_no_claim_back():
    from tournaments.scaling.report import DuelResult, duel_table
    from tournaments.statistics.elo import EloEstimate, SprtState

    def duel(name: str, p: float, finished: bool = True) -> DuelResult:
        elo = EloEstimate(400, 0.55, 35.0, 10.0, 60.0, 1 - p / 2)  # two-sided p from the LOS
        return DuelResult(name, "L2", 400, (1, 1, 1), elo, SprtState(3.0, -2.94, 2.94), finished)

    def holm_column(duels: list[DuelResult], family: int) -> list[str]:
        return [row.strip("| ").split(" | ")[-1] for row in duel_table(duels, family) if row.startswith("| ")
                and " against " in row]
    # Four duels declared, two finished (p 0.01 and 0.02): 4 × 0.01 and 3 × 0.02, the others at p = 1.
    now = [duel("A2", 0.01), duel("B2", 0.02), duel("C2", 0.5, finished=False)]
    assert holm_column(now, 4) == ["0.04", "0.06", "-"]
    # Over the finished duels alone it would be 2 × 0.01 and 1 × 0.02, taken back as the family grew.
    assert holm_column(now, 0) == ["0.02", "0.02", "-"]
    # The third finishing with a larger p changes nothing for the first two.
    later = [duel("A2", 0.01), duel("B2", 0.02), duel("C2", 0.5)]
    assert holm_column(later, 4)[:2] == ["0.04", "0.06"]


def test_each_sweep_names_where_its_games_are_archived():
    # The map's games must not land in the sweep's archive (the default) when archived without --results.
    assert load_sweep("sweep").archive == Path("data/games/sweep")
    assert load_sweep("map").archive == Path("data/games/map")
    assert load_sweep("map").output == Path("runs/map") and load_sweep("map").nodes == 100_000
