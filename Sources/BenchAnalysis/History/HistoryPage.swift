import Foundation
import ToolSupport

/// The static page `history --html DIR` writes: `index.html`, its data
/// (`history-data.js`, the history as JSON assigned to globals, so the page
/// opens from `file://` without fetching) and plotly.js beside them
/// (`plotly.min.js`, copied from plotly's Python package or `--plotly-js`).
/// Nothing is loaded from the network.
///
/// The page shows the newest run's summary (each series' median), what
/// compare says of the newest pair of runs on that machine, one trend chart
/// per series (each run a dot, each revision's median a line, each change
/// point a dashed line with its revision range, the revision and file on
/// hover), grouped by benchmark and drawn when a group is opened (`#open=all`
/// opens every group, `#open=A,B` the benchmarks named), the log-log charts
/// of each scale sweep from the newest run that measured it, and the outcome tables of a
/// Stress results CSV when one is given. Once drawn, the body carries
/// `data-page="ready"`, `data-series-count`, `data-sweep-count` and
/// `data-stress-count`, and each
/// drawn chart `data-rendered`, for the browser test
/// (`scripts/test-report-page.sh`).
package struct HistoryPage: Sendable {
    let report: HistoryReport
    /// The newest run read, and the run before it on the same machine.
    let newest: ResultFile?
    let previous: ResultFile?
    /// The level of the history's tests.
    let alpha: Double
    /// The latest stress outcomes, when given.
    var stress: StressOutcomes?

    /// The file names the page loads, beside `index.html`.
    static let plotlyFileName = "plotly.min.js"
    static let dataFileName = "history-data.js"

    /// `history-data.js`: the history, the newest run's medians, the scale
    /// sweeps, compare's report and the stress outcomes.
    func dataScript(runs: HistoryRuns) -> String {
        let history = HistoryFormatter(report: report, alpha: alpha).json()
        var extra: [String: Any] = [:]
        if let newest {
            extra["newestRun"] = newest.path
            extra["newestSummary"] = newest.series.compactMap { series -> [String: Any]? in
                guard let median = Statistics.median(series.values) else { return nil }
                return ["series": series.key.description, "median": median, "unit": series.unit]
            }
        }
        extra["sweeps"] = Self.sweeps(in: runs)
        if let stress {
            extra["stress"] = stress.pageData
        }
        if let newest, let previous {
            extra["comparePair"] = [previous.path, newest.path]
            do {
                let comparison = try ComparisonReport(base: previous, new: newest, options: CompareOptions())
                let formatter = CompareReportFormatter(report: comparison)
                extra["compare"] = formatter.table() + "\n" + formatter.summary()
            } catch {
                extra["compare"] = "compare could not read the pair: \(error)"
            }
        }
        let extraJSON = (try? JSONSerialization.data(withJSONObject: extra, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "window.HISTORY = \(history.trimmingCharacters(in: .whitespacesAndNewlines));\n"
            + "window.PAGE = \(extraJSON);\n"
    }

    /// The scale sweeps (`scale.*` benchmarks, a parameter `n=`), each
    /// benchmark's from the newest run that measured it: per benchmark,
    /// variant, metric and the other parameters, the median at each `n`.
    static func sweeps(in runs: HistoryRuns) -> [[String: Any]] {
        var newestRunOf: [String: HistoryRuns.Run] = [:]
        for run in runs.runs {
            for benchmark in Set(run.file.series.map(\.key.benchmark)) where benchmark.hasPrefix("scale.") {
                newestRunOf[benchmark] = run
            }
        }
        return newestRunOf.keys.sorted().flatMap { benchmark in
            newestRunOf[benchmark].map { sweeps(of: benchmark, in: $0) } ?? []
        }
    }

    /// The sweeps of `benchmark` in `run`.
    private static func sweeps(of benchmark: String, in run: HistoryRuns.Run) -> [[String: Any]] {
        struct Sweep {
            let chart: String
            let variant: String
            let unit: String
            var n: [Double] = []
            var median: [Double] = []
        }
        var sweeps: [String: Sweep] = [:]
        var order: [String] = []
        for series in run.file.series where series.key.benchmark == benchmark {
            let pairs = series.key.params.split(separator: CSVSchema.paramsSeparator).map(String.init)
            guard let nText = pairs.first(where: { $0.hasPrefix("n=") })?.dropFirst(2), let n = Double(nText), n > 0,
                let median = Statistics.median(series.values), median > 0
            else { continue }
            let rest = pairs.filter { !$0.hasPrefix("n=") && !$0.hasPrefix("points=") }.joined(separator: ";")
            let chart = "\(series.key.benchmark) \(series.key.metric)" + (rest.isEmpty ? "" : " \(rest)")
            let id = chart + "\n" + series.key.variant + "\n" + series.key.allocator
            var sweep = sweeps[id] ?? Sweep(chart: chart, variant: series.key.variant, unit: series.unit)
            if sweeps[id] == nil { order.append(id) }
            sweep.n.append(n)
            sweep.median.append(median)
            sweeps[id] = sweep
        }
        return order.compactMap { sweeps[$0] }.map { sweep in
            [
                "chart": sweep.chart, "variant": sweep.variant, "unit": sweep.unit, "n": sweep.n,
                "median": sweep.median, "run": run.file.path,
            ]
        }
    }

    /// `index.html`.
    static let html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Schedulers: every run remembered</title>
        <style>
        body { font-family: sans-serif; margin: 1.5em; color: #222; }
        h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.5em; }
        pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }
        table { border-collapse: collapse; font-size: 0.85em; }
        td, th { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        details { margin: 0.4em 0; } summary { cursor: pointer; font-weight: bold; }
        .chart { width: 100%; max-width: 1100px; height: 300px; }
        .sweep { display: inline-block; width: 540px; height: 320px; }
        table.stress-table { display: inline-table; margin: 0 1em 1em 0; vertical-align: top; }
        caption { text-align: left; font-weight: bold; }
        .worse { color: #b00; } .better { color: #070; }
        #page-errors { color: #b00; font-weight: bold; }
        </style>
        </head>
        <body>
        <h1>Schedulers: every run remembered</h1>
        <div id="page-errors"></div>
        <p id="overview"></p>
        <h2>Trends, one chart per series</h2>
        <p>Each dot is a run, the line each revision's median, a dashed line a change point (red: worse,
        green: better, grey: unconfirmed). Hover a point for its revision and file. A benchmark's charts
        are drawn when it is opened.</p>
        <div id="trends"></div>
        <h2>Change points of the timings</h2>
        <details><summary id="changes-title">Every confirmed and unconfirmed change point</summary>
        <div id="changes"></div></details>
        <h2>Scale sweeps (log–log), each from the newest run that measured it</h2>
        <div id="sweeps"></div>
        <h2>The newest pair of runs, compared</h2>
        <details><summary id="compare-title"></summary><pre id="compare"></pre></details>
        <h2>The latest stress outcomes</h2>
        <div id="stress"></div>
        <h2>The newest run's summary</h2>
        <details id="summary-details"><summary id="summary-title"></summary><div id="summary"></div></details>
        <script>
        window.addEventListener("error", function (event) {
          document.getElementById("page-errors").textContent += "error: " + event.message + " ";
        });
        </script>
        <script src="plotly.min.js"></script>
        <script src="history-data.js"></script>
        <script>
        (function () {
          "use strict";
          var history = window.HISTORY, page = window.PAGE;
          function element(tag, text, className) {
            var node = document.createElement(tag);
            if (text !== undefined) node.textContent = text;
            if (className) node.className = className;
            return node;
          }
          function short(revision) { return revision.replace(/^([0-9a-f]{7})[0-9a-f]*/, "$1"); }
          function name(series) {
            return series.benchmark + "/" + series.variant + (series.params ? " " + series.params : "") + " " +
              series.metric + (series.allocator ? " [" + series.allocator + "]" : "");
          }
          function percent(fraction) { return (fraction >= 0 ? "+" : "") + (fraction * 100).toFixed(1) + "%"; }
          function figure(value) {
            var magnitude = Math.abs(value);
            if (magnitude >= 1e9) return (value / 1e9).toFixed(2) + "G";
            if (magnitude >= 1e6) return (value / 1e6).toFixed(2) + "M";
            if (magnitude >= 1e4) return (value / 1e3).toFixed(1) + "k";
            return Number.isInteger(value) ? String(value) : value.toPrecision(4);
          }
          var changeCount = 0;
          history.series.forEach(function (series) { changeCount += series.changePoints.length; });
          document.getElementById("overview").textContent = history.runs + " runs on " + history.machines.join("; ") +
            ", " + history.series.length + " series, " + changeCount + " change points; newest run " +
            history.newestRun + " (exit status " + history.exitStatus + "). " + history.notes.join(" ");

          var changes = element("table");
          var head = element("tr");
          ["series", "revisions", "before → after", "change", "interval", "p", "q", "evidence"].forEach(function (title) {
            head.appendChild(element("th", title));
          });
          changes.appendChild(head);
          history.series.forEach(function (series) {
            series.changePoints.forEach(function (change) {
              if (change.evidence === "exact") return;
              var row = element("tr", undefined, change.harmful ? "worse" : "better");
              var interval = change.intervalLower === undefined ? "" :
                "[" + percent(change.intervalLower) + ", " + percent(change.intervalUpper) + "]";
              [name(series), short(change.revisionBefore) + ".." + short(change.revisionAfter),
               figure(change.before) + " → " + figure(change.after) + " " + series.unit,
               change.before === 0 ? "" : percent(change.after / change.before - 1), interval,
               change.p === undefined ? "" : change.p.toPrecision(2), change.q === undefined ? "" : change.q.toPrecision(2),
               change.evidence + (change.atNewestRun ? ", newest run" : "")].forEach(function (cell, index) {
                row.appendChild(element("td", cell, index >= 2 && index <= 6 ? "number" : undefined));
              });
              changes.appendChild(row);
            });
          });
          document.getElementById("changes").appendChild(changes);
          document.getElementById("changes-title").textContent = (changes.rows.length - 1) +
            " change points of the timings (red: worse, green: better); the exact counts' are in their charts";

          function drawTrend(series, target) {
            var x = [], y = [], text = [], medianX = [], medianY = [], ticks = [];
            series.points.forEach(function (point, index) {
              var sorted = point.values.slice().sort(function (a, b) { return a - b; });
              var middle = Math.floor(sorted.length / 2);
              medianX.push(index);
              medianY.push(sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2);
              ticks.push(short(point.revision));
              point.values.forEach(function (value, run) {
                x.push(index); y.push(value);
                text.push(point.revision + "<br>" + point.runs[run]);
              });
            });
            var shapes = [], annotations = [];
            series.changePoints.forEach(function (change) {
              var color = change.evidence === "unconfirmed" ? "#888" : (change.harmful ? "#c00" : "#080");
              shapes.push({ type: "line", xref: "x", yref: "paper", x0: change.position - 0.5, x1: change.position - 0.5,
                            y0: 0, y1: 1, line: { color: color, dash: "dash", width: 2 } });
              annotations.push({ xref: "x", yref: "paper", x: change.position - 0.5, y: 1, showarrow: false,
                                 yanchor: "bottom", font: { size: 10, color: color },
                                 text: short(change.revisionBefore) + ".." + short(change.revisionAfter) });
            });
            return Plotly.newPlot(target, [
              { x: x, y: y, text: text, mode: "markers", type: "scatter", name: "runs",
                hovertemplate: "%{text}<br>%{y} " + series.unit + "<extra></extra>", marker: { size: 5 } },
              { x: medianX, y: medianY, mode: "lines", type: "scatter", name: "median",
                hoverinfo: "skip", line: { width: 1 } }
            ], {
              title: { text: name(series), font: { size: 12 } }, margin: { t: 40, b: 50, l: 60, r: 10 },
              showlegend: false, shapes: shapes, annotations: annotations,
              xaxis: { tickmode: "array", tickvals: medianX, ticktext: ticks, tickangle: -60, tickfont: { size: 8 } },
              yaxis: { title: { text: series.unit } }
            }, { displayModeBar: false, responsive: true }).then(function () {
              target.setAttribute("data-rendered", "trend");
            });
          }

          var groups = {}, groupOrder = [];
          history.series.forEach(function (series) {
            if (!groups[series.benchmark]) { groups[series.benchmark] = []; groupOrder.push(series.benchmark); }
            groups[series.benchmark].push(series);
          });
          var opened = ((window.location.hash.match(/open=([^&]*)/) || [])[1] || "").split(",");
          groupOrder.forEach(function (benchmark) {
            var list = groups[benchmark];
            var count = 0;
            list.forEach(function (series) { count += series.changePoints.length; });
            var details = element("details");
            details.setAttribute("data-benchmark", benchmark);
            details.appendChild(element("summary", benchmark + ": " + list.length + " series, " + count + " change points"));
            var drawn = false;
            details.addEventListener("toggle", function () {
              if (!details.open || drawn) return;
              drawn = true;
              list.forEach(function (series) {
                var target = element("div", undefined, "chart");
                details.appendChild(target);
                drawTrend(series, target);
              });
            });
            document.getElementById("trends").appendChild(details);
            if (opened.indexOf("all") >= 0 || opened.indexOf(benchmark) >= 0) details.open = true;
          });

          var sweepCharts = {}, sweepOrder = [];
          (page.sweeps || []).forEach(function (sweep) {
            if (!sweepCharts[sweep.chart]) {
              sweepCharts[sweep.chart] = { traces: [], unit: sweep.unit, run: sweep.run };
              sweepOrder.push(sweep.chart);
            }
            sweepCharts[sweep.chart].traces.push({ x: sweep.n, y: sweep.median, mode: "lines+markers", type: "scatter",
                                                   name: sweep.variant });
          });
          sweepOrder.forEach(function (chart) {
            var target = element("div", undefined, "sweep");
            document.getElementById("sweeps").appendChild(target);
            Plotly.newPlot(target, sweepCharts[chart].traces, {
              title: { text: chart + "<br>" + sweepCharts[chart].run, font: { size: 10 } },
              margin: { t: 50, b: 40, l: 60, r: 10 },
              xaxis: { type: "log", title: { text: "n" } }, yaxis: { type: "log", title: { text: sweepCharts[chart].unit } },
              legend: { font: { size: 9 } }
            }, { displayModeBar: false }).then(function () { target.setAttribute("data-rendered", "sweep"); });
          });

          document.getElementById("compare-title").textContent = page.compare ?
            page.comparePair.join(" against ") + ": " + page.compare.trim().split("\\n").pop() : "fewer than two runs";
          document.getElementById("compare").textContent = page.compare ?
            "$ BenchRunner compare " + page.comparePair.join(" ") + "\\n" + page.compare : "fewer than two runs";
          var summary = element("table");
          (page.newestSummary || []).forEach(function (entry) {
            var row = element("tr");
            row.appendChild(element("td", entry.series));
            row.appendChild(element("td", figure(entry.median) + " " + entry.unit, "number"));
            summary.appendChild(row);
          });
          document.getElementById("summary-title").textContent = "Median of every series of " + page.newestRun +
            " (" + (page.newestSummary || []).length + " series)";
          document.getElementById("summary").appendChild(summary);
          var stress = document.getElementById("stress");
          if (!page.stress) {
            stress.appendChild(element("p", "No stress results given (history --html DIR --stress FILE, from Stress --csv FILE)."));
          } else {
            stress.appendChild(element("p", "From " + page.stress.file + "."));
            page.stress.scenarios.forEach(function (scenario) {
              var table = element("table", undefined, "stress-table");
              var caption = element("caption", scenario.scenario + ": " + scenario.verdict +
                (scenario.iterations ? ", " + scenario.iterations + " iterations" : "") +
                (scenario.seconds ? " in " + scenario.seconds + " s" : ""));
              table.appendChild(caption);
              var top = element("tr");
              ["outcome", "grade", "count"].forEach(function (title) { top.appendChild(element("th", title)); });
              table.appendChild(top);
              scenario.outcomes.forEach(function (outcome) {
                var row = element("tr", undefined, outcome.grade === "FORBIDDEN" && outcome.count > 0 ? "worse" : undefined);
                row.appendChild(element("td", outcome.outcome));
                row.appendChild(element("td", outcome.grade));
                row.appendChild(element("td", String(outcome.count), "number"));
                table.appendChild(row);
              });
              stress.appendChild(table);
            });
          }
          document.body.setAttribute("data-stress-count", String(page.stress ? page.stress.scenarios.length : 0));
          document.body.setAttribute("data-series-count", String(history.series.length));
          document.body.setAttribute("data-sweep-count", String(sweepOrder.length));
          document.body.setAttribute("data-page", "ready");
        })();
        </script>
        </body>
        </html>

        """
}
