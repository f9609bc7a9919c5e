@testable import BenchKit
import XCTest

final class ProgressReporterTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    /// The timed repetitions' stage of `benchmark`.
    private func timing(_ benchmark: String) -> ProgressReporter.Stage {
        .init(benchmark: benchmark, phase: .timing)
    }

    private func step(estimatedSeconds: Double = 10, startedAt: UInt64 = 0) -> ProgressReporter.Step {
        ProgressReporter.Step(
            name: ProgressReporter.Step.name(of: plan(params: "period_ms=1;ticks=10000")), phase: "repetition 2/5",
            estimatedSeconds: estimatedSeconds, startedAt: startedAt)
    }

    private func plan(params: String) -> MeasurementPlan {
        MeasurementPlan(
            benchmark: "periodic.drift", variant: .library("serial-dispatch.native"), params: params, estimatedSeconds: 0,
            warmUp: { _ in }, measure: { _ in [] })
    }

    func testTheStatusLineNamesTheStepTheStepsDoneAndTheTimeLeft() {
        let line = ProgressReporter.statusLine(
            step: step(), inner: (done: 2_500, total: 10_000, unit: "ticks"), remainingSeconds: 65, width: 140)
        XCTAssertEqual(
            line.trimmingCharacters(in: .whitespaces),
            "[periodic.drift] serial-dispatch.native period_ms=1;ticks=10000  repetition 2/5  "
                + "[#####...............] 2500/10000 ticks  ~1m05s left")
        XCTAssertEqual(line.count, 140)
    }

    func testATooLongLineShortensTheNameButKeepsTheProgressAndTheTimeLeft() {
        let line = ProgressReporter.statusLine(
            step: step(), inner: (done: 2_500, total: 10_000, unit: "ticks"), remainingSeconds: 65, width: 80)
        XCTAssertEqual(line.count, 80)
        XCTAssertEqual(line, "[periodic…  repetition 2/5  [#####...............] 2500/10000 ticks  ~1m05s left")
    }

    func testTheStatusLineWithoutStepsOrParamsAndShortenedToTheWidth() {
        var plain = step()
        plain.name = ProgressReporter.Step.name(of: plan(params: ""))
        let line = ProgressReporter.statusLine(step: plain, inner: nil, remainingSeconds: 4.4)
        XCTAssertEqual(
            line.trimmingCharacters(in: .whitespaces), "[periodic.drift] serial-dispatch.native  repetition 2/5  ~4s left")
        let narrow = ProgressReporter.statusLine(step: plain, inner: nil, remainingSeconds: 4, width: 30)
        XCTAssertEqual(narrow, "[pe…  repetition 2/5  ~4s left")
        // The phase and the time left alone are wider than 20 columns: clipped, never wider.
        XCTAssertEqual(
            ProgressReporter.statusLine(step: plain, inner: nil, remainingSeconds: 4, width: 20), "  repetition 2/5  ~4")
    }

    func testTheBarFillsInProportionAndNeverOverflows() {
        XCTAssertEqual(ProgressReporter.bar(done: 0, total: 10), "[....................]")
        XCTAssertEqual(ProgressReporter.bar(done: 5, total: 10), "[##########..........]")
        XCTAssertEqual(ProgressReporter.bar(done: 10, total: 10), "[####################]")
        XCTAssertEqual(ProgressReporter.bar(done: 30, total: 10), "[####################]")
        XCTAssertEqual(ProgressReporter.bar(done: 3, total: 0), "[....................]")
    }

    func testTheEstimateScalesWhatIsLeftByTheSpeedSoFar() {
        XCTAssertEqual(ProgressReporter.estimate(total: 100, done: 25, elapsed: 50), 150)
        XCTAssertEqual(ProgressReporter.estimate(total: 100, done: 50, elapsed: 25), 25)
        XCTAssertEqual(ProgressReporter.estimate(total: 100, done: 0, elapsed: 3), 100)
        XCTAssertEqual(ProgressReporter.estimate(total: 100, done: 120, elapsed: 3), 0)
    }

    func testTheRunningMeasurementCountsByItsStepsOrElseByItsTime() {
        var state = ProgressReporter.State()
        state.totalEstimate = 100
        state.doneEstimate = 40
        state.startTime = 0
        state.step = step(estimatedSeconds: 20, startedAt: 90 * second)
        // Half of the running measurement's ticks: 40 + 10 of 100 estimated seconds done in 100 s.
        XCTAssertEqual(
            ProgressReporter.remaining(of: state, now: 100 * second, inner: (done: 5, total: 10, unit: "ticks")), 100,
            accuracy: 1e-9)
        // No steps reported: 10 s of a 20 s measurement counts as half of it.
        XCTAssertEqual(ProgressReporter.remaining(of: state, now: 100 * second, inner: nil), 100, accuracy: 1e-9)
        // A measurement running longer than estimated counts as 90 % done, not more.
        XCTAssertEqual(
            ProgressReporter.remaining(of: state, now: 190 * second, inner: nil), (100 - 58) * 190 / 58.0,
            accuracy: 1e-9)
        // Between measurements only what has finished counts.
        state.step = nil
        XCTAssertEqual(ProgressReporter.remaining(of: state, now: 100 * second, inner: nil), 150, accuracy: 1e-9)
    }

    /// The default run: a cheap first stage that took far longer
    /// than estimated, an expensive one after it that runs as estimated.
    /// The run-wide ratio jumps as the stages change; per stage, each
    /// stage's own cost decides its part, and the time left says "guess"
    /// until every stage to come has a measured cost.
    /// A benchmark whose repetitions are chosen as its series need is
    /// planned at its fewest rounds; a round beyond them adds to the plan,
    /// its end sets the plan to what it took, and the benchmarks to come
    /// are planned at as many times their fewest as those done took.
    func testAdaptiveRoundsReviseThePlan() {
        let reporter = ProgressReporter(style: .silent)
        reporter.begin(stageEstimates: [timing("a"): 10, timing("b"): 20, timing("fixed"): 5])
        XCTAssertEqual(reporter.remainingSeconds(), 35, accuracy: 1e-9)
        reporter.extendTiming(of: "a", toAtLeast: 12)
        XCTAssertEqual(reporter.remainingSeconds(), 37, accuracy: 1e-9)
        reporter.extendTiming(of: "a", toAtLeast: 11)
        XCTAssertEqual(reporter.remainingSeconds(), 37, accuracy: 1e-9, "a plan only grows while it runs")
        reporter.finishTiming(of: "a", estimatedSeconds: 15)
        XCTAssertEqual(reporter.remainingSeconds(), 40, accuracy: 1e-9)
        // a took 1.5 times its fewest rounds: b is planned so; a fixed count is not.
        reporter.scaleTimingPlans(of: ["b"], by: 1.5)
        XCTAssertEqual(reporter.remainingSeconds(), 15 + 30 + 5, accuracy: 1e-9)
        // Never below the fewest rounds, which always run.
        reporter.scaleTimingPlans(of: ["b"], by: 0.5)
        XCTAssertEqual(reporter.remainingSeconds(), 15 + 20 + 5, accuracy: 1e-9)
    }

    /// Timers take what their ticks take however busy the machine is: a
    /// stage that waits for them is taken at its estimate until measured,
    /// and the computing stages' ratio (here 4, a busy machine) is neither
    /// laid on it nor diluted by its own.
    func testAStageThatWaitsForTimersKeepsItsEstimate() {
        var state = ProgressReporter.State()
        state.startTime = 0
        state.stages = [
            timing("observeOn.latency"): .init(planned: 10, estimatedDone: 10, actualDone: 40),
            timing("periodic.drift"): .init(planned: 100),
            timing("scale.timers"): .init(planned: 5),
        ]
        state.waitingForTimers = [timing("periodic.drift")]
        var remaining = ProgressReporter.remainingByStage(of: state, now: 40 * second, inner: nil)
        XCTAssertEqual(remaining.seconds, 100 + 5 * 4, accuracy: 1e-9)
        // Measured at its estimate, the drift stage does not lower the ratio the sweep borrows.
        state.stages[timing("periodic.drift")] = .init(planned: 100, estimatedDone: 50, actualDone: 50)
        remaining = ProgressReporter.remainingByStage(of: state, now: 90 * second, inner: nil)
        XCTAssertEqual(remaining.seconds, 50 + 5 * 4, accuracy: 1e-9)
    }

    func testTimeLeftIsEstimatedFromEachStagesOwnCostAndSaysWhenItIsAGuess() {
        var state = ProgressReporter.State()
        state.startTime = 0
        state.stages = [
            timing("observeOn.throughput"): .init(planned: 10),
            timing("periodic.drift"): .init(planned: 100),
        ]
        // Nothing measured yet: the plan, a guess.
        var remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 110, accuracy: 1e-9)
        XCTAssertTrue(remaining.isGuess)
        // Half the throughput stage done, at 4 times its estimate (5 estimated
        // seconds in 20 real ones): its rest costs 4 × 5; the drift stage,
        // not yet measured, is scaled by the run's ratio so far, a guess.
        state.stages[timing("observeOn.throughput")] = .init(planned: 10, estimatedDone: 5, actualDone: 20)
        remaining = ProgressReporter.remainingByStage(of: state, now: 20 * second, inner: nil)
        XCTAssertEqual(remaining.seconds, 20 + 100 * 4, accuracy: 1e-9)
        XCTAssertTrue(remaining.isGuess)
        XCTAssertEqual(ProgressReporter.formatRemaining(remaining), "~7m00s left (guess)")
        // Throughput done; 10 of drift's 100 estimated seconds took 10 real
        // ones: 90 left at its own ratio of 1, no longer a guess. (The
        // run-wide ratio, (40 real / 20 estimated), would say 180 s.)
        state.stages[timing("observeOn.throughput")] = .init(planned: 10, estimatedDone: 10, actualDone: 30)
        state.stages[timing("periodic.drift")] = .init(planned: 100, estimatedDone: 10, actualDone: 10)
        state.doneEstimate = 20
        state.totalEstimate = 110
        remaining = ProgressReporter.remainingByStage(of: state, now: 40 * second, inner: nil)
        XCTAssertEqual(remaining.seconds, 90, accuracy: 1e-9)
        XCTAssertFalse(remaining.isGuess)
        XCTAssertEqual(ProgressReporter.formatRemaining(remaining), "~1m30s left")
        XCTAssertEqual(ProgressReporter.remaining(of: state, now: 40 * second, inner: nil), 180, accuracy: 1e-9)
        // The running measurement counts toward its own stage.
        var running = step(estimatedSeconds: 20, startedAt: 40 * second)
        running.stage = timing("periodic.drift")
        state.step = running
        remaining = ProgressReporter.remainingByStage(
            of: state, now: 45 * second, inner: (done: 5, total: 10, unit: "ticks"))
        XCTAssertEqual(remaining.seconds, 80, accuracy: 1e-9)
    }

    /// The default run that said "~31m56s left" seven and a half minutes
    /// from its end: the latency stage's warm-ups, which also start each
    /// hop's session, took many times their estimate, and that ratio was
    /// laid on its repetitions. Warm-ups, repetitions and counting are
    /// stages of their own, and a stage not yet measured borrows the
    /// ratio of its own phase only.
    func testAWarmUpsCostDoesNotScaleTheRepetitionsToCome() {
        var state = ProgressReporter.State()
        state.startTime = 0
        state.stages = [
            .init(benchmark: "observeOn.latency", phase: .warmUp): .init(planned: 1, estimatedDone: 1, actualDone: 12),
            timing("observeOn.latency"): .init(planned: 20),
            .init(benchmark: "observeOn.latency", phase: .counting): .init(planned: 4),
        ]
        var remaining = ProgressReporter.remainingByStage(of: state, now: 12 * second, inner: nil)
        // As planned (no repetition or count measured yet), not 12 times it.
        XCTAssertEqual(remaining.seconds, 24, accuracy: 1e-9)
        XCTAssertTrue(remaining.isGuess)
        // A later benchmark's warm-ups borrow the warm-ups' ratio; its
        // repetitions, the repetitions' ratio.
        state.stages[timing("observeOn.latency")] = .init(planned: 20, estimatedDone: 20, actualDone: 10)
        state.stages[.init(benchmark: "periodic.drift", phase: .warmUp)] = .init(planned: 2)
        state.stages[timing("periodic.drift")] = .init(planned: 30)
        remaining = ProgressReporter.remainingByStage(of: state, now: 22 * second, inner: nil)
        XCTAssertEqual(remaining.seconds, 2 * 12 + 30 * 0.5 + 4, accuracy: 1e-9)
        XCTAssertTrue(remaining.isGuess)
    }

    func testAStatusLineSaysWhenItsTimeLeftIsAGuess() {
        let line = ProgressReporter.statusLine(step: step(), inner: nil, remainingSeconds: 65, isGuess: true, width: 140)
        XCTAssertTrue(line.contains("~1m05s left (guess)"), line)
        let sure = ProgressReporter.statusLine(step: step(), inner: nil, remainingSeconds: 65, width: 140)
        XCTAssertTrue(sure.contains("~1m05s left "), sure)
        XCTAssertFalse(sure.contains("guess"), sure)
    }

    func testMeasurementProgressCountsStepsAndForgetsThemOnReset() throws {
        let progress = MeasurementProgress()
        XCTAssertNil(progress.snapshot)
        progress.begin(total: 4, unit: "ticks")
        progress.advance()
        progress.advance(by: 2)
        let snapshot = try XCTUnwrap(progress.snapshot)
        XCTAssertEqual(snapshot.done, 3)
        XCTAssertEqual(snapshot.total, 4)
        XCTAssertEqual(snapshot.unit, "ticks")
        progress.advance(by: 5)
        XCTAssertEqual(progress.snapshot?.done, 4, "done never exceeds the total")
        progress.reset()
        XCTAssertNil(progress.snapshot)
    }

    func testTheDriftRecorderReportsEveryFireAsAStep() throws {
        let progress = MeasurementProgress()
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000, ticks: 10, progress: progress)
        XCTAssertEqual(progress.snapshot?.done, 0)
        XCTAssertEqual(progress.snapshot?.total, 10)
        recorder.tick()
        recorder.tick(fires: 3)
        XCTAssertEqual(progress.snapshot?.done, 4)
        XCTAssertEqual(progress.snapshot?.unit, "ticks")
    }

    func testFormatShowsMinutesAndSeconds() {
        XCTAssertEqual(ProgressReporter.format(seconds: 59.4), "59s")
        XCTAssertEqual(ProgressReporter.format(seconds: 61), "1m01s")
        XCTAssertEqual(ProgressReporter.format(seconds: 330), "5m30s")
    }

    /// A drift warm-up runs 10 ticks, not 5,000: counting it as a whole
    /// repetition would make the run look ten times faster than it is.
    func testWarmUpsAreEstimatedAtTheirOwnSize() throws {
        let plans = PeriodicDriftBenchmark().plans(for: .standard(recursionProbe: nil))
            .filter { $0.params.contains("ticks=5000") }
        XCTAssertFalse(plans.isEmpty)
        for plan in plans {
            XCTAssertLessThan(plan.warmUpEstimatedSeconds, plan.estimatedSeconds / 100, plan.identifier)
        }
        let plain = MeasurementPlan(
            benchmark: "b", variant: .library("v"), params: "", estimatedSeconds: 3, warmUp: { _ in }, measure: { _ in [] })
        XCTAssertEqual(plain.warmUpEstimatedSeconds, 3)
    }
}
