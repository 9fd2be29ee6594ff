"""Match files: the schedule of colours and openings, the openings section (seeded order,
training openings left out), and every problem of a bad file named with its field."""
import pytest

from tests.tournaments.match.match_files import problems, write
from tournaments.match.config import load_match
from tournaments.openings.selection import opening_key
from tournaments.training.provenance import training_openings


def test_colours_and_openings_are_paired(tmp_path, data_dir):
    body = f"""
        players: [{{name: mb, instance: MB}}, {{name: mx, instance: MX}}]
        baseline: mx
        games: 6
        openings: {{file: {data_dir / 'openings' / '8moves_v3-1000.epd'}, seed: 3}}
        time_control: {{depth: 1}}
    """
    config = write(tmp_path, body)
    specs = config.schedule()
    assert [s.player_is_white for s in specs] == [True, False] * 3
    assert specs[0].opening_fen == specs[1].opening_fen != specs[2].opening_fen == specs[3].opening_fen
    again = write(tmp_path, body, "n.yaml")
    assert [s.opening_fen for s in again.schedule()] == [s.opening_fen for s in specs]  # seeded order


@pytest.mark.parametrize("text, expected", [
    ("players: [{name: a, instance: MQ}, {name: b, uci: 5}]\ngames: 3\ntime_control: {nodes: 10, depth: 2}\n"
     "openings: {file: nowhere.epd}\nsprt: {elo0: 5, elo1: 0}\n",
     ["bad.yaml:1: players[0].instance: mask 'MQ'", "players[1].uci: expected the engine's command line",
      "bad.yaml:3: time_control: give exactly one of", "openings.file: no such file: nowhere.epd",
      "sprt.elo1: elo1 must be greater than elo0"]),
    ("players:\n  - {name: a, full: true, time_control: {nodes: 10, depth: 2}}\n"
     "  - {name: b, uci: [x], time_control: {nodes: 10, equal_time: true}}\ntime_control: {nodes: 100}\n",
     ["players[0].time_control: give exactly one of",
      "players[1].time_control.equal_time: equal-time node budgets are for Concilio's players"]),
    ("players: [{name: a, instance: MKP}]\ntime_control: {nodes: 100}\n"
     "openings: {file: data:openings/8moves_v3-1000.epd, exclude: [data:openings/8moves_v3-1000.epd, nowhere.epd]}\n",
     ["openings.exclude[1]: no such file: nowhere.epd",
      "openings.exclude: every opening of data:openings/8moves_v3-1000.epd is excluded"]),
], ids=["every-section", "a-player-s-own-budget", "a-book-excluding-itself"])
def test_every_problem_of_a_bad_match_file_is_named_with_its_field(tmp_path, text, expected):
    report = problems(tmp_path, text)
    for problem in expected:
        assert problem in report


def test_openings_a_training_set_started_from_are_left_out(tmp_path, data_dir):
    """The 8-move book less the openings of the shipped training set's 800 games: none of them is
    played, every other one still is; the held-out replays' book loses none."""
    used = training_openings(data_dir / "training" / "selfplay-5k.epd")
    leaky = write(tmp_path, """
        players: [{name: mkp, instance: MKP}]
        openings: {file: data:openings/8moves_v3-1000.epd, seed: 16}
        time_control: {nodes: 800}
    """)
    held_out = write(tmp_path, """
        players: [{name: mkp, instance: MKP}]
        openings: {file: data:openings/8moves_v3-1000.epd, seed: 16, exclude: [data:training/selfplay-5k.epd]}
        time_control: {nodes: 800}
    """)
    keys = [opening_key(fen, moves) for fen, moves, _ in held_out.openings]
    assert len(used) == 543 and held_out.openings_excluded == 543 and len(keys) == len(set(keys)) == 457
    assert not set(keys) & used
    assert sum(opening_key(fen) in used for fen, _, _ in leaky.openings[:200]) == 108  # the audit's figure
    for name in ("tuned-heldout", "learned-heldout", "full-odds-heldout"):
        replay = load_match(name)
        assert replay.openings_excluded == 0 and len(replay.openings) == 1000
