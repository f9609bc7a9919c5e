/// Order statistics over measured samples.
package enum Statistics {
    /// The `percentile` (0...100) of `values`, interpolating linearly between
    /// the two nearest ranks (the method spreadsheets and NumPy use by default).
    ///
    /// Returns `nil` for an empty input.
    package static func percentile(_ values: [Double], _ percentile: Double) -> Double? {
        precondition((0...100).contains(percentile), "percentile must be within 0...100, got \(percentile)")
        guard !values.isEmpty else { return nil }
        return Statistics.percentile(sorted: values.sorted(), percentile)
    }

    /// `percentile(_:_:)` for input already sorted ascending.
    package static func percentile(sorted values: [Double], _ percentile: Double) -> Double? {
        precondition((0...100).contains(percentile), "percentile must be within 0...100, got \(percentile)")
        guard let first = values.first else { return nil }
        guard values.count > 1 else { return first }
        let rank = percentile / 100 * Double(values.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        let fraction = rank - Double(lower)
        return values[lower] + (values[upper] - values[lower]) * fraction
    }

    /// The median of `values`: the middle value, or the mean of the two middle
    /// values for an even count (as `percentile(values, 50)`, computed as
    /// `(a + b) / 2` so it does not depend on the interpolation's rounding).
    /// `nil` when empty.
    package static func median(_ values: [Double]) -> Double? {
        median(sorted: values.sorted())
    }

    /// `median(_:)` for input already sorted ascending.
    package static func median(sorted values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// The arithmetic mean of `values`, or `nil` when empty.
    package static func mean(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.reduce(0, +) / Double(values.count)
    }

    /// The slope of the least-squares line through `points`, or `nil` when
    /// the points have fewer than two distinct x.
    package static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        guard let meanX = mean(points.map(\.x)), let meanY = mean(points.map(\.y)) else { return nil }
        let covariance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
        let variance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        return variance > 0 ? covariance / variance : nil
    }
}
