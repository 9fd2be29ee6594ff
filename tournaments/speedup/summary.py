"""One table and one plot from the node-clock rows of ``concilio speedup`` (its
``<name>-nodes.csv``): S and E of every algorithm at every worker count, search overhead and
messages at the largest, and the seeds' published speedups (:mod:`.published`) as reference
rows and dashed lines.  Why a separate step: the rows take an hour to measure and the table is
rewritten as documents change; reading the CSV back costs nothing."""
from __future__ import annotations

import csv
from pathlib import Path

from .published import PUBLISHED


def read_rows(path: str | Path) -> list[dict]:
    """The CSV's rows, numbers as numbers; of a time-based CSV only the rows timed on as many
    cores as workers (the others give N and SO only)."""
    rows = []
    with Path(path).open(newline="") as handle:
        for raw in csv.DictReader(handle):
            row: dict = {}
            for key, value in raw.items():
                try:
                    row[key] = int(value)
                except ValueError:
                    try:
                        row[key] = float(value)
                    except ValueError:
                        row[key] = value
            if row.get("time_based") not in ("False", False, 0):
                rows.append(row)
    return rows


def by_algorithm(rows: list[dict]) -> dict[str, dict[int, dict]]:
    out: dict[str, dict[int, dict]] = {}
    for r in rows:
        out.setdefault(r["algorithm"], {})[int(r["workers"])] = r
    return out


def table(rows: list[dict]) -> list[str]:
    """Markdown: one line per algorithm, S (E) per worker count, then SO, production and
    messages at the largest count; at each count, how many answers (score) equal the sequential
    search's: time to depth reads fairly only where the answers are the same."""
    algos = by_algorithm(rows)
    counts = sorted({int(r["workers"]) for r in rows})
    top = counts[-1]
    head = ("| algorithm | " + " | ".join(f"S (E) at {k}" for k in counts)
            + f" | SO at {top} | production at {top} | messages at {top} | S_own at {top} | "
            + "answers = sequential's at " + ", ".join(str(k) for k in counts) + " |")
    lines = [head, "|" + "---|" * (len(counts) + 6)]
    for name, at in algos.items():
        cells = [f"{at[k]['S']:.2f} ({at[k]['E']:.2f})" if k in at else "–" for k in counts]
        last = at.get(top)
        own = last.get("S_own") if last else None
        agree = ", ".join(str(at[k]["agree"]) if k in at else "–" for k in counts) \
            + f" of {max(r['positions'] for r in at.values())}"
        tail = (f"{last['SO']:.2f} | {last['production']:.2f} | {last['messages']:,}" if last else "– | – | –")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {tail} | "
                     + (f"{own:.2f}" if isinstance(own, (int, float)) else "–") + f" | {agree} |")
    lines += ["", "Published (other programs, other trees; S by processors, E in brackets):", "",
              "| algorithm | source | S (E) |", "|---|---|---|"]
    for p in PUBLISHED:
        cells = ", ".join(f"{k}: {s:.2f} ({s / k:.2f})" for k, s in sorted(p.speedups.items()))
        lines.append(f"| {p.algorithm} | {p.source} | {cells} |")
    return lines


def plot(rows: list[dict], path: str | Path, title: str = "") -> Path:
    """E against workers, ours solid, the published dashed (matplotlib, no display needed)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 6))
    markers = "osD^v<>phX*"
    for i, (name, at) in enumerate(by_algorithm(rows).items()):
        ks = sorted(at)
        ax.plot(ks, [at[k]["E"] for k in ks], marker=markers[i % len(markers)], color=plt.cm.tab20(i % 20),
                label=name)
    for p in PUBLISHED:
        if len(p.speedups) > 1:
            e = p.efficiency()
            ks = sorted(e)
            ax.plot(ks, [e[k] for k in ks], linestyle="--", color="grey", alpha=0.6, marker="x")
            ax.annotate(p.algorithm.split(",")[0], (ks[-1], e[ks[-1]]), fontsize=7, color="grey")
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 2, 4, 8, 16])
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("workers k")
    ax.set_ylabel("efficiency E = S / k (node clock; published: wall time, dashed)")
    ax.set_title(title or "Efficiency against workers")
    ax.axhline(1.0, color="black", linewidth=0.5)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
