/// Benjamini–Hochberg control of the false discovery rate across the series
/// of one comparison.
///
/// A default run has about a hundred judged timing series. Tested one by one
/// at alpha = 0.05, two runs of one revision would show a "regression" in
/// most comparisons by chance alone. The step-up procedure of Benjamini and
/// Hochberg keeps the expected share of false claims among all claims at or
/// below alpha (and, when nothing changed at all, the chance of any claim):
/// sort the `N` p-values, find the largest rank `k` with `p(k) ≤ alpha·k/N`,
/// and reject the `k` smallest. The adjusted p-value of a series is the
/// smallest alpha at which it would be rejected; a series is a discovery
/// exactly when its adjusted p-value is at most alpha.
///
/// The guarantee holds for independent tests and for positively dependent
/// ones (the timings of one run rise and fall together with the machine);
/// discrete p-values (exact rank tests) only make it more conservative.
/// The price: a lone change among `N` series must reach `p ≤ alpha/N`, which
/// for a rank test means enough repetitions (see
/// ``MannWhitneyUTest/repetitionsNeeded(forOneSidedLevel:limit:)``).
enum FalseDiscoveryRate {
    /// The procedure's name, for reports.
    static let procedureName = "Benjamini-Hochberg"

    /// Benjamini–Hochberg adjusted p-values, in the order of `pValues`:
    /// `min over j ≥ rank(i) of N·p(j)/j`, capped at 1.
    static func benjaminiHochbergAdjusted(_ pValues: [Double]) -> [Double] {
        let count = pValues.count
        guard count > 0 else { return [] }
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = [Double](repeating: 1, count: count)
        var running = 1.0
        for position in stride(from: count - 1, through: 0, by: -1) {
            let index = order[position]
            let candidate = pValues[index] * Double(count) / Double(position + 1)
            running = min(running, candidate)
            adjusted[index] = min(1, running)
        }
        return adjusted
    }

    /// Whether `pValue` is at most `level`, allowing for the rounding of
    /// probabilities summed in floating point (3 against 3 repetitions give a
    /// one-sided p of 1/20, which must count as significant at 0.05).
    static func isSignificant(_ pValue: Double, at level: Double) -> Bool {
        pValue <= level * (1 + 1e-9)
    }
}
