import ToolSupport

/// What `history` found: every analysed series with its change points, and
/// the exit status they give.
package struct HistoryReport: Sendable {
    /// A series and its change points.
    package struct Entry: Sendable {
        let series: HistorySeries
        let changePoints: [ChangePoint]
    }

    /// Every analysed series, in the order of their first run.
    let entries: [Entry]
    /// The runs read, oldest first.
    let runCount: Int
    /// The newest run's file, the one the exit status is about.
    let newestRun: String?
    /// The machines the runs were made on.
    let machines: [String]
    /// Notes on the order (``HistoryRuns/notes``).
    let notes: [String]

    /// Analyses `runs` under `options`: each series of each machine, summarised
    /// per run (compare's rule decides which metrics and which repetitions).
    init(runs: HistoryRuns, options: HistoryOptions) {
        var machines: [String] = []
        var order: [String] = []
        var building: [String: (key: ResultSeriesKey, machine: String, unit: String, kind: HistorySeriesKind, points: [HistoryPoint])] = [:]
        var kept: [HistoryRuns.Run] = []
        for run in runs.runs {
            let machine = run.file.facts.machine
            if let wanted = options.machine, !machine.contains(wanted) { continue }
            kept.append(run)
            if !machines.contains(machine) { machines.append(machine) }
            for series in run.file.series {
                let description = series.key.description
                if !options.filters.isEmpty && !options.filters.contains(where: { description.contains($0) }) { continue }
                let rule = MetricComparisonRule(
                    metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
                guard let kind = HistorySeriesKind(rule: rule, key: series.key, options: options),
                    let summary = Statistics.median(rule.judgedValues(series.values))
                else { continue }
                let id = machine + "\n" + description
                var entry = building[id] ?? (series.key, machine, series.unit, kind, [])
                if building[id] == nil { order.append(id) }
                if let last = entry.points.last, last.revision == run.revision {
                    entry.points[entry.points.count - 1] = HistoryPoint(
                        revision: last.revision, runValues: last.runValues + [summary],
                        runPaths: last.runPaths + [run.file.path])
                } else {
                    entry.points.append(HistoryPoint(revision: run.revision, runValues: [summary], runPaths: [run.file.path]))
                }
                building[id] = entry
            }
        }
        let series = order.compactMap { id in
            building[id].map { HistorySeries(key: $0.key, machine: $0.machine, unit: $0.unit, kind: $0.kind, points: $0.points) }
        }
        let detector = ChangePointDetector(
            alpha: options.alpha, newestRun: kept.last?.file.path)
        let segmentations = series.map(detector.segment)
        let adjusted = FalseDiscoveryRate.benjaminiHochbergAdjusted(segmentations.flatMap(\.pValues))
        var offset = 0
        var entries: [Entry] = []
        for segmentation in segmentations {
            let start = offset
            entries.append(
                Entry(
                    series: segmentation.series,
                    changePoints: detector.changePoints(of: segmentation) { adjusted[start + $0] }))
            offset += segmentation.pValues.count
        }
        self.entries = entries
        runCount = kept.count
        newestRun = kept.last?.file.path
        self.machines = machines
        notes = runs.notes
    }

    /// Whether `change` of `entry` starts at the newest run: it is the
    /// series' last point, and that point holds the newest run.
    func isAtNewestRun(_ change: ChangePoint, of entry: Entry) -> Bool {
        guard let newestRun, change.position == entry.series.points.count - 1 else { return false }
        return entry.series.points[change.position].runPaths.contains(newestRun)
    }

    /// The gated harmful change points at the newest run.
    var regressionsAtNewestRun: [(entry: Entry, change: ChangePoint)] {
        entries.flatMap { entry in
            entry.changePoints.filter { $0.isHarmful && entry.series.kind.isGated && isAtNewestRun($0, of: entry) }
                .map { (entry, $0) }
        }
    }

    /// The exit status (docs/History.md, "Exit status"): 1 when a gated
    /// series has a harmful exact or confirmed change point at the newest
    /// run, else 3 when it has an unconfirmed one there, else 0.
    var exitStatus: HistoryExitStatus {
        let atNewest = regressionsAtNewestRun
        if atNewest.contains(where: { $0.change.evidence != .unconfirmed }) { return .regression }
        if !atNewest.isEmpty { return .notJudged }
        return .noRegression
    }
}

/// The exit status of `BenchRunner history`, with compare's meanings.
package enum HistoryExitStatus: Int32, Sendable {
    /// No gated series has a harmful change point at the newest run.
    case noRegression = 0
    /// A gated series has a harmful change point at the newest run: an
    /// exact count moved, or a timing moved and the test confirms it.
    case regression = 1
    /// A file, folder or option could not be used: nothing was analysed.
    case unusableInput = 2
    /// No confirmed regression, but a gated timing moved harmfully at the
    /// newest run beyond its threshold and noise with too few runs after it
    /// for the test: not a pass; more runs of the newest revision judge it.
    case notJudged = 3
}
