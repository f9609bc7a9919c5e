import BenchAnalysis
import ToolSupport

/// `periodic.drift`: how late each tick of a periodic job runs against
/// `start + k·period` on the monotonic clock, for this library's schedulers
/// (native and forced emulation), for a user's own `asyncAfter` scheduler
/// driven by the library's emulation, and for the timers a user would pick instead.
///
/// A fixed-rate job keeps its lateness bounded; a fixed-delay one (each tick
/// scheduled after the previous ran) accumulates it: `final_drift_us` shows which.
struct PeriodicDriftBenchmark: NamedBenchmark {
    static let name = "periodic.drift"
    /// Its variants (those of its catalogue) and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: catalog(.active).map(\.id),
            metrics: [.latenessP50, .latenessP99, .latenessMax, .finalDrift, .skippedTicks, .latenessAtTick])
    }

    /// Every job of `registry`, in the order a run interleaves them: the
    /// registered schedulers' jobs and the registered peers, in registration order.
    static func catalog(_ registry: SchedulerRegistry) -> [PeriodicJob] {
        registry.entries.flatMap { entry -> [PeriodicJob] in
            switch entry {
            case .scheduler(let scheduler): SchedulerPeriodicJobs.jobs(of: scheduler)
            case .periodic(let job): [job]
            default: []
            }
        }
    }

    let jobs: [PeriodicJob]

    /// What a repetition measures at each suite size.
    struct Configuration: Sendable, Equatable {
        /// Drift is measured at each period for this many ticks.
        struct Period: Sendable, Equatable {
            var periodMilliseconds: Int
            var ticks: Int
            /// The variants measured at this period; `nil` for all of them.
            var variants: [VariantID]?

            init(periodMilliseconds: Int, ticks: Int, variants: [VariantID]? = nil) {
                self.periodMilliseconds = periodMilliseconds
                self.ticks = ticks
                self.variants = variants
            }
        }

        var periods: [Period]

        /// The library's native timer and its emulation, on its serial queue
        /// and on a user's scheduler: the jobs a longer or coarser period is
        /// measured for (the other queues run the same two).
        static let ownTimers: [VariantID] = [
            .library("serial-dispatch.native"), .library("serial-dispatch.emulated"), .library("user-scheduler.emulated"),
        ]

        /// How many per-tick lateness samples a repetition writes for the plot.
        var traceSamples: Int

        /// The sizes this benchmark measures in a suite of `size`.
        init(_ size: SuiteSize) {
            switch size {
            case .standard:
                periods = [
                    Period(periodMilliseconds: 1, ticks: 500),
                    Period(periodMilliseconds: 10, ticks: 100),
                    // Long enough (5 s) to show whether drift accumulates: a
                    // fixed-rate job's last tick is as late as any other, a
                    // fixed-delay one's is late by the sum of 5,000 ticks'
                    // delays. Each tick costs the run 9 ms (three rounds of
                    // three jobs), so no longer than that shows.
                    Period(periodMilliseconds: 1, ticks: 5_000, variants: Self.ownTimers),
                ]
                traceSamples = 20
            case .quick:
                periods = [
                    Period(periodMilliseconds: 1, ticks: 150),
                    // Only these at 10 ms: every job at 10 ms would take a
                    // large share of the quick run; the library's native
                    // timer and its emulation, on its own queue and on a
                    // user's scheduler, are the code a coarser period could
                    // treat differently (the other queues run the same two,
                    // measured at 1 ms).
                    Period(periodMilliseconds: 10, ticks: 25, variants: Self.ownTimers),
                ]
                traceSamples = 10
            case .tiny:
                periods = [Period(periodMilliseconds: 1, ticks: 4)]
                traceSamples = 2
            }
        }
    }

    /// The jobs of the active registry (``SchedulerRegistry/active``).
    init() {
        self.init(registry: .active)
    }

    /// The jobs of `registry`.
    init(registry: SchedulerRegistry) {
        jobs = Self.catalog(registry)
    }

    /// Three rounds, the fewest compare judges (3 against 3 reach p = 0.05),
    /// and never more: a round waits for its timers, about 48 s of them in the
    /// default suite (every job at 1 ms and 10 ms, the library's own three
    /// for 10 s), so a fourth would take more than the rest of the
    /// benchmarks' budgets together. Its times are wake-up-bound, judged
    /// against the 40 % wake-up threshold, which three rounds usually
    /// resolve; a series they do not has reached the budget and says so.
    func adaptiveRepetitions(in size: SuiteSize, suite: AdaptiveRepetitions) -> AdaptiveRepetitions? {
        AdaptiveRepetitions(minimum: RepetitionTarget.fewestJudged(), maximum: suite.maximum, budgetSeconds: 0)
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let sizes = Configuration(configuration.size)
        let traceSamples = sizes.traceSamples
        return sizes.periods.flatMap { period in
            let params = formatParams(["period_ms": String(period.periodMilliseconds), "ticks": String(period.ticks)])
            let periodNanoseconds = UInt64(period.periodMilliseconds) * 1_000_000
            let jobs = period.variants.map { ids in self.jobs.filter { ids.contains($0.id) } } ?? self.jobs
            return jobs.map { job -> MeasurementPlan in
                if let reason = job.unavailableReason {
                    return .unavailable(benchmark: Self.name, variant: job.id, params: params, reason: reason)
                }
                var plan = MeasurementPlan(
                    benchmark: Self.name, variant: job.id, params: params,
                    estimatedSeconds: Double(period.ticks * period.periodMilliseconds) / 1000 + 0.02,
                    warmUpEstimatedSeconds: Double(min(period.ticks, 10) * period.periodMilliseconds) / 1000 + 0.02,
                    needsMainQueue: job.needsMainQueue,
                    warmUp: { context in
                        _ = try Self.record(
                            job: job, periodNanoseconds: periodNanoseconds, ticks: min(period.ticks, 10),
                            progress: context.progress)
                    },
                    measure: { context in
                        let (recorder, skipped) = try Self.record(
                            job: job, periodNanoseconds: periodNanoseconds, ticks: period.ticks, progress: context.progress)
                        return Self.metrics(recorder: recorder, skipped: skipped, traceSamples: traceSamples)
                    })
                plan.waitsForTimers = true
                return plan
            }
        }
    }

    static func record(
        job: PeriodicJob, periodNanoseconds: UInt64, ticks: Int, progress: MeasurementProgress? = nil
    ) throws -> (TickRecorder, Int?) {
        let recorder = TickRecorder(
            start: MeasureContext.now(), periodNanoseconds: periodNanoseconds, ticks: ticks, progress: progress)
        let running = try job.start(recorder)
        do {
            try recorder.wait(variant: job.name, timeoutSeconds: job.stallTimeoutSeconds)
        } catch {
            running.stop()
            throw error
        }
        running.stop()
        return (recorder, running.skippedTicks())
    }

    static func metrics(recorder: TickRecorder, skipped: Int?, traceSamples: Int) -> [MetricValue] {
        let lateness = recorder.lateness.map { Double($0.nanoseconds) / 1000 }
        let sorted = lateness.sorted()
        var values = [
            MetricValue(.latenessP50, Statistics.percentile(sorted: sorted, 50)),
            MetricValue(.latenessP99, Statistics.percentile(sorted: sorted, 99)),
            MetricValue(.latenessMax, sorted.last),
            MetricValue(.finalDrift, lateness.last),
            MetricValue(.skippedTicks, skipped.map(Double.init)),
        ]
        let samples = recorder.lateness
        if traceSamples > 0, !samples.isEmpty {
            var seen = Set<Int>()
            for step in 1...traceSamples {
                let position = min(samples.count - 1, max(0, step * samples.count / traceSamples - 1))
                guard seen.insert(position).inserted else { continue }
                let sample = samples[position]
                values.append(
                    MetricValue(.latenessAtTick, Double(sample.nanoseconds) / 1000, extraParams: "tick=\(sample.tick)"))
            }
        }
        return values
    }
}
