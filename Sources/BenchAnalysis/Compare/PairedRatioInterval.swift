import Foundation
import ToolSupport

/// How much larger one variant's value is than another's in one run, from
/// repetitions taken in pairs: the distribution-free interval that goes with
/// the Wilcoxon signed-rank test, on the logarithms of the pairs' ratios.
///
/// A run interleaves its variants (A B, A B, …), so repetition `i` of two
/// variants was taken close together in time and shares the machine's level
/// then; the ratio within a pair cancels that level where the two samples'
/// spreads would carry it. Of the ratios' logarithms `d`, the `n(n+1)/2`
/// averages of two (each with itself included: the Walsh averages), sorted,
/// give the estimate (their median) and the interval: from the `k`-th
/// smallest to the `k`-th largest, where `k` is the largest integer with
/// `P(T ≤ k - 1) ≤ (1 - confidence) / 2` under the null distribution of the
/// signed-rank statistic `T`. The interval excludes a ratio of 1 exactly
/// when the exact two-sided signed-rank test rejects at `1 - confidence`.
/// No random numbers: the output is deterministic. Above
/// ``maximumExactPairs`` pairs `k` comes from the normal approximation of `T`.
///
/// The test assumes the ratios' logarithms are symmetric about their centre;
/// with a skewed spread the interval is approximate.
package struct PairedRatioInterval: Sendable, Equatable {
    /// The estimated ratio, first over second.
    let estimate: Double
    /// Lower bound of the ratio, first over second.
    package let lower: Double
    /// Upper bound of the ratio, first over second.
    package let upper: Double
    /// How many pairs the interval rests on.
    let pairs: Int
    /// The confidence the interval was made at.
    let confidence: Double

    /// Largest number of pairs for which the exact distribution of `T` is used.
    static let maximumExactPairs = 60

    /// The confidence the run summary and the documents' `report:paired` use.
    package static let standardConfidence = 0.95

    /// The values of the repetitions both `first` and `second` have (keyed
    /// by repetition number), in repetition order, as the two sides of the
    /// pairs: repetition `r` pairs `first[r]` with `second[r]`.
    package static func pairs(_ first: [Int: Double], _ second: [Int: Double]) -> (first: [Double], second: [Double]) {
        let shared = first.keys.filter { second[$0] != nil }.sorted()
        return (shared.map { first[$0]! }, shared.map { second[$0]! })
    }

    /// The fewest pairs that give an interval at `confidence` (6 at 0.95).
    package static func fewestPairs(confidence: Double) -> Int {
        var n = 1
        while rankOfBound(pairs: n, tail: (1 - confidence) / 2) < 1 {
            n += 1
        }
        return n
    }

    /// The interval at `confidence` (e.g. 0.95) of `first[i] / second[i]`,
    /// or nil when the pairs are too few for any interval to reach that
    /// confidence (fewer than ``fewestPairs(confidence:)``), or a value is
    /// not positive.
    ///
    /// - Precondition: `first` and `second` have the same length (pair `i`
    ///   is `first[i]`, `second[i]`).
    package init?(_ first: [Double], _ second: [Double], confidence: Double) {
        precondition(confidence > 0 && confidence < 1, "confidence must lie strictly between 0 and 1")
        precondition(first.count == second.count, "a paired interval needs as many values on each side")
        guard first.allSatisfy({ $0 > 0 && $0.isFinite }), second.allSatisfy({ $0 > 0 && $0.isFinite }) else {
            return nil
        }
        let logs = zip(first, second).map { log($0 / $1) }
        let n = logs.count
        guard n > 0 else { return nil }
        var walsh: [Double] = []
        walsh.reserveCapacity(n * (n + 1) / 2)
        for i in 0..<n {
            for j in i..<n {
                walsh.append((logs[i] + logs[j]) / 2)
            }
        }
        walsh.sort()
        let k = Self.rankOfBound(pairs: n, tail: (1 - confidence) / 2)
        guard k >= 1 && k <= walsh.count - k + 1, let median = Statistics.median(sorted: walsh) else { return nil }
        estimate = exp(median)
        lower = exp(walsh[k - 1])
        upper = exp(walsh[walsh.count - k])
        pairs = n
        self.confidence = confidence
    }

    /// The interval as the run summary and the documents print it, e.g.
    /// `0.905× (95 % interval 0.854× to 0.933×, 30 pairs)`.
    package var text: String {
        func ratio(_ value: Double) -> String { String(format: "%.3f×", value) }
        let percent = (confidence * 100).formatted(.number.precision(.fractionLength(0...1)))
        return "\(ratio(estimate)) (\(percent) % interval \(ratio(lower)) to \(ratio(upper)), \(pairs) pairs)"
    }

    /// The largest `k` with `P(T ≤ k - 1) ≤ tail` for `pairs` pairs: exact
    /// up to ``maximumExactPairs``, from the normal approximation above.
    static func rankOfBound(pairs n: Int, tail: Double) -> Int {
        let total = n * (n + 1) / 2
        if n <= maximumExactPairs {
            // Each rank r in 1...n is in T or not, with probability 1/2 each:
            // the distribution of T is the convolution of those n choices.
            var distribution = [Double](repeating: 0, count: total + 1)
            distribution[0] = 1
            var reach = 0
            for rank in 1...n {
                reach += rank
                for t in stride(from: reach, through: rank, by: -1) {
                    distribution[t] = (distribution[t] + distribution[t - rank]) / 2
                }
                for t in stride(from: rank - 1, through: 0, by: -1) {
                    distribution[t] /= 2
                }
            }
            var cumulative = 0.0
            var k = 0
            while k <= total {
                cumulative += distribution[k]
                if cumulative > tail * (1 + 1e-12) {
                    break
                }
                k += 1
            }
            return k
        }
        let mean = Double(total) / 2
        let deviation = (Double(n * (n + 1) * (2 * n + 1)) / 24).squareRoot()
        return Int((mean - HodgesLehmannInterval.standardNormalQuantile(1 - tail) * deviation).rounded(.down))
    }
}
