import Histogram

/// `observeOn.latency`: the time from `onNext` on the producing thread to the
/// element's arrival at the observer, at a paced rate (not a flood, which
/// would measure queueing instead of the hop). Percentiles come from an
/// HdrHistogram with three significant digits.
public struct ObserveOnLatencyBenchmark: NamedBenchmark {
    public static let name = "observeOn.latency"
    let hops: [HopVariant]

    public init() {
        hops = HopCatalog.all
    }

    init(hops: [HopVariant]) {
        self.hops = hops
    }

    public func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let samples = configuration.latencySamples
        let rate = configuration.latencyRatePerSecond
        let params = formatParams(["rate_per_s": String(rate), "samples": String(samples)])
        return hops.map { hop -> MeasurementPlan in
            if let reason = hop.unavailableReason {
                return .unavailable(benchmark: Self.name, variant: hop.name, params: params, reason: reason)
            }
            return MeasurementPlan(
                benchmark: Self.name, variant: hop.name, params: params,
                estimatedSeconds: Double(samples) / Double(rate) + 0.01, needsMainQueue: hop.needsMainQueue,
                warmUp: { _ in
                    _ = try Self.record(hop: hop, samples: max(samples / 4, 1), rate: rate)
                },
                measure: { _ in
                    let histogram = try Self.record(hop: hop, samples: samples, rate: rate)
                    return [
                        MetricValue("latency_p50_ns", Double(histogram.valueAtPercentile(50))),
                        MetricValue("latency_p99_ns", Double(histogram.valueAtPercentile(99))),
                        MetricValue("latency_p999_ns", Double(histogram.valueAtPercentile(99.9))),
                        MetricValue("latency_max_ns", Double(histogram.max)),
                    ]
                })
        }
    }

    /// The consumer's histogram; only the hop's (serial) consuming context writes it.
    final class Recorder: @unchecked Sendable {
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000_000, numberOfSignificantValueDigits: .three)

        func record(sentAt: UInt64) {
            let now = MeasureContext.now()
            _ = histogram.record(now > sentAt ? now - sentAt : 0)
        }
    }

    static func record(hop: HopVariant, samples: Int, rate: Int) throws -> Histogram<UInt64> {
        let session = try hop.makeSession()
        defer { session.close() }
        let recorder = Recorder()
        let interval = UInt64(1e9 / Double(max(rate, 1)))
        try hop.deliver(
            session: session, count: samples,
            produce: { send in
                let start = MeasureContext.now()
                for index in 0..<samples {
                    let due = start + UInt64(index) * interval
                    // Spin rather than sleep: a sleep's wake-up error would set the pace.
                    while MeasureContext.now() < due {}
                    send(MeasureContext.now())
                }
            },
            consume: { sentAt in recorder.record(sentAt: sentAt) })
        return recorder.histogram
    }
}
