"""The thesis's experiment-1 table from a finished `concilio match thesis` run, with the
published totals beside ours.

Usage: python benchmarks/thesis_tournament_table.py [runs/thesis]   (prints the header and table of a run
for docs/results/thesis-games.md, whose reading is written by hand)
"""
from __future__ import annotations

import sys
from pathlib import Path

from tournaments.match.config import load_match
from tournaments.match.run import read_records, summarise

THESIS = {  # label: (simple, (white wins, black wins)), (generalised, ...)
    "3a": ((10.74, 6, 3), (13.30, 7, 6)), "4a": ((9.11, 5, 3), (13.32, 8, 4)), "5a": ((9.91, 6, 2), (13.40, 8, 5)),
    "6a": ((9.31, 4, 3), (13.53, 6, 6)), "3b": ((15.28, 8, 7), (11.40, 7, 4)), "4b": ((11.45, 3, 7), (13.32, 7, 4)),
    "5b": ((11.94, 8, 4), (13.26, 6, 6)), "6b": ((8.96, 5, 3), (14.05, 9, 4)), "3c": ((10.99, 6, 4), (13.94, 6, 7)),
    "4c": ((10.46, 4, 3), (12.65, 6, 5)), "5c": ((10.31, 4, 5), (12.48, 5, 6)), "6c": ((7.79, 4, 3), (9.27, 4, 3)),
    "3d": ((11.94, 5, 5), (10.21, 6, 4)), "4d": ((14.61, 7, 6), (11.38, 3, 6)), "5d": ((12.43, 7, 5), (8.05, 4, 2)),
    "6d": ((7.72, 1, 5), (8.12, 5, 2)),
}


def main(folder: str = "runs/thesis") -> int:
    config = load_match("thesis")
    records = read_records(Path(folder))
    summaries = {s.player: s for s in summarise(config, records)}
    print("| player | ours simple | W (white+black) | Elo [95%] | thesis simple | ours generalised | "
          "W (white+black) | Elo [95%] | thesis generalised |")
    print("|---|---|---|---|---|---|---|---|---|")
    above = {"simple": 0, "generalised": 0}
    played = {"simple": 0, "generalised": 0}
    for label, (simple, general) in THESIS.items():
        cells = []
        for weights, thesis in (("simple", simple), ("generalised", general)):
            s = summaries.get(f"{label}-{weights}")
            if s is None or s.games == 0:
                cells += ["-", "-", "-", f"{thesis[0]:.2f} ({thesis[1]}+{thesis[2]})"]
                continue
            played[weights] += 1
            above[weights] += s.thesis_points > s.games / 2
            cells += [f"{s.thesis_points:.2f}/{s.games}", f"{s.white[0]}+{s.black[0]}", s.elo().format(),
                      f"{thesis[0]:.2f} ({thesis[1]}+{thesis[2]})"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    for weights in ("simple", "generalised"):
        print(f"{weights}: {above[weights]} of {played[weights]} players above break-even "
              f"(the thesis: 75% of all 32 cells above 10/20).")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
