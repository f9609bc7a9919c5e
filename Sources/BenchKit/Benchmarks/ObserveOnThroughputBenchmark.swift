/// `observeOn.throughput`: how many elements per second cross from a
/// producing thread to the scheduler, and what each costs in allocations.
///
/// The producer is a tight loop inside `Observable.create` (or the peer's
/// equivalent), so the hop is what is measured. Each repetition creates a
/// fresh scheduler or peer outside the measured region; the region ends when
/// the last element has been consumed.
///
/// Allocations are not taken from the timed flood, where they would depend on
/// how the elements happened to batch, but from a separate counting pass at
/// steady state (`HopAllocationCount`).
struct ObserveOnThroughputBenchmark: NamedBenchmark {
    static let name = "observeOn.throughput"
    /// Its variants (those of its catalogue) and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: HopCatalog.throughput(.active).map(\.id),
            // The instruction metrics only `actor-executor` writes (its
            // enqueuing side, `ActorHops.enqueueInstructions`).
            metrics: [.elementsPerSecond, .perElement.time, .perElement.allocations, .perElement.bytes, .perElement.instructions]
                + InstructionPass.lookupMetrics,
            wakeUpBoundVariants: ObserveOnSubscriptionBenchmark.hopMainThreadVariants(.active),
            // How many drains the counted batch takes on the main queue
            // depends on when the main run loop wakes, and each drain
            // allocates its scheduled item, so the count per batch differs
            // between runs of one revision. Shown, not gated; the other
            // variants' drains are counted exactly.
            varyingCountVariants: ObserveOnSubscriptionBenchmark.hopMainThreadVariants(.active),
            // Two levels per flood, set by the machine (Performance.md,
            // "Hops across processes"): judged at each run's usual level.
            readsUsualLevel: true)
    }
    let hops: [HopVariant]

    /// Five processes of six repetitions each in the quick and default
    /// suites: a hop's median moves between processes by more than its
    /// repetitions within one explain, and only more processes shrink that
    /// part of its uncertainty (Performance.md, "Hops across processes";
    /// `CompareRepetitionModelTests` prints both spreads).
    func processes(in size: SuiteSize) -> Int { size == .tiny ? 1 : 5 }

    /// Six repetitions in each of ``processes(in:)``: compare reads those
    /// at the run's usual level (``BenchmarkSchema/readsUsualLevel``), which
    /// an episode of the slow level may cut to a few, so thirty are taken.
    func repetitions(in size: SuiteSize) -> Int { size == .tiny ? size.repetitions : 30 }

    /// None: its thirty repetitions are spread over five processes, and
    /// read at the run's usual level, which needs them all.
    func adaptiveRepetitions(in size: SuiteSize, suite: AdaptiveRepetitions) -> AdaptiveRepetitions? { nil }

    /// Twelve floods at most per repetition (the suite's 25 would fill its
    /// 50 ms): the median of twelve does not hang on one preemption, and the
    /// time saved pays for twice the repetitions.
    func maximumRunsPerRepetition(in size: SuiteSize) -> Int? { size == .tiny ? nil : 12 }

    /// What a repetition measures at each suite size.
    struct Configuration: Sendable, Equatable {
        /// Elements per timed flood.
        var elements: Int

        /// The sizes this benchmark measures in a suite of `size`.
        init(_ size: SuiteSize) {
            switch size {
            case .standard: elements = 500_000
            case .quick: elements = 100_000
            case .tiny: elements = 500
            }
        }
    }

    /// The hops of the active registry (``SchedulerRegistry/active``).
    init() {
        self.init(registry: .active)
    }

    /// The hops of `registry`.
    init(registry: SchedulerRegistry) {
        hops = HopCatalog.throughput(registry)
    }

    init(hops: [HopVariant]) {
        self.hops = hops
    }

    /// Elements per timed flood of this benchmark in a suite of `size`: the
    /// quick suite's 100,000 in the default suite too (at most twelve
    /// floods a repetition fill its 50 ms). Its thirty repetitions in five
    /// processes are what compare's resolution (results/resolution.csv) was
    /// calibrated on, at these parameters: measured alike, two default runs
    /// of one binary are judged against what such runs differ by, and a run
    /// takes a fifth of the time the 500,000-element floods took (the
    /// peers' floods, ten to a hundred times the library's, most of it).
    static func floodElements(in size: SuiteSize) -> Int {
        Configuration(size == .standard ? .quick : size).elements
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        Self.throughputPlans(
            benchmark: Self.name, hops: hops, configuration: configuration,
            elements: Self.floodElements(in: configuration.size)
        ).map { plan in
            // The anchors' floods take 10-100 times the library's: every
            // other repetition (fifteen a run) times them.
            guard configuration.size != .tiny, plan.variantID.role.isAnchor else { return plan }
            var sparser = plan
            sparser.repetitionStride = 2
            return sparser
        }
    }

    /// The plans of a throughput benchmark over `hops`: a timed flood of
    /// `Configuration(size).elements` per repetition through a fresh session,
    /// and allocations from the gated counting pass. `asyncSequence.throughput`
    /// measures its hops with these too.
    ///
    /// `sessionSetupSeconds`: what making a session costs beyond the flood
    /// (a disturbance before it), for the progress estimates.
    /// `elements`: per timed flood, when not the suite's
    /// (`Configuration(size).elements`).
    static func throughputPlans(
        benchmark: String, hops: [HopVariant], configuration: SuiteConfiguration, sessionSetupSeconds: Double = 0,
        elements: Int? = nil
    ) -> [MeasurementPlan] {
        let elements = elements ?? Configuration(configuration.size).elements
        let batch = configuration.countingBatch
        let params = formatParams(["elements": String(elements)])
        return hops.map { hop -> MeasurementPlan in
            if let reason = hop.unavailableReason {
                return .unavailable(benchmark: benchmark, variant: hop.id, params: params, reason: reason)
            }
            return MeasurementPlan(
                benchmark: benchmark, variant: hop.id, params: params,
                estimatedSeconds: Double(elements) * 1.5e-6 + 0.01 + sessionSetupSeconds, needsMainQueue: hop.needsMainQueue,
                countingEstimatedSeconds: Double(batch * (HopAllocationCount.warmUpBatches + 1)) * 3e-6 + 0.03
                    + sessionSetupSeconds,
                warmUp: { context in
                    _ = try measureOnce(hop: hop, elements: max(elements / 4, 1), context: context)
                },
                measure: { context in
                    let region = try measureOnce(hop: hop, elements: elements, context: context)
                    return [
                        MetricValue(.elementsPerSecond, region.operationsPerSecond(elements)),
                        MetricValue(.perElement.time, region.nanosecondsPer(elements)),
                    ]
                },
                countAllocations: { context in
                    let delta = try HopAllocationCount.count(hop: hop, batch: batch, context: context)
                    return [
                        MetricValue(.perElement.allocations, delta.map { Double($0.allocations) / Double(batch) }),
                        MetricValue(.perElement.bytes, delta.map { Double($0.bytes) / Double(batch) }),
                    ]
                },
                countInstructions: hop.instructions)
        }
    }

    static func measureOnce(hop: HopVariant, elements: Int, context: MeasureContext) throws -> MeasureContext.Region {
        let session = try hop.makeSession()
        defer { session.close() }
        let (_, region) = try context.region {
            try hop.flood(session: session, elements: elements)
        }
        return region
    }
}
