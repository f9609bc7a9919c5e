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
public struct FanInScaleBenchmark: ScaleBenchmark {
    public static let name = "scale.fanIn"
    public static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.fastPath, .peer("opencombine")],
            metrics: [.elementsPerSecond, .nanosecondsPerElement, .latencyP99, .growthExponent])
    }

    /// A producer is a thread with its stack: 256 threads are what a run may start.
    public static var limit: ScalePointLimit {
        ScalePointLimit(
            benchmark: name, quantity: "producer threads", maximum: 256,
            reason: "each producer is a thread with its own stack")
    }

    public static func points(_ configuration: SuiteConfiguration) -> [Int] {
        let threads = [1, 2, 4, 8, 16, 32, 64]
        return ScaleFamily.points(in: configuration, tiny: [1, 2, 4], modest: threads, full: threads)
    }

    static func elements(_ configuration: SuiteConfiguration) -> Int {
        ScaleFamily.value(in: configuration, tiny: 512, modest: 64_000, full: 256_000)
    }

    public init() {}

    public func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let elements = Self.elements(configuration)
        let params = formatParams(["elements": String(elements)])
        return ScaleFamily.fastPathBesideOpenCombine(
            benchmark: Self.name, params: params, points: points, pointLabel: "P",
            estimatedSeconds: Double(points.count * elements) * 0.5e-6 + 0.05, fitting: .nanosecondsPerElement,
            runs: (Self.library, Self.openCombine), warmUp: { run in _ = try run(2, 2_000) }
        ) { run, producers, recorder in
            let (rate, latencies) = try run(producers, elements)
            recorder.record(.elementsPerSecond, n: producers, rate)
            recorder.record(.nanosecondsPerElement, n: producers, 1e9 / rate)
            recorder.record(.latencyP99, n: producers, Statistics.percentile(sorted: latencies.sorted(), 99))
        }
    }

    /// Runs `producers` threads that each call `send` with their share of
    /// `elements` once all are ready; returns when `gate` has every element.
    static func flood(
        producers: Int, elements: Int, gate: DeliveryGate, variant: String, send: @escaping @Sendable (Int, UInt64) -> Void
    ) throws -> Double {
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let share = elements / producers
        for producer in 0..<producers {
            ready.enter()
            let thread = Thread {
                ready.leave()
                go.wait()
                for _ in 0..<share {
                    send(producer, MeasureContext.now())
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        ready.wait()
        let start = MeasureContext.now()
        for _ in 0..<producers { go.signal() }
        try gate.wait(variant: variant, seconds: 60)
        return Double(share * producers) / (Double(gate.finishedAt - start) / 1e9)
    }

    @Sendable static func library(_ producers: Int, _ elements: Int) throws -> (Double, [Double]) {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "bench.scale.fan-in")
        let sources = (0..<producers).map { _ in Emitter<UInt64>() }
        let total = (elements / producers) * producers
        let gate = DeliveryGate(expected: total)
        let latencies = LatencyLog(capacity: total)
        let subscriptions = sources.map { source in
            source.observable.observe(on: scheduler).subscribe(onNext: { sent in
                latencies.append(MeasureContext.now() &- sent)
                gate.deliver()
            })
        }
        defer { subscriptions.forEach { $0.dispose() } }
        let boxes = UnsafeSendableBox(sources)
        let rate = try flood(producers: producers, elements: elements, gate: gate, variant: "fast-path") { producer, now in
            boxes.value[producer].send(now)
        }
        return (rate, latencies.values)
    }

    @Sendable static func openCombine(_ producers: Int, _ elements: Int) throws -> (Double, [Double]) {
        let queue = DispatchQueue(label: "bench.scale.fan-in.opencombine")
        let subjects = (0..<producers).map { _ in PassthroughSubject<UInt64, Never>() }
        let total = (elements / producers) * producers
        let gate = DeliveryGate(expected: total)
        let latencies = LatencyLog(capacity: total)
        let cancellables = subjects.map { subject in
            subject.receive(on: queue.ocombine).sink { sent in
                latencies.append(MeasureContext.now() &- sent)
                gate.deliver()
            }
        }
        defer { cancellables.forEach { $0.cancel() } }
        let boxes = UnsafeSendableBox(subjects)
        let rate = try flood(producers: producers, elements: elements, gate: gate, variant: "peer.opencombine") { producer, now in
            boxes.value[producer].send(now)
        }
        return (rate, latencies.values)
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
public struct FanOutScaleBenchmark: ScaleBenchmark {
    public static let name = "scale.fanOut"
    public static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.fastPath, .peer("opencombine")], metrics: [.nanosecondsPerDelivery, .growthExponent])
    }

    /// A subscriber's chain and its queue: about 1 KB.
    public static var limit: ScalePointLimit {
        .memory(benchmark: name, quantity: "subscribers", bytesPerItem: 1_024, cap: 1_000_000)
    }

    public static func points(_ configuration: SuiteConfiguration) -> [Int] {
        ScaleFamily.points(in: configuration, tiny: [1, 10, 100], modest: [1, 10, 100, 1_000, 10_000], full: [1, 10, 100, 1_000, 10_000])
    }

    static func deliveries(_ configuration: SuiteConfiguration) -> Int {
        ScaleFamily.value(in: configuration, tiny: 1_000, modest: 50_000, full: 200_000)
    }

    public init() {}

    public func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let deliveries = Self.deliveries(configuration)
        let params = formatParams(["deliveries": String(deliveries)])
        return ScaleFamily.fastPathBesideOpenCombine(
            benchmark: Self.name, params: params, points: points, pointLabel: "N",
            estimatedSeconds: Double(points.count * deliveries) * 1e-6 + 0.05, fitting: .nanosecondsPerDelivery,
            runs: (Self.library, Self.openCombine), warmUp: { run in _ = try run(10, 1_000) }
        ) { run, n, recorder in
            recorder.record(.nanosecondsPerDelivery, n: n, try run(n, deliveries))
        }
    }

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

extension ScaleFamily {
    /// The two plans of a fan sweep: the library's fast path (`runs.library`)
    /// and OpenCombine (`runs.openCombine`) measured alike. Each repetition
    /// walks `points` in order, `measurePoint` records one point with the
    /// variant's run, and the rows fit `fitting` over the points.
    static func fastPathBesideOpenCombine<Outcome>(
        benchmark: String, params: String, points: [Int], pointLabel: String, estimatedSeconds: Double,
        fitting: Metric,
        runs: (library: @Sendable (Int, Int) throws -> Outcome, openCombine: @Sendable (Int, Int) throws -> Outcome),
        warmUp: @escaping @Sendable (_ run: @Sendable (Int, Int) throws -> Outcome) throws -> Void,
        measurePoint: @escaping @Sendable (
            _ run: @Sendable (Int, Int) throws -> Outcome, _ n: Int, _ recorder: inout SweepRecorder
        ) throws -> Void
    ) -> [MeasurementPlan] {
        [(VariantID.fastPath, runs.library), (.peer("opencombine"), runs.openCombine)].map { variant, run in
            MeasurementPlan(
                benchmark: benchmark, variant: variant, params: params,
                estimatedSeconds: estimatedSeconds, warmUpEstimatedSeconds: 0.05,
                warmUp: { _ in try warmUp(run) },
                measure: { context in
                    var recorder = SweepRecorder()
                    let progress = SweepProgress(progress: context.progress, count: points.count)
                    for (index, n) in points.enumerated() {
                        progress.enter(point: index, n: n, label: pointLabel)
                        try measurePoint(run, n, &recorder)
                    }
                    return recorder.rows(fitting: [fitting.name])
                })
        }
    }
}
