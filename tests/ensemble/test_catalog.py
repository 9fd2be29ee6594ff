"""The catalog: every kind of player from a name and from a file, each playing a legal move
(python-chess is the judge) through the Player protocol alone; the kind told by ``kind:`` or by
the folder, never by the keys; an unknown kind named with its file and field."""
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import chess
import pytest

from base.config import ConfigError
from ensemble.catalog import KINDS, PlayerSpec, build, default_limit, describe, settings
from evaluation.spec import EvalSpecError
from players.limits import Limit
from players.player import Player, PlayerOptionError

MATE_IN_ONE = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
ENSEMBLE = "instances: [MB, MX]\nselection: {criterion: majority}\nbudget: {nodes: 2000}\ncluster: {inline: true}\n"
DECOMPOSITION = "algorithm: abdada\nworkers: 2\nshared_table: true\nin_process: true\nsearch: {hash_mb: 4}\n"
# Our own UCI engine, as any external engine: it is always installed where the tests run.
ENGINE = f"command: ['{sys.executable}', -m, concilio, uci, MKP]\ntimeout: 30\n"


@pytest.fixture
def user_configs(tmp_path, monkeypatch):
    """A user's config folder with one player of each file kind in its kind's subfolder, found
    by name; the current directory empty."""
    folder = tmp_path / "configs"
    (folder / "decomposition").mkdir(parents=True)
    (folder / "cascade").mkdir()
    (folder / "engines").mkdir()
    (folder / "ensembles").mkdir()
    (folder / "ensembles" / "duo.yaml").write_text(ENSEMBLE)
    (folder / "decomposition" / "team.yaml").write_text(DECOMPOSITION)
    (folder / "cascade" / "two-phase.yaml").write_text(
        f"ensemble: {folder / 'ensembles' / 'duo.yaml'}\ndecomposition: {folder / 'decomposition' / 'team.yaml'}\n"
        "share: 0.5\nin_process: true\n")
    (folder / "engines" / "mkp-engine.yaml").write_text(ENGINE)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("CONCILIO_CONFIG_PATH", str(folder))
    return folder


def plays_a_legal_move(spec: PlayerSpec, limit: Limit = Limit(nodes=3000)) -> str:
    with build(spec) as player:
        assert isinstance(player, Player) and player.name == spec.name
        player.new_game()
        played = player.play(MATE_IN_ONE, limit)
        assert played.error is None, played.error
        assert chess.Move.from_uci(played.move) in MATE_IN_ONE.legal_moves
        assert played.explain()
    return played.move


@pytest.mark.parametrize("name, kind", [
    ("MKP", "instance"), ("76", "instance"), ("duo", "ensemble"), ("team", "decomposition"),
    ("two-phase", "cascade"), ("mkp-engine", "uci")])
def test_every_kind_is_built_from_a_name_and_plays(user_configs, name, kind):
    spec = describe(name)
    assert spec.kind == kind
    assert plays_a_legal_move(spec) == "a1a8"  # each kind sees the back-rank mate


@pytest.mark.parametrize("kind, text", [
    ("instance", "mask: MBK\nweights: {K: 2}\n"),
    ("ensemble", ENSEMBLE),
    ("decomposition", DECOMPOSITION),
    ("uci", ENGINE),
])
def test_every_kind_is_built_from_a_file_that_says_what_it_is(tmp_path, kind, text):
    path = tmp_path / f"{kind}.yaml"
    path.write_text(f"kind: {kind}\nname: mine\n" + text)
    spec = describe(path)
    names = {"instance": "instance mine (MBK)", "ensemble": "ensemble mine (MB)(MX)",
             "decomposition": "decomposition mine (abdada, 2 workers)", "uci": "mine"}
    assert spec.kind == kind and spec.name == names[kind]
    assert plays_a_legal_move(spec) == "a1a8"


def test_a_cascade_file_names_its_kind(tmp_path):
    (tmp_path / "duo.yaml").write_text(ENSEMBLE)
    (tmp_path / "team.yaml").write_text(DECOMPOSITION)
    path = tmp_path / "c.yaml"
    path.write_text(f"kind: cascade\nensemble: {tmp_path / 'duo.yaml'}\ndecomposition: {tmp_path / 'team.yaml'}\n"
                    "in_process: true\n")
    spec = describe(path)
    assert spec.kind == "cascade" and spec.name == "cascade c"
    assert plays_a_legal_move(spec, Limit(nodes=2000)) == "a1a8"


def test_no_name_is_the_full_engine_and_the_shipped_players_are_found_by_name():
    assert describe() == PlayerSpec("instance", "full engine (MBXKPAR)", "MBXKPAR")
    assert describe("3b").kind == "ensemble" and describe("3b").name == "ensemble 3b (MBXP)(MBKR)(MXKA)"
    assert describe("abdada").kind == "decomposition" and describe("cascade").kind == "cascade"
    gnuchess = describe("gnuchess")
    assert (gnuchess.kind, gnuchess.command) == ("uci", ("gnuchess", "--uci"))
    assert default_limit(describe("3b")) == Limit(movetime=1000) and default_limit(describe("MKP")).movetime == 1000


def test_a_file_without_kind_outside_the_kinds_folders_is_an_ensemble(tmp_path):
    path = tmp_path / "team.yaml"
    path.write_text(DECOMPOSITION)  # a decomposition's keys: never guessed from them
    with pytest.raises(ConfigError) as info:
        describe(path)
    assert str(info.value) == (f"{path}:1: algorithm: a decomposition's key, and outside configs/<kind>/ a player "
                               "file is read as an ensemble unless it says what it is: add `kind: decomposition`")
    path.write_text("instances:\n  - {mask: MBXKPAR}\nalgorithm: x\n")  # an ensemble with a stray key
    with pytest.raises(ConfigError, match=f"{path}:3: algorithm: unknown key"):
        describe(path)


def test_an_unknown_kind_is_named_with_its_file_line_and_field(tmp_path):
    path = tmp_path / "odd.yaml"
    path.write_text("name: odd\nkind: committee\n")
    with pytest.raises(ConfigError) as info:
        describe(path)
    assert str(info.value) == f"{path}:2: kind: unknown kind 'committee'; known: {', '.join(KINDS)}"


def test_a_file_read_as_another_kind_says_so(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("kind: decomposition\n" + DECOMPOSITION)
    from ensemble.config import load_ensemble
    with pytest.raises(ConfigError, match=f"{path}:1: kind: this file is a 'decomposition' player, read here as "
                                          "'ensemble'"):
        load_ensemble(path)


def test_bad_player_files_name_their_field(tmp_path):
    engine = tmp_path / "engine.yaml"
    engine.write_text("kind: uci\ncommand: 5\nping: 1\n")
    with pytest.raises(ConfigError) as info:
        describe(engine)
    assert f"{engine}:2: command: expected the engine's command line" in str(info.value)
    assert f"{engine}:3: ping: unknown key" in str(info.value)
    instance = tmp_path / "instance.yaml"
    instance.write_text("kind: instance\nmask: MQ\n")
    with pytest.raises(ConfigError, match=f"{instance}:2: mask: mask 'MQ'"):
        describe(instance)
    with pytest.raises(EvalSpecError):
        build(PlayerSpec("instance", "bad", "MQ"))
    with pytest.raises(ConfigError, match="unknown kind 'robot'"):
        PlayerSpec("robot", "r")


def test_the_spec_adjusts_what_its_kind_has(tmp_path):
    path = tmp_path / "duo.yaml"
    path.write_text(ENSEMBLE)
    spec = describe(path).with_criterion("depth_confidence")
    player = build(spec)
    with player:
        assert "Selection depth_confidence" in player.describe()
        player.configure(budget_mode="equal_total", hash_mb=8)
        assert player.settings.budget_mode == "equal_total" and "(equal_total)" in player.describe()
    with player:  # closed and started again: its instances rebuilt with the new tables
        assert player.play(MATE_IN_ONE, Limit(nodes=1000)).move == "a1a8"
        assert all(i.hash_mb == 8 for i in player.config.instances)
    with pytest.raises(ConfigError, match="a selection criterion is an ensemble's; this player's kind is instance"):
        describe("MKP").with_criterion("majority")
    with pytest.raises(ConfigError, match="only ensembles and decomposition players run on a Dask scheduler"):
        describe("MKP").with_scheduler("tcp://127.0.0.1:8786")
    with pytest.raises(PlayerOptionError, match="budget_mode is an ensemble's setting"):
        build(describe("abdada")).configure(budget_mode="per_instance")
    assert replace(describe(path), inline=False).inline is False


def test_a_match_names_any_player_of_the_catalog(user_configs, tmp_path):
    from tournaments.match.config import load_match
    match = tmp_path / "m.yaml"
    match.write_text(textwrap.dedent(f"""
        players: [{{name: engine, player: mkp-engine}}, {{name: team, player: team}}, {{name: nobody, player: nowhere}}]
        time_control: {{nodes: 500}}
        output: {tmp_path / 'out'}
    """))
    with pytest.raises(ConfigError) as info:
        load_match(match)
    assert f"{match}:2: players[2].player: nowhere: no such config" in str(info.value)
    match.write_text(match.read_text().replace(", {name: nobody, player: nowhere}", ""))
    config = load_match(match)
    assert config.entry("engine").kind == "uci" and config.entry("team").kind == "decomposition"


def test_a_scheduler_address_without_a_port_is_one_line_and_exit_2():
    """``--scheduler 127.0.0.1`` once ended in Dask's traceback (``missing port number``)."""
    with pytest.raises(ConfigError, match=r"^scheduler '127.0.0.1' is not a Dask scheduler address: give tcp://"):
        describe("abdada").with_scheduler("127.0.0.1")
    done = subprocess.run([sys.executable, "-m", "concilio", "play", "3b", "--scheduler", "127.0.0.1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["concilio play: error: --scheduler '127.0.0.1' is not a Dask scheduler "
                                        "address: give tcp://host:port, e.g. tcp://10.0.0.5:8786"], done.stderr


SHIPPED = sorted(p for kind in ("ensembles", "decomposition", "cascade", "engines")
                 for p in (Path(__file__).resolve().parents[2] / "configs" / kind).glob("*.yaml")
                 if not p.stem.startswith("speedup"))  # a speedup run's file, not a player's


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_players_settings_are_known_before_it_is_built(path):
    """UCI lists a player's options from its file, before the player (and the engine) loads:
    what the file says must be what the player, once built, holds."""
    spec = describe(path)
    assert settings(spec) == build(spec).settings


def test_reading_every_shipped_player_loads_no_engine():
    """Naming a player reads its file and nothing else: on an empty numba cache the engine's
    first import is a minute of compiling, and a GUI waits ten seconds for ``uciok``."""
    probe = ("import sys\n"
             "from pathlib import Path\n"
             "from ensemble.catalog import describe, settings, default_limit, in_process\n"
             f"for path in {[str(p) for p in SHIPPED]!r}:\n"
             "    spec = describe(Path(path)); settings(spec); default_limit(spec); in_process(spec)\n"
             "print([m for m in sys.modules if m.startswith('players.core') or m == 'players.searcher'])\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1:] == ["[]"], done.stdout[-2000:] + done.stderr[-2000:]
