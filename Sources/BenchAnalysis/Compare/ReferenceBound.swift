import ToolSupport

/// Whether each reference of a run (a variant whose role is
/// ``VariantRole/reference``, such as `reference.spsc-ring`) is a stable
/// bound for this library's series beside it, judged by the spread of the
/// repetitions.
///
/// A reference is shown as the limit of the series it bounds only when its
/// own repetitions are tighter than theirs: its spread (interquartile range
/// over the median, ``RepetitionSpread``) is at most the median spread of
/// this library's series of the same benchmark, parameters, metric and
/// allocator, and its median is at least as good as theirs. A reference
/// that spreads more measures the machine (its threads' placement,
/// preemption) rather than a limit, and one that the library's series beat
/// bounds nothing: each is reported as not a stable bound on this machine.
package struct ReferenceBound: Sendable, Equatable {
    /// The reference's series.
    let key: ResultSeriesKey
    /// Its spread; nil when it has fewer than two repetitions.
    let spread: Double?
    /// The median spread of the library's series it bounds; nil when there are none.
    let boundedSpread: Double?
    /// How many library series it bounds.
    let boundedCount: Int
    /// How many of those have a better median than the reference's (more
    /// elements per second, less time): a bound they beat is no limit.
    let beatenBy: Int

    /// Whether the reference may be read as the limit: both spreads known,
    /// its own no larger, and no library series better than it.
    var isStableBound: Bool {
        guard let spread, let boundedSpread else { return false }
        return spread <= boundedSpread && beatenBy == 0
    }

    /// One line: the reference, its spread against the library's, and
    /// whether it is a stable bound on this machine.
    package var description: String {
        let own = spread.map(Self.percent) ?? "?"
        let bounded = boundedSpread.map(Self.percent) ?? "?"
        let noun = boundedCount == 1 ? "series" : "series (median)"
        var text = "\(key): spread \(own) against \(bounded) for the library's \(boundedCount) \(noun): "
        if isStableBound {
            text += "a stable bound, read as the limit"
        } else if let spread, let boundedSpread, spread > boundedSpread {
            text += "not a stable bound on this machine (its repetitions spread more than what it bounds)"
        } else if spread == nil || boundedSpread == nil {
            text += "spread unknown (a zero median or one repetition), so not read as the limit"
        } else {
            let doBetter = boundedCount == 1 ? "series does" : "series do"
            text += "not a bound on this machine (\(beatenBy) of the library's \(boundedCount) \(doBetter) better than it)"
        }
        return text
    }

    static func percent(_ value: Double) -> String {
        NumberFormat.plain((value * 1000).rounded() / 10) + "%"
    }

    /// Assesses the reference timing series of a run's rows (as written to
    /// its CSV; rows without a value are left out).
    package static func assess(rows: [CSVRow]) -> [ReferenceBound] {
        assess(ResultSeries.grouping(rows.filter { !$0.params.contains("tick=") }))
    }

    /// Assesses every reference timing series in `series`.
    static func assess(_ series: [ResultSeries]) -> [ReferenceBound] {
        struct Group: Hashable {
            let benchmark: String
            let params: String
            let metric: String
            let allocator: String
        }
        func group(_ key: ResultSeriesKey) -> Group {
            Group(benchmark: key.benchmark, params: key.params, metric: key.metric, allocator: key.allocator)
        }
        func isTiming(_ key: ResultSeriesKey) -> Bool {
            let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
            return !rule.isExact && rule.preference != .informational
        }
        var librarySpreads: [Group: [Double]] = [:]
        var libraryMedians: [Group: [Double]] = [:]
        for entry in series where VariantID(reading: entry.key.variant).role == .library && isTiming(entry.key) {
            if let spread = RepetitionSpread.relativeInterquartileRange(entry.values) {
                librarySpreads[group(entry.key), default: []].append(spread)
                if let median = Statistics.median(entry.values) {
                    libraryMedians[group(entry.key), default: []].append(median)
                }
            }
        }
        return series.filter { VariantID(reading: $0.key.variant).role == .reference }.compactMap { entry in
            let spreads = librarySpreads[group(entry.key)] ?? []
            // Only where it bounds something: a metric the library measures too.
            guard !spreads.isEmpty else { return nil }
            let higherIsBetter =
                MetricComparisonRule(metric: entry.key.metric, benchmark: entry.key.benchmark, variant: entry.key.variant)
                .preference == .higherIsBetter
            let own = Statistics.median(entry.values)
            let beatenBy = own.map { own in
                (libraryMedians[group(entry.key)] ?? []).filter { higherIsBetter ? $0 > own : $0 < own }.count
            } ?? 0
            return ReferenceBound(
                key: entry.key, spread: RepetitionSpread.relativeInterquartileRange(entry.values),
                boundedSpread: Statistics.median(spreads), boundedCount: spreads.count, beatenBy: beatenBy)
        }
    }
}
