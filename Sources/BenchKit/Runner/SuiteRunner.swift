import ToolSupport

/// Runs plans the way a careful engineer would: a warm-up of every plan,
/// then repetitions with the variants interleaved (A B C, A B C, …) so that
/// drift of the machine hits every variant alike. Every repetition becomes
/// one row per metric.
///
/// Allocation counts are a separate pass (`AllocationPass`): after the
/// timing repetitions (or instead of them), every plan that has allocation
/// metrics counts `countingRepetitions` steady-state regions.
package struct SuiteRunner: Sendable {
    let configuration: SuiteConfiguration
    let benchmarks: [any Benchmark]
    let filter: BenchmarkFilter
    let counter: AllocationCounter
    let allocationPass: AllocationPass
    /// Benchmarks whose timing repetitions run in processes of their own
    /// (``ForkedRun/runBenchmark(_:processes:total:options:runID:progress:)``):
    /// this runner only counts their allocations.
    let timedElsewhere: Set<String>
    /// Per adaptively repeated benchmark, the rounds it took in the last
    /// such run (``PriorRounds``): the progress line plans it at those
    /// (within its fewest and most) rather than at its fewest.
    let priorRounds: [String: Int]
    /// Whether a child process counts the allocations once this runner's
    /// timing is done (`AllocationPass/elsewhere` in a default run): the
    /// time left includes that pass, planned as if counted here.
    let countedAfterwards: Bool
    /// What each stage cost against its plan in the last run of the suite
    /// here (``ProgressHistory``), for the time left.
    let history: ProgressHistory?

    /// `allocationPass` defaults to `.here` with an exact counter, else `.unavailable`.
    package init(
        configuration: SuiteConfiguration, benchmarks: [any Benchmark] = BenchmarkCatalog.all,
        filter: BenchmarkFilter = BenchmarkFilter([]), counter: AllocationCounter,
        allocationPass: AllocationPass? = nil, timedElsewhere: Set<String> = [], priorRounds: [String: Int] = [:],
        countedAfterwards: Bool = false, history: ProgressHistory? = nil
    ) {
        self.configuration = configuration
        self.benchmarks = benchmarks
        self.filter = filter
        self.counter = counter
        self.allocationPass = allocationPass ?? (counter.isExact ? .here : .unavailable)
        self.timedElsewhere = timedElsewhere
        self.priorRounds = priorRounds
        self.countedAfterwards = countedAfterwards
        self.history = history
    }

    /// The rounds the progress line plans the timing of the benchmark named
    /// `name` at: for one repeated adaptively, the rounds it took last time
    /// (``priorRounds``) within its fewest and most, else its fewest; for
    /// any other, its fixed count.
    func plannedRounds(of name: String) -> Int {
        guard let adaptive = adaptiveRepetitions(of: name) else { return repetitions(of: name) }
        guard let prior = priorRounds[name], adaptive.mayExceedMinimum else { return adaptive.minimum }
        return min(max(prior, adaptive.minimum), adaptive.maximum)
    }

    /// Every plan of every benchmark, filtered. Throws `BenchmarkFilterError`
    /// when a filter pattern matches nothing.
    package func selectedPlans() throws -> [MeasurementPlan] {
        try filter.select(benchmarks.flatMap { $0.plans(for: configuration) })
    }

    /// Measures everything selected and returns the rows. A plan whose
    /// measurement fails (a `BenchmarkFailure`: a scheduler that never ran
    /// its actions, a broken promise) is dropped from the rest of the run
    /// while every other plan is measured; the run then throws
    /// ``SuiteFailure``, which carries the rows of the plans that did
    /// complete, so they are not lost.
    package func run(progress: ProgressReporter) throws -> [CSVRow] {
        let plans = try selectedPlans()
        var pass = allocationPass
        if pass == .only, case let .unavailable(reason) = counter.availability {
            throw BenchmarkFailure("cannot count allocations: \(reason)")
        }
        if pass == .here, !counter.isExact {
            pass = .unavailable
        }
        if pass == .unavailable, case let .unavailable(reason) = counter.availability {
            progress.note("note: allocation counts are left empty: \(reason)")
        }
        let timing = pass != .only
        let counting = pass == .here || pass == .only
        let runnable = plans.filter { plan in
            if let reason = plan.unavailableReason {
                // A counting child stays quiet: its parent has said it already.
                if timing { progress.note("note: \(plan.identifier) [\(plan.params)] is not measured: \(reason)") }
                return false
            }
            return true
        }
        let warmUpRounds = timing && configuration.warmUp ? 1.0 : 0
        // The counting child's pass comes after this one's timing, so the
        // time left counts it too.
        let countsPerPlan =
            counting || (countedAfterwards && pass == .elsewhere) ? Double(configuration.countingRepetitions) : 0
        var stageEstimates: [ProgressReporter.Stage: Double] = [:]
        for plan in runnable {
            if timing && !timedElsewhere.contains(plan.benchmark) {
                stageEstimates[ProgressReporter.Stage(plan, .timing), default: 0] +=
                    plan.estimatedSeconds * Double(plan.timedRepetitions(of: plannedRounds(of: plan.benchmark)))
                if warmUpRounds > 0 {
                    stageEstimates[ProgressReporter.Stage(plan, .warmUp), default: 0] +=
                        plan.warmUpEstimatedSeconds * warmUpRounds
                }
            }
            if plan.countAllocations != nil && countsPerPlan > 0 {
                stageEstimates[ProgressReporter.Stage(plan, .counting), default: 0] +=
                    plan.countingEstimatedSeconds * countsPerPlan
            }
        }
        // Stages whose every plan waits for timers keep their own estimate.
        let waiting = Set(
            Dictionary(grouping: runnable.filter { timing && !timedElsewhere.contains($0.benchmark) }) {
                ProgressReporter.Stage($0, .timing)
            }.filter { $0.value.allSatisfy(\.waitsForTimers) }.keys)
        progress.begin(stageEstimates: stageEstimates, waitingForTimers: waiting, history: history)
        var failures: [SuiteFailure.PlanFailure] = []
        let rows = measure(
            runnable, timing: timing, counting: counting, pass: pass, progress: progress, failures: &failures)
        guard failures.isEmpty else {
            progress.abort()
            let failed = Set(failures.map(\.identifier))
            throw SuiteFailure(
                rows: rows.filter { !failed.contains("\($0.benchmark)/\($0.variant)") }, failures: failures)
        }
        progress.finish()
        return rows
    }

    private func measure(
        _ runnable: [MeasurementPlan], timing: Bool, counting: Bool, pass: AllocationPass, progress: ProgressReporter,
        failures: inout [SuiteFailure.PlanFailure]
    ) -> [CSVRow] {
        let context = MeasureContext(counter: counter, configuration: configuration, progress: progress.measurement)
        var rows: [CSVRow] = []
        var order: [String] = []
        var byBenchmark: [String: [MeasurementPlan]] = [:]
        for plan in runnable {
            if byBenchmark[plan.benchmark] == nil { order.append(plan.benchmark) }
            byBenchmark[plan.benchmark, default: []].append(plan)
        }
        // A plan (by identifier and params) that failed: measured no more.
        var failed = Set<String>()
        func attempt<T>(_ plan: MeasurementPlan, _ body: () throws -> T) -> T? {
            let key = "\(plan.identifier) [\(plan.params)]"
            guard !failed.contains(key) else { return nil }
            do {
                return try body()
            } catch {
                failed.insert(key)
                failures.append(SuiteFailure.PlanFailure(identifier: plan.identifier, params: plan.params, error: error))
                progress.note("error: \(plan.identifier) [\(plan.params)] failed and is measured no more: \(error)")
                return nil
            }
        }
        // What the adaptive benchmarks done so far took against their
        // planned rounds (estimated seconds), to plan those to come.
        var adaptivePlanned = 0.0
        var adaptiveDone = 0.0
        for benchmark in order where timing && !timedElsewhere.contains(benchmark) {
            let group = byBenchmark[benchmark] ?? []
            let adaptive = adaptiveRepetitions(of: benchmark)
            let repetitions = repetitions(of: benchmark)
            let count = ProgressReporter.RepetitionCount(fewest: repetitions, most: adaptive?.maximum)
            let maximumRuns = maximumRunsPerRepetition(of: benchmark)
            if configuration.warmUp {
                for plan in group {
                    progress.willMeasure(plan, repetition: 0, of: count, variants: group.count)
                    _ = attempt(plan) { try Self.serviced(plan) { try plan.warmUp(context) } }
                    progress.didMeasure(estimatedSeconds: plan.warmUpEstimatedSeconds)
                }
            }
            var timedRows: [CSVRow] = []
            var rounds = 0
            let started = MeasureContext.now()
            var tooWide: Set<Self.SeriesName> = []
            // A benchmark read at its usual level takes rounds on while its
            // repetitions so far missed that level (`AdaptiveRepetitions.continues`).
            let readsUsualLevel = benchmarks.contains { $0.schema.name == benchmark && $0.schema.readsUsualLevel }
            // The share of its rounds' repetitions at that level, once the fewest ran.
            var usualLevelShare: Double?
            var missedUsualLevel: Bool { (usualLevelShare ?? 1) < BenchmarkSchema.usualLevelMinimumShare }
            repeat {
                rounds += 1
                for plan in group where plan.isTimed(inRepetition: rounds) {
                    progress.willMeasure(plan, repetition: rounds, of: count, variants: group.count)
                    let measured = attempt(plan) {
                        try Self.serviced(plan) {
                            try Self.timedRepetition(
                                minimumSeconds: configuration.minimumRepetitionSeconds,
                                maximumRuns: maximumRuns
                            ) { try plan.measure(context) }
                        }
                    }
                    progress.didMeasure(estimatedSeconds: plan.estimatedSeconds)
                    guard let values = measured else { continue }
                    let measuredRows = Self.rows(for: plan, repetition: rounds, values: values)
                    rows += measuredRows
                    timedRows += measuredRows
                    if pass == .unavailable, plan.countAllocations != nil {
                        rows += Self.rows(for: plan, repetition: rounds, values: Self.emptyCounts(of: plan))
                    }
                }
                guard let adaptive else { continue }
                if rounds >= adaptive.minimum {
                    tooWide = Self.seriesTooWide(timedRows, failed: failed)
                    if readsUsualLevel { usualLevelShare = ResultFile.usualLevelShares(of: timedRows)[benchmark] }
                }
                let elapsed = Double(MeasureContext.now() &- started) / 1e9
                guard
                    adaptive.continues(
                        after: rounds, elapsed: elapsed, anySeriesTooWide: !tooWide.isEmpty,
                        missedUsualLevel: missedUsualLevel)
                else {
                    break
                }
                if rounds >= adaptive.minimum {
                    // One more round than planned so far: the time left grows by it.
                    progress.extendTiming(of: benchmark, toAtLeast: Self.estimatedSeconds(of: group, rounds: rounds + 1))
                }
            } while adaptive != nil || rounds < max(repetitions, 1)
            if let adaptive {
                let planned = Self.estimatedSeconds(of: group, rounds: plannedRounds(of: benchmark))
                let made = Self.estimatedSeconds(of: group, rounds: rounds)
                progress.finishTiming(of: benchmark, estimatedSeconds: made)
                adaptivePlanned += planned
                adaptiveDone += made
                // The benchmarks to come take as many more rounds, in
                // proportion to their plans, as those done took.
                if adaptivePlanned > 0 {
                    progress.scaleTimingPlans(
                        of: Set(order.filter { adaptiveRepetitions(of: $0)?.mayExceedMinimum == true }),
                        by: adaptiveDone / adaptivePlanned)
                }
                rows += Self.budgetRows(timedRows, tooWide: tooWide, failed: failed)
                if missedUsualLevel, let share = usualLevelShare {
                    progress.note(
                        "note: \(benchmark): \(Int((share * 100).rounded())) % of its \(rounds) repetitions at its usual "
                            + "level (an episode of the machine's slower levels took the rest), fewer than "
                            + "\(Int((BenchmarkSchema.usualLevelMinimumShare * 100).rounded())) % at twice its budget or its "
                            + "most repetitions: compare will not judge its series")
                }
                let stopped = Self.budgetReached(tooWide)
                if !stopped.isEmpty {
                    progress.note(
                        "note: \(benchmark): \(stopped.count) series still wider than compare needs after \(rounds) "
                            + "repetitions, at the benchmark's budget (\(ProgressReporter.format(seconds: adaptive.budgetSeconds)), "
                            + "at most \(adaptive.maximum)): " + stopped.prefix(4).joined(separator: ", ")
                            + (stopped.count > 4 ? ", …" : ""))
                }
            }
        }
        // Those that count first (Benchmark.countsFirst), then the others in order.
        let countsFirst = Set(order.filter { name in benchmarks.contains { $0.schema.name == name && $0.countsFirst } })
        for benchmark in order.filter(countsFirst.contains) + order.filter({ !countsFirst.contains($0) }) where counting {
            let group = (byBenchmark[benchmark] ?? []).filter { $0.countAllocations != nil }
            for repetition in 1...max(configuration.countingRepetitions, 1) {
                for plan in group {
                    guard let count = plan.countAllocations else { continue }
                    progress.willCount(plan, repetition: repetition, of: configuration.countingRepetitions)
                    let counted = attempt(plan) { try Self.serviced(plan) { try count(context) } }
                    progress.didMeasure(estimatedSeconds: plan.countingEstimatedSeconds)
                    guard let values = counted else { continue }
                    rows += Self.rows(for: plan, repetition: repetition, values: values)
                }
            }
        }
        return rows
    }

    /// A timing series of one benchmark: variant, params (with a sample's
    /// extra parameters) and metric.
    struct SeriesName: Hashable, Comparable {
        let variant: String
        let params: String
        let metric: String

        static func < (lhs: SeriesName, rhs: SeriesName) -> Bool {
            (lhs.variant, lhs.params, lhs.metric) < (rhs.variant, rhs.params, rhs.metric)
        }
    }

    /// The judged timing series of `rows` (one benchmark's timed rows) that
    /// are wider than compare needs (`RepetitionTarget`), leaving out the
    /// plans that failed (`failed`: "identifier [params]").
    static func seriesTooWide(_ rows: [CSVRow], failed: Set<String>) -> Set<SeriesName> {
        var values: [SeriesName: [Double]] = [:]
        var benchmark: [SeriesName: String] = [:]
        for row in rows {
            guard let value = row.value,
                RepetitionTarget.isJudgedTime(metric: row.metric, benchmark: row.benchmark, variant: row.variant)
            else { continue }
            let name = SeriesName(variant: row.variant, params: row.params, metric: row.metric)
            values[name, default: []].append(value)
            benchmark[name] = row.benchmark
        }
        var tooWide: Set<SeriesName> = []
        for (name, series) in values {
            guard let owner = benchmark[name],
                !failed.contains(where: { $0.hasPrefix("\(owner)/\(name.variant) [") })
            else { continue }
            if !RepetitionTarget.isNarrowEnough(series, metric: name.metric, benchmark: owner, variant: name.variant) {
                tooWide.insert(name)
            }
        }
        return tooWide
    }

    /// One `budget_reached` row per judged timing series of `rows` (one
    /// adaptive benchmark's timed rows): 1 for a series in `tooWide`, else 0,
    /// its metric in the `of=` parameter.
    static func budgetRows(_ rows: [CSVRow], tooWide: Set<SeriesName>, failed: Set<String>) -> [CSVRow] {
        var seen: Set<SeriesName> = []
        var result: [CSVRow] = []
        for row in rows where row.value != nil {
            guard RepetitionTarget.isJudgedTime(metric: row.metric, benchmark: row.benchmark, variant: row.variant),
                !failed.contains(where: { $0.hasPrefix("\(row.benchmark)/\(row.variant) [") })
            else { continue }
            let name = SeriesName(variant: row.variant, params: row.params, metric: row.metric)
            guard seen.insert(name).inserted else { continue }
            let params = [row.params, "of=\(row.metric)"].filter { !$0.isEmpty }
                .joined(separator: String(CSVSchema.paramsSeparator))
            result.append(
                CSVRow(
                    benchmark: row.benchmark, variant: row.variant, params: params,
                    metric: CSVSchema.budgetReached.name, unit: CSVSchema.budgetReached.unit, repetition: 1,
                    value: tooWide.contains(name) ? 1 : 0))
        }
        return result
    }

    /// The series of `tooWide` as the note names them: `variant [params]
    /// metric`, sorted.
    static func budgetReached(_ tooWide: Set<SeriesName>) -> [String] {
        tooWide.sorted().map { $0.params.isEmpty ? "\($0.variant) \($0.metric)" : "\($0.variant) [\($0.params)] \($0.metric)" }
    }

    /// Estimated seconds of `rounds` timed rounds of `group`.
    static func estimatedSeconds(of group: [MeasurementPlan], rounds: Int) -> Double {
        group.reduce(0) { $0 + $1.estimatedSeconds * Double($1.timedRepetitions(of: rounds)) }
    }

    /// How the benchmark named `name` chooses its repetitions in this
    /// suite (``SuiteConfiguration/adaptiveRepetitions(of:)``); nil: a fixed count.
    func adaptiveRepetitions(of name: String) -> AdaptiveRepetitions? {
        benchmarks.first { $0.schema.name == name }.flatMap { configuration.adaptiveRepetitions(of: $0) }
    }

    /// The timing repetitions of the benchmark named `name`: its own count
    /// in this suite (see ``SuiteConfiguration/repetitions(of:)``).
    func repetitions(of name: String) -> Int {
        benchmarks.first { $0.schema.name == name }.map { configuration.repetitions(of: $0) } ?? configuration.repetitions
    }

    /// The most measurements one timing repetition of the benchmark named
    /// `name` takes: its own (``Benchmark/maximumRunsPerRepetition(in:)``)
    /// or the suite's.
    func maximumRunsPerRepetition(of name: String) -> Int {
        benchmarks.first { $0.schema.name == name }?.maximumRunsPerRepetition(in: configuration.size)
            ?? configuration.maximumRunsPerRepetition
    }

    /// The allocation metrics of `plan`'s benchmark, without values.
    static func emptyCounts(of plan: MeasurementPlan) -> [MetricValue] {
        (CSVSchema.benchmark(named: plan.benchmark)?.metrics ?? [])
            .filter(\.isAllocationCount)
            .map { MetricValue($0, nil) }
    }

    /// One timing repetition at least `minimumSeconds` long: runs `measure`
    /// until that much time has passed (by `clock`, in nanoseconds) or it
    /// ran `maximumRuns` times, and returns the median of the runs of each
    /// metric (``medianOfRuns(_:)``). A measurement as long as the minimum
    /// runs once, and its values are returned as they are.
    static func timedRepetition(
        minimumSeconds: Double, maximumRuns: Int, clock: () -> UInt64 = MeasureContext.now,
        _ measure: () throws -> [MetricValue]
    ) rethrows -> [MetricValue] {
        let started = clock()
        var runs = [try measure()]
        let minimum = UInt64(max(minimumSeconds, 0) * 1e9)
        while runs.count < max(maximumRuns, 1) && clock() &- started < minimum {
            runs.append(try measure())
        }
        return runs.count == 1 ? runs[0] : medianOfRuns(runs)
    }

    /// Per metric and extra parameters (a tick's sample), in the first run's
    /// order, the median of the runs' values; empty when no run had one.
    static func medianOfRuns(_ runs: [[MetricValue]]) -> [MetricValue] {
        struct Key: Hashable {
            let metric: String
            let extraParams: String?
        }
        var order: [(Key, MetricValue)] = []
        var values: [Key: [Double]] = [:]
        for run in runs {
            for value in run {
                let key = Key(metric: value.metric.name, extraParams: value.extraParams)
                if values[key] == nil {
                    values[key] = []
                    order.append((key, value))
                }
                if let number = value.value {
                    values[key, default: []].append(number)
                }
            }
        }
        return order.map { key, first in
            MetricValue(first.metric, Statistics.median(values[key] ?? []), extraParams: first.extraParams)
        }
    }

    static func serviced<T>(_ plan: MeasurementPlan, _ body: () throws -> T) rethrows -> T {
        plan.needsMainQueue ? try MainQueueDriver.servicingMainQueue(body) : try body()
    }

    static func rows(for plan: MeasurementPlan, repetition: Int, values: [MetricValue]) -> [CSVRow] {
        values.map { value in
            let params = [plan.params, value.extraParams ?? ""].filter { !$0.isEmpty }
                .joined(separator: String(CSVSchema.paramsSeparator))
            return CSVRow(
                benchmark: plan.benchmark, variant: plan.variant, params: params, metric: value.metric.name,
                unit: value.metric.unit, repetition: repetition, value: value.value)
        }
    }
}

/// Some plans of a run failed; the others were measured. ``rows`` holds the
/// rows of every plan that completed (a failed plan's rows are dropped
/// whole, so no series is written half), to be written as usual.
package struct SuiteFailure: Error, CustomStringConvertible {
    /// One plan that failed: `benchmark/variant`, its params and why.
    struct PlanFailure: Sendable {
        let identifier: String
        let params: String
        let error: any Error
    }

    package let rows: [CSVRow]
    let failures: [PlanFailure]

    package var description: String {
        "\(failures.count) measurement(s) failed:\n"
            + failures.map { "  \($0.identifier) [\($0.params)]: \($0.error)" }.joined(separator: "\n")
    }
}
