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
public struct AsyncSequenceThroughputBenchmark: NamedBenchmark {
    public static let name = "asyncSequence.throughput"
    /// Its variants (those of its catalogue) and metrics, as ``CSVSchema`` lists them.
    public static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [ObservableValuesHop.variant.id, AsyncStreamHop.variant.id],
            metrics: [.elementsPerSecond, .nanosecondsPerElement, .allocationsPerElement, .bytesPerElement])
    }
    let hops: [HopVariant]

    public init() {
        hops = [ObservableValuesHop.variant, AsyncStreamHop.variant]
    }

    init(hops: [HopVariant]) {
        self.hops = hops
    }

    public func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let elements = ObserveOnThroughputBenchmark.Configuration(configuration.size).elements
        let batch = configuration.countingBatch
        let params = formatParams(["elements": String(elements)])
        return hops.map { hop -> MeasurementPlan in
            if let reason = hop.unavailableReason {
                return .unavailable(benchmark: Self.name, variant: hop.id, params: params, reason: reason)
            }
            return MeasurementPlan(
                benchmark: Self.name, variant: hop.id, params: params,
                estimatedSeconds: Double(elements) * 1e-6 + 0.01,
                countingEstimatedSeconds: Double(batch * (HopAllocationCount.warmUpBatches + 1)) * 3e-6 + 0.03,
                warmUp: { context in
                    _ = try ObserveOnThroughputBenchmark.measureOnce(
                        hop: hop, elements: max(elements / 4, 1), context: context)
                },
                measure: { context in
                    let region = try ObserveOnThroughputBenchmark.measureOnce(
                        hop: hop, elements: elements, context: context)
                    return [
                        MetricValue(.elementsPerSecond, region.operationsPerSecond(elements)),
                        MetricValue(.nanosecondsPerElement, region.nanosecondsPer(elements)),
                    ]
                },
                countAllocations: { context in
                    let delta = try HopAllocationCount.count(hop: hop, batch: batch, context: context)
                    return [
                        MetricValue(.allocationsPerElement, delta.map { Double($0.allocations) / Double(batch) }),
                        MetricValue(.bytesPerElement, delta.map { Double($0.bytes) / Double(batch) }),
                    ]
                })
        }
    }
}
