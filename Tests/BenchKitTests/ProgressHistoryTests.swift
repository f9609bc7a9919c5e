@testable import BenchKit
import Foundation
import XCTest

/// The time left takes each stage at what it cost against its plan in the
/// last run of the suite here, and a run records that for the next.
final class ProgressHistoryTests: XCTestCase {
    private func timing(_ benchmark: String) -> ProgressReporter.Stage {
        ProgressReporter.Stage(benchmark: benchmark, phase: .timing)
    }

    private func counting(_ benchmark: String) -> ProgressReporter.Stage {
        ProgressReporter.Stage(benchmark: benchmark, phase: .counting)
    }

    /// The busy queue's floods are planned at 3 times what they take, the
    /// latency's repetitions at half: borrowing the latency's ratio, the
    /// busy queue's 30 planned seconds were 60 (a guess); at its own ratio
    /// from the last run they are 10, and no guess.
    func testAStageNotYetMeasuredIsTakenAtItsRatioFromTheLastRun() {
        var state = ProgressReporter.State()
        state.startTime = 0
        state.stages = [
            timing("observeOn.latency"): .init(planned: 10, estimatedDone: 10, actualDone: 20),
            timing("observeOn.busyQueue"): .init(planned: 30),
        ]
        var remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 60, accuracy: 1e-9)
        XCTAssertTrue(remaining.isGuess)
        state.stages[timing("observeOn.busyQueue")]?.priorRatio = 1.0 / 3
        remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 10, accuracy: 1e-9)
        XCTAssertFalse(remaining.isGuess)
        // Once measured, its own ratio of this run: half of it at twice the plan.
        state.stages[timing("observeOn.busyQueue")] = .init(planned: 30, estimatedDone: 15, actualDone: 30, priorRatio: 1.0 / 3)
        remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 30, accuracy: 1e-9)
    }

    /// The recorded ratios come from the run committed with the repository,
    /// on another machine: a machine that takes twice what the record says
    /// of the stages measured so far takes twice its record of the stages to
    /// come; a stage waiting for timers keeps its record.
    func testRecordedRatiosAreScaledByThisMachinesPaceAgainstTheRecord() {
        var state = ProgressReporter.State()
        state.stages = [
            timing("a"): .init(planned: 10, estimatedDone: 10, actualDone: 10, priorRatio: 0.5),
            timing("b"): .init(planned: 10, priorRatio: 0.25),
            timing("periodic.drift"): .init(planned: 30, priorRatio: 1),
        ]
        state.waitingForTimers = [timing("periodic.drift")]
        // One stage measured, at twice its record: the pace is shrunk
        // toward 1 until more stages agree (√2), then moves toward 2.
        var remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 10 * 0.25 * 2.0.squareRoot() + 30, accuracy: 1e-9)
        XCTAssertFalse(remaining.isGuess)
        XCTAssertEqual(ProgressReporter.pace(of: [2, 2, 2]), pow(2, 0.75), accuracy: 1e-12)
        XCTAssertEqual(ProgressReporter.pace(of: Array(repeating: 2, count: 19)), pow(2, 0.95), accuracy: 1e-12)
        // Nothing with a record measured yet: the records as they are.
        state.stages[timing("a")] = .init(planned: 10, priorRatio: 0.5)
        remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 10 * 0.5 + 10 * 0.25 + 30, accuracy: 1e-9)
        // A measured stage without a record says nothing of the pace.
        state.stages[timing("c")] = .init(planned: 5, estimatedDone: 5, actualDone: 50)
        remaining = ProgressReporter.remainingByStage(of: state, now: 0, inner: nil)
        XCTAssertEqual(remaining.seconds, 10 * 0.5 + 10 * 0.25 + 30, accuracy: 1e-9)
    }


    /// One long stage that overran its record (an adaptive benchmark took
    /// more rounds than in the recorded run, as `observeOn.latency` did:
    /// 70 s against about 40) does not set the pace of every stage to come
    /// once the stages after it ran at their records: the pace is the
    /// stages' median, not their summed seconds'. Summed, the 70 s would
    /// have made the stages to come 1.6 times their records.
    func testOneLongStageThatOverranDoesNotSetThePaceOfTheRest() {
        var state = ProgressReporter.State()
        state.stages = [
            timing("long"): .init(planned: 40, estimatedDone: 40, actualDone: 70, priorRatio: 1),
            timing("b"): .init(planned: 2, estimatedDone: 2, actualDone: 2, priorRatio: 1),
            timing("c"): .init(planned: 3, estimatedDone: 3, actualDone: 3, priorRatio: 1),
            timing("d"): .init(planned: 5, estimatedDone: 5, actualDone: 5, priorRatio: 1),
            timing("next"): .init(planned: 100, priorRatio: 1),
        ]
        XCTAssertEqual(ProgressReporter.remainingByStage(of: state, now: 0, inner: nil).seconds, 100, accuracy: 1e-9)
        XCTAssertEqual(ProgressReporter.pace(of: [1.75, 1, 1, 1]), 1, accuracy: 1e-12)
        XCTAssertEqual(ProgressReporter.pace(of: []), 1)
    }

    /// A benchmark the run will time again after the suite (its hops missed
    /// their usual level) is no stage of the suite's: reserved at what its
    /// first timing took, it is in every time left from then on, the
    /// suite's last lines included, where it was left out (a run whose
    /// last minute said "~2s left").
    func testWorkReservedAfterTheStagesIsInEveryTimeLeft() {
        var state = ProgressReporter.State()
        state.stages = [timing("a"): .init(planned: 10, estimatedDone: 10, actualDone: 10, priorRatio: 1)]
        XCTAssertEqual(ProgressReporter.remainingByStage(of: state, now: 0, inner: nil).seconds, 0, accuracy: 1e-9)
        state.secondsAfterStages = 45
        XCTAssertEqual(ProgressReporter.remainingByStage(of: state, now: 0, inner: nil).seconds, 45, accuracy: 1e-9)
        state.stages[timing("b")] = .init(planned: 20, priorRatio: 0.5)
        XCTAssertEqual(ProgressReporter.remainingByStage(of: state, now: 0, inner: nil).seconds, 55, accuracy: 1e-9)

        let reporter = ProgressReporter(style: .silent)
        reporter.reserveAfterStages(seconds: 30)
        reporter.reserveAfterStages(seconds: .nan)
        reporter.begin(stageEstimates: [timing("c"): 8])
        XCTAssertEqual(reporter.remainingSeconds(), 8 + 30, accuracy: 1e-9, "reserved before begin, kept by it")
    }
    /// The history is kept in the results folder, one file per suite.
    func testTheHistoryIsKeptInTheResultsFolderPerSuite() {
        XCTAssertEqual(ProgressHistory.path(suite: "standard", in: "results"), "results/progress-standard.json")
        XCTAssertEqual(ProgressHistory.path(suite: "quick", in: "/tmp/out/"), "/tmp/out/progress-quick.json")
    }

    /// A run records each stage it measured, and the counting stages a child
    /// measured at the child's seconds over their plan; `begin` lays them on.
    func testARunRecordsItsStagesAndTheNextRunBeginsWithThem() throws {
        var state = ProgressReporter.State()
        state.stages = [
            timing("a"): .init(planned: 10, estimatedDone: 10, actualDone: 5),
            counting("a"): .init(planned: 4),
            counting("b"): .init(planned: 6),
        ]
        let history = ProgressReporter.history(of: state, countedElsewhere: 5)
        XCTAssertEqual(history.ratio(of: timing("a")), 0.5)
        XCTAssertEqual(history.ratio(of: counting("a")), 0.5, "5 real seconds for the 10 planned")
        XCTAssertEqual(history.ratio(of: counting("b")), 0.5)
        XCTAssertNil(ProgressReporter.history(of: state, countedElsewhere: nil).ratio(of: counting("a")))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/history.json"
        XCTAssertNil(ProgressHistory.load(path: path), "no file: no history")
        XCTAssertTrue(history.save(path: path))
        XCTAssertEqual(ProgressHistory.load(path: path), history)
        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNil(ProgressHistory.load(path: path), "a file that cannot be read is no history")
        XCTAssertFalse(history.save(path: directory + "/missing/history.json"))

        let next = ProgressReporter(style: .silent)
        next.begin(stageEstimates: [timing("c"): 8, counting("b"): 6], history: history)
        XCTAssertEqual(next.remainingSeconds(), 8 + 3, accuracy: 1e-9, "c unrecorded at its plan, b at its ratio")
        // A run moves each stage it measured halfway to its own ratio (on a
        // log scale: 0.5 and 2 average to 1), records a new stage as it
        // found it, and keeps the stages it did not measure (a filtered run).
        let merged = history.updated(with: ProgressHistory(ratios: [counting("b"): 2, timing("d"): 3]))
        XCTAssertEqual(try XCTUnwrap(merged.ratio(of: counting("b"))), 1, accuracy: 1e-12)
        XCTAssertEqual(merged.ratio(of: timing("d")), 3)
        XCTAssertEqual(merged.ratio(of: counting("a")), 0.5)
        // The instruction pass's own seconds (a run without a counting
        // child) average the same way, and survive a run that did not record them.
        var instructions = ProgressHistory()
        instructions.instructionSeconds = 8
        var averaged = merged.updated(with: instructions)
        XCTAssertEqual(averaged.instructionSeconds, 8)
        instructions.instructionSeconds = 2
        averaged = averaged.updated(with: instructions)
        XCTAssertEqual(try XCTUnwrap(averaged.instructionSeconds), 4, accuracy: 1e-12)
        XCTAssertEqual(averaged.updated(with: ProgressHistory()).instructionSeconds, 4)
        XCTAssertTrue(averaged.save(path: path))
        XCTAssertEqual(ProgressHistory.load(path: path), averaged)
        try #"{"ratios": {"a|timing": 0.5}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(ProgressHistory.load(path: path)?.ratio(of: timing("a")), 0.5, "a file without it still reads")
    }
}
