"""``concilio match``: play the schedule, resumably, and summarise.

The output folder holds ``games.jsonl`` (one finished game per line, PGN included:
the source of truth), ``games.pgn`` (rebuilt from it, appended game by game) and
``summary.md``.  A killed match is resumed by running the same command: finished
games are read back and only the others are played, so no game is lost or played
twice.  Games run in parallel on Dask workers (``concurrency``) through one runner
(``base.runner``), each worker keeping its players loaded between games; the runner's
closing quits them (engines included) on every worker.
"""
from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from base.runner import Resident, Runner, borrowed_or_own
from base.errors import ConcilioError
from players.player import Player
from tournaments.statistics.elo import EloEstimate, SprtState, from_points, pentanomial, pentanomial_sprt, sprt
from tournaments.games.game import GameRecord, GameSpec, play_game
from tournaments.match.claim import PLAYING, claimed, holder
from tournaments.match.config import MatchConfig
from tournaments.match.players import PlayerEntry
from tournaments.statistics.stats import SIGNIFICANCE, benjamini_hochberg, holm

# The players a worker keeps between games.  The runner's closing closes them on every
# worker (its plugin's teardown): a worker that is simply stopped leaves its engines behind,
# and GNU Chess, its input closed, spins on a core for good (it would slow every later match
# on the machine).
_PLAYERS: Resident[Player] = Resident("match.players")


def _player(entry: PlayerEntry) -> Player:
    """The worker's loaded copy of a player (built once, reused for every game it plays)."""
    return _PLAYERS.get_or_create(repr(entry), entry.build)


def play_game_task(spec: GameSpec, white: PlayerEntry, black: PlayerEntry, config: MatchConfig) -> GameRecord:
    from base.fingerprint import engine_fingerprint
    record = play_game(spec, _player(white), _player(black), config.rules, event=f"Concilio {config.name}",
                       config_hash=config.digest,
                       time_controls=(config.time_control(white.name), config.time_control(black.name)))
    return replace(record, engine=engine_fingerprint())


class EngineChangedError(ConcilioError):
    """A match folder resumed with a different search than the one that played its games."""


def check_same_engine(config: MatchConfig, records: list[GameRecord]) -> None:
    """Refuse to resume a match whose own players would now search differently: the games
    already played and those to come would measure two engines under one name.  Matches
    between external engines only are not concerned (their identity is their command)."""
    from base.fingerprint import engine_fingerprint
    ours = [p.name for p in config.players if p.kind not in ("uci", "xboard")]
    if not ours:
        return
    now = engine_fingerprint()
    other = sorted({r.engine for r in records if r.engine and r.engine != now})
    if other:
        played = sum(1 for r in records if r.engine in other)
        raise EngineChangedError(
            f"{config.output / 'games.jsonl'}: {played} game(s) were played by engine {', '.join(other)}, and this "
            f"installation's search and evaluation are engine {now} (base.fingerprint); resuming would mix two "
            f"engines under the names {', '.join(ours)}. Give the match a new output folder (output: in "
            f"{config.source or 'the config'}), or check out the code that played them.")


def check_same_schedule(config: MatchConfig, records: list[GameRecord]) -> None:
    """Refuse to resume when a finished game's id now stands for another game: resuming skips
    games by id, so after a change to the book, its seed or what ``openings.exclude`` leaves out
    (a label store that grew), the games to come would repeat some openings, skip others, and
    could start from one the exclusion is there to keep out."""
    specs = {s.id: s for s in config.schedule()}
    moved = [(r, specs[r.id]) for r in records if r.id in specs
             and (r.opening != specs[r.id].opening_name or (r.white, r.black) != (specs[r.id].white, specs[r.id].black))]
    if moved:
        record, spec = moved[0]
        raise ScheduleChangedError(
            f"{config.output / 'games.jsonl'}: {len(moved)} finished game(s) no longer match the schedule of "
            f"{config.source or 'the config'}: game {record.id} was {record.white} - {record.black} from "
            f"{record.opening or 'the start position'}, and the config now schedules {spec.white} - {spec.black} "
            f"from {spec.opening_name or 'the start position'} (the players, the book, its seed, limit or exclude "
            f"changed). Give the match a new output folder, or restore the config that played them.")


class ScheduleChangedError(ConcilioError):
    """A match folder resumed with a config whose schedule gives its finished games' ids to other games."""


def board_points(record: GameRecord) -> float:
    """The player's points as the PGN's result gives them (what Ordo, BayesElo or any PGN
    reader counts): a game the thesis adjudication scored 0.38 is a draw here."""
    white = {"1-0": 1.0, "0-1": 0.0}.get(record.result, 0.5)
    return white if record.player_is_white else 1.0 - white


@dataclass
class PairingSummary:
    """One pairing's games, counted twice and never mixed: by the PGN's results (W-D-L, points,
    Elo) and by the thesis adjudication's points (``GameRecord.points``: a game stopped at the
    move limit scored ``0.5 + score/200`` by the full evaluation).  The SPRT runs on the thesis
    points, the score the matches it stopped were played to."""

    player: str
    opponent: str
    games: int = 0
    points: float = 0.0  # by the PGN's results
    thesis_points: float = 0.0  # by the thesis adjudication
    white: list[int] = field(default_factory=lambda: [0, 0, 0])  # W D L with white, by the PGN's results
    black: list[int] = field(default_factory=lambda: [0, 0, 0])
    pairs: dict[int, float] = field(default_factory=dict)  # opening pair index -> PGN points of the pair so far
    thesis_pairs: dict[int, float] = field(default_factory=dict)  # the same, in thesis points
    pair_games: dict[int, int] = field(default_factory=dict)
    scores: list[float] = field(default_factory=list)  # the player's PGN points, game by game
    thesis_scores: list[float] = field(default_factory=list)  # the same, in thesis points

    def add(self, record: GameRecord, round_index: int) -> None:
        points = board_points(record)
        self.games += 1
        self.points += points
        self.thesis_points += record.points
        self.scores.append(points)
        self.thesis_scores.append(record.points)
        wdl = self.white if record.player_is_white else self.black
        wdl[0 if points == 1.0 else 1 if points == 0.5 else 2] += 1
        pair = round_index // 2
        self.pairs[pair] = self.pairs.get(pair, 0.0) + points
        self.thesis_pairs[pair] = self.thesis_pairs.get(pair, 0.0) + record.points
        self.pair_games[pair] = self.pair_games.get(pair, 0) + 1

    @property
    def wdl(self) -> tuple[int, int, int]:
        return tuple(w + b for w, b in zip(self.white, self.black))  # type: ignore[return-value]

    @property
    def thesis_differs(self) -> bool:
        """Some game's thesis points are not its PGN result's (a fraction at the move limit)."""
        return abs(self.thesis_points - self.points) > 1e-9

    def elo(self) -> EloEstimate:
        return from_points(self.scores)

    def pentanomial(self) -> EloEstimate | None:
        counts = self.pair_counts()
        return pentanomial(counts) if sum(counts) else None

    def pair_counts(self, thesis: bool = False) -> list[int]:
        """Finished opening pairs by points scored (0, 0.5, 1, 1.5, 2): the PGN's, or the thesis
        adjudication's rounded to the nearest half point."""
        counts = [0] * 5
        for pair, pts in (self.thesis_pairs if thesis else self.pairs).items():
            if self.pair_games[pair] == 2:
                counts[min(4, max(0, round(pts * 2)))] += 1
        return counts

    def sprt(self, config: MatchConfig) -> SprtState | None:
        """On game pairs where the book pairs the openings (the model fishtest uses), else on
        games; in thesis points, so a stopped match's decision reads the same ever after."""
        if config.sprt is None:
            return None
        s = config.sprt
        if config.openings:
            return pentanomial_sprt(self.pair_counts(thesis=True), s.elo0, s.elo1, s.alpha, s.beta)
        w = sum(1 for x in self.thesis_scores if x > 0.5)
        d = sum(1 for x in self.thesis_scores if x == 0.5)
        return sprt(w, d, self.games - w - d, s.elo0, s.elo1, s.alpha, s.beta)

    def line(self, config: MatchConfig) -> str:
        """The pairing in one line: the PGN's results, then the thesis points when they differ."""
        w, d, l = self.wdl
        text = (f"{self.player} vs {self.opponent}: {self.points:g}/{self.games}  +{w} ={d} -{l}  "
                f"(white +{self.white[0]} ={self.white[1]} -{self.white[2]}, "
                f"black +{self.black[0]} ={self.black[1]} -{self.black[2]})  Elo {self.elo().format()}  "
                f"draws {100 * d / max(1, self.games):.0f}%")
        penta = self.pentanomial() if config.openings else None
        if penta is not None:
            text += f"  pentanomial Elo {penta.format()}"
        if self.thesis_differs:
            text += f"  (thesis points {self.thesis_points:.2f}/{self.games})"
        state = self.sprt(config)
        if state is not None:
            text += f"  SPRT{' (thesis points)' if config.rules.max_plies else ''} {state.format()}"
        return text


@dataclass
class MatchOutcome:
    records: list[GameRecord]
    summaries: list[PairingSummary]
    played: int
    stopped_by_sprt: bool


def read_records(folder: Path) -> list[GameRecord]:
    """Finished games of an earlier run (a torn last line, from a kill mid-write, is dropped; a
    game recorded twice is read once)."""
    path = folder / "games.jsonl"
    if not path.exists():
        return []
    records, seen = [], set()
    for line in path.read_text().splitlines():
        try:
            record = GameRecord(**json.loads(line))
        except (json.JSONDecodeError, TypeError):
            continue
        if record.id not in seen:  # a game written twice (copies of a folder merged) counts once
            seen.add(record.id)
            records.append(record)
    return records


def report_only(config: MatchConfig) -> list[PairingSummary]:
    """Rewrite ``summary.md`` (and the plot) from the games played so far, touching nothing
    else: safe while the match itself still runs in another process."""
    records = read_records(config.output)
    summaries = summarise(config, records)
    config.output.mkdir(parents=True, exist_ok=True)
    write_summary(config, summaries, config.output, records)
    return summaries


def summarise(config: MatchConfig, records: list[GameRecord]) -> list[PairingSummary]:
    summaries = [PairingSummary(a, b) for a, b in config.pairings()]
    for r in records:
        if 0 <= r.pairing < len(summaries):
            summaries[r.pairing].add(r, r.round - 1)
    return summaries


class MatchHeldError(ConcilioError):
    """Another process is playing the match folder (its claim file names it)."""


def run_match(config: MatchConfig, progress: bool = True, out: Callable[[str], None] = print,
              runner: Runner | None = None) -> MatchOutcome:
    """Play what the match folder lacks, on ``runner`` (lent by the caller) or on a runner of
    its own: ``concurrency`` workers, or this process for one, or the scheduler's workers.
    One process at a time: a second one stops before touching the folder."""
    folder = config.output
    folder.mkdir(parents=True, exist_ok=True)
    with claimed(folder / PLAYING) as mine:
        if not mine:
            raise MatchHeldError(f"{folder}: another process ({holder(folder / PLAYING) or 'one that just stopped'}) "
                                 "is playing this match; "
                                "two would record every game twice. Wait for it or stop it, then run the same "
                                "command again: it resumes")
        return _run_claimed(config, progress, out, runner)


def _run_claimed(config: MatchConfig, progress: bool, out: Callable[[str], None],
                 runner: Runner | None) -> MatchOutcome:
    folder = config.output
    records = read_records(folder)
    check_same_engine(config, records)
    check_same_schedule(config, records)
    if any(config.time_control(p.name).equal_time for p in config.players):
        from players.speed import default_speed_table
        default_speed_table()  # read here as well as on the workers: its warning shows where the match runs
    done = {r.id for r in records}
    (folder / "games.jsonl").write_text("".join(json.dumps(asdict(r)) + "\n" for r in records))
    (folder / "games.pgn").write_text("".join(r.pgn + "\n" for r in records))
    todo = [s for s in config.schedule() if s.id not in done]
    summaries = summarise(config, records)
    if records:
        out(f"resuming {config.name}: {len(records)} games already played, {len(todo)} to go")
    stopped = _decided(config, summaries)
    from tqdm import tqdm
    bar = tqdm(total=len(todo), unit="game", desc=config.name, disable=not progress)
    played = 0

    def finish(record: GameRecord) -> bool:
        nonlocal played
        _append(folder, record)
        records.append(record)
        summaries[record.pairing].add(record, record.round - 1)
        played += 1
        s = summaries[record.pairing]
        bar.update(1)
        bar.set_postfix_str(f"{s.player} {s.points:g}/{s.games}")
        state = s.sprt(config)  # an SPRT's progress belongs beside the score it comes from
        out(f"game {record.id} {record.white} - {record.black} {record.result} ({record.termination}); "
            f"{s.player} {s.points:g}/{s.games}" + (f"; {state.format()}" if state is not None else ""))
        return _decided(config, summaries)

    try:
        if not stopped and todo:
            stopped = _play(config, todo, finish, runner, out)
    finally:
        bar.close()
    write_summary(config, summaries, folder, records)
    return MatchOutcome(records, summaries, played, stopped)


FAILURES = "failed-games.log"  # in the match's output folder: each failed game's traceback


def _play(config: MatchConfig, todo: list[GameSpec], finish: Callable[[GameRecord], bool],
          runner: Runner | None, out: Callable[[str], None] = print) -> bool:
    """Play ``todo`` as the runner's slots free up (``concurrency`` local workers, or the
    workers of ``config.remote``'s scheduler), each finished game handed to ``finish`` at
    once; True when ``finish`` says the match is decided (no further game starts)."""
    def failed(args: tuple, exc: BaseException) -> None:  # the game is replayed on resume
        log = config.output / FAILURES
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
        print(f"game {args[0].id} failed on its worker ({type(exc).__name__}: {exc}{where}; the traceback is "
              f"in {log}); rerun to replay it", file=sys.stderr)
        with open(log, "a") as f:  # a failure seen once in hundreds of games must be readable later
            f.write(f"game {args[0].id}:\n{''.join(traceback.format_exception(exc))}\n")

    # Each game carries its own opening: the book stays here (a task of 1 KB rather than 100 KB
    # with a 1000-opening book, sent to a worker for every game)
    sent = replace(config, openings=())
    games = [(s, config.entry(s.white), config.entry(s.black), sent) for s in todo]
    with borrowed_or_own(config.concurrency, runner, remote=config.remote, tell=out, dashboard=False) as used:
        for _, record in used.map(play_game_task, games, on_error=failed):
            if finish(record):
                return True
    return False


def _decided(config: MatchConfig, summaries: list[PairingSummary]) -> bool:
    """With an SPRT and a single pairing, the match stops once the test decides (and it has
    played the file's ``min_games``)."""
    if config.sprt is None or len(summaries) != 1 or summaries[0].games < config.sprt.min_games:
        return False
    state = summaries[0].sprt(config)
    return state is not None and state.decision is not None


def _append(folder: Path, record: GameRecord) -> None:
    """One write per file, flushed to disk: the index line last, so a game counts only when whole."""
    with (folder / "games.pgn").open("a") as handle:
        handle.write(record.pgn + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    with (folder / "games.jsonl").open("a") as handle:
        handle.write(json.dumps(asdict(record)) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def write_summary(config: MatchConfig, summaries: list[PairingSummary], folder: Path,
                  records: list[GameRecord] | None = None) -> None:
    """The match's table: one row per pairing.  Each pairing's p-value (score ≠ 50 %, from
    the pentanomial model when the openings are paired) is adjusted over all pairings
    (Holm, Benjamini-Hochberg); '*' marks a difference significant after Holm."""
    estimates = [(s.pentanomial() if config.openings else None) or s.elo() for s in summaries]
    # games of a pairing the config no longer has (a player dropped from the file) stay in
    # games.jsonl but are not this match's evidence
    records = [r for r in records or [] if 0 <= r.pairing < len(summaries)]
    raw = [e.p_value for e in estimates]
    adjusted = list(zip(holm(raw), benjamini_hochberg(raw)))
    thesis = config.rules.max_plies is not None  # the thesis adjudication scores games stopped at the limit
    lines = [f"# Match `{config.name}`", "",
             f"Config `{config.source}` (hash {config.digest}); {config.describe_time_controls()}; "
             f"max half-moves {config.rules.max_plies or '-'}; "
             f"{_describe_openings(config)}.", "",
             f"Points, W-D-L and Elo: the results in games.pgn, as any PGN reader counts them. "
             f"p: two-sided, score ≠ 50 % ({'pentanomial' if config.openings else 'per game'}); Holm and BH: "
             f"adjusted over the {len(summaries)} pairing(s); * significant after Holm (p < 0.05).", ""]
    if thesis:
        lines += ["Thesis points: the thesis adjudication's, where a game stopped at the move limit scores "
                  "0.5 + score/200 by the full evaluation (its PGN says 1/2-1/2, its ThesisPoints header the "
                  "points); the SPRT runs on them.", ""]
    lines += ["| player | opponent | points | games | W-D-L | white W-D-L | black W-D-L | Elo [95%] | LOS | p | Holm "
              "| BH | draws |" + (" thesis points |" if thesis else ""),
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if thesis else "")]
    for s, e, (p_holm, p_bh) in zip(summaries, estimates, adjusted):
        w, d, l = s.wdl
        mark = " *" if p_holm < SIGNIFICANCE else ""
        lines.append(f"| {s.player} | {s.opponent} | {s.points:g} | {s.games} | {w}-{d}-{l} | "
                     f"{'-'.join(map(str, s.white))} | {'-'.join(map(str, s.black))} | "
                     f"{e.format().split(' LOS')[0]} | {100 * e.los:.1f}% | {e.p_value:.3f} | {p_holm:.3f}{mark} | "
                     f"{p_bh:.3f} | {100 * d / max(1, s.games):.0f}% |" + (f" {s.thesis_points:.2f} |" if thesis else ""))
    if config.sprt is not None:
        lines += ["", f"SPRT(elo0 {config.sprt.elo0:g}, elo1 {config.sprt.elo1:g}, α {config.sprt.alpha:g}, "
                      f"β {config.sprt.beta:g}), on game pairs where the book pairs them"
                      + (", in thesis points" if thesis else "") + ":", ""]
        lines += [f"* {s.player} vs {s.opponent}: {state.format()}" for s in summaries
                  if (state := s.sprt(config)) is not None]
    lines += _ladder(config, summaries)
    lines += _evidence(config, summaries, estimates, folder, records)
    (folder / "summary.md").write_text("\n".join(lines) + "\n")


def _describe_openings(config: MatchConfig) -> str:
    if not config.openings:
        return "no book (start position)"
    left_out = f", {config.openings_excluded} of the book left out by openings.exclude" if config.openings_excluded else ""
    return f"openings: {len(config.openings)}{left_out}"


def _ladder(config: MatchConfig, summaries: list[PairingSummary]) -> list[str]:
    """The baseline's rating on the scale of anchored opponents (Stockfish's strength limiter)
    in a gauntlet with a book: the calibration such a gauntlet is played for."""
    from tournaments.match.report import anchored_rating, ladder_table
    if config.mode != "gauntlet" or not config.openings:
        return []
    entries = {p.name: p for p in config.players}
    levels = [(s.player, rating, s.pair_counts()[::-1]) for s in summaries
              if (rating := anchored_rating(entries[s.player].options)) is not None]
    if not any(sum(c) for _, _, c in levels):
        return []
    return [""] + ladder_table(levels, str(config.baseline))


def _evidence(config: MatchConfig, summaries: list[PairingSummary], estimates: list[EloEstimate], folder: Path,
              records: list[GameRecord]) -> list[str]:
    """Budgets per player, failures, and the Elo plot (``tournaments.match.report``)."""
    from tournaments.match.report import budget_table, endings_table, forfeits, move_budgets, plot_elo
    lines = []
    if records:
        lost = forfeits(records)
        lines += ["", f"Games lost by a failure (time, illegal or missing move, crash): **{len(lost)}**"
                  + ("" if not lost else ": " + ", ".join(f"{r.id} ({r.termination})" for r in lost[:20]))
                  + ".", "", "What each player spent per move (its PGN comments; book moves excluded):", ""]
        lines += budget_table(move_budgets(records))
        lines += ["", "How the games ended (games.pgn holds every move):", ""] + endings_table(records)
    if len(summaries) > 1 and any(s.games for s in summaries):
        shown = [(f"{s.player} - {s.opponent}", e) for s, e in zip(summaries, estimates) if s.games]
        plot = plot_elo([a for a, _ in shown], [e for _, e in shown], folder / "elo.png", f"Match {config.name}")
        if plot is not None:
            lines += ["", f"![Elo per pairing]({plot.name})"]
    return lines
