/// `observeOn.busyQueue`: `observeOn.throughput`'s floods, each session made
/// right after a serial queue was kept busy (`BusyQueueDisturbance`), for
/// the library's dispatch and operation-queue hops, the peers that take
/// under a microsecond per element and the references, under the same
/// variant names: a variant's row here against its row in
/// `observeOn.throughput` of the same run is what the busy queue costs it
/// (Performance.md, "After a busy queue").
///
/// Beside those rows, each variant's flood series (`BusyQueueFloods`):
/// quiet floods then as many floods each after a busy queue (30 of each
/// in the quick suite, 5 in the default: `BusyQueueFloods.floods(in:)`;
/// `--floods` sets another count), in
/// one process, timed by the process's CPU time, with the worst flood's
/// ratio to the quiet median.
///
/// Last in the catalogue: the state a busy queue leaves behind lasts for
/// seconds, so any benchmark measured after this one would inherit it.
struct ObserveOnBusyQueueBenchmark: NamedBenchmark {
    static let name = "observeOn.busyQueue"
    /// Its variants and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: HopCatalog.busyQueue(.active).map(\.id),
            metrics: [
                .elementsPerSecond, .perElement.time, .perElement.allocations, .perElement.bytes,
                .quietCPUPerElement, .busyQueueCPUPerElement, .busyQueueCPURatio, .worstBusyQueueCPURatio,
                .worstQuietCPURatio,
            ],
            // Which mode a flood after a busy queue finds depends on the
            // process's heap, so one binary's level differs from process to
            // process (Performance.md, "After a busy queue"; docs/Compare.md,
            // "Four quick runs of one binary").
            timesBoundToProcess: true)
    }
    let hops: [HopVariant]
    /// The same hops, their sessions made without a busy queue: the flood
    /// series runs the busy queue itself, between its floods.
    let floodHops: [HopVariant]

    /// The benchmark of `registry`'s hops that a busy queue touches.
    init(registry: SchedulerRegistry = .active) {
        hops = HopCatalog.busyQueue(registry)
        floodHops = HopCatalog.busyQueueFloods(registry)
    }

    /// Elements per flood in a suite of `size`: the quick suite's 100,000
    /// in the default suite too. A flood here pays for the heap a busy
    /// queue left, which a larger flood does not measure better, while its
    /// level moves between processes by far more than any threshold, so the
    /// spread that compare allows for it (results/resolution.csv, calibrated
    /// on quick runs) applies to the default suite's rows only at the same
    /// parameters; and sixty floods of each variant a run, each after a busy
    /// queue, take minutes at 500,000.
    static func elements(in size: SuiteSize) -> Int {
        ObserveOnThroughputBenchmark.Configuration(size == .standard ? .quick : size).elements
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let elements = Self.elements(in: configuration.size)
        return ObserveOnThroughputBenchmark.throughputPlans(
            benchmark: Self.name, hops: hops, configuration: configuration,
            sessionSetupSeconds: BusyQueueDisturbance.estimatedSeconds, elements: elements)
            + BusyQueueFloods.plans(benchmark: Self.name, hops: floodHops, configuration: configuration, elements: elements)
    }
}
