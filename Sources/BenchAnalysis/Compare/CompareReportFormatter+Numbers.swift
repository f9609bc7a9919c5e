import Foundation
import ToolSupport

extension CompareReportFormatter {
    /// The interquartile range of `values` over their median, as a
    /// percentage ("?" when it cannot be computed).
    static func spread(_ values: [Double]?) -> String {
        guard let values, let spread = RepetitionSpread.relativeInterquartileRange(values) else { return "?" }
        return NumberFormat.plain((spread * 1000).rounded() / 10) + "%"
    }

    /// A rough count of repetitions a side with which the harmful moves in
    /// `moved` would separate: the noise of a median shrinks with the
    /// square root of the repetitions, so the count that brings the larger
    /// spread under the move's excess over the threshold, and at least the
    /// count a lone change needs at `alpha` (never fewer than 5 more than now).
    static func repetitionsToConfirm(_ moved: [SeriesComparison], alpha: Double) -> Int {
        var needed = MannWhitneyUTest.repetitionsNeeded(forOneSidedLevel: alpha) ?? 3
        for comparison in moved {
            let now = max(comparison.baseValues?.count ?? 0, comparison.newValues?.count ?? 0)
            let spread = max(
                RepetitionSpread.relativeInterquartileRange(comparison.baseValues ?? []) ?? 0,
                RepetitionSpread.relativeInterquartileRange(comparison.newValues ?? []) ?? 0)
            let excess = max(abs(comparison.change ?? 0) - comparison.threshold, 0.01)
            let ratio = spread / excess
            let scaled = Int((Double(max(now, 1)) * ratio * ratio).rounded(.up))
            needed = max(needed, min(max(scaled, now + 5), 100))
        }
        return needed
    }

    /// `base -> new unit (change)`, for the summary.
    static func medians(of comparison: SeriesComparison) -> String {
        let base = comparison.baseMedian.map { value($0, exact: comparison.rule.isExact) } ?? "?"
        let new = comparison.newMedian.map { value($0, exact: comparison.rule.isExact) } ?? "?"
        let change = comparison.change.map { " (\(NumberFormat.percentage($0)))" } ?? ""
        return "\(base) -> \(new) \(comparison.unit)\(change)"
    }

    /// A series' threshold as the table and the summary print it: `+-12%`;
    /// `chance` where no finite relative move is beyond chance (a count of
    /// chance events from a base of 0: ``EvidenceSteps/chanceCountMove(metric:baseMedian:newMedian:)``).
    static func thresholdText(_ threshold: Double) -> String {
        threshold.isFinite ? "+-\(NumberFormat.plain((threshold * 100).rounded()))%" : "chance"
    }

    /// A probability to three decimals, or three significant digits below
    /// 0.001: `0.05`, `0.004`, `0.000291`.
    static func probability(_ value: Double) -> String {
        if value >= 0.001 {
            return NumberFormat.plain((value * 1000).rounded() / 1000)
        }
        return String(format: "%.3g", value)
    }

    // MARK: - Number formatting

    /// Exact counts in full (2.0001 must not read as 2); measurements with four
    /// significant digits and an SI prefix from 10 000 on.
    static func value(_ number: Double, exact: Bool) -> String {
        exact ? NumberFormat.plain(number) : NumberFormat.fourSignificantDigits(number)
    }
}
