import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import Schedulers
import ToolSupport

/// Waits until a count of deliveries is reached; counted on the consumer's
/// serial context only.
final class DeliveryGate: @unchecked Sendable {
    private var expected: Int
    private(set) var delivered = 0
    private let done = DispatchSemaphore(value: 0)
    private(set) var finishedAt: UInt64 = 0

    init(expected: Int) {
        self.expected = expected
    }

    /// Expects `count` more deliveries. Call only while none is in flight
    /// (after `wait` returned and before the next send).
    func reset(expected count: Int) {
        expected = count
        delivered = 0
        finishedAt = 0
    }

    /// One delivery; the last one records the time and opens the gate.
    @inline(__always)
    func deliver() {
        delivered += 1
        if delivered == expected {
            finishedAt = MeasureContext.now()
            done.signal()
        }
    }

    /// Waits at most `seconds`; throws naming `variant` when not everything arrived.
    func wait(variant: String, seconds: Double) throws {
        if done.wait(timeout: .now() + seconds) == .timedOut {
            throw BenchmarkFailure("\(variant): \(delivered) of \(expected) deliveries within \(Int(seconds)) s")
        }
    }
}

/// `scale.fanIn`: P producer threads, each with its own source observed on
/// one serial scheduler (`observe(on:)`) or one serial queue (OpenCombine's
/// `receive(on:)`), send their share of a fixed number of elements at once,
/// each stamped with the time it was sent. Per P: elements per second from
/// the first send to the last delivery, and the p99 of send-to-delivery
/// latency (in a flood: mostly the time an element waits behind the others),
/// and time per element (the inverse rate) with its growth exponent over P.
struct FanInScaleBenchmark: FanSweepBenchmark {
    static let name = "scale.fanIn"
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.fastPath, .peer("opencombine")],
            metrics: [.elementsPerSecond, .perElement.time, .latencyP99, .growthExponent])
    }

    /// A producer is a thread with its stack: 256 threads are what a run may start.
    static var limit: ScalePointLimit {
        ScalePointLimit(
            benchmark: name, quantity: "producer threads", maximum: 256,
            reason: "each producer is a thread with its own stack")
    }

    static func points(_ configuration: SuiteConfiguration) -> [Int] {
        let threads = [1, 2, 4, 8, 16, 32, 64]
        return ScaleSweeps.points(in: configuration, tiny: [1, 2, 4], modest: threads, full: threads)
    }

    /// A fixed number of elements per point, shared out among the producers.
    static let sweep = FanSweep(
        work: (name: "elements", tiny: 512, modest: 64_000, full: 256_000), pointLabel: "P", secondsPerWork: 0.5e-6,
        fitting: .perElement.time, warmUp: (n: 2, work: 2_000), runs: (library, openCombine)
    ) { outcome, producers, recorder in
        let (rate, latencies) = outcome
        recorder.record(.elementsPerSecond, n: producers, rate)
        recorder.record(.perElement.time, n: producers, 1e9 / rate)
        recorder.record(.latencyP99, n: producers, Statistics.percentile(sorted: latencies.sorted(), 99))
    }

    init() {}

    /// Runs a producer thread per source of `sources`, each sending its
    /// share of `elements` once all are ready, stamped with the time it was
    /// sent (`send(source, stamp)`); returns the elements per second from
    /// the first send to the last delivery, and every element's latency.
    static func flood<Source>(
        _ sources: [Source], elements: Int, into deliveries: FanInDeliveries, variant: String,
        send: @escaping @Sendable (Source, UInt64) -> Void
    ) throws -> (Double, [Double]) {
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let share = elements / sources.count
        for source in sources {
            let source = UnsafeSendableBox(source)
            ready.enter()
            let thread = Thread {
                ready.leave()
                go.wait()
                for _ in 0..<share {
                    send(source.value, MeasureContext.now())
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        ready.wait()
        let start = MeasureContext.now()
        for _ in sources { go.signal() }
        try deliveries.gate.wait(variant: variant, seconds: 60)
        let rate = Double(share * sources.count) / (Double(deliveries.gate.finishedAt - start) / 1e9)
        return (rate, deliveries.latencies.values)
    }

    @Sendable static func library(_ producers: Int, _ elements: Int) throws -> (Double, [Double]) {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "bench.scale.fan-in")
        let sources = (0..<producers).map { _ in Emitter<UInt64>() }
        let deliveries = FanInDeliveries(expected: (elements / producers) * producers)
        let subscriptions = sources.map { source in
            source.observable.observe(on: scheduler).subscribe(onNext: { deliveries.deliver(sentAt: $0) })
        }
        defer { subscriptions.forEach { $0.dispose() } }
        return try flood(sources, elements: elements, into: deliveries, variant: "fast-path") { $0.send($1) }
    }

    @Sendable static func openCombine(_ producers: Int, _ elements: Int) throws -> (Double, [Double]) {
        let queue = DispatchQueue(label: "bench.scale.fan-in.opencombine")
        let subjects = (0..<producers).map { _ in PassthroughSubject<UInt64, Never>() }
        let deliveries = FanInDeliveries(expected: (elements / producers) * producers)
        let cancellables = subjects.map { subject in
            subject.receive(on: queue.ocombine).sink { deliveries.deliver(sentAt: $0) }
        }
        defer { cancellables.forEach { $0.cancel() } }
        return try flood(subjects, elements: elements, into: deliveries, variant: "peer.opencombine") { $0.send($1) }
    }
}

/// The consumer's side of a fan-in run: every element's send-to-delivery
/// latency, and the gate that opens at the last one. Used on the consumer's
/// serial context only.
final class FanInDeliveries: @unchecked Sendable {
    let gate: DeliveryGate
    let latencies: LatencyLog

    init(expected: Int) {
        gate = DeliveryGate(expected: expected)
        latencies = LatencyLog(capacity: expected)
    }

    /// One element arrived, sent at `sent`.
    @inline(__always)
    func deliver(sentAt sent: UInt64) {
        latencies.append(MeasureContext.now() &- sent)
        gate.deliver()
    }
}

/// Latencies in nanoseconds, appended on one serial context.
final class LatencyLog: @unchecked Sendable {
    private var storage: [UInt64] = []

    init(capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    @inline(__always)
    func append(_ nanoseconds: UInt64) {
        storage.append(nanoseconds)
    }

    /// The latencies as numbers (`Double(_:)`: an unlabelled `Double.init`
    /// reference resolves to `init(bitPattern:)` for `UInt64`).
    var values: [Double] { storage.map { Double($0) } }
}

/// `scale.fanOut`: one source observed by N subscribers, each through its own
/// `observe(on:)` onto one serial scheduler (OpenCombine: `receive(on:)` one
/// serial queue); the source sends elements from the measuring thread until
/// a fixed number of deliveries is reached (elements × N). Per N: time per
/// delivered element, from the first send to the last delivery, with its
/// growth exponent.
struct FanOutScaleBenchmark: FanSweepBenchmark {
    static let name = "scale.fanOut"
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.fastPath, .peer("opencombine")], metrics: [.nanosecondsPerDelivery, .growthExponent])
    }

    /// A subscriber's chain and its queue: about 1 KB.
    static var limit: ScalePointLimit {
        .memory(benchmark: name, quantity: "subscribers", bytesPerItem: 1_024, cap: 1_000_000)
    }

    static func points(_ configuration: SuiteConfiguration) -> [Int] {
        ScaleSweeps.points(in: configuration, tiny: [1, 10, 100], modest: [1, 10, 100, 1_000, 10_000], full: [1, 10, 100, 1_000, 10_000])
    }

    /// A fixed number of deliveries per point: elements × subscribers.
    static let sweep = FanSweep(
        work: (name: "deliveries", tiny: 1_000, modest: 50_000, full: 200_000), pointLabel: "N", secondsPerWork: 1e-6,
        fitting: .nanosecondsPerDelivery, warmUp: (n: 10, work: 1_000), runs: (library, openCombine)
    ) { nanoseconds, n, recorder in
        recorder.record(.nanosecondsPerDelivery, n: n, nanoseconds)
    }

    init() {}

    /// Elements so that `subscribers × elements` is about `deliveries`, at least 2.
    static func elements(subscribers: Int, deliveries: Int) -> Int {
        max(2, deliveries / max(subscribers, 1))
    }

    @Sendable static func library(_ subscribers: Int, _ deliveries: Int) throws -> Double {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "bench.scale.fan-out")
        let source = Emitter<Int>()
        let elements = elements(subscribers: subscribers, deliveries: deliveries)
        let gate = DeliveryGate(expected: elements * subscribers)
        let subscriptions = (0..<subscribers).map { _ in
            source.observable.observe(on: scheduler).subscribe(onNext: { _ in gate.deliver() })
        }
        defer { subscriptions.forEach { $0.dispose() } }
        let start = MeasureContext.now()
        for element in 0..<elements { source.send(element) }
        try gate.wait(variant: "fast-path", seconds: 60)
        return Double(gate.finishedAt - start) / Double(elements * subscribers)
    }

    @Sendable static func openCombine(_ subscribers: Int, _ deliveries: Int) throws -> Double {
        let queue = DispatchQueue(label: "bench.scale.fan-out.opencombine")
        let subject = PassthroughSubject<Int, Never>()
        let elements = elements(subscribers: subscribers, deliveries: deliveries)
        let gate = DeliveryGate(expected: elements * subscribers)
        let cancellables = (0..<subscribers).map { _ in
            subject.receive(on: queue.ocombine).sink { _ in gate.deliver() }
        }
        defer { cancellables.forEach { $0.cancel() } }
        let start = MeasureContext.now()
        for element in 0..<elements { subject.send(element) }
        try gate.wait(variant: "peer.opencombine", seconds: 60)
        return Double(gate.finishedAt - start) / Double(elements * subscribers)
    }
}

/// A fan sweep (`scale.fanIn`, `scale.fanOut`): the library's fast path and
/// OpenCombine measured alike, each point a run of the same amount of work.
/// The benchmark says what differs in `sweep`; the plans are the same code.
protocol FanSweepBenchmark: ScaleBenchmark {
    /// What one run at a point returns.
    associatedtype Outcome
    /// The sweep's work, runs and metrics.
    static var sweep: FanSweep<Outcome> { get }
}

extension FanSweepBenchmark {
    /// The two plans of the sweep (`FanSweep.plans(benchmark:for:points:)`).
    func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        Self.sweep.plans(benchmark: Self.name, for: configuration, points: points)
    }
}

/// What sets one fan sweep apart from another.
struct FanSweep<Outcome>: Sendable {
    /// The work of every run at a point: its name in the params, and how
    /// much in each suite size.
    let work: (name: String, tiny: Int, modest: Int, full: Int)
    /// What a point is called in progress lines (`P`, `N`).
    let pointLabel: String
    /// About how long one unit of work takes, for the plans' estimates.
    let secondsPerWork: Double
    /// The metric whose growth over the points the rows fit.
    let fitting: Metric
    /// The point and the work of the warm-up run.
    let warmUp: (n: Int, work: Int)
    /// One run of each variant: at point `n`, with the work.
    let runs: (library: @Sendable (Int, Int) throws -> Outcome, openCombine: @Sendable (Int, Int) throws -> Outcome)
    /// Records what one run at point `n` returned.
    let record: @Sendable (_ outcome: Outcome, _ n: Int, _ recorder: inout SweepRecorder) -> Void

    /// The two plans of the sweep: the library's fast path (`runs.library`)
    /// and OpenCombine (`runs.openCombine`) measured alike. Each repetition
    /// walks `points` in order, records one run of the variant per point,
    /// and the rows fit `fitting` over the points.
    func plans(benchmark: String, for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let amount = ScaleSweeps.value(in: configuration, tiny: work.tiny, modest: work.modest, full: work.full)
        let params = formatParams([work.name: String(amount)])
        let estimatedSeconds = Double(points.count * amount) * secondsPerWork + 0.05
        return [(VariantID.fastPath, runs.library), (.peer("opencombine"), runs.openCombine)].map { variant, run in
            MeasurementPlan(
                benchmark: benchmark, variant: variant, params: params,
                estimatedSeconds: estimatedSeconds, warmUpEstimatedSeconds: 0.05,
                warmUp: { _ in _ = try run(warmUp.n, warmUp.work) },
                measure: { context in
                    var recorder = SweepRecorder()
                    let progress = SweepProgress(progress: context.progress, count: points.count)
                    for (index, n) in points.enumerated() {
                        progress.enter(point: index, n: n, label: pointLabel)
                        record(try run(n, amount), n, &recorder)
                    }
                    return recorder.rows(fitting: [fitting.name])
                })
        }
    }
}
