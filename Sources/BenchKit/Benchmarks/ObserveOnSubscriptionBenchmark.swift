/// `observeOn.subscription`: what one short subscription through a hop
/// costs, from `subscribe` to the chain letting go of its observer — the
/// pattern of apps that subscribe often for one or a few elements.
///
/// One lifecycle (see `LifecycleRunner`): subscribe an `observe(on:)` chain
/// whose source emits one element at once, wait until the element has reached
/// the observer on the scheduler, dispose, wait until the chain has released
/// the observer. `ns_per_lifecycle` is a repetition's time divided by its
/// lifecycles; for the hopping variants it includes handing the drain to the
/// scheduler's thread (usually waking it), for `current-thread` it is the
/// chain alone. `allocs_per_lifecycle` and `bytes_per_lifecycle` come from the
/// counting pass: warm-up lifecycles, then `countingBatch` lifecycles counted
/// (the harness's own objects are made before the counted region).
struct ObserveOnSubscriptionBenchmark: NamedBenchmark {
    static let name = "observeOn.subscription"
    /// Its variants (those of its catalogue) and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: SubscriptionVariants.all(.active).map(\.id),
            metrics: [.perLifecycle.time, .perLifecycle.allocations, .perLifecycle.bytes, .perLifecycle.instructions]
                + InstructionPass.lookupMetrics,
            // Each lifecycle hands one drain to the scheduler's thread, which is
            // usually idle: the time is mostly that thread's wake-up.
            // (every variant but the trampoline's, which runs inline).
            wakeUpBoundVariants: SubscriptionVariants.wakeUpBound(.active),
            // The main run loop adds to the library's own allocations a
            // fraction per lifecycle that varies between runs of one revision;
            // the same sinks are counted exactly on the other variants.
            varyingCountVariants: mainThreadVariants(.active),
            // Exact in whole allocations per lifecycle only: libdispatch serves
            // a few of a counted batch's continuations from its per-thread
            // cache, so a count per lifecycle can fall a few thousandths short
            // of the whole number, differently in each run of one binary.
            countsInWholeAllocations: true)
    }
    /// Lifecycles before the counted ones, on the same scheduler, so that
    /// worker threads exist and caches have grown.
    static let countingWarmUp = 100
    /// Lifecycles before the timed ones, on the same scheduler.
    static let timingWarmUp = 10
    let variants: [SubscriptionVariant]

    /// What a repetition measures at each suite size.
    struct Configuration: Sendable, Equatable {
        /// Subscription lifecycles per timing repetition.
        var lifecycles: Int

        /// The sizes this benchmark measures in a suite of `size`.
        init(_ size: SuiteSize) {
            switch size {
            case .standard: lifecycles = 5_000
            case .quick: lifecycles = 1_000
            case .tiny: lifecycles = 20
            }
        }
    }

    /// The variants of the active registry (``SchedulerRegistry/active``).
    init() {
        self.init(registry: .active)
    }

    /// The variants of `registry`.
    init(registry: SchedulerRegistry) {
        variants = SubscriptionVariants.all(registry)
    }

    /// The hop variants that deliver on the main thread (`main`): wake-up
    /// bound, and the main run loop's allocations vary per drain.
    static func hopMainThreadVariants(_ registry: SchedulerRegistry) -> [VariantID] {
        registry.schedulers.filter { $0.deliversOnMain && $0.groups.contains(.hops) }.flatMap { $0.hopPaths.map(\.id) }
    }

    /// The variants that deliver on the main thread (`main`), whose run loop
    /// allocates a varying amount around the library's own.
    static func mainThreadVariants(_ registry: SchedulerRegistry) -> [VariantID] {
        registry.schedulers.filter { $0.deliversOnMain && $0.groups.contains(.subscription) }.flatMap { $0.hopPaths.map(\.id) }
    }

    init(variants: [SubscriptionVariant]) {
        self.variants = variants
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let lifecycles = Configuration(configuration.size).lifecycles
        let batch = configuration.countingBatch
        let params = formatParams(["lifecycles": String(lifecycles)])
        return variants.map { variant -> MeasurementPlan in
            if let reason = variant.unavailableReason {
                return .unavailable(benchmark: Self.name, variant: variant.id, params: params, reason: reason)
            }
            return MeasurementPlan(
                benchmark: Self.name, variant: variant.id, params: params,
                estimatedSeconds: Double(lifecycles) * 30e-6 + 0.01,
                warmUpEstimatedSeconds: Double(max(lifecycles / 4, 1)) * 30e-6 + 0.01, needsMainQueue: variant.needsMainQueue,
                countingEstimatedSeconds: Double(batch + Self.countingWarmUp) * 60e-6 + 0.01,
                warmUp: { _ in
                    try variant.run(0, max(lifecycles / 4, 1)) { try $0() }
                },
                measure: { context in
                    var region: MeasureContext.Region?
                    try variant.run(Self.timingWarmUp, lifecycles) { body in
                        region = try context.region(body).1
                    }
                    guard let region else { throw BenchmarkFailure("\(variant.name): nothing was measured") }
                    return [MetricValue(.perLifecycle.time, region.nanosecondsPer(lifecycles))]
                },
                countAllocations: { context in
                    var region: MeasureContext.Region?
                    try variant.run(Self.countingWarmUp, batch) { body in
                        region = try context.region(body).1
                    }
                    return [
                        MetricValue(.perLifecycle.allocations, region?.allocationsPer(batch)),
                        MetricValue(.perLifecycle.bytes, region?.bytesPer(batch)),
                    ]
                },
                countInstructions: variant.id == .currentThread ? Self.instructionWorkload(variant) : nil)
        }
    }

    /// Lifecycles whose instructions are counted, in every suite.
    static let countedLifecycles = 1_000

    /// The instruction count of `variant`, which must not hop (its lifecycle
    /// is then CPU work on the calling thread): ``countingWarmUp``
    /// lifecycles, then ``countedLifecycles`` inside the counted region.
    static func instructionWorkload(_ variant: SubscriptionVariant) -> InstructionWorkload {
        InstructionWorkload(metric: .perLifecycle.instructions, operations: countedLifecycles) { counted in
            try variant.run(countingWarmUp, countedLifecycles) { lifecycles in
                // The lifecycles run inside this call only, as `counted` does not keep its body.
                try withoutActuallyEscaping(lifecycles) { lifecycles in
                    var failure: (any Error)?
                    counted {
                        do { try lifecycles() } catch { failure = error }
                    }
                    if let failure { throw failure }
                }
            }
        }
    }
}
