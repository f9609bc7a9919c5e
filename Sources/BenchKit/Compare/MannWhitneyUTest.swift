import Foundation

/// A two-sided Mann-Whitney U test (Wilcoxon rank-sum test) of two samples.
///
/// Rank-based, as Go's benchstat does: it assumes nothing about the shape of
/// the timing distribution, and one outlier repetition (a descheduled run on a
/// shared machine) moves a rank by one, not the result by its size.
///
/// How the p-value is computed, and why:
/// - Without ties and with at most ``RankSumNullDistribution/maximumExactSampleSize``
///   values per side, from the exact null distribution of U: benchmark runs
///   have few repetitions, where a normal approximation is poor.
/// - Otherwise from the normal approximation with the tie correction of the
///   variance and a continuity correction: ties make the exact distribution
///   above wrong, and large samples make the approximation good.
///
/// How `compare` tells a real change from noise; it never gives a silent wrong
/// answer (see ``minimumAchievablePValue(m:n:)``).
public struct MannWhitneyUTest: Sendable, Equatable {
    /// How the p-value was obtained.
    public enum Method: String, Sendable {
        /// Exact null distribution (no ties, small samples).
        case exact
        /// Normal approximation with tie and continuity correction.
        case normalApproximation = "normal approximation"
    }

    /// U of the first sample: the number of pairs (x, y) with x > y, ties counting one half.
    public let u: Double
    /// Two-sided p-value.
    public let pValue: Double
    /// How ``pValue`` was computed.
    public let method: Method

    /// Runs the test on `first` and `second`. Both must be non-empty.
    public init(_ first: [Double], _ second: [Double]) {
        precondition(!first.isEmpty && !second.isEmpty, "first and second must both have values")
        let m = first.count
        let n = second.count
        let ranking = Self.rank(first + second)
        let rankSumFirst = ranking.ranks[0..<m].reduce(0, +)
        let uFirst = rankSumFirst - Double(m * (m + 1)) / 2
        u = uFirst
        let product = Double(m * n)
        if !ranking.hasTies && max(m, n) <= RankSumNullDistribution.maximumExactSampleSize {
            let distribution = RankSumNullDistribution.shared(m: m, n: n)
            // U is an integer without ties; the distribution is symmetric about m·n/2.
            let smallerTail = Int(min(uFirst, product - uFirst).rounded())
            pValue = min(1, 2 * distribution.cumulativeProbability(atMost: smallerTail))
            method = .exact
        } else {
            let total = Double(m + n)
            let tieTerm = ranking.tieGroupSizes.reduce(0.0) { sum, t in
                let size = Double(t)
                return sum + (size * size * size - size)
            }
            let variance = product / 12 * ((total + 1) - tieTerm / (total * (total - 1)))
            if variance <= 0 {
                // Every value is the same: nothing tells the samples apart.
                pValue = 1
            } else {
                let distance = max(0, abs(uFirst - product / 2) - 0.5)
                let z = distance / variance.squareRoot()
                pValue = min(1, erfc(z / 2.0.squareRoot()))
            }
            method = .normalApproximation
        }
    }

    /// The smallest two-sided p-value the test can give for samples of sizes
    /// `m` and `n`: `2 / C(m+n, m)`, reached when the samples do not overlap.
    ///
    /// If this exceeds alpha, no data can be significant, so a comparison must
    /// say "too few repetitions" rather than "no change". At alpha 0.05 that
    /// is 3 against 3 (0.1) or 3 against 4 (0.057); 4 against 4 reaches 0.029.
    /// Ties only make the smallest p-value larger.
    public static func minimumAchievablePValue(m: Int, n: Int) -> Double {
        guard m > 0 && n > 0 else { return 1 }
        // C(m+n, m) as a running product; exact enough for this comparison.
        var combinations = 1.0
        let smaller = min(m, n)
        for index in 0..<smaller {
            combinations = combinations * Double(m + n - index) / Double(index + 1)
        }
        return min(1, 2 / combinations)
    }

    /// Average ranks (1-based) of `values`, the sizes of the tie groups, and whether any tie exists.
    static func rank(_ values: [Double]) -> (ranks: [Double], tieGroupSizes: [Int], hasTies: Bool) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var tieGroupSizes: [Int] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && values[order[end]] == values[order[start]] {
                end += 1
            }
            // Positions start..<end share the average of ranks start+1 ... end.
            let averageRank = Double(start + 1 + end) / 2
            for position in start..<end {
                ranks[order[position]] = averageRank
            }
            if end - start > 1 {
                tieGroupSizes.append(end - start)
            }
            start = end
        }
        return (ranks, tieGroupSizes, !tieGroupSizes.isEmpty)
    }
}
