import ToolSupport

/// How much the machine itself changed between two result files, read from
/// the series that measure code this project does not change.
///
/// Every timing benchmark runs, in the same run and interleaved with this
/// library's variants, peers (`peer.*`) and a reference (`reference.*`).
/// Between two runs on a shared machine all of them move together by 5-30 %
/// (another tenant, frequency, cache state); a change that only the library's
/// series show is the code's. For each benchmark, params, metric and
/// allocator, the factor is the median over the anchors of
/// `new median / base median`; with no anchor on both sides there is none.
/// CPU-bound times share such a factor; wake-up-bound ones (timer lateness,
/// hop latency) do not, and `SeriesComparison` does not apply it to them.
struct MachineDrift {
    private struct GroupKey: Hashable {
        let benchmark: String
        let params: String
        let metric: String
        let allocator: String

        init(_ key: ResultSeriesKey) {
            benchmark = key.benchmark
            params = key.params
            metric = key.metric
            allocator = key.allocator
        }
    }

    private var factors: [GroupKey: Double] = [:]

    /// Whether a variant runs code this project does not change (its
    /// ``VariantRole`` is a peer's or a reference's).
    static func isAnchor(variant: String) -> Bool {
        VariantID(reading: variant).role.isAnchor
    }

    init(base: [ResultSeries], newByKey: [ResultSeriesKey: ResultSeries]) {
        var ratios: [GroupKey: [Double]] = [:]
        for series in base where Self.isAnchor(variant: series.key.variant) {
            guard let counterpart = newByKey[series.key],
                let baseMedian = Statistics.median(series.values),
                let newMedian = Statistics.median(counterpart.values),
                baseMedian > 0, newMedian > 0
            else { continue }
            ratios[GroupKey(series.key), default: []].append(newMedian / baseMedian)
        }
        for (group, values) in ratios {
            factors[group] = Statistics.median(values)
        }
    }

    /// The drift factor for `key`'s group; nil for an anchor or where none applies.
    func factor(for key: ResultSeriesKey) -> Double? {
        guard !Self.isAnchor(variant: key.variant) else { return nil }
        return factors[GroupKey(key)]
    }
}
