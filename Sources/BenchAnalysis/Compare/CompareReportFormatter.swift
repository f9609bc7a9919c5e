import Foundation
import ToolSupport

/// Writes a ``ComparisonReport`` as an aligned text table, a Markdown table or
/// CSV, plus a summary saying what was tested and what decides the exit status.
/// The one place that formats compare output, so the three formats cannot disagree.
package struct CompareReportFormatter: Sendable {
    let report: ComparisonReport

    init(report: ComparisonReport) {
        self.report = report
    }

    struct Column {
        let title: String
        let alignment: TextTable.Alignment
        let cell: @Sendable (SeriesComparison) -> String
    }

    /// Rows of the table and Markdown outputs: informational series (hundreds
    /// of per-tick latenesses) would drown the verdicts, so only CSV lists them.
    var judgedComparisons: [SeriesComparison] {
        report.comparisons.filter { $0.verdict != .shownOnly }
    }

    var confidenceLabel: String {
        "\(NumberFormat.plain((1 - 2 * report.options.alpha) * 100))% CI"
    }

    var oneSidedConfidence: String {
        "\(NumberFormat.plain((1 - report.options.alpha) * 100))%"
    }

    var columns: [Column] {
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
        ]
        if report.options.resolution != nil {
            // Thresholds differ per series once a resolution applies.
            columns.append(
                Column(title: "threshold", alignment: .right) { comparison in
                    comparison.worseTest == nil ? "" : Self.thresholdText(comparison.threshold)
                })
        }
        columns += [
            Column(title: "p", alignment: .right) { comparison in
                comparison.reportedTest.map { Self.probability($0.pValue) } ?? ""
            },
            Column(title: "q", alignment: .right) { comparison in
                comparison.reportedAdjustedP.map(Self.probability) ?? ""
            },
            Column(title: "verdict", alignment: .left) { comparison in
                if (comparison.verdict == .worse || comparison.verdict.isUnjudged) && !comparison.isGated {
                    return "\(comparison.verdict.rawValue) (not gated)"
                }
                return comparison.verdict.rawValue
            },
        ]
        return columns
    }

    /// An aligned plain-text table, one row per judged series.
    func table() -> String {
        let columns = columns
        let layout = TextTable(
            columns: columns.map { TextTable.Column($0.title, alignment: $0.alignment) }, underlinesTitles: true)
        let rows = judgedComparisons.map { comparison in columns.map { $0.cell(comparison) } }
        return layout.lines(rows).map { $0 + "\n" }.joined()
    }

    /// A GitHub-flavoured Markdown table, one row per judged series.
    func markdown() -> String {
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
    func markdownSummary() -> String {
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

    /// CSV (RFC 4180) with full-precision numbers, changes as fractions, a
    /// `regression` column that is `true` for gated regressions and an
    /// `unjudged` column that is `true` for series that could not be judged.
    func csv() -> String {
        let header = [
            "benchmark", "variant", "params", "allocator", "metric", "unit", "direction", "exact",
            "base_n", "base_median", "new_n", "new_median", "change", "ci_low", "ci_high", "threshold",
            "p_worse", "q_worse", "p_better", "q_better", "test", "verdict", "gated", "regression", "unjudged",
        ]
        func number(_ value: Double?) -> String {
            value.map { "\($0)" } ?? ""
        }
        var text = header.joined(separator: ",") + "\n"
        for comparison in report.comparisons {
            let direction =
                switch comparison.rule.preference {
                case .higherIsBetter: "higher"
                case .lowerIsBetter: "lower"
                case .informational: "none"
                }
            let fields = [
                comparison.key.benchmark, comparison.key.variant, comparison.key.params,
                comparison.key.allocator, comparison.key.metric, comparison.unit,
                direction,
                comparison.rule.isExact ? "true" : "false",
                comparison.baseValues.map { "\($0.count)" } ?? "",
                number(comparison.baseMedian),
                comparison.newValues.map { "\($0.count)" } ?? "",
                number(comparison.newMedian),
                number(comparison.change),
                number(comparison.interval?.lowerBound),
                number(comparison.interval?.upperBound),
                comparison.worseTest == nil ? "" : number(comparison.threshold),
                number(comparison.worseTest?.pValue),
                number(comparison.adjustedWorseP),
                number(comparison.betterTest?.pValue),
                number(comparison.adjustedBetterP),
                comparison.worseTest.map { "one-sided Mann-Whitney U, \($0.method.rawValue)" } ?? "",
                comparison.verdict.rawValue,
                comparison.isGated ? "true" : "false",
                comparison.isRegression ? "true" : "false",
                comparison.verdict.isUnjudged ? "true" : "false",
            ]
            text += CSV.line(fields) + "\n"
        }
        return text
    }
}
