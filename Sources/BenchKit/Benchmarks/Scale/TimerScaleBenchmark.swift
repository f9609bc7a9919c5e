import Dispatch
import Foundation
import ToolSupport

/// `scale.timers`: N periodic jobs of a 10 ms period at once on one serial
/// context (one dispatch scheduler, one dispatch queue, one event loop),
/// started staggered across the period, for a window of ticks. Per N: tick
/// lateness p50 and p99 over every tick of every job, the fraction of due
/// ticks that did not run, and the process's CPU time (`getrusage`) per tick
/// run, with the growth exponents of the median lateness and the CPU per tick.
///
/// `serial-dispatch.native.leeway` is the native job with a per-call leeway
/// of half the period (`schedulePeriodic(_:startAfter:period:leeway:action:)`):
/// beside `serial-dispatch.native` it shows what coalesced wakeups save per
/// tick.
struct TimerScaleBenchmark: ScaleBenchmark {
    static let name = "scale.timers"
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: kinds.map(\.id),
            metrics: [.latenessP50, .latenessP99, .skippedTicks, .skippedTickFraction, .cpuNanosecondsPerTick, .growthExponent])
    }

    static let periodNanoseconds: UInt64 = 10_000_000
    /// The per-call leeway of the `.leeway` variant: half the period.
    static let leeway = DispatchTimeInterval.milliseconds(5)

    static var kinds: [TimerFleetKind] {
        [
            .libraryNative(leeway: nil), .libraryNative(leeway: leeway), .libraryEmulated, .dispatchTimer, .nio,
        ]
    }

    /// A dispatch source with its handler, the job around it and its tick
    /// record: about 2 KB.
    static var limit: ScalePointLimit {
        .memory(benchmark: name, quantity: "timers", bytesPerItem: 2_048, cap: 100_000)
    }

    static func points(_ configuration: SuiteConfiguration) -> [Int] {
        ScaleSweeps.points(in: configuration, tiny: [1, 10], modest: [1, 10, 100, 1_000], full: [1, 100, 1_000, 10_000])
    }

    /// Periods per point's window.
    static func windowPeriods(_ configuration: SuiteConfiguration) -> Int {
        // Ten periods in the tiny suite: long enough that every job ticks in
        // the window even on a loaded machine (three let a job miss them
        // all, and its lateness would be empty).
        ScaleSweeps.value(in: configuration, tiny: 10, modest: 20, full: 50)
    }

    init() {}

    func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let periods = Self.windowPeriods(configuration)
        let params = formatParams(["period_ms": "10", "window_periods": String(periods)])
        let window = UInt64(periods) * Self.periodNanoseconds
        let estimate = points.reduce(0.0) { total, n in
            total + Double(window) / 1e9 + 0.03 + Double(n) * 20e-6
        }
        return Self.kinds.map { kind in
            MeasurementPlan(
                benchmark: Self.name, variant: kind.id, params: params, estimatedSeconds: estimate,
                warmUpEstimatedSeconds: 0.1,
                warmUp: { _ in _ = try Self.measure(kind, count: 1, window: 5 * Self.periodNanoseconds) },
                measure: { context in
                    var recorder = SweepRecorder()
                    let progress = SweepProgress(progress: context.progress, count: points.count)
                    for (index, n) in points.enumerated() {
                        progress.enter(point: index, n: n)
                        let outcome = try Self.measure(kind, count: n, window: window)
                        let sorted = outcome.latenessMicroseconds.sorted()
                        recorder.record(.latenessP50, n: n, Statistics.percentile(sorted: sorted, 50))
                        recorder.record(.latenessP99, n: n, Statistics.percentile(sorted: sorted, 99))
                        recorder.record(.skippedTicks, n: n, Double(outcome.skipped))
                        recorder.record(.skippedTickFraction, n: n, Double(outcome.skipped) / Double(max(outcome.due, 1)))
                        recorder.record(
                            .cpuNanosecondsPerTick, n: n,
                            outcome.runs > 0 ? Double(outcome.cpuNanoseconds) / Double(outcome.runs) : nil)
                    }
                    // p99 is one run's tail (see Metric.latenessP99): shown, not fitted.
                    return recorder.rows(fitting: [Metric.latenessP50.name, Metric.cpuNanosecondsPerTick.name])
                })
        }
    }

    /// Starts `count` timers of `kind`, measures a window of `window`
    /// nanoseconds from the first due tick, stops them.
    static func measure(_ kind: TimerFleetKind, count: Int, window: UInt64) throws -> TimerFleet.Outcome {
        // Time to create the timers before the first is due: a few
        // microseconds each, and a margin.
        let origin = MeasureContext.now() + 20_000_000 + UInt64(count) * 10_000
        let fleet = TimerFleet(count: count, period: periodNanoseconds, origin: origin, window: window)
        let stop = try kind.start(fleet)
        sleep(until: origin)
        let cpuBefore = processCPUNanoseconds()
        sleep(until: fleet.end)
        let cpu = processCPUNanoseconds() - cpuBefore
        stop()
        // A tick that started before the end (and checked it) finishes within
        // microseconds; a period's grace lets it before the records are read.
        sleep(until: MeasureContext.now() + periodNanoseconds)
        return fleet.outcome(cpuNanoseconds: cpu)
    }

    static func sleep(until deadline: UInt64) {
        let now = MeasureContext.now()
        guard deadline > now else { return }
        Thread.sleep(forTimeInterval: Double(deadline - now) / 1e9)
    }
}
