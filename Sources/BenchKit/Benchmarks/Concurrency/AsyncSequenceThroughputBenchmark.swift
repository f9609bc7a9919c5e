/// `asyncSequence.throughput`: elements per second, and allocations per
/// element, from a producing thread to a task reading an `AsyncSequence`:
/// this library's `observable.values` (variant `values`) against an
/// `AsyncStream` (`peer.asyncstream`, the same session as in
/// `observeOn.throughput`), in the same run.
///
/// Measured exactly as `observeOn.throughput` is: the same `UInt64`
/// elements, the same count per repetition (`ObserveOnThroughputBenchmark.Configuration`), a fresh
/// session per repetition made outside the measured region, which ends when
/// the last element was consumed; allocations from the gated counting pass
/// (`HopAllocationCount`, `BatchGate`).
struct AsyncSequenceThroughputBenchmark: NamedBenchmark {
    static let name = "asyncSequence.throughput"
    /// Its variants (those of its catalogue) and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [ObservableValuesHop.variant.id, AsyncStreamHop.variant.id],
            metrics: [.elementsPerSecond, .perElement.time, .perElement.allocations, .perElement.bytes])
    }
    let hops: [HopVariant]

    init() {
        hops = [ObservableValuesHop.variant, AsyncStreamHop.variant]
    }

    init(hops: [HopVariant]) {
        self.hops = hops
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        ObserveOnThroughputBenchmark.throughputPlans(benchmark: Self.name, hops: hops, configuration: configuration)
    }
}
