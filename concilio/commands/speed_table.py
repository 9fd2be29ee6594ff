"""``concilio speed-table``: measure the speeds behind time-equivalent node budgets
(``players.speed``)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from concilio.commands.parsing import command


def add_parser(sub) -> None:
    p = command(sub, "speed-table", "measure the speeds behind time-equivalent node budgets",
                "concilio speed-table --team configs/ensembles/3b.yaml")
    p.add_argument("--out", default="data/calibration/speed.json", help="where the table goes")
    p.add_argument("--team", action="append", help="decomposition file whose team speed to measure (repeatable)")
    p.add_argument("--nodes", type=int, default=20000, help="nodes per bench position and mask")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (the median is kept)")
    p.add_argument("--movetime", type=int, default=500, help="ms per bench position for the teams")
    p.add_argument("--all-masks", action="store_true", help="also the masks without M (default: the 64 with M)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from players.speed_measure import measure_speed_table
    masks = list(range(1, 128)) if args.all_masks else list(range(64, 128))
    table = measure_speed_table(masks, args.team or [], args.nodes, args.rounds, args.movetime,
                                progress=lambda line: print(line, file=sys.stderr))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(table.to_json() + "\n")
    slow = min(table.masks.items(), key=lambda kv: kv[1])
    fast = max(table.masks.items(), key=lambda kv: kv[1])
    print(f"{len(table.masks)} masks: speed {slow[1]:.3f} (mask {slow[0]}) to {fast[1]:.3f} (mask {fast[0]}); "
          + ", ".join(f"{k} {v:.3f}" for k, v in table.teams.items()) + f"; written to {out}")
    return 0
