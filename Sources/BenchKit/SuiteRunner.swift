/// Runs plans the way a careful engineer would: a warm-up of every plan,
/// then repetitions with the variants interleaved (A B C, A B C, …) so that
/// drift of the machine hits every variant alike. Every repetition becomes
/// one row per metric.
public struct SuiteRunner: Sendable {
    public let configuration: SuiteConfiguration
    public let benchmarks: [any Benchmark]
    public let filter: BenchmarkFilter
    public let counter: AllocationCounter

    public init(
        configuration: SuiteConfiguration, benchmarks: [any Benchmark] = BenchmarkCatalog.all,
        filter: BenchmarkFilter = BenchmarkFilter([]), counter: AllocationCounter
    ) {
        self.configuration = configuration
        self.benchmarks = benchmarks
        self.filter = filter
        self.counter = counter
    }

    /// Every plan of every benchmark, filtered. Throws `BenchmarkFilterError`
    /// when a filter pattern matches nothing.
    public func selectedPlans() throws -> [MeasurementPlan] {
        try filter.select(benchmarks.flatMap { $0.plans(for: configuration) })
    }

    /// Measures everything selected and returns the rows.
    public func run(progress: ProgressReporter) throws -> [CSVRow] {
        let plans = try selectedPlans()
        if case let .unavailable(reason) = counter.availability {
            progress.note("note: allocation counts are left empty: \(reason)")
        }
        let runnable = plans.filter { plan in
            if let reason = plan.unavailableReason {
                progress.note("note: \(plan.identifier) [\(plan.params)] is not measured: \(reason)")
                return false
            }
            return true
        }
        let warmUpRounds = configuration.warmUp ? 1 : 0
        let perPlan = Double(configuration.repetitions + warmUpRounds)
        progress.begin(totalEstimatedSeconds: runnable.reduce(0) { $0 + $1.estimatedSeconds * perPlan })
        let context = MeasureContext(counter: counter, configuration: configuration)
        var rows: [CSVRow] = []
        var order: [String] = []
        var byBenchmark: [String: [MeasurementPlan]] = [:]
        for plan in runnable {
            if byBenchmark[plan.benchmark] == nil { order.append(plan.benchmark) }
            byBenchmark[plan.benchmark, default: []].append(plan)
        }
        for benchmark in order {
            let group = byBenchmark[benchmark] ?? []
            if configuration.warmUp {
                for plan in group {
                    progress.willMeasure(plan, repetition: 0, of: configuration.repetitions, variants: group.count)
                    try Self.serviced(plan) { try plan.warmUp(context) }
                    progress.didMeasure(estimatedSeconds: plan.estimatedSeconds)
                }
            }
            for repetition in 1...max(configuration.repetitions, 1) {
                for plan in group {
                    progress.willMeasure(
                        plan, repetition: repetition, of: configuration.repetitions, variants: group.count)
                    let values = try Self.serviced(plan) { try plan.measure(context) }
                    progress.didMeasure(estimatedSeconds: plan.estimatedSeconds)
                    rows += Self.rows(for: plan, repetition: repetition, values: values)
                }
            }
        }
        progress.finish()
        return rows
    }

    static func serviced<T>(_ plan: MeasurementPlan, _ body: () throws -> T) rethrows -> T {
        plan.needsMainQueue ? try MainQueueDriver.servicingMainQueue(body) : try body()
    }

    static func rows(for plan: MeasurementPlan, repetition: Int, values: [MetricValue]) -> [CSVRow] {
        values.map { value in
            let unit = CSVSchema.metric(value.metric, in: plan.benchmark)?.unit ?? ""
            let params = [plan.params, value.extraParams ?? ""].filter { !$0.isEmpty }
                .joined(separator: String(CSVSchema.paramsSeparator))
            return CSVRow(
                benchmark: plan.benchmark, variant: plan.variant, params: params, metric: value.metric,
                unit: unit, repetition: repetition, value: value.value)
        }
    }
}
