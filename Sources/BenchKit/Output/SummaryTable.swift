import BenchAnalysis
import Foundation
import ToolSupport

/// The table printed at the end of a run: per benchmark, the median of each
/// metric over the repetitions, then the ratios a reader looks for first
/// (fast path against generic path, this library against each peer).
package enum SummaryTable {
    /// The variant every ratio of a benchmark is taken against, and the metric used.
    struct RatioRule {
        let benchmark: String
        let base: VariantID
        let metric: Metric
        let meaning: String
    }

    static let ratioRules = [
        RatioRule(
            benchmark: ObserveOnThroughputBenchmark.name, base: .fastPath, metric: .elementsPerSecond,
            meaning: "elements/s of fast-path ÷ other; above 1 means the fast path is faster"),
        RatioRule(
            benchmark: ObserveOnLatencyBenchmark.name, base: .fastPath, metric: .latencyP50,
            meaning: "p50 latency of fast-path ÷ other; below 1 means the fast path is quicker"),
        RatioRule(
            benchmark: ObserveOnSubscriptionBenchmark.name, base: .fastPath, metric: .perLifecycle.time,
            meaning: "time per lifecycle of fast-path ÷ other; below 1 means the fast path is quicker"),
    ]

    /// Two variants a reader holds against each other repetition by
    /// repetition: the library's executors against the runtime's own in their
    /// place, the serial one also against the least executor a user would
    /// write on a queue of their own, the nested trampoline against the
    /// closure queue under it.
    struct PairedRule {
        let benchmark: String
        let first: VariantID
        let second: VariantID
        let metric: Metric
    }

    static let pairedRules = [
        PairedRule(
            benchmark: ObserveOnThroughputBenchmark.name, first: .library("actor-executor"), second: .peer("actor"),
            metric: .elementsPerSecond),
        PairedRule(
            benchmark: ObserveOnThroughputBenchmark.name, first: .library("actor-executor"),
            second: .peer("dispatch-executor"), metric: .elementsPerSecond),
        PairedRule(
            benchmark: ObserveOnThroughputBenchmark.name, first: .library("task-executor"), second: .peer("task"),
            metric: .elementsPerSecond),
        PairedRule(
            benchmark: TrampolineBenchmark.name, first: .currentThread, second: ClosureQueueReference.variant,
            metric: .perSchedule.time),
        PairedRule(
            benchmark: TrampolineBenchmark.name, first: TrampolineBenchmark.recursive,
            second: ClosureQueueReference.variant, metric: .perSchedule.time),
    ]

    /// The series whose repetitions stopped at their benchmark's time budget
    /// while still wider than compare needs (`budget_reached` rows of 1),
    /// with how many repetitions each got; empty when none did.
    static func budgetLines(_ rows: [CSVRow]) -> String {
        let budget = rows.filter { $0.metric == CSVSchema.budgetReached.name }
        guard !budget.isEmpty else { return "" }
        let reached = budget.filter { $0.value == 1 }
        guard !reached.isEmpty else {
            return "\nrepetitions: every judged series of the adaptive benchmarks became as narrow as compare needs "
                + "within its benchmark's budget (\(budget.count) series).\n"
        }
        var out = "\nhit the time budget, \(reached.count) of \(budget.count) judged series (noisy: more repetitions "
        out += "did not narrow them within their benchmark's budget; compare may leave a change of them unconfirmed, "
        out += "a quieter machine narrows them):\n"
        for row in reached {
            let separator = String(CSVSchema.paramsSeparator)
            // The runner appends the series' metric as the last `of=` (a
            // growth exponent's own `of=` comes before it).
            var parts = row.params.split(separator: CSVSchema.paramsSeparator).map(String.init)
            let last = parts.last ?? ""
            let metric = last.hasPrefix("of=") ? String(last.dropFirst(3)) : "?"
            if last.hasPrefix("of=") { parts.removeLast() }
            let params = parts.joined(separator: separator)
            let made = rows.filter {
                $0.benchmark == row.benchmark && $0.variant == row.variant && $0.params == params && $0.metric == metric
            }.count
            out += "  \(row.benchmark)/\(row.variant)\(params.isEmpty ? "" : " [\(params)]") \(metric): "
            out += "\(made) repetitions\n"
        }
        return out
    }

    /// Renders `rows` (rows with per-tick samples are left out).
    package static func render(_ rows: [CSVRow]) -> String {
        var medians: [Key: Double] = [:]
        var samples: [Key: [Double]] = [:]
        var seriesOrder: [String: [Series]] = [:]
        var benchmarkOrder: [String] = []
        for row in rows where !row.params.contains("tick=") && row.metric != CSVSchema.budgetReached.name {
            let key = Key(series: Series(variant: row.variant, params: row.params), benchmark: row.benchmark, metric: row.metric)
            if let value = row.value { samples[key, default: []].append(value) } else { samples[key, default: []] += [] }
            if !benchmarkOrder.contains(row.benchmark) { benchmarkOrder.append(row.benchmark) }
            if !(seriesOrder[row.benchmark] ?? []).contains(key.series) {
                seriesOrder[row.benchmark, default: []].append(key.series)
            }
        }
        for (key, values) in samples {
            if let median = Statistics.median(values) { medians[key] = median }
        }
        var out = ""
        for benchmark in benchmarkOrder {
            let metrics = (CSVSchema.benchmark(named: benchmark)?.metrics ?? [])
                .filter { $0 != .latenessAtTick }
                .filter { metric in samples.keys.contains { $0.benchmark == benchmark && $0.metric == metric.name } }
            let series = seriesOrder[benchmark] ?? []
            let repetitions = rows.filter { $0.benchmark == benchmark && $0.metric != CSVSchema.budgetReached.name }
                .map(\.repetition).max() ?? 0
            out += "\n\(benchmark) (median of \(repetitions) repetitions)\n"
            let labels = series.map { $0.params.isEmpty ? $0.variant : "\($0.variant) [\($0.params)]" }
            let labelWidth = max(labels.map(\.count).max() ?? 0, 8) + 2
            let columnWidth = max(metrics.map(\.name.count).max() ?? 0, 10)
            let table = TextTable(
                columns: [TextTable.Column("variant", minimumWidth: labelWidth)]
                    + metrics.map { TextTable.Column($0.name, alignment: .right, minimumWidth: columnWidth) },
                indent: "  ")
            let cells = series.enumerated().map { index, entry in
                [labels[index]] + metrics.map { metric in
                    // Counts keep their fraction: 0.002 is two allocations per batch of 1000.
                    guard let median = medians[Key(series: entry, benchmark: benchmark, metric: metric.name)] else {
                        return "-"
                    }
                    return metric.isAllocationCount ? NumberFormat.fourDecimals(median) : NumberFormat.compact(median)
                }
            }
            out += table.lines(cells).map { $0 + "\n" }.joined()
            // Ratios are taken within one parameter set (one regime, one period).
            for rule in ratioRules where rule.benchmark == benchmark {
                for base in series where base.variant == rule.base.name {
                    guard let baseValue = medians[Key(series: base, benchmark: benchmark, metric: rule.metric.name)], baseValue > 0
                    else { continue }
                    var lines = ""
                    for other in series where other.variant != rule.base.name && other.params == base.params {
                        guard let value = medians[Key(series: other, benchmark: benchmark, metric: rule.metric.name)], value > 0 else {
                            continue
                        }
                        let ratio = baseValue / value
                        lines += "    \(rule.base.name) / \(other.variant)".padding(toLength: labelWidth + 18, withPad: " ", startingAt: 0)
                            + String(format: "%.2fx", ratio) + "\n"
                    }
                    if !lines.isEmpty {
                        let within = series.contains { $0.params != base.params } ? " [\(base.params)]" : ""
                        out += "  ratios\(within) (\(rule.meaning)):\n" + lines
                    }
                }
            }
        }
        out += pairedLines(rows)
        out += budgetLines(rows)
        let references = ReferenceBound.assess(rows: rows)
        if !references.isEmpty {
            out += "\nreferences (spread: interquartile range over the median of the repetitions; the limit only "
            out += "where tighter than the library's series beside it):\n"
            out += references.map { "  \($0.description)\n" }.joined()
        }
        return out
    }

    /// The paired rules' lines: for each rule whose two variants have values
    /// of its metric in the same repetitions of one parameter set, the ratio
    /// of the pairs (first over second) with its interval and what it shows.
    static func pairedLines(_ rows: [CSVRow]) -> String {
        var lines = ""
        for rule in pairedRules {
            func values(_ variant: VariantID) -> [String: [Int: Double]] {
                var byParams: [String: [Int: Double]] = [:]
                for row in rows
                where row.benchmark == rule.benchmark && row.variant == variant.name && row.metric == rule.metric.name {
                    if let value = row.value { byParams[row.params, default: [:]][row.repetition] = value }
                }
                return byParams
            }
            let first = values(rule.first)
            let second = values(rule.second)
            for params in first.keys.sorted() {
                guard let firstValues = first[params], let secondValues = second[params] else { continue }
                let pairs = PairedRatioInterval.pairs(firstValues, secondValues)
                guard !pairs.first.isEmpty else { continue }
                let label = "    \(rule.first.name) / \(rule.second.name), \(rule.metric.name)"
                    + (first.count > 1 ? " [\(params)]" : "")
                let confidence = PairedRatioInterval.standardConfidence
                if let interval = PairedRatioInterval(pairs.first, pairs.second, confidence: confidence) {
                    lines += label + ": " + interval.text + ": " + verdict(interval, rule) + "\n"
                } else {
                    lines += label + ": \(pairs.first.count) pairs, too few for an interval "
                        + "(\(PairedRatioInterval.fewestPairs(confidence: confidence)) at least)\n"
                }
            }
        }
        guard !lines.isEmpty else { return "" }
        return "\nrepetition by repetition (the first's value over the second's in the same repetition, "
            + "which leaves out the machine's level then):\n" + lines
    }

    /// What a paired interval shows, in words, by the direction of the rule's metric.
    static func verdict(_ interval: PairedRatioInterval, _ rule: PairedRule) -> String {
        let above = interval.lower > 1
        let below = interval.upper < 1
        guard above || below else { return "neither is shown faster" }
        let firstIsFaster = (rule.metric.direction == .lowerIsBetter) == below
        return "\(rule.first.name) is \(firstIsFaster ? "faster" : "slower")"
    }

    struct Series: Hashable {
        let variant: String
        let params: String
    }

    struct Key: Hashable {
        let series: Series
        let benchmark: String
        let metric: String
    }
}
