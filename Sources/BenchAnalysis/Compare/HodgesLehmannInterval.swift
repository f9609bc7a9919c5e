import Foundation
import ToolSupport

/// The distribution-free confidence interval for the shift between two samples
/// that goes with the Mann-Whitney U test (Hodges–Lehmann / Moses).
///
/// Of the `m·n` differences `second[j] - first[i]`, sorted, the interval runs
/// from the `k`-th smallest to the `k`-th largest, where `k` is the largest
/// integer with `P(U ≤ k - 1) ≤ (1 - confidence) / 2` under the null
/// distribution of U. The interval therefore excludes zero exactly when the
/// exact two-sided U test rejects at `1 - confidence`, and it needs no random
/// numbers, so the output is deterministic. For more than
/// ``RankSumNullDistribution/maximumExactSampleSize`` values per side `k`
/// comes from the normal approximation of U. With tied values (small integer
/// counts) the coverage is approximate, as it is for the test.
package struct HodgesLehmannInterval: Sendable, Equatable {
    /// Lower bound of the shift (second minus first).
    let lower: Double
    /// Upper bound of the shift (second minus first).
    let upper: Double
    /// The Hodges–Lehmann estimate of the shift: the median of all pairwise differences.
    let estimate: Double

    /// The interval at `confidence` (e.g. 0.95), or nil when the samples are
    /// too small for any interval to reach that confidence.
    init?(_ first: [Double], _ second: [Double], confidence: Double) {
        precondition(confidence > 0 && confidence < 1, "confidence must lie strictly between 0 and 1")
        let m = first.count
        let n = second.count
        guard m > 0 && n > 0 else { return nil }
        var differences: [Double] = []
        differences.reserveCapacity(m * n)
        for y in second {
            for x in first {
                differences.append(y - x)
            }
        }
        differences.sort()
        let tail = (1 - confidence) / 2
        let k: Int
        if max(m, n) <= RankSumNullDistribution.maximumExactSampleSize {
            let distribution = RankSumNullDistribution.shared(m: m, n: n)
            var cumulative = 0.0
            var candidate = 0
            // Largest k with P(U ≤ k - 1) ≤ tail.
            while candidate < distribution.probabilities.count {
                cumulative += distribution.probabilities[candidate]
                if cumulative > tail * (1 + 1e-12) {
                    break
                }
                candidate += 1
            }
            k = candidate
        } else {
            let product = Double(m * n)
            let deviation = (product * Double(m + n + 1) / 12).squareRoot()
            k = Int((product / 2 - Self.standardNormalQuantile(1 - tail) * deviation).rounded(.down))
        }
        guard k >= 1 && k <= differences.count - k + 1 else { return nil }
        lower = differences[k - 1]
        upper = differences[differences.count - k]
        guard let median = Statistics.median(sorted: differences) else { return nil }
        estimate = median
    }

    /// Inverse of the standard normal distribution function, by bisection on
    /// `erfc` (used only for large samples; precision far beyond what a rank is worth).
    static func standardNormalQuantile(_ probability: Double) -> Double {
        var low = -10.0
        var high = 10.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            let cumulative = 0.5 * erfc(-middle / 2.0.squareRoot())
            if cumulative < probability {
                low = middle
            } else {
                high = middle
            }
        }
        return (low + high) / 2
    }
}
