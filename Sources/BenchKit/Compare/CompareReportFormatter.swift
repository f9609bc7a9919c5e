import Foundation
import ToolSupport

/// Writes a ``ComparisonReport`` as an aligned text table, a Markdown table or
/// CSV, plus a summary saying what was tested and what decides the exit status.
/// The one place that formats compare output, so the three formats cannot disagree.
public struct CompareReportFormatter: Sendable {
    public let report: ComparisonReport

    public init(report: ComparisonReport) {
        self.report = report
    }

    private struct Column {
        let title: String
        let alignment: TextTable.Alignment
        let cell: @Sendable (SeriesComparison) -> String
    }

    /// Rows of the table and Markdown outputs: informational series (hundreds
    /// of per-tick latenesses) would drown the verdicts, so only CSV lists them.
    private var judgedComparisons: [SeriesComparison] {
        report.comparisons.filter { $0.verdict != .informational }
    }

    private var confidenceLabel: String {
        "\(NumberFormat.plain((1 - report.options.alpha) * 100))% CI"
    }

    private var columns: [Column] {
        let comparisons = judgedComparisons
        var columns: [Column] = [
            Column(title: "benchmark", alignment: .left) { $0.key.benchmark },
            Column(title: "variant", alignment: .left) { $0.key.variant },
        ]
        if comparisons.contains(where: { !$0.key.params.isEmpty }) {
            columns.append(Column(title: "params", alignment: .left) { $0.key.params })
        }
        if comparisons.contains(where: { !$0.key.allocator.isEmpty }) {
            columns.append(Column(title: "allocator", alignment: .left) { $0.key.allocator })
        }
        columns += [
            Column(title: "metric", alignment: .left) { $0.key.metric },
            Column(title: "unit", alignment: .left) { $0.unit },
            Column(title: "n", alignment: .right) { comparison in
                "\(comparison.baseValues.map { "\($0.count)" } ?? "-")/\(comparison.newValues.map { "\($0.count)" } ?? "-")"
            },
            Column(title: "base", alignment: .right) { comparison in
                comparison.baseMedian.map { Self.value($0, exact: comparison.rule.isExact) } ?? ""
            },
            Column(title: "new", alignment: .right) { comparison in
                comparison.newMedian.map { Self.value($0, exact: comparison.rule.isExact) } ?? ""
            },
            Column(title: "change", alignment: .right) { comparison in
                if let change = comparison.change {
                    return NumberFormat.percentage(change)
                }
                if comparison.baseMedian == 0 && comparison.newMedian != nil {
                    return "from 0"
                }
                return ""
            },
            Column(title: confidenceLabel, alignment: .right) { comparison in
                if comparison.rule.isExact && comparison.change != nil {
                    return "exact"
                }
                guard let interval = comparison.interval else { return "" }
                return "[\(NumberFormat.percentage(interval.lowerBound)), \(NumberFormat.percentage(interval.upperBound))]"
            },
            Column(title: "p", alignment: .right) { comparison in
                guard let test = comparison.test else { return "" }
                return test.pValue < 0.001 ? "<0.001" : String(format: "%.3f", test.pValue)
            },
            Column(title: "verdict", alignment: .left) { comparison in
                if comparison.verdict == .worse && !comparison.isGated {
                    return "worse (not gated)"
                }
                return comparison.verdict.rawValue
            },
        ]
        return columns
    }

    /// An aligned plain-text table, one row per judged series.
    public func table() -> String {
        let columns = columns
        let layout = TextTable(
            columns: columns.map { TextTable.Column($0.title, alignment: $0.alignment) }, underlinesTitles: true)
        let rows = judgedComparisons.map { comparison in columns.map { $0.cell(comparison) } }
        return layout.lines(rows).map { $0 + "\n" }.joined()
    }

    /// A GitHub-flavoured Markdown table, one row per judged series.
    public func markdown() -> String {
        let columns = columns
        let escape = Self.markdownEscaped
        var text = "| " + columns.map { escape($0.title) }.joined(separator: " | ") + " |\n"
        text += "|" + columns.map { $0.alignment == .left ? " --- " : " ---: " }.joined(separator: "|") + "|\n"
        for comparison in judgedComparisons {
            text += "| " + columns.map { escape($0.cell(comparison)) }.joined(separator: " | ") + " |\n"
        }
        return text
    }

    /// ``summary()`` as a Markdown list, one item per line.
    public func markdownSummary() -> String {
        summary().split(separator: "\n").map { "- " + Self.markdownEscaped(String($0)) + "\n" }.joined()
    }

    /// Escapes what GitHub Markdown would read as a cell border (`|`),
    /// strikethrough (`~`: a verdict) or emphasis (`*`: `allocs_*`).
    static func markdownEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "|" || character == "~" || character == "*" {
                escaped.append("\\")
            }
            escaped.append(character)
        }
        return escaped
    }

    /// CSV (RFC 4180) with full-precision numbers, changes as fractions and a
    /// `regression` column that is `true` for gated regressions.
    public func csv() -> String {
        let header = [
            "benchmark", "variant", "params", "allocator", "metric", "unit", "direction", "exact",
            "base_n", "base_median", "new_n", "new_median", "change", "ci_low", "ci_high",
            "p_value", "test", "verdict", "gated", "regression",
        ]
        func number(_ value: Double?) -> String {
            value.map { "\($0)" } ?? ""
        }
        var text = header.joined(separator: ",") + "\n"
        for comparison in report.comparisons {
            let fields = [
                comparison.key.benchmark, comparison.key.variant, comparison.key.params,
                comparison.key.allocator, comparison.key.metric, comparison.unit,
                comparison.rule.preference == .higherIsBetter ? "higher" : "lower",
                comparison.rule.isExact ? "true" : "false",
                comparison.baseValues.map { "\($0.count)" } ?? "",
                number(comparison.baseMedian),
                comparison.newValues.map { "\($0.count)" } ?? "",
                number(comparison.newMedian),
                number(comparison.change),
                number(comparison.interval?.lowerBound),
                number(comparison.interval?.upperBound),
                number(comparison.test?.pValue),
                comparison.test?.method.rawValue ?? "",
                comparison.verdict.rawValue,
                comparison.isGated ? "true" : "false",
                comparison.isRegression ? "true" : "false",
            ]
            text += CSV.line(fields) + "\n"
        }
        return text
    }

    /// What was compared, how, and why the exit status is what it is.
    public func summary() -> String {
        let options = report.options
        var text = "\(report.comparisons.count) series compared (base \(report.basePath), new \(report.newPath)): "
        text += CompareVerdict.allCases.map { "\($0.rawValue) \(report.count(of: $0))" }.joined(separator: ", ")
        text += ".\n"
        text += "Test: two-sided Mann-Whitney U on the repetitions (exact distribution without ties, "
        text += "normal approximation with tie correction otherwise), alpha \(NumberFormat.plain(options.alpha)); "
        text += "\(confidenceLabel): Hodges-Lehmann interval of the shift, in % of the base median; "
        text += "change: of the medians. A significant change under the threshold of "
        text += "\(NumberFormat.plain(options.threshold * 100))% is ~; for wake-up-bound times (latency p50, "
        text += "timer lateness and drift, the main queue), under "
        text += "\(NumberFormat.plain(max(options.threshold, options.wakeUpThreshold) * 100))%. "
        text += "Too few repetitions: even non-overlapping samples could not reach alpha.\n"
        text += "Exact counts (allocs_*, bytes_*, depth) are compared without a test: "
        if options.exactTolerances.isEmpty {
            text += "any change in the bad direction is worse, whatever the threshold.\n"
        } else {
            text += "a change in the bad direction beyond the exact tolerance ("
            text += options.exactTolerances.map(\.description).joined(separator: ",")
            text += ") is worse, whatever the threshold.\n"
        }
        let informational = report.count(of: .informational)
        if informational > 0 {
            text += "\(informational) informational series (describing the machine, not the code) are not judged; "
            text += "only --format csv lists them.\n"
        }
        let noValues = report.count(of: .noValues)
        if noValues > 0 {
            text += "\(noValues) series have no values on at least one side (empty value: not measured in that run, "
                + "e.g. allocation counting unavailable).\n"
        }
        let unchecked = report.comparisons.filter { comparison in
            comparison.rule.isExact && !(comparison.baseValues ?? []).isEmpty
                && (comparison.newValues ?? []).isEmpty
        }
        if !unchecked.isEmpty {
            text += "Warning: \(unchecked.count) exact-count series of the base have no values in the new file "
                + "(removed, another allocator, or allocation counting unavailable): nothing checks them.\n"
        }
        switch options.gate {
        case .all:
            text += "Gate: all metrics.\n"
        case .exact:
            text += "Gate: exact metrics only; timing verdicts are shown but do not affect the exit status.\n"
        }
        let regressions = report.regressions
        for regression in regressions {
            let base = regression.baseMedian.map { Self.value($0, exact: regression.rule.isExact) } ?? "?"
            let new = regression.newMedian.map { Self.value($0, exact: regression.rule.isExact) } ?? "?"
            let change = regression.change.map { " (\(NumberFormat.percentage($0)))" } ?? ""
            text += "Regression: \(regression.key): \(base) -> \(new) \(regression.unit)\(change)\n"
        }
        if regressions.isEmpty {
            text += "No regression: exit status 0.\n"
        } else {
            let noun = regressions.count == 1 ? "regression" : "regressions"
            text += "\(regressions.count) \(noun): exit status 1.\n"
        }
        return text
    }

    // MARK: - Number formatting

    /// Exact counts in full (2.0001 must not read as 2); measurements with four
    /// significant digits and an SI prefix from 10 000 on.
    static func value(_ number: Double, exact: Bool) -> String {
        exact ? NumberFormat.plain(number) : NumberFormat.fourSignificantDigits(number)
    }
}
