import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How far the `scale.*` sweeps go (`--scale`).
package enum ScaleExtent: String, Sendable, CaseIterable {
    /// The default run's sweeps: three orders of magnitude at the small end,
    /// about a minute and a half for all the sweeps on two cores.
    case modest
    /// The large N each sweep is about (10⁶ virtual-time actions, 10 000
    /// timers, 10⁵ live subscriptions): several minutes.
    case full
}

/// What the `scale.*` sweeps measure in a run: their extent and, when given
/// (`--scale-n`), the N of every selected sweep instead of its own.
package struct ScaleOptions: Sendable, Equatable {
    var extent: ScaleExtent
    /// Every selected sweep runs these N instead of its own (checked with
    /// ``ScaleInput/check(_:against:)`` first).
    var points: [Int]?

    package init(extent: ScaleExtent = .modest, points: [Int]? = nil) {
        self.extent = extent
        self.points = points
    }
}

/// The most N one sweep accepts: what memory (or the machine) allows.
package struct ScalePointLimit: Sendable, Equatable {
    /// The sweep's benchmark name.
    let benchmark: String
    /// What N counts there, plural ("timers", "queued actions").
    let quantity: String
    /// The largest N accepted.
    let maximum: Int
    /// Why this is the limit, for the message.
    let reason: String

    /// A limit set by memory: N items of about `bytesPerItem` each may take
    /// at most half of `physicalMemory`, and never more than `cap` (what a
    /// run can finish in reasonable time).
    static func memory(
        benchmark: String, quantity: String, bytesPerItem: Int, cap: Int,
        physicalMemory: UInt64 = ProcessInfo.processInfo.physicalMemory
    ) -> ScalePointLimit {
        let half = physicalMemory / 2
        let byMemory = Int(clamping: half / UInt64(max(bytesPerItem, 1)))
        let gigabytes = String(format: "%.1f", Double(physicalMemory) / 1_073_741_824)
        if byMemory < cap {
            return ScalePointLimit(
                benchmark: benchmark, quantity: quantity, maximum: byMemory,
                reason: "about \(bytesPerItem) bytes each may use at most half of this machine's \(gigabytes) GB")
        }
        return ScalePointLimit(
            benchmark: benchmark, quantity: quantity, maximum: cap,
            reason: "about \(bytesPerItem) bytes each, and a sweep point must finish in a few minutes")
    }
}

/// Bad `--scale-n` input: what was wrong and what to do instead.
package struct ScaleInputError: Error, CustomStringConvertible, Equatable {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Reads and checks the N list of `--scale-n`.
package enum ScaleInput {
    /// The N of `text`: comma-separated whole numbers of 1 or more, written
    /// plainly (`1000`), with underscores (`1_000_000`) or as a power of ten
    /// (`1e6`). Sorted, duplicates removed.
    ///
    /// - Throws: ``ScaleInputError`` for an empty list, a value that is not a
    ///   whole number, or one below 1.
    package static func parsePoints(_ text: String) throws(ScaleInputError) -> [Int] {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.contains(where: { !$0.isEmpty }) else {
            throw ScaleInputError("--scale-n needs at least one N, e.g. --scale-n 1000,10000,100000")
        }
        var points: [Int] = []
        for field in fields {
            guard let value = number(field) else {
                throw ScaleInputError(
                    "--scale-n: '\(field)' is not a whole number; give N as 1000, 1_000 or 1e3, separated by commas")
            }
            guard value >= 1 else {
                throw ScaleInputError("--scale-n: N must be 1 or more, got \(value)")
            }
            points.append(value)
        }
        return Array(Set(points)).sorted()
    }

    /// Throws when a point exceeds the limit of any of `limits` (the selected
    /// sweeps'), naming the sweep, the limit and why.
    package static func check(_ points: [Int], against limits: [ScalePointLimit]) throws(ScaleInputError) {
        guard !points.isEmpty else {
            throw ScaleInputError("--scale-n needs at least one N, e.g. --scale-n 1000,10000,100000")
        }
        for limit in limits {
            if let largest = points.last, largest > limit.maximum {
                throw ScaleInputError(
                    "--scale-n: N=\(largest) is above what \(limit.benchmark) allows: at most \(limit.maximum) "
                        + "\(limit.quantity) (\(limit.reason)). Give smaller N, or --filter one sweep whose limit is higher.")
            }
        }
    }

    private static func number(_ field: String) -> Int? {
        let plain = field.replacingOccurrences(of: "_", with: "")
        guard !plain.isEmpty else { return nil }
        if plain.allSatisfy(\.isASCIIDigitOrSign), let value = Int(plain) { return value }
        let parts = plain.lowercased().split(separator: "e", omittingEmptySubsequences: false)
        guard parts.count == 2, let mantissa = Int(parts[0]), let exponent = Int(parts[1]), (0...18).contains(exponent)
        else { return nil }
        var value = mantissa
        for _ in 0..<exponent {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = product
        }
        return value
    }
}

extension Character {
    fileprivate var isASCIIDigitOrSign: Bool { ("0"..."9").contains(self) || self == "-" || self == "+" }
}

/// The slope of a least-squares line through `(log N, log value)`: the
/// exponent b of `value ≈ a·N^b`. 0 is a per-operation cost that does not
/// grow, 1 one that grows as N (the total then grows as N²); log N growth
/// shows as a small positive slope that shrinks as N grows.
package enum GrowthExponent {
    /// The fitted slope, or `nil` with fewer than two points of positive N and
    /// value (a logarithm needs both). Values that are all equal (zero
    /// included: no allocations at any N) are constant: 0.
    static func fit(_ points: [(n: Double, value: Double)]) -> Double? {
        let finite = points.filter { $0.n > 0 && $0.value.isFinite }
        if Set(finite.map(\.n)).count >= 2, let first = finite.first?.value, finite.allSatisfy({ $0.value == first }) {
            return 0
        }
        let usable = points.filter { $0.n > 0 && $0.value > 0 && $0.value.isFinite }
        guard Set(usable.map(\.n)).count >= 2 else { return nil }
        let xs = usable.map { log($0.n) }
        let ys = usable.map { log($0.value) }
        let meanX = xs.reduce(0, +) / Double(xs.count)
        let meanY = ys.reduce(0, +) / Double(ys.count)
        var numerator = 0.0
        var denominator = 0.0
        for (x, y) in zip(xs, ys) {
            numerator += (x - meanX) * (y - meanY)
            denominator += (x - meanX) * (x - meanX)
        }
        return denominator > 0 ? numerator / denominator : nil
    }
}

/// The rows of one sweep's repetition: a value per point (`n=…` in the row's
/// parameters, with its `phase=…` when the sweep has phases), then a growth
/// exponent row per fitted metric (``Metric/growthExponent`` or
/// ``Metric/countGrowthExponent``, parameters `of=<metric>` and
/// `range=<first N>-<last N>`).
struct SweepRecorder {
    private struct Key: Hashable {
        let metric: Metric
        let phase: String?
    }
    private var order: [Key] = []
    private var points: [Key: [(n: Int, value: Double?)]] = [:]
    private(set) var values: [MetricValue] = []

    /// Records `value` of `metric` at `n` (in `phase`, if any).
    mutating func record(_ metric: Metric, n: Int, phase: String? = nil, _ value: Double?) {
        let key = Key(metric: metric, phase: phase)
        if points[key] == nil { order.append(key) }
        points[key, default: []].append((n, value))
        values.append(MetricValue(metric, value, extraParams: Self.params(phase: phase, ["n": String(n)])))
    }

    /// The recorded values followed by the exponent of each metric in
    /// `fitted` over its points (empty value when it cannot be fitted).
    func rows(fitting fitted: Set<String>) -> [MetricValue] {
        var rows = values
        for key in order where fitted.contains(key.metric.name) {
            let series = points[key] ?? []
            let exponent = GrowthExponent.fit(series.compactMap { point in point.value.map { (Double(point.n), $0) } })
            let range = "\(series.map(\.n).min() ?? 0)-\(series.map(\.n).max() ?? 0)"
            let metric: Metric = key.metric.isAllocationCount ? .countGrowthExponent : .growthExponent
            rows.append(
                MetricValue(metric, exponent, extraParams: Self.params(phase: key.phase, ["of": key.metric.name, "range": range])))
        }
        return rows
    }

    private static func params(phase: String?, _ pairs: KeyValuePairs<String, String>) -> String {
        let rest = formatParams(pairs)
        guard let phase else { return rest }
        return "phase=\(phase)" + String(CSVSchema.paramsSeparator) + rest
    }
}

/// Shows where a sweep is on the progress line: "2/4 points (N=10000)".
struct SweepProgress {
    let progress: MeasurementProgress
    let count: Int

    func enter(point index: Int, n: Int, label: String = "N") {
        progress.begin(total: count, unit: "points (\(label)=\(n))")
        progress.advance(by: index)
    }
}

/// Process CPU time (user + system, every thread) in nanoseconds, from `getrusage`.
func processCPUNanoseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1000 }
    return nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
}
