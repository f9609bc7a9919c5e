/// Every benchmark, in the order a run executes them (the order of `CSVSchema.benchmarks`).
public enum BenchmarkCatalog {
    public static var all: [any Benchmark] {
        [
            ObserveOnThroughputBenchmark(),
            ObserveOnLatencyBenchmark(),
            ObserveOnSubscriptionBenchmark(),
            AsyncSequenceThroughputBenchmark(),
            TrampolineBenchmark(),
            PeriodicDriftBenchmark(),
            // Last: the state a busy queue leaves lasts for seconds (see there).
            ObserveOnBusyQueueBenchmark(),
        ]
    }
}
