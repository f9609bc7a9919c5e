import ToolSupport

/// Renders one region of a document from result files: medians of a run's
/// repetitions as a Markdown table or an inline figure, or the first and last
/// lines of a comparison of two runs.
package struct ReportRenderer {
    /// Loads a result file by the path a document names (from the repository's root).
    let load: (String) throws(ReportError) -> ResultFile
    /// Loads a resolution table by its path from the root; nil when there is no such file.
    let loadResolution: (String) throws(ReportError) -> ResolutionTable?
    /// The committed runs up to the one made at the given UTC time, in
    /// commit order (``HistoryRuns``).
    let loadHistory: (String) throws(ReportError) -> HistoryRuns

    init(
        load: @escaping (String) throws(ReportError) -> ResultFile,
        loadResolution: @escaping (String) throws(ReportError) -> ResolutionTable? = { _ in nil },
        loadHistory: @escaping (String) throws(ReportError) -> HistoryRuns = { _ throws(ReportError) in
            throw ReportError("results", nil, "no committed runs to read")
        }
    ) {
        self.load = load
        self.loadResolution = loadResolution
        self.loadHistory = loadHistory
    }

    /// The text of `region` in `document`, whose run is `source` (a region
    /// that names its own run with `source=` shows that one instead).
    func render(_ region: ReportRegion, in document: String, source documentSource: String?) throws(ReportError)
        -> String
    {
        func run() throws(ReportError) -> (String, ResultFile) {
            guard let source = region.source ?? documentSource else {
                throw ReportError(
                    document, region.line,
                    "this region needs the run it comes from: add <!-- report-source: results/<run>.csv --> to the document")
            }
            return (source, try load(source))
        }
        switch region.directive {
        case let .table(benchmark, variants, metrics, ratioTo, params, allocator):
            let (name, file) = try run()
            return try table(
                file: file, name: name, benchmark: benchmark, variants: variants, metrics: metrics, ratioTo: ratioTo,
                params: params, allocator: allocator, at: (document, region.line))
        case let .value(benchmark, variant, metric, params, allocator):
            let (_, file) = try run()
            let (_, series) = try onlySeries(
                file: file, benchmark: benchmark, variant: variant, metric: metric, params: params,
                allocator: allocator, at: (document, region.line))
            // `onlySeries` gives a series with values, so it has a median.
            return Self.figure(Statistics.median(series.values)!)
        case let .paired(benchmark, first, second, metric, params, allocator):
            let (_, file) = try run()
            return try paired(
                file: file, benchmark: benchmark, first: first, second: second, metric: metric, params: params,
                allocator: allocator, at: (document, region.line))
        case let .sweep(benchmark, metric, variants, params, allocator):
            let (name, file) = try run()
            return try sweep(
                file: file, name: name, benchmark: benchmark, metric: metric, variants: variants, params: params,
                allocator: allocator, at: (document, region.line))
        case let .compare(basePath, newPath, resolution):
            let base = try load(basePath)
            let new = try load(newPath)
            // As compare does from the root: the named table, none, or the
            // default table where it exists.
            var table: ResolutionTable?
            if resolution != "none" {
                table = try loadResolution(resolution ?? ResolutionTable.defaultPath)
                if table == nil, let resolution {
                    throw ReportError(document, region.line, "\(resolution): no such resolution table")
                }
            }
            let report: ComparisonReport
            do {
                report = try ComparisonReport(base: base, new: new, options: CompareOptions(resolution: table))
            } catch {
                throw ReportError(document, region.line, "cannot compare \(basePath) with \(newPath): \(error)")
            }
            let lines = CompareReportFormatter(report: report).summary().split(separator: "\n")
            let first = lines.first.map(String.init) ?? ""
            let last = lines.last.map(String.init) ?? ""
            let option = resolution.map { " --resolution \($0)" } ?? ""
            return "```\n$ BenchRunner compare\(option) \(basePath) \(newPath)\n\(first)\n…\n\(last)\n```"
        case let .history(filters, until):
            var options = HistoryOptions()
            options.filters = filters
            let report = HistoryReport(runs: try loadHistory(until), options: options)
            let text = HistoryFormatter(report: report, alpha: options.alpha).table()
            let filter = filters.isEmpty ? "" : " --filter \(filters.joined(separator: ","))"
            return "```\n$ BenchRunner history\(filter)   # the runs up to \(until)\n\(text)```"
        }
    }

    /// The one series of `variant` and `metric` that `params` leave, with values.
    private func onlySeries(
        file: ResultFile, benchmark: String, variant: String, metric: String, params: [String: String],
        allocator: String?, at place: (String, Int)
    ) throws(ReportError) -> (Row, ResultSeries) {
        let rows = try rows(file: file, benchmark: benchmark, variants: [variant], metrics: [metric], params: params, at: place)
        guard rows.count == 1 else {
            throw ReportError(
                place.0, place.1,
                "\(benchmark)/\(variant) has \(rows.count) parameter sets in the run "
                    + "(\(rows.map(\.params).joined(separator: " | "))): pick one with params=")
        }
        guard
            let series = try cell(file: file, row: rows[0], benchmark: benchmark, metric: metric, allocator: allocator, at: place),
            !series.values.isEmpty
        else {
            throw ReportError(place.0, place.1, "\(benchmark)/\(variant) \(metric) has no values in the run")
        }
        return (rows[0], series)
    }

    /// `report:paired`: `first` over `second`, repetition by repetition.
    private func paired(
        file: ResultFile, benchmark: String, first: String, second: String, metric: String, params: [String: String],
        allocator: String?, at place: (String, Int)
    ) throws(ReportError) -> String {
        var byRepetition: [[Int: Double]] = []
        var chosen: [Row] = []
        for variant in [first, second] {
            let (row, series) = try onlySeries(
                file: file, benchmark: benchmark, variant: variant, metric: metric, params: params, allocator: allocator,
                at: place)
            guard series.repetitions.count == series.values.count else {
                throw ReportError(
                    place.0, place.1,
                    "\(benchmark)/\(variant) \(metric) in \(file.path) has no repetition numbers to pair its values by")
            }
            chosen.append(row)
            byRepetition.append(Dictionary(zip(series.repetitions, series.values), uniquingKeysWith: { earlier, _ in earlier }))
        }
        guard chosen[0].params == chosen[1].params else {
            throw ReportError(
                place.0, place.1,
                "\(first) (\(chosen[0].params)) and \(second) (\(chosen[1].params)) were measured with other parameters: "
                    + "pick one set for both with params=")
        }
        let confidence = PairedRatioInterval.standardConfidence
        let pairs = PairedRatioInterval.pairs(byRepetition[0], byRepetition[1])
        guard let interval = PairedRatioInterval(pairs.first, pairs.second, confidence: confidence) else {
            throw ReportError(
                place.0, place.1,
                "\(first) and \(second) share \(pairs.first.count) repetitions in \(file.path), too few for a "
                    + "\(Int(confidence * 100)) % interval (\(PairedRatioInterval.fewestPairs(confidence: confidence)) at least)")
        }
        return interval.text
    }

    /// A figure as the documents print it: four significant digits, an SI prefix from 10 000 on.
    static func figure(_ value: Double) -> String {
        NumberFormat.fourSignificantDigits(value)
    }

    struct Row: Equatable {
        let variant: String
        let params: String
    }

    private func table(
        file: ResultFile, name: String, benchmark: String, variants: [String]?, metrics: [String], ratioTo: String?,
        params: [String: String], allocator: String?, at place: (String, Int)
    ) throws(ReportError) -> String {
        let rows = try rows(
            file: file, benchmark: benchmark, variants: variants, metrics: metrics, params: params, at: place)
        var ratioBase: [String: Double] = [:]
        if let ratioTo {
            let baseRows = try self.rows(
                file: file, benchmark: benchmark, variants: [ratioTo], metrics: [metrics[0]], params: params, at: place)
            for row in baseRows {
                if let series = try cell(
                    file: file, row: row, benchmark: benchmark, metric: metrics[0], allocator: allocator, at: place),
                    let median = Statistics.median(series.values), median != 0
                {
                    ratioBase[row.params] = median
                }
            }
        }
        let variantCounts = Dictionary(rows.map { ($0.variant, 1) }, uniquingKeysWith: +)
        var header = ["variant"]
        for (index, metric) in metrics.enumerated() {
            header.append(metric)
            if index == 0, let ratioTo { header.append("× \(ratioTo)") }
        }
        var lines = [
            "| " + header.joined(separator: " | ") + " |",
            "|---" + String(repeating: "|---:", count: header.count - 1) + "|",
        ]
        var repetitions = 0
        for row in rows {
            let label = (variantCounts[row.variant] ?? 0) > 1 ? "`\(row.variant)` [\(row.params)]" : "`\(row.variant)`"
            var cells = [label]
            for (index, metric) in metrics.enumerated() {
                let series = try cell(
                    file: file, row: row, benchmark: benchmark, metric: metric, allocator: allocator, at: place)
                let median = series.flatMap { Statistics.median($0.values) }
                repetitions = max(repetitions, series?.values.count ?? 0)
                cells.append(median.map(Self.figure) ?? "–")
                if index == 0, ratioTo != nil {
                    if let median, let base = ratioBase[row.params] {
                        cells.append(Self.figure(median / base))
                    } else {
                        cells.append("–")
                    }
                }
            }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("Medians of \(repetitions) repetitions in `\(name)`.")
        return lines.joined(separator: "\n")
    }

    /// A scale sweep: a row per variant, a column per point `n=`, and the
    /// median of the repetitions' fitted exponents of `metric`.
    private func sweep(
        file: ResultFile, name: String, benchmark: String, metric: String, variants: [String]?,
        params: [String: String], allocator: String?, at place: (String, Int)
    ) throws(ReportError) -> String {
        let ofBenchmark = file.series.filter {
            $0.key.benchmark == benchmark && (allocator == nil || $0.key.allocator == allocator)
        }
        let points = ofBenchmark.filter { series in
            let pairs = Self.pairs(series.key.params)
            return series.key.metric == metric && pairs["n"].flatMap { Int($0) } != nil
                && params.allSatisfy { pairs[$0.key] == $0.value }
        }
        guard !points.isEmpty else {
            throw ReportError(
                place.0, place.1,
                "the run \(file.path) has no points n= of \(benchmark) \(metric) with the params given "
                    + "(its metrics: \(Set(ofBenchmark.map(\.key.metric)).sorted().joined(separator: ", ")))")
        }
        let exponents = ofBenchmark.filter { series in
            let pairs = Self.pairs(series.key.params)
            return CSVSchema.growthExponentMetrics.contains(series.key.metric) && pairs["of"] == metric
                && params.allSatisfy { pairs[$0.key] == $0.value }
        }
        var found: [String] = []
        for series in points where !found.contains(series.key.variant) { found.append(series.key.variant) }
        let shown = variants ?? found
        if let missing = shown.first(where: { !found.contains($0) }) {
            throw ReportError(
                place.0, place.1,
                "the run \(file.path) has no \(benchmark)/\(missing) \(metric) points (its variants: \(found.joined(separator: ", ")))")
        }
        let ns = Set(points.compactMap { Self.pairs($0.key.params)["n"].flatMap { Int($0) } }).sorted()
        var lines = [
            "| variant | " + ns.map { "N=\(Self.grouped($0))" }.joined(separator: " | ") + " | exponent |",
            "|---" + String(repeating: "|---:", count: ns.count + 1) + "|",
        ]
        var repetitions = 0
        for variant in shown {
            var cells = ["`\(variant)`"]
            for n in ns {
                let matching = points.filter {
                    $0.key.variant == variant && Self.pairs($0.key.params)["n"] == String(n)
                }
                guard matching.count <= 1 else {
                    throw ReportError(
                        place.0, place.1,
                        "\(benchmark)/\(variant) \(metric) at n=\(n) has several series "
                            + "(\(matching.map { "\($0.key.params) [\($0.key.allocator)]" }.joined(separator: " | "))): "
                            + "pick one with params= or allocator=")
                }
                repetitions = max(repetitions, matching.first?.values.count ?? 0)
                cells.append(matching.first.flatMap { Statistics.median($0.values) }.map(Self.figure) ?? "–")
            }
            let fitted = exponents.filter { $0.key.variant == variant }
            guard fitted.count <= 1 else {
                throw ReportError(
                    place.0, place.1,
                    "\(benchmark)/\(variant) has several fits of \(metric) "
                        + "(\(fitted.map(\.key.params).joined(separator: " | "))): pick one with params=")
            }
            cells.append(fitted.first.flatMap { Statistics.median($0.values) }.map(NumberFormat.exponent) ?? "–")
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append(
            "Medians of \(repetitions) repetitions in `\(name)`; exponent: the median of the repetitions' own fits.")
        return lines.joined(separator: "\n")
    }

    /// `n` with a comma between groups of three digits: 1,000,000.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return n < 0 ? "-" + text : text
    }

    /// The series (variant and parameter set) of `benchmark` to show, in the order `variants` gives:
    /// those that measured at least one of `metrics` (a run's instruction-count rows, say, carry
    /// parameter sets of their own and none of the timed metrics, so they make no empty row).
    private func rows(
        file: ResultFile, benchmark: String, variants: [String]?, metrics: [String], params: [String: String],
        at place: (String, Int)
    ) throws(ReportError) -> [Row] {
        let ofBenchmark = file.series.filter { $0.key.benchmark == benchmark }
        guard !ofBenchmark.isEmpty else {
            let benchmarks = Set(file.series.map(\.key.benchmark)).sorted()
            throw ReportError(
                place.0, place.1,
                "the run \(file.path) has no benchmark \(benchmark) (it has \(benchmarks.joined(separator: ", ")))")
        }
        // When no series measured any of `metrics`, keep every row: `cell` then names the metric the run lacks.
        let anyMeasured = ofBenchmark.contains { metrics.contains($0.key.metric) }
        var all: [Row] = []
        for series in ofBenchmark {
            let pairs = Self.pairs(series.key.params)
            if pairs["tick"] != nil, params["tick"] == nil { continue }
            guard params.allSatisfy({ pairs[$0.key] == $0.value }) else { continue }
            guard !anyMeasured || metrics.contains(series.key.metric) else { continue }
            let row = Row(variant: series.key.variant, params: series.key.params)
            if !all.contains(row) { all.append(row) }
        }
        guard let variants else {
            guard !all.isEmpty else {
                throw ReportError(place.0, place.1, "no series of \(benchmark) in \(file.path) has the params given")
            }
            return all
        }
        var ordered: [Row] = []
        for variant in variants {
            let matching = all.filter { $0.variant == variant }
            guard !matching.isEmpty else {
                let known = Set(all.map(\.variant))
                let hint = known.isEmpty
                    ? "no series of \(benchmark) has the params given"
                    : "its variants with these params: \(known.sorted().joined(separator: ", "))"
                throw ReportError(place.0, place.1, "the run \(file.path) has no \(benchmark)/\(variant) (\(hint))")
            }
            ordered += matching
        }
        return ordered
    }

    /// The one series of `row` and `metric`, nil when the run has none for this row.
    private func cell(
        file: ResultFile, row: Row, benchmark: String, metric: String, allocator: String?, at place: (String, Int)
    ) throws(ReportError) -> ResultSeries? {
        let ofBenchmark = file.series.filter { $0.key.benchmark == benchmark }
        guard ofBenchmark.contains(where: { $0.key.metric == metric }) else {
            let metrics = Set(ofBenchmark.map(\.key.metric)).sorted()
            throw ReportError(
                place.0, place.1,
                "\(benchmark) has no metric \(metric) in \(file.path) (it has \(metrics.joined(separator: ", ")))")
        }
        let matching = ofBenchmark.filter {
            $0.key.variant == row.variant && $0.key.params == row.params && $0.key.metric == metric
                && (allocator == nil || $0.key.allocator == allocator)
        }
        guard matching.count <= 1 else {
            throw ReportError(
                place.0, place.1,
                "\(benchmark)/\(row.variant) \(metric) was measured with several allocators "
                    + "(\(matching.map(\.key.allocator).joined(separator: ", "))): pick one with allocator=")
        }
        return matching.first
    }

    /// `k=v;k2=v2` as a dictionary.
    static func pairs(_ params: String) -> [String: String] {
        var pairs: [String: String] = [:]
        for pair in params.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            pairs[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return pairs
    }
}
