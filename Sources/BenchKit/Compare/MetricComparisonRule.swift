/// How `BenchRunner compare` judges one metric: which direction is better, and
/// whether its values are exact counts or noisy measurements.
///
/// The rule, in this order:
/// 1. ``explicitPreferences`` names a metric: that direction wins.
/// 2. A name ending in `_per_s` is a rate: higher is better.
/// 3. Everything else (times, latencies, lateness, drift, skipped ticks,
///    allocations, bytes) is a cost: lower is better.
///
/// A metric is exact when its name starts with `allocs_` or `bytes_`:
/// allocation counts are deterministic, so any increase is a regression and
/// no statistical test is needed (DESIGN.md: "Deterministic figures are
/// compared exactly"; STYLE.md: "Allocation counts are exact, so they can gate CI").
public struct MetricComparisonRule: Sendable, Equatable {
    /// Which direction of change is an improvement.
    public enum Preference: String, Sendable {
        case higherIsBetter = "higher is better"
        case lowerIsBetter = "lower is better"
    }

    /// The metric's name as written in the CSV `metric` column.
    public let metric: String
    /// Which direction is better.
    public let preference: Preference
    /// Exact counts are compared without a test: any increase is worse.
    public let isExact: Bool

    /// Metrics whose direction is stated rather than derived from the name.
    /// Counts of how far something got are higher-is-better although they do
    /// not end in `_per_s`; the others are listed so that the table documents
    /// every metric BenchRunner writes.
    public static let explicitPreferences: [String: Preference] = [
        "elements_per_s": .higherIsBetter,
        "depth": .higherIsBetter,
        "plain_recursion_limit": .higherIsBetter,
        "ns_per_element": .lowerIsBetter,
        "allocs_per_element": .lowerIsBetter,
        "bytes_per_element": .lowerIsBetter,
        "p50_ns": .lowerIsBetter,
        "p99_ns": .lowerIsBetter,
        "p999_ns": .lowerIsBetter,
        "max_ns": .lowerIsBetter,
        "ns_per_schedule": .lowerIsBetter,
        "allocs_per_schedule": .lowerIsBetter,
        "stack_growth_bytes": .lowerIsBetter,
        "lateness_p50_us": .lowerIsBetter,
        "lateness_p99_us": .lowerIsBetter,
        "lateness_max_us": .lowerIsBetter,
        "final_drift_us": .lowerIsBetter,
        "skipped_ticks": .lowerIsBetter,
    ]

    /// The rule for `metric`, following the order documented on the type.
    public init(metric: String) {
        self.metric = metric
        if let stated = Self.explicitPreferences[metric] {
            preference = stated
        } else if metric.hasSuffix("_per_s") {
            preference = .higherIsBetter
        } else {
            preference = .lowerIsBetter
        }
        isExact = metric.hasPrefix("allocs_") || metric.hasPrefix("bytes_")
    }

    /// Whether going from `base` to `new` moves in the bad direction.
    public func isWorse(from base: Double, to new: Double) -> Bool {
        switch preference {
        case .higherIsBetter: new < base
        case .lowerIsBetter: new > base
        }
    }
}
