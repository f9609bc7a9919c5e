import Histogram
import Synchronization

/// `observeOn.latency`: the time from `onNext` on the producing thread to the
/// element's arrival at the observer, in two regimes. Percentiles come from
/// an HdrHistogram with three significant digits.
///
/// - Wake-up regime (params `rate_per_s=…;samples=…`, no `regime` key):
///   one element every `1/rate` seconds, paced by spinning (not a flood,
///   which would measure queueing instead of the hop). The consumer's drain has ended and its
///   thread has gone idle before each element, so the figure is a hop into a
///   sleeping thread: mostly the kernel's wake-up.
/// - Busy regime (params `regime=busy;…`): the producer keeps the drain
///   running with a steady stream, never more than `in_flight` elements ahead
///   of the consumer (so queueing stays bounded whatever a variant's
///   throughput), and every `timed_every`-th element carries its send time;
///   the others carry 0. The figure is a hop into a drain that is already
///   running: the hand-off plus at most `in_flight - 1` elements ahead of it.
struct ObserveOnLatencyBenchmark: NamedBenchmark {
    static let name = "observeOn.latency"
    /// Two regimes, told apart by `params`: rows without a `regime` key are
    /// the wake-up regime (whatever run wrote them), `regime=busy;…` rows the
    /// busy one.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: HopCatalog.all(.active).map(\.id),
            metrics: [.latencyP50, .latencyP99, .latencyP999, .latencyMax])
    }
    let hops: [HopVariant]

    /// What a repetition measures at each suite size.
    struct Configuration: Sendable, Equatable {
        /// Timed elements per repetition, in each regime.
        var samples: Int
        /// The wake-up regime's pace.
        var ratePerSecond: Int

        /// The sizes this benchmark measures in a suite of `size`.
        init(_ size: SuiteSize) {
            switch size {
            case .standard: (samples, ratePerSecond) = (10_000, 20_000)
            case .quick: (samples, ratePerSecond) = (2_000, 20_000)
            case .tiny: (samples, ratePerSecond) = (50, 50_000)
            }
        }
    }

    /// The hops of the active registry (``SchedulerRegistry/active``).
    init() {
        self.init(registry: .active)
    }

    /// The hops of `registry`.
    init(registry: SchedulerRegistry) {
        hops = HopCatalog.all(registry)
    }

    init(hops: [HopVariant]) {
        self.hops = hops
    }

    /// Elements the busy regime's producer keeps in flight at most.
    static let busyInFlight = 8
    /// The busy regime times one element in this many.
    static let busyTimedEvery = 16

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let sizes = Configuration(configuration.size)
        let samples = sizes.samples
        let rate = sizes.ratePerSecond
        let wakeUpParams = formatParams(["rate_per_s": String(rate), "samples": String(samples)])
        let busyParams = formatParams([
            "regime": "busy", "samples": String(samples), "in_flight": String(Self.busyInFlight),
            "timed_every": String(Self.busyTimedEvery),
        ])
        let wakeUp = hops.map { hop -> MeasurementPlan in
            plan(hop: hop, params: wakeUpParams, estimatedSeconds: Double(samples) / Double(rate) + 0.01) { samples in
                try Self.record(hop: hop, samples: samples, rate: rate)
            }
        }
        let busy = hops.map { hop -> MeasurementPlan in
            plan(hop: hop, params: busyParams, estimatedSeconds: Double(samples * Self.busyTimedEvery) * 1e-6 + 0.01) {
                samples in
                try Self.recordBusy(
                    hop: hop, samples: samples, inFlight: Self.busyInFlight, timedEvery: Self.busyTimedEvery)
            }
        }
        return wakeUp + busy

        func plan(
            hop: HopVariant, params: String, estimatedSeconds: Double,
            record: @escaping @Sendable (_ samples: Int) throws -> Histogram<UInt64>
        ) -> MeasurementPlan {
            if let reason = hop.unavailableReason {
                return .unavailable(benchmark: Self.name, variant: hop.id, params: params, reason: reason)
            }
            return MeasurementPlan(
                benchmark: Self.name, variant: hop.id, params: params,
                estimatedSeconds: estimatedSeconds, warmUpEstimatedSeconds: estimatedSeconds / 4,
                needsMainQueue: hop.needsMainQueue,
                warmUp: { _ in
                    _ = try record(max(samples / 4, 1))
                },
                measure: { _ in
                    let histogram = try record(samples)
                    return [
                        MetricValue(.latencyP50, Double(histogram.valueAtPercentile(50))),
                        MetricValue(.latencyP99, Double(histogram.valueAtPercentile(99))),
                        MetricValue(.latencyP999, Double(histogram.valueAtPercentile(99.9))),
                        MetricValue(.latencyMax, Double(histogram.max)),
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

    /// Elements consumed so far, counted by the consumer and read by the producer.
    final class ConsumedCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// What the busy producer found; written and read on the producing thread.
    final class Stall: @unchecked Sendable {
        var failure: BenchmarkFailure?
    }

    /// The busy regime: `samples × timedEvery` elements, at most `inFlight`
    /// ahead of the consumer, every `timedEvery`-th one timed.
    static func recordBusy(hop: HopVariant, samples: Int, inFlight: Int, timedEvery: Int) throws -> Histogram<UInt64> {
        let session = try hop.makeSession()
        defer { session.close() }
        let recorder = Recorder()
        let consumed = ConsumedCount()
        let stall = Stall()
        let count = samples * timedEvery
        let name = hop.name
        try hop.deliver(
            session: session, count: count,
            produce: { send in
                for index in 0..<count {
                    if index - consumed.value.load(ordering: .acquiring) >= inFlight {
                        let start = MeasureContext.now()
                        var spins = 0
                        while index - consumed.value.load(ordering: .acquiring) >= inFlight {
                            spins += 1
                            if spins & 1023 == 0, MeasureContext.now() - start > 10_000_000_000 {
                                stall.failure = BenchmarkFailure(
                                    "\(name): the consumer took no element for 10 s in the busy latency regime")
                                return
                            }
                        }
                    }
                    send(index % timedEvery == timedEvery - 1 ? MeasureContext.now() : 0)
                }
            },
            consume: { sentAt in
                if sentAt != 0 { recorder.record(sentAt: sentAt) }
                consumed.value.add(1, ordering: .releasing)
            })
        if let failure = stall.failure { throw failure }
        return recorder.histogram
    }
}
