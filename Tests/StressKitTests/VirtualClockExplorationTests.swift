import Dispatch
import Synchronization
import XCTest
@testable import StressKit

/// What the clock read in one schedule of `exploreClock`.
private struct ClockRun: Equatable {
    /// Party 0's reads: at its start, after two sync points, after arming.
    var partyReads: [UInt64] = []
    /// Party 1's reads, one per sync point it passed.
    var otherReads: [UInt64] = []
    /// What each run of the timer's handler read, in order.
    var handlerReads: [UInt64] = []
    var choices: [Int] = []
}

/// Party 0 reads the clock, passes two sync points, reads it again, arms a
/// timer (first deadline `period` after its first read, then every `period`
/// when `repeating`), passes a sync point and reads once more; party 1 reads
/// the clock at each of three sync points. The handler reads the clock.
private func exploreClock<Strategy: ExplorationStrategy>(
    repeating: Bool, limit: Int = 300, strategy: inout Strategy
) -> [ClockRun] {
    let period: UInt64 = 20_000
    let queue = DispatchQueue(label: "test.clock")
    let controller = ScheduleController(parties: 2, workers: 3)
    defer { controller.stop() }
    var runs: [ClockRun] = []
    while runs.count < limit, strategy.beginSchedule() {
        let run = Mutex(ClockRun())
        let (choices, end) = controller.run({ party in
            guard party == 0 else {
                for _ in 0..<3 {
                    Exploration.syncPoint(.atomicLoad)
                    let now = Exploration.uptimeNanoseconds()
                    run.withLock { $0.otherReads.append(now) }
                }
                return
            }
            let start = Exploration.uptimeNanoseconds()
            Exploration.syncPoint(.atomicUpdate)
            Exploration.syncPoint(.atomicUpdate)
            let later = Exploration.uptimeNanoseconds()
            _ = controller.armTimer(
                from: 0, queue: queue, repeating: repeating,
                deadlineNanoseconds: start + period, intervalNanoseconds: repeating ? period : 0
            ) {
                let now = Exploration.uptimeNanoseconds()
                run.withLock { $0.handlerReads.append(now) }
            }
            Exploration.syncPoint(.atomicUpdate)
            let last = Exploration.uptimeNanoseconds()
            run.withLock { $0.partyReads = [start, later, last] }
        }, chooser: &strategy)
        XCTAssertEqual(end, .completed)
        strategy.endSchedule(steps: choices.count)
        var finished = run.withLock { $0 }
        finished.choices = choices
        runs.append(finished)
    }
    return runs
}

private func exploreClockUnderEveryStrategy(repeating: Bool) -> [(String, [ClockRun])] {
    var random = RandomStrategy(seed: 4)
    var pct = PCTStrategy(threads: 5, depth: 3, seed: 4)
    var exhaustive = ExhaustiveStrategy(preemptionBound: 2)
    return [
        ("random", exploreClock(repeating: repeating, strategy: &random)),
        ("pct", exploreClock(repeating: repeating, strategy: &pct)),
        ("exhaustive", exploreClock(repeating: repeating, strategy: &exhaustive)),
    ]
}

final class VirtualClockExplorationTests: XCTestCase {
    private let epoch = ScheduleController.virtualEpochNanoseconds
    private let period: UInt64 = 20_000

    func testTheVirtualClockMovesOnlyWhenAVirtualTimerFiresToItsDeadline() {
        for repeating in [false, true] {
            for (label, runs) in exploreClockUnderEveryStrategy(repeating: repeating) {
                let context = "\(label), repeating \(repeating)"
                XCTAssertGreaterThan(runs.count, 5, context)
                for run in runs {
                    // No timer fired before party 0 armed one: every step so far left the clock at the epoch.
                    XCTAssertEqual(Array(run.partyReads.prefix(2)), [epoch, epoch], context)
                    // Each fire moved the clock to its tick's deadline, and nothing else moved it.
                    let ticks = repeating ? ScheduleController.maximumRepeatingFires : 1
                    let deadlines = (1...UInt64(ticks)).map { epoch + $0 * period }
                    XCTAssertEqual(run.handlerReads, deadlines, context)
                    let seen = [epoch] + deadlines
                    XCTAssertTrue(run.otherReads.allSatisfy(seen.contains), "\(context): \(run.otherReads)")
                    XCTAssertTrue(seen.contains(run.partyReads[2]), context)
                    XCTAssertEqual(run.otherReads, run.otherReads.sorted(), "\(context): the clock never goes back")
                }
                // The schedule decides whether the fire comes before the last read.
                XCTAssertTrue(runs.contains { $0.partyReads[2] == epoch }, context)
                XCTAssertTrue(runs.contains { $0.partyReads[2] > epoch }, context)
            }
        }
    }

    func testThreadsNoControllerRunsSeeTheRealClock() {
        let before = DispatchTime.now().uptimeNanoseconds
        let read = Exploration.uptimeNanoseconds()
        XCTAssertGreaterThanOrEqual(read, before)
        XCTAssertLessThanOrEqual(read, DispatchTime.now().uptimeNanoseconds)
    }

    func testAControllerWithoutWorkersLeavesTheRealClock() {
        let controller = ScheduleController(parties: 1)
        defer { controller.stop() }
        var chooser = RandomStrategy(seed: 1)
        _ = chooser.beginSchedule()
        let read = Mutex<(before: UInt64, read: UInt64, after: UInt64)>((0, 0, 0))
        let (_, end) = controller.run({ _ in
            let before = DispatchTime.now().uptimeNanoseconds
            let now = Exploration.uptimeNanoseconds()
            read.withLock { $0 = (before, now, DispatchTime.now().uptimeNanoseconds) }
        }, chooser: &chooser)
        XCTAssertEqual(end, .completed)
        let seen = read.withLock { $0 }
        XCTAssertTrue(seen.before <= seen.read && seen.read <= seen.after, "\(seen)")
    }

    func testAScheduleReadsTheSameTimesInAHundredReplays() {
        var random = RandomStrategy(seed: 12)
        let explored = exploreClock(repeating: true, strategy: &random)
        guard let sample = explored.first(where: { $0.partyReads[2] > epoch }) else {
            return XCTFail("no schedule fired the timer before party 0's last read")
        }
        for _ in 0..<100 {
            var replay = ReplayStrategy(sample.choices)
            let again = exploreClock(repeating: true, limit: 1, strategy: &replay)
            XCTAssertEqual(again.first, sample)
        }
    }
}
