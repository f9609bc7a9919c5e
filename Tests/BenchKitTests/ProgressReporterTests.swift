@testable import BenchKit
import XCTest

final class ProgressReporterTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    private func step(estimatedSeconds: Double = 10, startedAt: UInt64 = 0) -> ProgressReporter.Step {
        ProgressReporter.Step(
            benchmark: "periodic.drift", variant: "serial-dispatch.native", params: "period_ms=1;ticks=10000",
            phase: "repetition 2/5", estimatedSeconds: estimatedSeconds, startedAt: startedAt)
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
        plain.params = ""
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

    /// A drift warm-up runs 10 ticks, not 10,000: counting it as a whole
    /// repetition would make the run look ten times faster than it is.
    func testWarmUpsAreEstimatedAtTheirOwnSize() throws {
        let plans = PeriodicDriftBenchmark().plans(for: .standard(recursionProbe: nil))
            .filter { $0.params.contains("ticks=10000") }
        XCTAssertFalse(plans.isEmpty)
        for plan in plans {
            XCTAssertLessThan(plan.warmUpEstimatedSeconds, plan.estimatedSeconds / 100, plan.identifier)
        }
        let plain = MeasurementPlan(
            benchmark: "b", variant: .library("v"), params: "", estimatedSeconds: 3, warmUp: { _ in }, measure: { _ in [] })
        XCTAssertEqual(plain.warmUpEstimatedSeconds, 3)
    }
}
