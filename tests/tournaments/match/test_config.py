"""Match files: the schedule of colours and openings, the openings section (seeded order,
training openings left out), and every problem of a bad file named with its field."""
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


def test_bad_match_files_are_named(tmp_path):
    path = tmp_path / "bad.yaml"
    text = problems(tmp_path, "players: [{name: a, instance: MQ}, {name: b, uci: 5}]\ngames: 3\n"
                              "time_control: {nodes: 10, depth: 2}\nopenings: {file: nowhere.epd}\n"
                              "sprt: {elo0: 5, elo1: 0}\n")
    assert f"{path}:1: players[0].instance: mask 'MQ'" in text
    assert "players[1].uci: expected the engine's command line" in text
    assert f"{path}:3: time_control: give exactly one of" in text
    assert "openings.file: no such file: nowhere.epd" in text
    assert "sprt.elo1: elo1 must be greater than elo0" in text


def test_a_bad_player_budget_names_its_field(tmp_path):
    text = problems(tmp_path, "players:\n  - {name: a, full: true, time_control: {nodes: 10, depth: 2}}\n"
                              "  - {name: b, uci: [x], time_control: {nodes: 10, equal_time: true}}\n"
                              "time_control: {nodes: 100}\n")
    assert "players[0].time_control: give exactly one of" in text
    assert "players[1].time_control.equal_time: equal-time node budgets are for Concilio's players" in text


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


def test_a_book_cannot_exclude_itself_and_a_missing_exclusion_is_named(tmp_path):
    text = problems(tmp_path, "players: [{name: a, instance: MKP}]\ntime_control: {nodes: 100}\n"
                              "openings: {file: data:openings/8moves_v3-1000.epd, "
                              "exclude: [data:openings/8moves_v3-1000.epd, nowhere.epd]}\n")
    assert "openings.exclude[1]: no such file: nowhere.epd" in text
    assert "openings.exclude: every opening of data:openings/8moves_v3-1000.epd is excluded" in text
