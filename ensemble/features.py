"""Per-candidate features for learned selection: everything the ensemble knows about a
proposed move when it must choose, as one row of numbers per candidate.

The rows do not depend on how many instances an ensemble has or in which order they
answer (voters are summarised by counts, shares, means and maxima), so one model can
rank the candidates of any ensemble.  Scores are in pawns, clamped to ±20, from the
side to move's point of view; a missing value (no margin probe, no full-knowledge
voter) is NaN, which the tree models take as "unknown".
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import chess

from evaluation.spec import CATEGORIES
from ensemble.ballot import GENERALISED_WEIGHTS, SelectionInput, clamp_score, votes

PAWNS_CAP = 20.0
FULL_MASK = 127
PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
PHASE_WEIGHTS = {chess.KNIGHT: 1, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 4}

FEATURES: tuple[str, ...] = (
    # votes
    "votes", "vote_share", "is_plurality", "weighted_vote_share", "ballots", "candidates",
    # the voters' searches
    "depth_max_rel", "depth_mean_rel", "root_done_mean", "score_max", "score_mean", "score_rel_best",
    "gain_mean", "gain_max", "stability_mean", "stability_max", "margin_max", "thread_vote_share",
    # the PV ends, judged by every instance and category by category
    "global_gain", "local_gain",
    *(f"pv_{c}" for c in CATEGORIES),
    # the voters' knowledge
    *(f"knows_{c}" for c in CATEGORIES), "categories_known",
    "has_full_voter", "full_agrees",
    # the position
    "phase", "material", "root_eval",
    # the move
    "capture", "check", "promotion", "castling", *(f"moves_{p}" for p in PIECE_NAMES),
)


def _pawns(cp: float) -> float:
    return max(-PAWNS_CAP, min(PAWNS_CAP, cp / 100.0))


def game_phase(board: chess.Board) -> float:
    """1 in the opening's full material, 0 with only kings and pawns."""
    total = sum(w * len(board.pieces(p, colour)) for p, w in PHASE_WEIGHTS.items() for colour in chess.COLORS)
    return min(total, 24) / 24.0


def candidate_features(inp: SelectionInput) -> dict[str, list[float]]:
    """Every candidate's feature row (in ``FEATURES`` order), candidates in order of
    first appearance.  Needs the evidence with category terms (``gather_evidence``)."""
    ballots = inp.ballots
    n = len(ballots)
    board = chess.Board(inp.key) if inp.key else None
    ev = inp.evidence
    counts = votes(ballots)
    top_votes = max(counts.values())
    max_depth = max(b.result.depth for b in ballots)
    scores = [clamp_score(b.result.score_cp) for b in ballots]
    best_score = max(scores)
    lowest = min(scores)
    thread = [(s - lowest + 14) * b.result.depth for s, b in zip(scores, ballots)]
    weight = [_mean([GENERALISED_WEIGHTS[c] for c in CATEGORIES if b.spec.uses(c)]) for b in ballots]
    has_evidence = len(ev.root_eval) == n and len(ev.leaf_eval) == n
    has_terms = has_evidence and len(ev.root_nets) == 7 and len(ev.leaf_nets) == n
    sign = 1 if board is None or board.turn == chess.WHITE else -1
    full = [i for i, b in enumerate(ballots) if b.spec.mask == FULL_MASK]
    phase = game_phase(board) if board is not None else math.nan
    material = sign * ev.root_nets[0] / 100.0 if has_terms else math.nan
    root_eval = _pawns(_mean(ev.root_eval)) if has_evidence else math.nan

    rows: dict[str, list[float]] = {}
    for move, count in counts.items():
        voters = [i for i, b in enumerate(ballots) if b.move == move]
        vb = [ballots[i] for i in voters]
        row: list[float] = [
            count, count / n, float(count == top_votes), sum(weight[i] for i in voters) / sum(weight), n, len(counts),
            max(b.result.depth for b in vb) - max_depth, _mean([b.result.depth for b in vb]) - max_depth,
            _mean([b.result.root_moves_searched / max(1, b.result.root_moves) for b in vb]),
            _pawns(max(scores[i] for i in voters)), _pawns(_mean([scores[i] for i in voters])),
            _pawns(max(scores[i] for i in voters) - best_score),
        ]
        if has_evidence:
            gains = [scores[i] - ev.root_eval[i] for i in voters]
            row += [_pawns(_mean(gains)), _pawns(max(gains))]
        else:
            row += [math.nan, math.nan]
        margins = [b.result.margin for b in vb if b.result.margin is not None]
        row += [_mean([b.result.stability for b in vb]), max(b.result.stability for b in vb),
                _pawns(max(margins)) if margins else math.nan, sum(thread[i] for i in voters) / max(1, sum(thread))]
        if has_evidence:
            global_gain = _mean([_mean([ev.leaf_eval[i][j] - ev.root_eval[j] for j in range(n)]) for i in voters])
            local_gain = _mean([ev.leaf_eval[i][i] - ev.root_eval[i] for i in voters])
            row += [_pawns(global_gain), _pawns(local_gain)]
        else:
            row += [math.nan, math.nan]
        if has_terms:
            row += [_pawns(sign * _mean([ev.leaf_nets[i][c] - ev.root_nets[c] for i in voters])) for c in range(7)]
        else:
            row += [math.nan] * 7
        known = [float(any(b.spec.uses(c) for b in vb)) for c in CATEGORIES]
        row += known + [sum(known)]
        row += [float(bool(full)), (float(any(ballots[i].move == move for i in full)) if full else math.nan)]
        row += [phase, material, root_eval]
        row += _move_kind(board, move)
        rows[move] = row
    return rows


def _move_kind(board: chess.Board | None, uci: str) -> list[float]:
    if board is None:
        return [math.nan] * (4 + len(PIECE_NAMES))
    move = chess.Move.from_uci(uci)
    piece = board.piece_type_at(move.from_square)
    kind = [float(board.is_capture(move)), float(board.gives_check(move)), float(move.promotion is not None),
            float(board.is_castling(move))]
    return kind + [float(piece == p) for p in chess.PIECE_TYPES]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def feature_matrix(inputs: Sequence[SelectionInput]) -> tuple[list[list[float]], list[int], list[str]]:
    """Rows for many decisions: (rows, group index of each row, candidate move of each row)."""
    rows, groups, moves = [], [], []
    for g, inp in enumerate(inputs):
        for move, row in candidate_features(inp).items():
            rows.append(row)
            groups.append(g)
            moves.append(move)
    return rows, groups, moves
