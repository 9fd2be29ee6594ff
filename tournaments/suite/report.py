"""Suite-run report: the thesis's three tables (single instances; C_D per player;
Val and C_s per player × criterion), printed, and written as CSV and Markdown with a
plot of Val against C_D (one marker per criterion)."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Sequence

from tournaments.statistics.stats import McNemar
from tournaments.suite.config import FULL_LABEL
from tournaments.suite.metrics import Comparison, Score

# Experiment 2 of the thesis (500 middlegame positions, 60 s each), for side-by-side reading.
THESIS_SINGLE = {"(MB)": 91, "(MX)": 93, "(MK)": 78, "(MP)": 107, "(MA)": 86, "(MR)": 83, "(MBX)": 107,
                 "(MBXK)": 104, "(MBXP)": 120, "(MBXA)": 111, "(MBKA)": 107, "(MBKR)": 100, "(MBPR)": 101,
                 "(MXKA)": 98, "(MXKR)": 98, "(MXPA)": 123, "(MXAR)": 103, "(MKPR)": 99, "(MBXKP)": 117,
                 "(MBXKPA)": 118, "(MBXKPR)": 118, "(MBXKPAR)": 127}
THESIS_CD = {"3a": .312, "4a": .392, "5a": .414, "6a": .444, "3b": .362, "4b": .414, "5b": .402, "6b": .422,
             "3c": .364, "4c": .378, "5c": .408, "6c": .424, "3d": .254, "4d": .326, "5d": .342, "6d": .372}
THESIS_CRITERIA = {"majority": (.218, .586), "weighted_majority(weights=simple)": (.218, .586),
                   "weighted_majority": (.218, .585), "depth_confidence": (.222, .598),
                   "local_minimax": (.227, .613), "global_minimax": (.193, .524),
                   "posterior_simplified": (.193, .521), "posterior": (.206, .556)}


def single_rows(scores: Sequence[Score]) -> list[list[str]]:
    totals = _total_references(scores)
    rows = []
    for s in scores:
        if not s.single:
            continue
        thesis = THESIS_SINGLE.get(s.player)
        reference = "(reference at k×N)" if s.player in totals else "(reference)"
        rows.append([s.suite, s.player, s.val.format(), f"{s.val.successes}/{s.n}", _points(s),
                     _test(s.at_budget, "solved") or reference, _test(s.at_budget, "points") or reference,
                     f"{thesis / 500:.3f}" if thesis is not None else ""])
    return rows


def cd_rows(scores: Sequence[Score]) -> list[list[str]]:
    seen = set()
    rows = []
    for s in scores:
        if s.single or (s.suite, s.player) in seen:
            continue
        seen.add((s.suite, s.player))
        thesis = THESIS_CD.get(s.player)
        rows.append([s.suite, s.player, s.cd.format(), f"{thesis:.3f}" if thesis is not None else "",
                     s.at_total.reference if s.at_total else ""])
    return rows


def val_rows(scores: Sequence[Score]) -> list[list[str]]:
    return [[s.suite, s.player, s.criterion, s.val.format(), f"{s.cs:.3f}", _points(s),
             _test(s.at_budget, "solved"), _test(s.at_budget, "points"), _test(s.at_total, "solved"),
             _test(s.at_total, "points")] for s in scores if not s.single]


def criterion_means(scores: Sequence[Score]) -> list[list[str]]:
    by: dict[tuple[str, str], list[Score]] = {}
    for s in scores:
        if not s.single:
            by.setdefault((s.suite, s.criterion), []).append(s)
    rows = []
    for (suite, crit), group in by.items():
        val = sum(s.val.value for s in group) / len(group)
        cs = sum(s.cs for s in group) / len(group)
        thesis = THESIS_CRITERIA.get(crit)
        rows.append([suite, crit, f"{val:.3f}", f"{cs:.3f}", f"{thesis[0]:.3f} / {thesis[1]:.3f}" if thesis else ""])
    return rows


SINGLE_HEAD = ["suite", "instance", "Val [95% CI]", "solved", "STS points", "vs full (McNemar)", "vs full (sign)",
               "thesis Val"]
CD_HEAD = ["suite", "player", "C_D [95% CI]", "thesis C_D", "full engine at k×N"]
VAL_HEAD = ["suite", "player", "criterion", "Val [95% CI]", "C_s", "STS points", "vs full (McNemar)",
            "vs full (sign)", "vs full at k×N (McNemar)", "vs full at k×N (sign)"]
MEAN_HEAD = ["suite", "criterion", "mean Val", "mean C_s", "thesis Val / C_s"]


def text_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)] if rows else [len(h) for h in head]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths))
    out = [line, "-" * len(line)]
    out += ["  ".join(str(x).ljust(w) for x, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def markdown_table(head: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def tables(scores: Sequence[Score]) -> list[tuple[str, list[str], list[list[str]]]]:
    return [("Single instances", SINGLE_HEAD, single_rows(scores)),
            ("Potential of the distribution: C_D per player", CD_HEAD, cd_rows(scores)),
            ("Players × criteria: Val and C_s", VAL_HEAD, val_rows(scores)),
            ("Criteria averaged over the players", MEAN_HEAD, criterion_means(scores))]


def print_report(scores: Sequence[Score]) -> str:
    return "\n\n".join(f"{title}\n{text_table(head, rows)}" for title, head, rows in tables(scores) if rows)


def write_report(scores: Sequence[Score], folder: Path, header: str = "", footer: str = "") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = folder / "scores.csv"
    with csv_path.open("w", newline="") as handle:
        w = csv.writer(handle)
        w.writerow(["suite", "player", "criterion", "positions", "C_D", "C_D_low", "C_D_high", "Val", "Val_low",
                    "Val_high", "C_s", "points", "max_points", "mcnemar_only_player", "mcnemar_only_full",
                    "mcnemar_p", "mcnemar_p_holm", "mcnemar_p_bh", *_columns("sign"), "total_reference",
                    *_columns("total_mcnemar"), *_columns("total_sign")])
        for s in scores:
            n, t = s.at_budget, s.at_total
            w.writerow([s.suite, s.player, s.criterion, s.n, f"{s.cd.value:.4f}", f"{s.cd.low:.4f}",
                        f"{s.cd.high:.4f}", f"{s.val.value:.4f}", f"{s.val.low:.4f}", f"{s.val.high:.4f}",
                        f"{s.cs:.4f}", s.points, s.max_points, *_cells(n and n.solved), *_cells(n and n.points),
                        t.reference if t else "", *_cells(t and t.solved), *_cells(t and t.points)])
    themes_path = folder / "sts_themes.csv"
    with themes_path.open("w", newline="") as handle:
        w = csv.writer(handle)
        w.writerow(["suite", "player", "criterion", "theme", "points", "max_points"])
        for s in scores:
            for theme, (got, best) in sorted(s.themes.items()):
                w.writerow([s.suite, s.player, s.criterion, theme, got, best])
    md_path = folder / "report.md"
    parts = [header] if header else []
    parts += [f"## {title}\n\n{markdown_table(head, rows)}" for title, head, rows in tables(scores) if rows]
    if footer:
        parts.append(footer)
    md_path.write_text("\n\n".join(parts) + "\n")
    plot_path = folder / "val_vs_cd.png"
    plot(scores, plot_path)
    return [csv_path, themes_path, md_path, plot_path]


def plot(scores: Sequence[Score], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    suites = sorted({s.suite for s in scores})
    fig, axes = plt.subplots(1, len(suites), figsize=(6 * len(suites), 5), squeeze=False)
    markers = "os^vD<>pPX*h"
    for ax, suite in zip(axes[0], suites):
        group = [s for s in scores if s.suite == suite and not s.single]
        criteria = sorted({s.criterion for s in group})
        for i, crit in enumerate(criteria):
            pts = [s for s in group if s.criterion == crit]
            ax.scatter([s.cd.value for s in pts], [s.val.value for s in pts], marker=markers[i % len(markers)],
                       label=crit, alpha=0.8)
        full = next((s for s in scores if s.suite == suite and s.single and s.player == FULL_LABEL), None)
        if full is not None:
            ax.axhline(full.val.value, color="grey", linestyle="--", linewidth=1, label="full engine Val")
        totals = _total_references(group)
        for at in (s for s in scores if s.suite == suite and s.single and s.player in totals):
            ax.axhline(at.val.value, color="grey", linestyle=":", linewidth=1, label=f"{at.player} Val")
        lims = [0, max([s.cd.value for s in group] + [0.1]) * 1.05]
        ax.plot(lims, lims, color="lightgrey", linewidth=1)  # Val = C_D: every potential realised
        ax.set_xlabel("C_D (best move among the candidates)")
        ax.set_ylabel("Val (best move played)")
        ax.set_title(suite)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _total_references(scores: Sequence[Score]) -> set[str]:
    """The labels of the full engine at the ensembles' totals."""
    return {s.at_total.reference for s in scores if s.at_total}


def _test(comparison: Comparison | None, kind: str) -> str:
    """One test of a comparison as ``+a/-b p=… Holm … BH …`` (kind: solved or points)."""
    return getattr(comparison, kind).format() if comparison else ""


def _columns(prefix: str) -> list[str]:
    return [f"{prefix}_only_player" if "mcnemar" in prefix else f"{prefix}_plus",
            f"{prefix}_only_full" if "mcnemar" in prefix else f"{prefix}_minus",
            f"{prefix}_p", f"{prefix}_p_holm", f"{prefix}_p_bh"]


def _cells(test: McNemar | None) -> list:
    if not test:
        return [""] * 5
    return [test.only_a, test.only_b, f"{test.p_value:.4f}", f"{test.p_holm:.4f}" if test.p_holm is not None else "",
            f"{test.p_bh:.4f}" if test.p_bh is not None else ""]


def _points(s: Score) -> str:
    return f"{s.points}/{s.max_points}" if s.max_points else ""
