/// Every benchmark, in the order a run executes them (the order of `CSVSchema.benchmarks`).
package enum BenchmarkCatalog {
    /// The benchmarks of the active registry (``SchedulerRegistry/active``).
    package static var all: [any Benchmark] {
        all(.active)
    }

    /// The benchmarks measuring `registry`'s schedulers and peers.
    /// `scheduler.recursion` is listed only when a registration asks for it
    /// (none of ``SchedulerRegistry/standard``'s does).
    static func all(_ registry: SchedulerRegistry) -> [any Benchmark] {
        var benchmarks: [any Benchmark] = [
            ObserveOnThroughputBenchmark(registry: registry),
            ObserveOnLatencyBenchmark(registry: registry),
            ObserveOnSubscriptionBenchmark(registry: registry),
            AsyncSequenceThroughputBenchmark(),
            TrampolineBenchmark(),
            ElementPathBenchmark(),
            VirtualTimeBenchmark(),
            PeriodicDriftBenchmark(registry: registry),
        ]
        if !SchedulerRecursionBenchmark.schedulers(registry).isEmpty {
            benchmarks.append(SchedulerRecursionBenchmark(registry: registry))
        }
        // Last: the state a busy queue leaves lasts for seconds (see there).
        return benchmarks + ScaleSweeps.all + [ObserveOnBusyQueueBenchmark(registry: registry)]
    }
}
