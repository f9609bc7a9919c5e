import Synchronization

/// The exact null distribution of the Mann-Whitney U statistic for two samples
/// of sizes `m` and `n` without ties.
///
/// Under the null hypothesis every interleaving of the two samples is equally
/// likely, so `P(U = u)` follows the recurrence
/// `p(m, n, u) = m/(m+n) · p(m-1, n, u-n) + n/(m+n) · p(m, n-1, u)`
/// (the largest value comes from the first sample or from the second). Working
/// in probabilities rather than counts keeps every step an addition of
/// positive numbers, so the result stays accurate where the counts
/// (`C(m+n, m)`) would no longer fit a `Double` exactly.
///
/// Cost is `O(m·n·m·n)`; ``MannWhitneyUTest`` uses it only up to
/// ``maximumExactSampleSize`` per side.
struct RankSumNullDistribution {
    /// Largest sample size per side for which the exact distribution is used.
    static let maximumExactSampleSize = 50

    /// `probabilities[u]` is `P(U = u)` for `u` in `0...m·n`.
    let probabilities: [Double]

    private struct Sizes: Hashable {
        let m: Int
        let n: Int
    }

    /// Distributions already computed: a result file has the same repetition
    /// counts in almost every series, so each size pair is computed once.
    private static let computed = Mutex<[Sizes: RankSumNullDistribution]>([:])

    /// The distribution for sizes `m` and `n`, computed at most once per process.
    static func shared(m: Int, n: Int) -> RankSumNullDistribution {
        let sizes = Sizes(m: m, n: n)
        if let known = computed.withLock({ $0[sizes] }) {
            return known
        }
        // Computed outside the lock; two threads racing both compute the same value.
        let distribution = RankSumNullDistribution(m: m, n: n)
        computed.withLock { $0[sizes] = distribution }
        return distribution
    }

    init(m: Int, n: Int) {
        precondition(m >= 0 && n >= 0, "sample sizes m and n must not be negative")
        // table[j] holds the distribution for (i, j) while row i is built.
        var previousRow: [[Double]] = (0...n).map { _ in [1.0] }  // i = 0: U is always 0
        if m > 0 {
            for i in 1...m {
                var row: [[Double]] = [[1.0]]  // j = 0: U is always 0
                if n > 0 {
                    for j in 1...n {
                        let total = Double(i + j)
                        let fromFirst = Double(i) / total  // largest value is in sample one
                        let fromSecond = Double(j) / total
                        var distribution = [Double](repeating: 0, count: i * j + 1)
                        // Largest from sample one: it exceeds all j of sample two.
                        for (u, p) in previousRow[j].enumerated() {
                            distribution[u + j] += fromFirst * p
                        }
                        for (u, p) in row[j - 1].enumerated() {
                            distribution[u] += fromSecond * p
                        }
                        row.append(distribution)
                    }
                }
                previousRow = row
            }
        }
        probabilities = previousRow[n]
    }

    /// `P(U ≤ u)`.
    func cumulativeProbability(atMost u: Int) -> Double {
        guard u >= 0 else { return 0 }
        let last = min(u, probabilities.count - 1)
        var sum = 0.0
        for index in 0...last {
            sum += probabilities[index]
        }
        return min(sum, 1)
    }
}
