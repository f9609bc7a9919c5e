#!/usr/bin/env python3
"""Plots a BenchRunner CSV (long form, one value per row) into PNG files.

  plot.py [CSV] [OUTPUT_DIR]

Writes <stem>-throughput.png, <stem>-latency.png, <stem>-drift.png and
<stem>-drift-summary.png. Each bar is the median over repetitions; the
error bars span the smallest to the largest repetition. Throughput is drawn
on a log axis with each bar's median and its ratio to the library's first
variant printed on it; latency has one panel per regime (paced at a rate,
busy with elements in flight), each titled with its own parameters.
"""
import csv
import glob
import os
import statistics
import sys
from collections import OrderedDict, defaultdict

plt = None


def load_matplotlib():
    """Imports matplotlib (headless) on first use, so the data helpers can
    be run and checked where it is not installed."""
    global plt
    if plt is None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot

        plt = pyplot


def load(path):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["value"] = float(row["value"]) if row["value"] != "" else None
    return rows


def params_dict(text):
    return dict(pair.split("=", 1) for pair in text.split(";") if "=" in pair)


def series(rows, benchmark, metric):
    """(allocator, variant, params) -> [values], keeping first-seen order."""
    out = OrderedDict()
    for row in rows:
        if row["benchmark"] == benchmark and row["metric"] == metric and row["value"] is not None:
            out.setdefault((row["allocator"], row["variant"], row["params"]), []).append(row["value"])
    return out


def label(allocator, variant, allocators):
    return variant if len(allocators) == 1 else f"{variant}\n({allocator})"


def latency_regimes(keys):
    """Groups latency series keys (allocator, variant, params) by regime, in
    first-seen order: [(title, [keys])]. A paced series has rate_per_s in
    its params, a busy one regime=busy (and in_flight); anything else is
    its own regime named by its params, so no two regimes share a panel."""
    groups = OrderedDict()
    for key in keys:
        fields = params_dict(key[2])
        if fields.get("regime") == "busy":
            in_flight = fields.get("in_flight")
            title = "busy: back-to-back elements" + (f", {in_flight} in flight" if in_flight else "")
        elif "rate_per_s" in fields:
            title = f"paced at {fields['rate_per_s']} elements/s"
        else:
            title = key[2] or "default"
        groups.setdefault(title, []).append(key)
    return list(groups.items())


def ratio_labels(names, medians):
    """Text for each throughput bar: the median in millions and its ratio to
    the first bar of this library (not a peer or reference), e.g. '37.2M\n1.00x'."""
    base = next((m for n, m in zip(names, medians) if not n.startswith(("peer.", "reference.")) and m > 0), None)
    labels = []
    for median in medians:
        text = f"{median:.3g}M"
        if base:
            ratio = median / base
            text += f"\n{ratio:.2g}x" if ratio < 1 else f"\n{ratio:.3g}x"
        labels.append(text)
    return labels


def bars(ax, data, allocators, scale=1.0):
    labels, medians, lows, highs = [], [], [], []
    for (allocator, variant, _params), values in data.items():
        median = statistics.median(values) * scale
        labels.append(label(allocator, variant, allocators))
        medians.append(median)
        lows.append(median - min(values) * scale)
        highs.append(max(values) * scale - median)
    positions = range(len(labels))
    colors = ["tab:blue" if not l.startswith(("peer.", "reference.")) else
              ("tab:gray" if l.startswith("reference.") else "tab:orange") for l in labels]
    ax.bar(positions, medians, yerr=[lows, highs], color=colors, capsize=3)
    ax.set_xticks(list(positions))
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    return medians


def title_suffix(rows):
    first = rows[0]
    return f"{first['git_rev']} · {first['cpu']} · {first['cores']} cores · Swift {first['swift_version']}"


def plot_throughput(rows, allocators, out):
    data = series(rows, "observeOn.throughput", "elements_per_s")
    if not data:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5))
    medians = bars(ax, data, allocators, scale=1e-6)
    # A log axis, so peers a hundred times slower are bars, not flat lines;
    # and each bar's figure and ratio printed on it.
    ax.set_yscale("log")
    names = [variant for (_allocator, variant, _params) in data.keys()]
    for position, (median, text) in enumerate(zip(medians, ratio_labels(names, medians))):
        ax.text(position, median, text, ha="center", va="bottom", fontsize=6)
    ax.set_ylabel("million elements / s (median, min–max, log scale)")
    first = next((n for n in names if not n.startswith(("peer.", "reference."))), "?")
    ax.set_title("observeOn throughput: this library (blue), peers (orange), references (gray); "
                 f"ratios to {first}\n" + title_suffix(rows), fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_latency(rows, allocators, out):
    metrics = [("latency_p50_ns", "p50"), ("latency_p99_ns", "p99"), ("latency_p999_ns", "p99.9"), ("latency_max_ns", "max")]
    per_metric = [series(rows, "observeOn.latency", m) for m, _ in metrics]
    if not per_metric[0]:
        return None
    regimes = latency_regimes(list(per_metric[0].keys()))
    fig, axes = plt.subplots(1, len(regimes), figsize=(8 * len(regimes), 5.5), squeeze=False)
    width = 0.2
    for ax, (title, keys) in zip(axes[0], regimes):
        for index, ((_, name), data) in enumerate(zip(metrics, per_metric)):
            medians = [statistics.median(data[k]) / 1000 if k in data else 0 for k in keys]
            ax.bar([p + (index - 1.5) * width for p in range(len(keys))], medians, width, label=name)
        ax.set_yscale("log")
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([label(a, v, allocators) for a, v, _ in keys], rotation=35, ha="right", fontsize=8)
        ax.set_ylabel("hop latency, µs (median over repetitions, log scale)")
        ax.set_title(f"observeOn hop latency, {title}", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3, which="both")
    fig.suptitle(title_suffix(rows), fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_drift(rows, allocators, out):
    trace = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["benchmark"] == "periodic.drift" and row["metric"] == "lateness_at_tick_us" and row["value"] is not None:
            params = params_dict(row["params"])
            # One panel per period and length: the 10,000-tick series is not
            # drawn over the 500-tick one of the same period.
            panel = (params.get("period_ms", "?"), params.get("ticks", "?"))
            key = (panel, label(row["allocator"], row["variant"], allocators))
            tick = int(params.get("tick", 0))
            # Skipped ticks shift a repetition's samples by a tick or two:
            # gather them at the nearest of 20 evenly spaced positions.
            step = max(1, int(params.get("ticks", "0") or 0) // 20)
            trace[key][round(tick / step) * step].append(row["value"])
    if not trace:
        return None
    def numeric(text):
        try:
            return float(text)
        except ValueError:
            return float("inf")

    panels = sorted({panel for panel, _ in trace}, key=lambda pt: (numeric(pt[0]), numeric(pt[1])))
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        period, ticks_count = panel
        ax.set_prop_cycle(color=plt.cm.tab20.colors)
        for (p, name), ticks in sorted(trace.items()):
            if p != panel:
                continue
            xs = sorted(ticks)
            ys = [statistics.median(ticks[x]) for x in xs]
            style = "--" if name.startswith("peer.") else "-"
            ax.plot(xs, ys, style, marker="o", markersize=3, label=name)
        ax.set_title(f"period {period} ms, {ticks_count} ticks: lateness of tick k vs start + k·period", fontsize=10)
        ax.set_xlabel("tick k")
        ax.set_ylabel("lateness, µs (median over repetitions)")
        ax.set_yscale("symlog", linthresh=10)
        # From zero in every panel, so that a flat band reads as flat.
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("periodic drift · " + title_suffix(rows), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_drift_summary(rows, allocators, out):
    data = series(rows, "periodic.drift", "lateness_p99_us")
    if not data:
        return None
    fig, ax = plt.subplots(figsize=(12, 5))
    relabeled = OrderedDict()
    for (allocator, variant, params), values in data.items():
        fields = params_dict(params)
        name = f"{variant} [{fields.get('period_ms', '?')} ms × {fields.get('ticks', '?')}]"
        relabeled[(allocator, name, params)] = values
    bars(ax, relabeled, allocators)
    ax.set_yscale("symlog", linthresh=10)
    ax.set_ylabel("p99 tick lateness, µs (median, min–max)")
    ax.set_title("periodic drift: p99 lateness per scheduler and period\n" + title_suffix(rows), fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv):
    if len(argv) > 1:
        path = argv[1]
    else:
        candidates = sorted(glob.glob("results/*.csv"))
        if not candidates:
            sys.exit("plot: no CSV given and none in results/")
        path = candidates[-1]
    load_matplotlib()
    out_dir = argv[2] if len(argv) > 2 else os.path.dirname(path) or "."
    os.makedirs(out_dir, exist_ok=True)
    rows = load(path)
    if not rows:
        sys.exit(f"plot: {path} has no rows")
    # Only the allocators of timed rows label bars: a default run times under
    # `system` and counts allocations (not plotted) under `jemalloc`.
    allocators = sorted({row["allocator"] for row in rows if not row["metric"].startswith(("allocs_", "bytes_per_"))})
    stem = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0])
    made = [
        plot_throughput(rows, allocators, f"{stem}-throughput.png"),
        plot_latency(rows, allocators, f"{stem}-latency.png"),
        plot_drift(rows, allocators, f"{stem}-drift.png"),
        plot_drift_summary(rows, allocators, f"{stem}-drift-summary.png"),
    ]
    # scale.* sweeps: one log–log PNG per benchmark (plot_scale.py).
    from plot_scale import plot_scale
    made += plot_scale(plt, rows, stem, " · " + title_suffix(rows))
    for item in made:
        if item:
            print(f"wrote {item}")


if __name__ == "__main__":
    main(sys.argv)
