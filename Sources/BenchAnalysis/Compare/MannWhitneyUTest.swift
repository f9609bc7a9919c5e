import Foundation

/// A Mann-Whitney U test (Wilcoxon rank-sum test) of two samples, two-sided
/// or one-sided.
///
/// Rank-based, as Go's benchstat does: it assumes nothing about the shape of
/// the timing distribution, and one outlier repetition (a descheduled run on a
/// shared machine) moves a rank by one, not the result by its size.
///
/// How the p-value is computed, and why:
/// - Without ties and with at most ``RankSumNullDistribution/maximumExactSampleSize``
///   values per side, from the exact null distribution of U: benchmark runs
///   have few repetitions, where a normal approximation is poor. 3 against 3
///   non-overlapping values give a one-sided p of exactly 1/20 = 0.05.
/// - Otherwise from the normal approximation with the tie correction of the
///   variance and a continuity correction: ties make the exact distribution
///   above wrong, and large samples make the approximation good.
///
/// `BenchRunner compare` asks one question per series (did it get worse?), so
/// it uses the one-sided test in the metric's harmful direction; see
/// ``minimumAchievablePValue(m:n:alternative:)`` for when no data could answer.
package struct MannWhitneyUTest: Sendable, Equatable {
    /// How the p-value was obtained.
    enum Method: String, Sendable {
        /// Exact null distribution (no ties, small samples).
        case exact
        /// Normal approximation with tie and continuity correction.
        case normalApproximation = "normal approximation"
    }

    /// What the test looks for.
    enum Alternative: String, Sendable {
        /// Either sample tends to be larger.
        case twoSided = "two-sided"
        /// The second sample tends to be larger than the first.
        case secondGreater = "second greater"
        /// The second sample tends to be smaller than the first.
        case secondLess = "second less"
    }

    /// U of the first sample: the number of pairs (x, y) with x > y, ties counting one half.
    let u: Double
    /// The p-value for ``alternative``.
    let pValue: Double
    /// How ``pValue`` was computed.
    let method: Method
    /// What the test looked for.
    let alternative: Alternative
    /// The sizes of the first and the second sample.
    let sampleSizes: (first: Int, second: Int)

    /// Whether the samples do not overlap at all in the direction of
    /// ``alternative`` (for `.twoSided`, in either direction): every value of
    /// the second sample above (`.secondGreater`) or below (`.secondLess`)
    /// every value of the first. The strongest evidence samples of these
    /// sizes can give.
    var isCompleteSeparation: Bool {
        let total = Double(sampleSizes.first * sampleSizes.second)
        switch alternative {
        case .twoSided: return u == 0 || u == total
        case .secondGreater: return u == 0
        case .secondLess: return u == total
        }
    }

    package static func == (lhs: MannWhitneyUTest, rhs: MannWhitneyUTest) -> Bool {
        lhs.u == rhs.u && lhs.pValue == rhs.pValue && lhs.method == rhs.method && lhs.alternative == rhs.alternative
            && lhs.sampleSizes == rhs.sampleSizes
    }

    /// Runs the test on `first` and `second`. Both must be non-empty.
    init(_ first: [Double], _ second: [Double], alternative: Alternative = .twoSided) {
        precondition(!first.isEmpty && !second.isEmpty, "first and second must both have values")
        let m = first.count
        let n = second.count
        let ranking = Self.rank(first + second)
        let rankSumFirst = ranking.ranks[0..<m].reduce(0, +)
        let uFirst = rankSumFirst - Double(m * (m + 1)) / 2
        u = uFirst
        self.alternative = alternative
        sampleSizes = (m, n)
        let product = Double(m * n)
        if !ranking.hasTies && max(m, n) <= RankSumNullDistribution.maximumExactSampleSize {
            let distribution = RankSumNullDistribution.shared(m: m, n: n)
            // U is an integer without ties; the distribution is symmetric about m·n/2,
            // so P(U ≥ u) = P(U ≤ m·n - u).
            let observed = Int(uFirst.rounded())
            let total = m * n
            switch alternative {
            case .twoSided:
                let smallerTail = min(observed, total - observed)
                pValue = min(1, 2 * distribution.cumulativeProbability(atMost: smallerTail))
            case .secondGreater:
                // A large second sample leaves few pairs with x > y: small U is evidence.
                pValue = distribution.cumulativeProbability(atMost: observed)
            case .secondLess:
                pValue = distribution.cumulativeProbability(atMost: total - observed)
            }
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
                let deviation = variance.squareRoot()
                switch alternative {
                case .twoSided:
                    let distance = max(0, abs(uFirst - product / 2) - 0.5)
                    pValue = min(1, erfc(distance / deviation / 2.0.squareRoot()))
                case .secondGreater:
                    pValue = Self.upperNormalTail((product / 2 - uFirst - 0.5) / deviation)
                case .secondLess:
                    pValue = Self.upperNormalTail((uFirst - product / 2 - 0.5) / deviation)
                }
            }
            method = .normalApproximation
        }
    }

    /// `P(Z ≥ z)` for a standard normal Z.
    private static func upperNormalTail(_ z: Double) -> Double {
        min(1, 0.5 * erfc(z / 2.0.squareRoot()))
    }

    /// The smallest p-value the test can give for samples of sizes `m` and
    /// `n`, reached when the samples do not overlap: `1 / C(m+n, m)` one-sided,
    /// twice that two-sided. One-sided, 3 against 3 give 0.05 and 2 against 3
    /// give 0.1.
    ///
    /// If this exceeds the level a series is tested at, no data can be
    /// significant, so a comparison must say "too few repetitions" rather
    /// than "no change" (no silent wrong answer).
    static func minimumAchievablePValue(m: Int, n: Int, alternative: Alternative = .twoSided) -> Double {
        guard m > 0 && n > 0 else { return 1 }
        // C(m+n, m) as a running product; exact enough for this comparison.
        var combinations = 1.0
        let smaller = min(m, n)
        for index in 0..<smaller {
            combinations = combinations * Double(m + n - index) / Double(index + 1)
        }
        let tails = alternative == .twoSided ? 2.0 : 1.0
        return min(1, tails / combinations)
    }

    /// The fewest repetitions a side for which non-overlapping samples reach a
    /// one-sided p of at most `level` (3 for 0.05, 7 for 0.05/90), or nil when
    /// more than `limit` would be needed (or `level` is not positive).
    static func repetitionsNeeded(forOneSidedLevel level: Double, limit: Int = 1000) -> Int? {
        guard level > 0 else { return nil }
        for repetitions in 1...max(1, limit)
        where FalseDiscoveryRate.isSignificant(
            minimumAchievablePValue(m: repetitions, n: repetitions, alternative: .secondGreater), at: level)
        {
            return repetitions
        }
        return nil
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
