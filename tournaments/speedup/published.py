"""The seeds' published speedups (Jurčovič 2005; the Italian thesis on GnuChess and Linda), as reference rows beside
ours: what each source measured, on what, at which processor counts.  Kept as data so that the
table and the plot of ``concilio speedup`` cite the same numbers.

The sources measured other programs on other trees (the thesis: its chess program on 24
Bratko–Kopec positions at 5 plies over Ethernet, processors counted with the master;
Jurčovič: checkers, 12 positions at 15 plies on a 100 Mbit LAN; Devesa: GNU Chess 5 on Condor,
9 positions, seconds from his tables: at best 1.32 at 10 plies, his machine count not fixed,
so it is quoted, not plotted), so they are a yardstick, not a target.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    """One source's speedups of one algorithm: processors -> S."""

    algorithm: str
    source: str
    speedups: dict[int, float]

    def efficiency(self) -> dict[int, float]:
        return {k: s / k for k, s in self.speedups.items()}


PUBLISHED = (
    Published("root split, master-worker", "thesis (seed 000), Bratko-Kopec at 5 plies",
              {3: 1.82, 5: 3.00, 7: 3.70, 9: 4.18, 11: 4.65}),
    Published("peer + ID + reordering + score sharing", "thesis (seed 000)",
              {3: 2.51, 5: 3.64, 7: 4.54, 9: 5.13, 11: 5.27}),
    Published("PV splitting + score sharing", "thesis (seed 000)", {3: 2.55, 5: 3.75, 7: 4.67, 9: 5.37, 11: 5.57}),
    Published("dynamic subcontracting", "thesis (seed 000)", {3: 2.23, 5: 3.04, 7: 3.51, 9: 3.92, 11: 4.21}),
    Published("DPVSplit", "thesis (seed 000)", {3: 2.66, 5: 3.73, 7: 4.54, 9: 5.13, 11: 5.58}),
    Published("master tree", "Jurčovič (seed 001), checkers at 15 plies", {2: 3.25, 4: 4.09, 8: 5.98, 16: 9.22}),
    Published("master tree without the exchange", "Jurčovič (seed 001)", {4: 0.81}),
)
