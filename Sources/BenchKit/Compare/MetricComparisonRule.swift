/// How `BenchRunner compare` judges one metric: which direction is better,
/// and whether its values are exact counts or noisy measurements.
///
/// The rule, in this order:
/// 1. ``explicitRules`` names the metric: its direction and exactness win.
/// 2. A name ending in `_per_s` is a rate: higher is better.
/// 3. Everything else (times, latencies, lateness, drift, skipped ticks,
///    allocations, bytes) is a cost: lower is better.
///
/// Without an explicit entry, a metric is exact when its name starts with
/// `allocs_` or `bytes_`: allocation counts are deterministic, so any increase
/// is a regression and no statistical test is needed (DESIGN.md:
/// "Deterministic figures are compared exactly"; STYLE.md: "Allocation counts
/// are exact, so they can gate CI"). Informational metrics describe the
/// machine rather than the code and get no verdict.
public struct MetricComparisonRule: Sendable, Equatable {
    /// Which direction of change is an improvement.
    public enum Preference: String, Sendable {
        case higherIsBetter = "higher is better"
        case lowerIsBetter = "lower is better"
        /// Describes the machine or the run, not the code: shown, never judged.
        case informational = "informational"
    }

    /// The metric's name as written in the CSV `metric` column.
    public let metric: String
    /// Which direction is better.
    public let preference: Preference
    /// Exact counts are compared without a test: any increase is worse.
    public let isExact: Bool

    /// Metrics whose treatment is stated rather than derived from the name:
    /// every metric BenchRunner writes (its CSV schema), so this table
    /// documents them all. Counts of how far something got are higher-is-better
    /// although they do not end in `_per_s`.
    public static let explicitRules: [String: (preference: Preference, isExact: Bool)] = [
        "elements_per_s": (.higherIsBetter, false),
        "ns_per_element": (.lowerIsBetter, false),
        "allocs_per_element": (.lowerIsBetter, true),
        "bytes_per_element": (.lowerIsBetter, true),
        "latency_p50_ns": (.lowerIsBetter, false),
        "latency_p99_ns": (.lowerIsBetter, false),
        "latency_p999_ns": (.lowerIsBetter, false),
        "latency_max_ns": (.lowerIsBetter, false),
        "ns_per_schedule": (.lowerIsBetter, false),
        "allocs_per_schedule": (.lowerIsBetter, true),
        "bytes_per_schedule": (.lowerIsBetter, true),
        // The trampoline runs to a set depth: reaching less is a regression.
        "depth": (.higherIsBetter, true),
        "stack_growth_bytes": (.lowerIsBetter, false),
        // How deep plain recursion goes depends on the thread's stack size, not the code.
        "plain_recursion_limit": (.informational, false),
        "lateness_p50_us": (.lowerIsBetter, false),
        "lateness_p99_us": (.lowerIsBetter, false),
        "lateness_max_us": (.lowerIsBetter, false),
        "final_drift_us": (.lowerIsBetter, false),
        "skipped_ticks": (.lowerIsBetter, false),
        "lateness_at_tick_us": (.informational, false),
    ]

    /// The rule for `metric`, following the order documented on the type.
    public init(metric: String) {
        self.metric = metric
        if let stated = Self.explicitRules[metric] {
            preference = stated.preference
            isExact = stated.isExact
            return
        }
        preference = metric.hasSuffix("_per_s") ? .higherIsBetter : .lowerIsBetter
        isExact = metric.hasPrefix("allocs_") || metric.hasPrefix("bytes_")
    }

    /// Whether going from `base` to `new` moves in the bad direction.
    public func isWorse(from base: Double, to new: Double) -> Bool {
        switch preference {
        case .higherIsBetter: new < base
        case .lowerIsBetter: new > base
        case .informational: false
        }
    }
}
