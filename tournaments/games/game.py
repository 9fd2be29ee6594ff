"""One game between two players, under the match's rules, recorded as PGN.

The runner is the arbiter: it checks every move against python-chess before
playing it (an illegal move loses and is never played), keeps the clocks, applies
the half-move limit with the thesis's adjudication and the optional draw and resign
rules, and writes every move's score, depth, time and (for ensembles) the votes as a
PGN comment.
"""
from __future__ import annotations

import io
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace

import chess
import chess.pgn

from evaluation.spec import FULL_ENGINE
from players.limits import Limit
from players.player import Player
from players.trace import static_value
from tournaments.games.adjudication import DrawRule, ResignRule, draw_by_rule, resigns, thesis_points


@dataclass(frozen=True)
class TimeControl:
    """A match's budget for a whole game: a clock (``base`` seconds, ``increment`` seconds a
    move) or the same fixed limit every move (``per_move``: nodes, varied by ``jitter``, depth
    or movetime, maybe ``equal_time``).  Kept apart from :class:`players.limits.Limit`, one
    move's limit, because a game's clock runs down from move to move and a jittered node
    budget differs at every ply: :meth:`limit` makes each move's ``Limit`` from it."""

    per_move: Limit | None = None
    base: float | None = None  # clock: seconds per game
    increment: float = 0.0
    jitter: float = 0.0  # node budgets vary by ±jitter per move (seeded by game and ply)

    @property
    def equal_time(self) -> bool:
        """Whether the node budget is the full engine's on one core, each player scaling it (players.speed)."""
        return self.per_move is not None and self.per_move.equal_time

    def nodes_for(self, game_id: str, ply: int) -> int | None:
        """The node budget of one move.  Without jitter, games from the same position with
        the same colours would all be identical (node-limited search is deterministic)."""
        nodes = None if self.per_move is None else self.per_move.nodes
        if nodes is None or not self.jitter:
            return nodes
        rng = random.Random(f"{game_id}:{ply}")
        return max(1, round(nodes * (1 + rng.uniform(-self.jitter, self.jitter))))

    def limit(self, game_id: str, ply: int, clocks: Mapping[chess.Color, float | None],
              increments: Mapping[chess.Color, float]) -> Limit:
        """This move's limit: the fixed one (its nodes jittered), or the game's clocks (seconds
        left, each side's own increment: odds games may give the sides different ones)."""
        if self.base is not None:
            ms = {colour: None if (left := clocks.get(colour)) is None else max(0.0, left * 1000)
                  for colour in chess.COLORS}
            return Limit(wtime=ms[chess.WHITE], btime=ms[chess.BLACK], winc=increments[chess.WHITE] * 1000,
                         binc=increments[chess.BLACK] * 1000)
        assert self.per_move is not None
        return replace(self.per_move, nodes=self.nodes_for(game_id, ply))

    def pgn(self) -> str:
        if self.base is not None:
            return f"{self.base:g}+{self.increment:g}"
        if self.per_move is not None and self.per_move.movetime is not None:
            return f"{self.per_move.movetime / 1000:g}/move"
        return "-"

    def describe(self) -> str:
        if self.base is not None:
            return f"clock {self.base:g}+{self.increment:g} s"
        move = self.per_move or Limit()
        if move.movetime is not None:
            return f"{move.movetime} ms per move"
        if move.nodes:
            return (f"{move.nodes} nodes per move" + (f" (±{100 * self.jitter:g}%)" if self.jitter else "")
                    + (", time-equivalent (the full engine's on one core; each player scaled by its measured speed)"
                       if move.equal_time else ""))
        return f"depth {move.depth} per move"


@dataclass(frozen=True)
class GameRules:
    time_control: TimeControl
    max_plies: int | None = 100
    pawn: int = 100  # the thesis adjudication's unit
    draw: DrawRule | None = None
    resign: ResignRule | None = None


@dataclass(frozen=True)
class GameSpec:
    id: str
    round: int
    pairing: int
    player: str  # the player under test (its points are counted)
    opponent: str
    player_is_white: bool
    opening_fen: str = chess.STARTING_FEN
    opening_moves: tuple[str, ...] = ()
    opening_name: str = ""

    @property
    def white(self) -> str:
        return self.player if self.player_is_white else self.opponent

    @property
    def black(self) -> str:
        return self.opponent if self.player_is_white else self.player


@dataclass(frozen=True)
class GameRecord:
    id: str
    pairing: int
    round: int
    white: str
    black: str
    player: str
    player_is_white: bool
    result: str  # 1-0, 0-1, 1/2-1/2
    points: float  # the player's points, thesis adjudication included
    termination: str
    plies: int
    opening: str
    pgn: str
    engine: str = ""  # base.fingerprint's fingerprint of the search that played (empty: not recorded)


def play_game(spec: GameSpec, white: Player, black: Player, rules: GameRules,
              event: str = "Concilio match", config_hash: str = "",
              time_controls: tuple[TimeControl, TimeControl] | None = None) -> GameRecord:
    """Play one game.  ``time_controls`` (White's, Black's) gives the two sides different budgets
    (node or time odds, as cutechess gives each engine its own); by default both play the rules'."""
    board = chess.Board(spec.opening_fen)
    game = chess.pgn.Game()
    if spec.opening_fen != chess.STARTING_FEN:
        game.setup(board)
    node: chess.pgn.GameNode = game
    for uci in spec.opening_moves:
        move = chess.Move.from_uci(uci)
        board.push(move)
        node = node.add_variation(move, comment="book")
    players = {chess.WHITE: white, chess.BLACK: black}
    for p in players.values():
        p.new_game()
    white_tc, black_tc = time_controls or (rules.time_control, rules.time_control)
    tcs = {chess.WHITE: white_tc, chess.BLACK: black_tc}
    clocks = {colour: tc.base for colour, tc in tcs.items()}
    increments = {colour: tc.increment for colour, tc in tcs.items()}
    scores: list[int | None] = []
    played = 0
    result = termination = None
    adjudicated_points = None
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = outcome.result()
            termination = outcome.termination.name.lower().replace("_", " ")
            break
        if rules.max_plies is not None and played >= rules.max_plies:
            # The thesis's rule: the full evaluation of the final position, from the player's side.
            player_colour = chess.WHITE if spec.player_is_white else chess.BLACK
            score = static_value(board, FULL_ENGINE, player_colour)
            adjudicated_points = thesis_points(score, rules.pawn)
            if adjudicated_points in (0.0, 1.0):
                result = "1-0" if (adjudicated_points == 1.0) == spec.player_is_white else "0-1"
            else:  # a fractional score has no PGN result: a draw on the board, ThesisPoints says the rest
                result = "1/2-1/2"
            termination = f"adjudication: {played} half-moves, full evaluation {score:+d} cp for {spec.player}"
            break
        mover = board.turn
        tc = tcs[mover]
        limit = tc.limit(spec.id, len(board.move_stack), clocks, increments)
        answer = players[mover].play(board.copy(), limit)
        if clocks[mover] is not None:
            clocks[mover] -= answer.seconds
            if clocks[mover] < 0:
                result, termination = _loss(mover), f"time forfeit: {players[mover].name} lost on time"
                break
            clocks[mover] += tc.increment
        if answer.error:
            result, termination = _loss(mover), f"forfeit: {answer.error}"
            break
        try:
            move = chess.Move.from_uci(answer.move or "")
        except ValueError:
            move = None
        if move is None or move not in board.legal_moves:
            result = _loss(mover)
            termination = f"illegal move: {players[mover].name} sent {answer.move!r} in {board.fen()}"
            break
        board.push(move)
        played += 1
        scores.append(answer.score)
        node = node.add_variation(move, comment=_comment(answer))
        if resigns(scores, rules.resign):
            result, termination = _loss(mover), f"adjudication: {players[mover].name} resigns"
        elif draw_by_rule(scores, played, rules.draw):
            result, termination = "1/2-1/2", "adjudication: draw rule"
    if adjudicated_points is not None:
        points = adjudicated_points
    elif result == "1/2-1/2":
        points = 0.5
    else:
        points = 1.0 if (result == "1-0") == spec.player_is_white else 0.0
    game.headers.update({
        "Event": event, "Site": "Concilio", "Round": str(spec.round), "White": spec.white, "Black": spec.black,
        "Result": result, "Termination": termination or "",
        "PlyCount": str(len(board.move_stack)), "GameId": spec.id, "ConfigHash": config_hash,
    })
    if white_tc == black_tc:
        game.headers["TimeControl"] = white_tc.pgn()
    else:  # cutechess's headers for odds games
        game.headers.update({"WhiteTimeControl": white_tc.describe(), "BlackTimeControl": black_tc.describe()})
    if spec.opening_name:
        game.headers["Opening"] = spec.opening_name
    if adjudicated_points is not None:
        game.headers["ThesisPoints"] = f"{spec.player} {adjudicated_points:.3f}"
    text = io.StringIO()
    game.accept(chess.pgn.FileExporter(text))
    return GameRecord(spec.id, spec.pairing, spec.round, spec.white, spec.black, spec.player, spec.player_is_white,
                      result, points, termination or "", played, spec.opening_name, text.getvalue())


def _loss(colour: chess.Color) -> str:
    return "0-1" if colour == chess.WHITE else "1-0"


def _comment(answer) -> str:
    parts = []
    if answer.score is not None:
        parts.append(f"{answer.score / 100:+.2f}/{answer.depth or 0}")
    parts.append(f"{answer.seconds:.2f}s")
    if answer.nodes is not None:
        parts.append(f"nodes {answer.nodes}")  # every search behind the move: budget fairness is checked from these
    if answer.note:
        parts.append(answer.note)
    return " ".join(parts)
