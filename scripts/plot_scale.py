"""Log–log plots of the scale.* sweeps of a BenchRunner CSV (docs/Scale.md).

One PNG per sweep benchmark, <stem>-<benchmark>.png: a panel per metric (and
phase), a line per variant through the medians over repetitions at each N,
the min–max of the repetitions as error bars, and in the legend the growth
exponent the run recorded (median of its repetitions' exponents).
Called by plot.py; the data helpers need no matplotlib.
"""
import statistics
from collections import OrderedDict


def params_dict(text):
    return dict(pair.split("=", 1) for pair in text.split(";") if "=" in pair)


def sweeps(rows):
    """benchmark -> (metric, phase) -> variant -> n -> [values], and
    benchmark -> (metric, phase) -> variant -> [exponents]."""
    points = OrderedDict()
    exponents = {}
    for row in rows:
        if not row["benchmark"].startswith("scale.") or row["value"] is None:
            continue
        fields = params_dict(row["params"])
        phase = fields.get("phase", "")
        if row["metric"] in ("growth_exponent", "allocs_growth_exponent"):
            key = (fields.get("of", "?"), phase)
            exponents.setdefault(row["benchmark"], {}).setdefault(key, {}).setdefault(row["variant"], []).append(
                row["value"])
            continue
        if "n" not in fields:
            continue
        key = (row["metric"], phase)
        by_variant = points.setdefault(row["benchmark"], OrderedDict()).setdefault(key, OrderedDict())
        by_variant.setdefault(row["variant"], OrderedDict()).setdefault(int(fields["n"]), []).append(row["value"])
    return points, exponents


def plot_scale(plt, rows, stem, title_suffix=""):
    """Writes one log–log PNG per scale benchmark; returns the paths."""
    points, exponents = sweeps(rows)
    made = []
    for benchmark, panels in points.items():
        fitted = exponents.get(benchmark, {})
        keys = [key for key in panels if any(v > 0 for var in panels[key].values() for vals in var.values() for v in vals)]
        if not keys:
            continue
        columns = min(3, len(keys))
        rows_count = (len(keys) + columns - 1) // columns
        fig, axes = plt.subplots(rows_count, columns, figsize=(5.2 * columns, 4.2 * rows_count), squeeze=False)
        for index, key in enumerate(keys):
            ax = axes[index // columns][index % columns]
            metric, phase = key
            for variant, by_n in panels[key].items():
                ns = sorted(n for n in by_n if by_n[n])
                medians = [statistics.median(by_n[n]) for n in ns]
                low = [m - min(by_n[n]) for m, n in zip(medians, ns)]
                high = [max(by_n[n]) - m for m, n in zip(medians, ns)]
                exponent = fitted.get(key, {}).get(variant)
                name = variant if not exponent else f"{variant} (b={statistics.median(exponent):.2f})"
                if all(m > 0 for m in medians):
                    ax.errorbar(ns, medians, yerr=[low, high], marker="o", capsize=3, label=name)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("N")
            ax.set_ylabel(metric)
            ax.set_title(metric + (f" · {phase}" if phase else ""), fontsize=9)
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=7)
        for index in range(len(keys), rows_count * columns):
            axes[index // columns][index % columns].axis("off")
        fig.suptitle(f"{benchmark}: cost against N (log–log; b = growth exponent){title_suffix}", fontsize=10)
        fig.tight_layout()
        out = f"{stem}-{benchmark}.png"
        fig.savefig(out, dpi=100)
        plt.close(fig)
        made.append(out)
    return made
