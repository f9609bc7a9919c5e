import Foundation
import ToolSupport

/// How `compare` reads a `scale.*` sweep as a whole: beside the verdict of
/// every point (each `n=` is a series of its own) it fits the growth exponent
/// of both files' medians over the points they share, and says which of these
/// happened:
///
/// - **the growth changed**: the exponent moved by more than
///   ``exponentTolerance`` (or, if larger, the spread of the repetitions' own
///   exponents, or the move two runs of one binary make by chance, from the
///   resolution of the sweep's points: ``chanceTolerance(points:logResolutions:)``),
///   and it still does with any single point left out: the cost
///   now grows differently with N. Worse when it grows faster (for a metric
///   where higher is better, when it falls faster): a regression.
/// - **one point moved**: the exponent moved only because of one point (left
///   out, the exponents agree), or it did not move and one point alone is
///   beyond the threshold: a local change at that N.
/// - **the level moved**: the exponent agrees and every point moved alike.
/// - **same**: neither.
///
/// A peer's or a reference's sweep (``MachineDrift/isAnchor(variant:)``) is
/// read the same way and shown, but its worse growth is never a regression:
/// it runs code this project does not change, so its growth moves only with
/// the machine (its points are shown and never judged for the same reason).
package struct GrowthComparison: Sendable {
    /// One sweep: a benchmark, variant, its parameters without `n`, and a metric.
    struct SweepKey: Hashable, Sendable, CustomStringConvertible {
        let benchmark: String
        let variant: String
        let params: String
        let metric: String
        let allocator: String

        var description: String {
            "\(benchmark)/\(variant)\(params.isEmpty ? "" : " \(params)") \(metric)\(allocator.isEmpty ? "" : " [\(allocator)]")"
        }
    }

    /// What happened to one sweep.
    enum Verdict: Sendable, Equatable {
        case same
        case levelMoved(ratio: Double)
        case pointMoved(n: Int, ratio: Double)
        case growthChanged(worse: Bool)
        /// Fewer than three shared points.
        case tooFewPoints
    }

    /// One sweep compared.
    struct Sweep: Sendable {
        let key: SweepKey
        let points: [Int]
        let baseExponent: Double?
        let newExponent: Double?
        let tolerance: Double
        let verdict: Verdict

        /// Whether the sweep's variant is a peer or a reference
        /// (``MachineDrift/isAnchor(variant:)``): shown, never a regression.
        var isAnchor: Bool { MachineDrift.isAnchor(variant: key.variant) }

        /// Whether this sweep's growth got worse and the sweep is the
        /// library's (not ``isAnchor``): a regression under `--gate all`.
        var hasWorseGrowth: Bool { verdict == .growthChanged(worse: true) && !isAnchor }

        /// Both exponents, as `exponent 1.02 -> 1.31`.
        var exponents: String {
            "exponent \(GrowthComparison.format(baseExponent)) -> \(GrowthComparison.format(newExponent))"
        }
    }

    /// The smallest exponent change that counts as the growth changing.
    static let exponentTolerance = 0.1

    let sweeps: [Sweep]

    /// The smallest move of a point, or of every point alike, that counts:
    /// 25 %, or compare's threshold if larger. A sweep's points are single
    /// measurements of a few repetitions each on a shared machine; a
    /// point's own verdict is compare's table, this only reads the shape.
    static let minimumPointThreshold = 0.25

    /// Compares every sweep present in both files whose run fitted an
    /// exponent on both sides (the metrics a sweep is judged by; tails and
    /// skip counts are shown point by point only). `threshold` is compare's.
    /// `resolution`: compare's table, whose calibrated points widen the
    /// tolerance of their sweep's exponent.
    init(base: ResultFile, new: ResultFile, threshold: Double, resolution: ResolutionTable? = nil) {
        let baseSweeps = Self.sweeps(in: base)
        let newSweeps = Self.sweeps(in: new)
        let pointThreshold = max(threshold, Self.minimumPointThreshold)
        var result: [Sweep] = []
        for (key, basePoints) in baseSweeps.points.sorted(by: { $0.key.description < $1.key.description }) {
            guard let newPoints = newSweeps.points[key], baseSweeps.exponents[key] != nil, newSweeps.exponents[key] != nil
            else { continue }
            let shared = Set(basePoints.keys).intersection(newPoints.keys).sorted()
            let higherIsBetter = CSVSchema.metric(key.metric, in: key.benchmark)?.direction == .higherIsBetter
            let spread = max(
                Self.spread(baseSweeps.exponents[key] ?? []), Self.spread(newSweeps.exponents[key] ?? []))
            let logResolutions = shared.map { n -> Double in
                guard let pointKey = baseSweeps.keys[key]?[n],
                    let entry = resolution?.entry(for: pointKey, repetitions: basePoints[n]?.count)
                else { return 0 }
                return higherIsBetter ? -log(max(1 - entry.resolution, 1e-12)) : log1p(entry.resolution)
            }
            let chance = Self.chanceTolerance(points: shared, logResolutions: logResolutions)
            let tolerance = max(Self.exponentTolerance, spread, chance)
            let baseMedians = shared.map { (n: $0, value: Statistics.median(basePoints[$0] ?? []) ?? 0) }
            let newMedians = shared.map { (n: $0, value: Statistics.median(newPoints[$0] ?? []) ?? 0) }
            let verdict = Self.verdict(
                base: baseMedians, new: newMedians, tolerance: tolerance, pointThreshold: pointThreshold,
                higherIsBetter: higherIsBetter)
            result.append(
                Sweep(
                    key: key, points: shared, baseExponent: Self.fit(baseMedians), newExponent: Self.fit(newMedians),
                    tolerance: tolerance, verdict: verdict))
        }
        sweeps = result
    }

    /// Whether a sweep's growth got worse: under `--gate all`, a regression (exit status 1).
    var hasWorseGrowth: Bool {
        sweeps.contains(where: \.hasWorseGrowth)
    }

    /// How far a sweep's exponent moves by chance between two runs of one
    /// binary: the least-squares slope is `Σ wᵢ·log vᵢ` with
    /// `wᵢ = (xᵢ - x̄) / Σ(xⱼ - x̄)²` over `xᵢ = log Nᵢ`, so when each
    /// point's log median moves by chance within its log resolution `Lᵢ`
    /// (`log(1 + resolution)`: `z·√2·s⁺` of ``ResolutionTable``, the points
    /// independent), the slope moves within `√(Σ (wᵢ·Lᵢ)²)`. 0 when no point
    /// is calibrated.
    static func chanceTolerance(points: [Int], logResolutions: [Double]) -> Double {
        let xs = points.map { log(Double(max($0, 1))) }
        guard xs.count >= 2, xs.count == logResolutions.count else { return 0 }
        let mean = xs.reduce(0, +) / Double(xs.count)
        let spread = xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        guard spread > 0 else { return 0 }
        return zip(xs, logResolutions).reduce(0) { sum, point in
            let weighted = (point.0 - mean) / spread * point.1
            return sum + weighted * weighted
        }.squareRoot()
    }

    /// The exponent b of `value ≈ a·N^b` over `points`: the slope of the
    /// least-squares line through `(log N, log value)`, as the run wrote it
    /// for each repetition. 0 when the values at two or more N are all equal
    /// (zero included: no allocations at any N); nil with fewer than two N of
    /// positive value (a logarithm needs both).
    static func fit(_ points: [(n: Int, value: Double)]) -> Double? {
        let measured = points.filter { $0.n > 0 && $0.value.isFinite }
        if Set(measured.map(\.n)).count >= 2 && Set(measured.map(\.value)).count == 1 { return 0 }
        let positive = measured.filter { $0.value > 0 }
        guard Set(positive.map(\.n)).count >= 2 else { return nil }
        return Statistics.slope(positive.map { (x: log(Double($0.n)), y: log($0.value)) })
    }

    /// The verdict of one sweep from both sides' medians at the shared points.
    static func verdict(
        base: [(n: Int, value: Double)], new: [(n: Int, value: Double)], tolerance: Double, pointThreshold: Double,
        higherIsBetter: Bool
    ) -> Verdict {
        guard base.count >= 3, let baseExponent = fit(base), let newExponent = fit(new) else { return .tooFewPoints }
        let ratios = zip(base, new).map { $0.value > 0 ? $1.value / $0.value : 1 }
        if abs(newExponent - baseExponent) > tolerance {
            // Does one point alone explain it?
            for index in base.indices {
                var baseRest = base
                var newRest = new
                baseRest.remove(at: index)
                newRest.remove(at: index)
                if let b = fit(baseRest), let n = fit(newRest), abs(n - b) <= tolerance {
                    return .pointMoved(n: base[index].n, ratio: ratios[index])
                }
            }
            let faster = newExponent > baseExponent
            return .growthChanged(worse: higherIsBetter ? !faster : faster)
        }
        let logRatios = ratios.map { log(max($0, 1e-12)) }
        let level = Statistics.median(logRatios) ?? 0
        let outliers = logRatios.indices.filter { abs(logRatios[$0] - level) > log1p(pointThreshold) }
        if outliers.count == 1 {
            return .pointMoved(n: base[outliers[0]].n, ratio: ratios[outliers[0]])
        }
        if abs(level) > log1p(pointThreshold) {
            return .levelMoved(ratio: exp(level))
        }
        return .same
    }

    /// The range of a sweep's per-repetition exponents (0 for fewer than two).
    static func spread(_ values: [Double]) -> Double {
        guard let low = values.min(), let high = values.max() else { return 0 }
        return high - low
    }

    /// The points (by N, every repetition) and per-repetition exponents of
    /// every sweep of a `scale.*` benchmark in `file`.
    /// `keys`: each point's own series key.
    static func sweeps(in file: ResultFile) -> (
        points: [SweepKey: [Int: [Double]]], exponents: [SweepKey: [Double]], keys: [SweepKey: [Int: ResultSeriesKey]]
    ) {
        var points: [SweepKey: [Int: [Double]]] = [:]
        var exponents: [SweepKey: [Double]] = [:]
        var keys: [SweepKey: [Int: ResultSeriesKey]] = [:]
        for series in file.series where series.key.benchmark.hasPrefix("scale.") {
            var pairs = series.key.params.split(separator: CSVSchema.paramsSeparator).map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts.first ?? ""), parts.count > 1 ? String(parts[1]) : "")
            }
            if CSVSchema.growthExponentMetrics.contains(series.key.metric) {
                guard let of = pairs.first(where: { $0.0 == "of" })?.1 else { continue }
                pairs.removeAll { $0.0 == "of" || $0.0 == "range" }
                let key = SweepKey(
                    benchmark: series.key.benchmark, variant: series.key.variant,
                    params: pairs.map { "\($0.0)=\($0.1)" }.joined(separator: ";"), metric: of,
                    allocator: series.key.allocator)
                exponents[key, default: []] += series.values
                continue
            }
            guard let nText = pairs.first(where: { $0.0 == "n" })?.1, let n = Int(nText) else { continue }
            pairs.removeAll { $0.0 == "n" }
            let key = SweepKey(
                benchmark: series.key.benchmark, variant: series.key.variant,
                params: pairs.map { "\($0.0)=\($0.1)" }.joined(separator: ";"), metric: series.key.metric,
                allocator: series.key.allocator)
            points[key, default: [:]][n, default: []] += series.values
            keys[key, default: [:]][n] = series.key
        }
        return (points, exponents, keys)
    }

    /// The section `compare` prints after its table: one line per sweep that
    /// did not stay the same, and a count of those that did.
    func text() -> String {
        guard !sweeps.isEmpty else { return "" }
        var lines = ["", "Growth of scale sweeps (exponent of the medians over the shared N; docs/Scale.md):"]
        var same = 0
        for sweep in sweeps {
            let exponents = sweep.exponents
            switch sweep.verdict {
            case .same:
                same += 1
            case .tooFewPoints:
                lines.append("  \(sweep.key): fewer than 3 shared points, growth not judged")
            case .levelMoved(let ratio):
                lines.append("  \(sweep.key): the level moved (x\(NumberFormat.twoDecimals(ratio)) at every N), growth the same (\(exponents))")
            case .pointMoved(let n, let ratio):
                lines.append("  \(sweep.key): one point moved (N=\(n), x\(NumberFormat.twoDecimals(ratio))), growth the same otherwise (\(exponents))")
            case .growthChanged(let worse):
                let shown = sweep.isAnchor ? "; a peer's or reference's sweep, shown and never a regression" : ""
                lines.append(
                    "  \(sweep.key): the growth changed, \(worse ? "worse" : "better") (\(exponents), beyond ±\(Self.format(sweep.tolerance)) with any one point left out\(shown))")
            }
        }
        lines.append("  \(same) of \(sweeps.count) sweeps: same growth and level.")
        return lines.joined(separator: "\n") + "\n"
    }

    static func format(_ value: Double?) -> String {
        value.map(NumberFormat.exponent) ?? "-"
    }
}
