/// `observeOn.busyQueue`: `observeOn.throughput`'s floods, each session made
/// right after a serial queue was kept busy (`BusyQueueDisturbance`), for
/// the library's dispatch and operation-queue hops, the peers that take
/// under a microsecond per element and the references, under the same
/// variant names: a variant's row here against its row in
/// `observeOn.throughput` of the same run is what the busy queue costs it
/// (Performance.md, "After a busy queue").
///
/// Beside those rows, each variant's flood series (`BusyQueueFloods`):
/// 30 quiet floods then 30 floods each after a busy queue, in
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

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        ObserveOnThroughputBenchmark.throughputPlans(
            benchmark: Self.name, hops: hops, configuration: configuration,
            sessionSetupSeconds: BusyQueueDisturbance.estimatedSeconds)
            + BusyQueueFloods.plans(benchmark: Self.name, hops: floodHops, configuration: configuration)
    }
}
