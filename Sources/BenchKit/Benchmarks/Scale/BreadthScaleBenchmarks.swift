import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import Schedulers
import ToolSupport

/// `scale.trampoline`: N actions queued at once on the current thread (an
/// action on `CurrentThreadScheduler` schedules N more, which queue behind it
/// and run after it returns), then run. Per N: time per action, from the
/// first schedule to the last action's end (below ``minimumActions``, the
/// median of that many actions' worth of runs); in the counting pass, the
/// live bytes each queued action holds (jemalloc `stats.allocated`, read with
/// all N queued), with their growth exponents. `reference.closure-array` queues
/// the same N closures in a plain Swift array and runs them: the floor.
struct TrampolineScaleBenchmark: ScaleBenchmark {
    static let name = "scale.trampoline"
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.currentThread, .reference("closure-array")],
            metrics: [.nanosecondsPerAction, .growthExponent, .bytesPerQueuedAction, .countGrowthExponent],
            // Each repetition's sweep runs at the machine's usual level or
            // about 1.5 times it, in episodes that take every point of a
            // sweep together: judged at each run's usual level.
            readsUsualLevel: true)
    }

    /// A queued action with its closure and disposable: about 160 bytes.
    static var limit: ScalePointLimit {
        .memory(benchmark: name, quantity: "queued actions", bytesPerItem: 160, cap: 10_000_000)
    }

    static func points(_ configuration: SuiteConfiguration) -> [Int] {
        ScaleSweeps.points(in: configuration, tiny: [1, 10, 100], modest: [1, 100, 10_000, 100_000], full: [1, 100, 10_000, 1_000_000])
    }

    init() {}

    func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let params = formatParams(["points": String(points.count)])
        let total = Double(points.reduce(0, +))
        let timed = Double(points.reduce(0) { $0 + max($1, Self.minimumActions) })
        return [(VariantID.currentThread, Self.library), (.reference("closure-array"), Self.closureArray)].map { variant, run in
            MeasurementPlan(
                benchmark: Self.name, variant: variant, params: params, estimatedSeconds: timed * 0.2e-6 + 0.01,
                warmUpEstimatedSeconds: 0.01, countingEstimatedSeconds: total * 1e-6 + 0.01,
                warmUp: { context in _ = try run(1_000, context) },
                measure: { context in
                    try breadthSweep(points, .nanosecondsPerAction, context) { n in
                        try Self.nanosecondsPerAction(n, context, run)
                    }
                },
                countAllocations: { context in
                    _ = try run(1_000, context)
                    return try breadthSweep(points, .bytesPerQueuedAction, context) { n in
                        try run(n, context).1.map { Double($0) / Double(n) }
                    }
                })
        }
    }

    /// The fewest actions one point of the timing pass covers. A point with
    /// fewer queued actions is timed this many actions' worth of times over
    /// (`minimumActions / n` runs of `n`), so that no point rests on a single
    /// clock reading of a microsecond or two.
    static let minimumActions = 10_000

    /// Time per action at `n`: the median, over `max(1, minimumActions / n)`
    /// runs of `run(n)`, of each run's nanoseconds over `n`. The median keeps
    /// one run that a preemption or a cold cache slowed from moving the point.
    static func nanosecondsPerAction(
        _ n: Int, _ context: MeasureContext, _ run: (Int, MeasureContext) throws -> (UInt64, Int64?)
    ) throws -> Double {
        let runs = max(1, minimumActions / max(n, 1))
        var perAction: [Double] = []
        perAction.reserveCapacity(runs)
        for _ in 0..<runs {
            perAction.append(Double(try run(n, context).0) / Double(n))
        }
        return Statistics.median(perAction) ?? 0
    }

    /// Queues `n` actions from inside one trampolined action; returns the
    /// nanoseconds from the first schedule to the last action's end and the
    /// live bytes the queued actions held (counting pass only; the reading
    /// happens inside the outer action and is not part of the time).
    @Sendable static func library(_ n: Int, _ context: MeasureContext) throws -> (UInt64, Int64?) {
        let scheduler = CurrentThreadScheduler.instance
        let counter = VirtualTimeScaleBenchmark.RunCounter()
        var started: UInt64 = 0
        var live: Int64?
        let countsLive = context.counter.isExact
        let action: (VirtualTimeScaleBenchmark.RunCounter) -> Disposable = { counter in
            counter.count += 1
            return Disposables.create()
        }
        _ = scheduler.schedule(counter) { counter in
            let before = countsLive ? context.counter.liveBytes() : nil
            started = MeasureContext.now()
            for _ in 0..<n {
                _ = scheduler.schedule(counter, action: action)
            }
            if countsLive, let before, let after = context.counter.liveBytes() {
                live = Int64(bitPattern: after &- before)
            }
            return Disposables.create()
        }
        let ended = MeasureContext.now()
        guard counter.count == n else {
            throw BenchmarkFailure("current-thread: \(counter.count) of \(n) queued actions ran")
        }
        return (ended - started, live)
    }

    /// The same breadth in a plain array of closures, run front to back.
    @Sendable static func closureArray(_ n: Int, _ context: MeasureContext) throws -> (UInt64, Int64?) {
        let counter = VirtualTimeScaleBenchmark.RunCounter()
        let countsLive = context.counter.isExact
        let before = countsLive ? context.counter.liveBytes() : nil
        let started = MeasureContext.now()
        var queue: [() -> Void] = []
        for _ in 0..<n {
            queue.append { counter.count += 1 }
        }
        var live: Int64?
        if countsLive, let before, let after = context.counter.liveBytes() {
            live = Int64(bitPattern: after &- before)
        }
        let afterQueue = MeasureContext.now()
        for step in queue { step() }
        queue.removeAll()
        let ended = MeasureContext.now()
        guard counter.count == n else {
            throw BenchmarkFailure("reference.closure-array: \(counter.count) of \(n) queued closures ran")
        }
        return ((afterQueue - started) + (ended - afterQueue), live)
    }
}

/// `scale.liveSubscriptions`: N `observe(on:)` subscriptions live at once on
/// one serial scheduler, each on its own source (OpenCombine: N subjects each
/// `receive(on:)` one serial queue). Every subscription first gets one
/// element (so its queue has its storage), ``primingBatch`` at a time; then,
/// in the counting pass, the live bytes per subscription (jemalloc
/// `stats.allocated` with all N live, less before subscribing, over N); in
/// the timing pass, a flood of elements through the newest subscription
/// while all N stay live: time per delivered element (whether N live
/// subscriptions slow one down; `scale.fanOut` delivers to all of them).
struct LiveSubscriptionScaleBenchmark: ScaleBenchmark {
    static let name = "scale.liveSubscriptions"
    static var schema: BenchmarkSchema {
        // Live bytes are exact to within libdispatch's caches: on a loaded
        // machine (the default run counts beside callgrind) one repetition
        // in a few reads up to a byte a subscription off, so a change within
        // 8 bytes a subscription is `same` and one of a size class (16) worse.
        BenchmarkSchema(
            name: name, variants: [.fastPath, .peer("opencombine")],
            metrics: [.nanosecondsPerDelivery, .growthExponent, .bytesPerLiveSubscription, .countGrowthExponent],
            countsInWholeAllocations: true)
    }

    /// A subscription's chain, its queue's storage and its source: about 1.5 KB.
    static var limit: ScalePointLimit {
        .memory(benchmark: name, quantity: "live subscriptions", bytesPerItem: 1_536, cap: 1_000_000)
    }

    static func points(_ configuration: SuiteConfiguration) -> [Int] {
        ScaleSweeps.points(in: configuration, tiny: [1, 10, 100], modest: [1, 10, 100, 1_000, 10_000], full: [1, 10, 100, 1_000, 10_000, 100_000])
    }

    init() {}

    /// Counted before every other benchmark (``Benchmark/countsFirst``): its
    /// live bytes are read over the priming of N subscriptions, a window in
    /// which the threads of benchmarks counted before it would come and go.
    var countsFirst: Bool { true }

    func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let deliveries = configuration.size == .tiny ? 200 : 20_000
        let params = formatParams(["deliveries": String(deliveries)])
        let total = Double(points.reduce(0, +))
        return [(VariantID.fastPath, Self.library), (.peer("opencombine"), Self.openCombine)].map { variant, run in
            MeasurementPlan(
                benchmark: Self.name, variant: variant, params: params,
                estimatedSeconds: total * 5e-6 + Double(points.count * deliveries) * 1e-6 + 0.05,
                warmUpEstimatedSeconds: 0.05, countingEstimatedSeconds: total * 20e-6 + 0.05,
                warmUp: { context in _ = try run(100, 100, context) },
                measure: { context in
                    try breadthSweep(points, .nanosecondsPerDelivery, context) { n in
                        try run(n, deliveries, context).nanosecondsPerDelivery
                    }
                },
                countAllocations: { context in
                    // Warmed at the sweep's largest N: libdispatch keeps what
                    // the largest point's queue released in caches the next
                    // points draw from, and every repetition must find them
                    // filled, the first as the others.
                    _ = try run(points.max() ?? 100, 1, context)
                    return try breadthSweep(points, .bytesPerLiveSubscription, context) { n in
                        try run(n, 1, context).liveBytes.map { Double($0) / Double(n) }
                    }
                })
        }
    }

    /// Delivers one element through `source` and waits for it, so that the
    /// scheduler's worker thread and queue exist before anything is counted.
    static func prewarm(_ source: Observable<Int>) throws {
        let gate = DeliveryGate(expected: 1)
        let subscription = source.subscribe(onNext: { _ in gate.deliver() })
        defer { subscription.dispose() }
        try gate.wait(variant: "fast-path", seconds: 60)
    }

    /// Subscriptions that get their first element at once: at most this
    /// many drains are queued at a time.
    ///
    /// Sending all N first elements at once queued N drains, so the timed
    /// flood began right after the scheduler's queue had worked through a
    /// backlog of N blocks: the state `observeOn.busyQueue` measures, not
    /// what N live subscriptions cost (docs/Scale.md, "Live subscriptions").
    static let primingBatch = 100

    /// Sends each of the `n` subscriptions its first element, through
    /// `send(index)`, `primingBatch` at a time, waiting for each batch's
    /// deliveries before the next.
    ///
    /// A batch's last delivery is not the end of its work: the queue's
    /// thread still releases what carried the elements after it, and a
    /// reading taken at once would hold some of that or none, by how the
    /// threads race. So each variant reads the live bytes only with its queue
    /// idle (`sync` on it, which runs after everything queued before it):
    /// after the prewarm's delivery and after the priming.
    static func prime(_ n: Int, gate: DeliveryGate, variant: String, send: (Int) -> Void) throws {
        var next = 0
        while next < n {
            let end = min(next + primingBatch, n)
            gate.reset(expected: end - next)
            for index in next..<end { send(index) }
            try gate.wait(variant: variant, seconds: 60)
            next = end
        }
    }

    /// Sends `deliveries` elements through `send` and waits for them; returns
    /// the nanoseconds per delivered element, from the first send to the
    /// last delivery. `live` (the N sources) is kept alive until the clock
    /// has stopped.
    ///
    /// Why `live` is an argument: in `library` the array of sources had its
    /// last use in picking the newest one, so an optimised build released
    /// it right there, inside the timed window. The subscriptions hold their
    /// sources only `unowned`, so that release freed N − 1 sources with
    /// their observers while the clock ran: work linear in N, charged to
    /// the flood (docs/Scale.md, "Live subscriptions").
    ///
    /// Never inlined: a symbol of its own, which
    /// `scripts/callgrind-live-subscriptions.sh` counts the flood inside.
    @inline(never)
    static func timeFlood<Live>(
        keeping live: Live, deliveries: Int, gate: DeliveryGate, variant: String, send: (Int) -> Void
    ) throws -> Double {
        gate.reset(expected: deliveries)
        let start = MeasureContext.now()
        for element in 0..<deliveries { send(element) }
        try gate.wait(variant: variant, seconds: 60)
        let nanoseconds = gate.finishedAt - start
        withExtendedLifetime(live) {}
        return Double(nanoseconds) / Double(deliveries)
    }

    struct Outcome {
        var nanosecondsPerDelivery: Double
        var liveBytes: Int64?
    }

    /// Subscribes `n`, delivers one element to each, reads the live bytes,
    /// then times `deliveries` elements through the newest subscription.
    @Sendable static func library(_ n: Int, _ deliveries: Int, _ context: MeasureContext) throws -> Outcome {
        var serialQueue: DispatchQueue?
        let scheduler = SerialDispatchQueueScheduler(
            internalSerialQueueName: "bench.scale.live", serialQueueConfiguration: { serialQueue = $0 })
        guard let queue = serialQueue else { throw BenchmarkFailure("scale.liveSubscriptions: no serial queue") }
        try prewarm(Observable.just(0).observe(on: scheduler))
        // The prewarm's subscription is released on the queue's thread after
        // its delivery: idle first, so the first reading does not race it.
        queue.sync {}
        let sources = (0..<n).map { _ in Emitter<Int>() }
        for source in sources { _ = source.observable }
        let gate = DeliveryGate(expected: n)
        let deliver: @Sendable (Int) -> Void = { _ in gate.deliver() }
        let before = context.counter.liveBytes()
        let subscriptions = sources.map { $0.observable.observe(on: scheduler).subscribe(onNext: deliver) }
        defer { subscriptions.forEach { $0.dispose() } }
        try prime(n, gate: gate, variant: "fast-path") { sources[$0].send(0) }
        queue.sync {}
        let after = context.counter.liveBytes()
        let newest = sources[n - 1]
        return Outcome(
            nanosecondsPerDelivery: try timeFlood(keeping: sources, deliveries: deliveries, gate: gate, variant: "fast-path") {
                newest.send($0)
            },
            liveBytes: before.flatMap { before in after.map { Int64(bitPattern: $0 &- before) } })
    }

    @Sendable static func openCombine(_ n: Int, _ deliveries: Int, _ context: MeasureContext) throws -> Outcome {
        let queue = DispatchQueue(label: "bench.scale.live.opencombine")
        queue.sync {}
        let subjects = (0..<n).map { _ in PassthroughSubject<Int, Never>() }
        let gate = DeliveryGate(expected: n)
        let before = context.counter.liveBytes()
        let cancellables = subjects.map { $0.receive(on: queue.ocombine).sink { _ in gate.deliver() } }
        defer { cancellables.forEach { $0.cancel() } }
        try prime(n, gate: gate, variant: "peer.opencombine") { subjects[$0].send(0) }
        queue.sync {}
        let after = context.counter.liveBytes()
        let newest = subjects[n - 1]
        return Outcome(
            nanosecondsPerDelivery: try timeFlood(keeping: subjects, deliveries: deliveries, gate: gate, variant: "peer.opencombine") {
                newest.send($0)
            },
            liveBytes: before.flatMap { before in after.map { Int64(bitPattern: $0 &- before) } })
    }
}

/// One pass of a breadth sweep: `value(n)` of `metric` at every point of
/// `points`, in order, then the metric's growth exponent over them.
private func breadthSweep(
    _ points: [Int], _ metric: Metric, _ context: MeasureContext, value: (Int) throws -> Double?
) rethrows -> [MetricValue] {
    var recorder = SweepRecorder()
    let progress = SweepProgress(progress: context.progress, count: points.count)
    for (index, n) in points.enumerated() {
        progress.enter(point: index, n: n)
        recorder.record(metric, n: n, try value(n))
    }
    return recorder.rows(fitting: [metric.name])
}
