import BenchAnalysis

extension SuiteSignature {
    /// The default and the quick suite of the active registry's benchmarks,
    /// as their plans write them: what `BenchRunner results` reads a run's
    /// kind against. The default suite's includes the series earlier
    /// default runs wrote under other parameters (``formerDefaultSeries(_:)``),
    /// so that they still read as default runs.
    package static func standardSuites() throws -> [SuiteSignature] {
        let suites: [(String, SuiteConfiguration)] = [
            ("default", .standard(recursionProbe: nil)), ("quick", .quick(recursionProbe: nil)),
        ]
        return try suites.map { name, configuration in
            let plans = try SuiteRunner(configuration: configuration, counter: .disabled).selectedPlans()
            var series = plans.map { ($0.benchmark, $0.variantID.name, $0.params) }
            if configuration.size == .standard {
                series += formerDefaultSeries(plans)
            }
            return SuiteSignature(name: name, plans: series)
        }
    }

    /// The series of `plans` (the default suite's) as default runs wrote
    /// them before `observeOn.throughput` and `observeOn.busyQueue` flooded
    /// the quick suite's 100,000 elements in it: 500,000 elements a flood,
    /// and the busy-queue flood series 30 floods of each kind.
    static func formerDefaultSeries(_ plans: [MeasurementPlan]) -> [(String, String, String)] {
        let benchmarks: Set<String> = [ObserveOnThroughputBenchmark.name, ObserveOnBusyQueueBenchmark.name]
        let now = "elements=\(ObserveOnThroughputBenchmark.floodElements(in: .standard))"
        let then = "elements=\(ObserveOnThroughputBenchmark.Configuration(.standard).elements)"
        return plans.filter { benchmarks.contains($0.benchmark) && $0.params.contains(now) }.map { plan in
            let params = plan.params.split(separator: CSVSchema.paramsSeparator).map { part -> String in
                if part == now { return then }
                if part.hasPrefix("floods=") { return "floods=30" }
                return String(part)
            }.joined(separator: String(CSVSchema.paramsSeparator))
            return (plan.benchmark, plan.variantID.name, params)
        }
    }
}
