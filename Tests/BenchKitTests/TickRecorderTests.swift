@testable import BenchKit
import XCTest

final class TickRecorderTests: XCTestCase {
    func testMergedFiresAdvanceTheTickIndexSoLatenessIsAgainstTheRightDueTime() {
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000, ticks: 10)
        recorder.tick()
        recorder.tick(fires: 3)
        let indices = recorder.lateness.map(\.tick)
        XCTAssertEqual(indices, [1, 4])
    }

    func testSkippedTicksReportedByTheJobAdvanceTheTickIndex() {
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000, ticks: 10)
        recorder.skippedSource = { 5 }
        recorder.tick()
        XCTAssertEqual(recorder.lateness.map(\.tick), [6])
    }

    func testMarkStartMovesTheOriginSoSetUpTimeIsNotLateness() {
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000_000_000, ticks: 10)
        let now = MeasureContext.now()
        recorder.markStart(at: now)
        recorder.tick()
        let lateness = recorder.lateness[0].nanoseconds
        // Due at now + 1 s: a tick recorded right away is early, not
        // `now` nanoseconds late as it would be against the old origin.
        XCTAssertLessThan(lateness, 0)
        XCTAssertGreaterThan(lateness, -1_000_000_001)
    }

    func testTicksAfterTheLastAreIgnored() throws {
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000, ticks: 2)
        recorder.tick()
        recorder.tick()
        recorder.tick()
        XCTAssertEqual(recorder.lateness.count, 2)
        XCTAssertNoThrow(try recorder.wait(variant: "test"))
    }

    func testDriftMetricsComeFromTheRecordedLatenessAndSampleATrace() {
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000, ticks: 4)
        for _ in 0..<4 { recorder.tick() }
        let metrics = PeriodicDriftBenchmark.metrics(recorder: recorder, skipped: 0, traceSamples: 2)
        let names = metrics.map(\.metric.name)
        XCTAssertEqual(
            Array(names.prefix(5)), ["lateness_p50_us", "lateness_p99_us", "lateness_max_us", "final_drift_us", "skipped_ticks"])
        let trace = metrics.filter { $0.metric.name == "lateness_at_tick_us" }
        XCTAssertEqual(trace.map(\.extraParams), ["tick=2", "tick=4"])
        XCTAssertEqual(metrics.first { $0.metric.name == "skipped_ticks" }?.value, 0)
        XCTAssertEqual(
            metrics.first { $0.metric.name == "final_drift_us" }?.value,
            Double(recorder.lateness[3].nanoseconds) / 1000)
    }

    func testUnknowableSkipsAreLeftEmpty() throws {
        let recorder = TickRecorder(start: 0, periodNanoseconds: 1_000, ticks: 1)
        recorder.tick()
        let metrics = PeriodicDriftBenchmark.metrics(recorder: recorder, skipped: nil, traceSamples: 0)
        let skipped = try XCTUnwrap(metrics.first { $0.metric.name == "skipped_ticks" })
        XCTAssertNil(skipped.value)
    }
}
