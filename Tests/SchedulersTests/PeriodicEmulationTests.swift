import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import Schedulers
import SchedulersTesting

/// How long tick number `run` (counted from 0 over the ticks that ran) sleeps,
/// in ticks of a period of 10: mostly a fraction of a period, sometimes
/// exactly one or two periods (a due time equal to the end of the tick),
/// sometimes more than two periods.
private func sleepTicks(forRun run: Int) -> Int {
    if run % 97 == 13 { return 20 }
    if run % 53 == 7 { return 25 }
    if run % 31 == 5 { return 10 }
    if run % 17 == 3 { return 12 }
    return run % 10
}

private let period = 10
private let startAfter = 5
private let initialClock = 100
private let startTime = initialClock + startAfter

/// Where each run of a fixed-rate job should happen, by an independent model.
private struct FixedRateModel {
    var runTimes: [Int] = []
    var runTicks: [Int] = []
    var skipped = 0

    init(runs: Int, policy: MissedTickPolicy) {
        var now = startTime
        var tick = 0
        for run in 0..<runs {
            let due = startTime + tick * period
            let ranAt = max(now, due)
            runTimes.append(ranAt)
            runTicks.append(tick)
            now = ranAt + sleepTicks(forRun: run)
            tick += 1
            // The last run disposes the job, so what it missed is never counted.
            if policy == .skip, run + 1 < runs, startTime + tick * period < now {
                let firstNotPassed = (now - startTime + period - 1) / period
                skipped += firstNotPassed - tick
                tick = firstNotPassed
            }
        }
    }
}

final class PeriodicEmulationTests: XCTestCase {
    /// Runs a job with the late-running pattern until `runs` ticks ran.
    private func runLateJob(
        runs: Int,
        policy: MissedTickPolicy
    ) -> (times: [Int], states: [Int], skipped: Int) {
        let scheduler = TestScheduler(initialClock: initialClock)
        var times: [Int] = []
        var states: [Int] = []
        var job: PeriodicDisposable?
        job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .seconds(startAfter), period: .seconds(period), missedTicks: policy
        ) { run in
            times.append(scheduler.clock)
            states.append(run)
            scheduler.sleep(sleepTicks(forRun: run))
            if run + 1 == runs {
                job?.dispose()
                scheduler.stop()
            }
            return run + 1
        }
        scheduler.start()
        return (times, states, job?.skippedTicks ?? -1)
    }

    func testOnTimeTicksRunExactlyAtStartPlusKTimesPeriod() {
        let scheduler = TestScheduler(initialClock: initialClock)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            (), startAfter: .seconds(startAfter), period: .seconds(period)
        ) { _ in
            times.append(scheduler.clock)
        }
        scheduler.advanceTo(startTime + 99 * period)
        XCTAssertEqual(times, (0..<100).map { startTime + $0 * period })
        XCTAssertEqual(job.skippedTicks, 0)
        job.dispose()
    }

    func testLateTicksUnderSkipDoNotDriftOverTenThousandTicks() {
        let runs = 10_000
        let model = FixedRateModel(runs: runs, policy: .skip)
        let result = runLateJob(runs: runs, policy: .skip)
        XCTAssertEqual(result.states, Array(0..<runs), "each tick receives the state the previous one returned")
        XCTAssertEqual(result.times, model.runTimes)
        // Under .skip every tick that runs, runs exactly on the grid.
        for (time, tick) in zip(result.times, model.runTicks) {
            XCTAssertEqual(time, startTime + tick * period)
        }
        XCTAssertEqual(result.skipped, model.skipped)
        XCTAssertGreaterThan(model.skipped, 0, "the pattern must include missed ticks")
        // No drift: the last tick's due time is exactly start + k·period,
        // where k counts every tick that ran or was skipped.
        let lastTick = runs - 1 + result.skipped
        XCTAssertEqual(result.times.last, startTime + lastTick * period)
    }

    func testLateTicksUnderCatchUpRunBackToBackAndDoNotDriftOverTenThousandTicks() {
        let runs = 10_000
        let model = FixedRateModel(runs: runs, policy: .catchUp)
        let result = runLateJob(runs: runs, policy: .catchUp)
        XCTAssertEqual(result.states, Array(0..<runs))
        XCTAssertEqual(result.times, model.runTimes)
        XCTAssertEqual(result.skipped, 0)
        XCTAssertEqual(model.runTicks, Array(0..<runs), "catch-up runs every tick")
        var late = 0
        var previousEnd = Int.min
        for run in 0..<runs {
            let due = startTime + run * period
            if previousEnd <= due {
                XCTAssertEqual(result.times[run], due, "tick \(run) was not late, so it must run on time")
            } else {
                // A missed tick runs back to back with the one before it.
                XCTAssertEqual(result.times[run], previousEnd)
                late += 1
            }
            previousEnd = result.times[run] + sleepTicks(forRun: run)
        }
        XCTAssertGreaterThan(late, 0, "the pattern must include late ticks")
        let lastDue = startTime + (runs - 1) * period
        XCTAssertEqual(result.times.last, lastDue, "the last tick is on time: lateness never became drift")
    }

    func testTickLateBecauseTheSchedulerWasBusyKeepsTheNextTickOnTime() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            (), startAfter: .seconds(10), period: .seconds(10)
        ) { _ in
            times.append(scheduler.clock)
        }
        // Something else occupies the scheduler from 19 to 26: tick 1 (due 20) runs at 26.
        scheduler.scheduleAt(19) {
            scheduler.sleep(7)
        }
        scheduler.advanceTo(50)
        XCTAssertEqual(times, [10, 26, 30, 40, 50])
        job.dispose()
    }

    func testSkippedTicksCountOnlyDueTimesAlreadyPassed() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .seconds(10), period: .seconds(10), missedTicks: .skip
        ) { run in
            times.append(scheduler.clock)
            // Run 0 ends at 45: ticks due at 20, 30, 40 are missed, 50 is not.
            // Run 1 ends at 70 exactly: tick due at 60 missed, 70 runs at once.
            if run == 0 { scheduler.sleep(35) }
            if run == 1 { scheduler.sleep(20) }
            return run + 1
        }
        scheduler.advanceTo(90)
        XCTAssertEqual(times, [10, 50, 70, 80, 90])
        XCTAssertEqual(job.skippedTicks, 4)
        job.dispose()
    }

    func testCatchUpRunsMissedTicksImmediatelyAndCountsNoSkips() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .seconds(10), period: .seconds(10), missedTicks: .catchUp
        ) { run in
            times.append(scheduler.clock)
            if run == 0 { scheduler.sleep(35) }
            return run + 1
        }
        scheduler.advanceTo(70)
        // Ticks due at 20, 30 and 40 run at once at 45; then 50, 60, 70 on time.
        XCTAssertEqual(times, [10, 45, 45, 45, 50, 60, 70])
        XCTAssertEqual(job.skippedTicks, 0)
        job.dispose()
    }

    func testDisposeStopsFurtherTicksAndReleasesTheJob() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        weak var weakState: LifetimeToken?
        weak var weakCaptured: LifetimeToken?
        var job: PeriodicDisposable?
        do {
            let state = LifetimeToken()
            let captured = LifetimeToken()
            weakState = state
            weakCaptured = captured
            job = scheduler.schedulePeriodicEmulated(state, startAfter: .seconds(10), period: .seconds(10)) { state in
                _ = captured
                times.append(scheduler.clock)
                return state
            }
        }
        scheduler.scheduleAt(35) {
            job?.dispose()
        }
        scheduler.advanceTo(200)
        XCTAssertEqual(times, [10, 20, 30])
        XCTAssertEqual(job?.isDisposed, true)
        XCTAssertEqual(scheduler.queuedCount, 0, "the pending tick must leave the queue")
        XCTAssertNil(weakState, "dispose releases the state")
        XCTAssertNil(weakCaptured, "dispose releases the action")
    }

    func testDisposingFromInsideTheActionFinishesTheTickAndStopsCatchUp() {
        let scheduler = TestScheduler(initialClock: 0)
        var runs = 0
        var job: PeriodicDisposable?
        job = scheduler.schedulePeriodicEmulated(
            (), startAfter: .seconds(10), period: .seconds(10), missedTicks: .catchUp
        ) { _ in
            runs += 1
            if runs == 1 {
                // Three ticks are now missed; disposing must prevent all of them.
                scheduler.sleep(35)
                job?.dispose()
            }
        }
        scheduler.advanceTo(100)
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(scheduler.queuedCount, 0)
    }

    func testDisposingBeforeTheFirstTickMeansNoTickRuns() {
        let scheduler = TestScheduler(initialClock: 0)
        var runs = 0
        let job = scheduler.schedulePeriodicEmulated((), startAfter: .seconds(10), period: .seconds(10)) { _ in
            runs += 1
        }
        job.dispose()
        job.dispose()
        scheduler.advanceTo(100)
        XCTAssertEqual(runs, 0)
        XCTAssertTrue(job.isDisposed)
    }

    func testNegativeStartAfterRunsTheFirstTickAtTheCurrentClock() {
        let scheduler = TestScheduler(initialClock: 50, simulateProcessingDelay: false)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated((), startAfter: .seconds(-5), period: .seconds(10)) { _ in
            times.append(scheduler.clock)
        }
        scheduler.advanceTo(70)
        XCTAssertEqual(times, [50, 60, 70])
        job.dispose()
    }

    func testProcessingDelayMovesAnImmediateFirstTickAndTheGridStartsThereLikeRxSwift() {
        // With simulateProcessingDelay, work due now runs one tick later; a
        // first tick due at once runs then, and the grid starts there, as
        // RxSwift's periodic emulation (each tick a period after the one
        // before) does on RxTest's TestScheduler: never two ticks at 51.
        let scheduler = TestScheduler(initialClock: 50)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated((), startAfter: .seconds(0), period: .seconds(10)) { _ in
            times.append(scheduler.clock)
        }
        scheduler.advanceTo(90)
        XCTAssertEqual(times, [51, 61, 71, 81])
        XCTAssertEqual(job.skippedTicks, 0)
        job.dispose()
    }

    func testProcessingDelayLeavesAFirstTickDueLaterOnTheGridOfTheCall() {
        let scheduler = TestScheduler(initialClock: 50)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated((), startAfter: .seconds(5), period: .seconds(10)) { _ in
            times.append(scheduler.clock)
        }
        scheduler.advanceTo(90)
        XCTAssertEqual(times, [55, 65, 75, 85])
        job.dispose()
    }

    func testNeverStartAfterNeverTicks() {
        let scheduler = TestScheduler(initialClock: 0)
        var runs = 0
        let job = scheduler.schedulePeriodicEmulated((), startAfter: .never, period: .seconds(1)) { _ in
            runs += 1
        }
        scheduler.advanceTo(1_000)
        XCTAssertEqual(runs, 0)
        XCTAssertEqual(scheduler.queuedCount, 0)
        job.dispose()
        XCTAssertTrue(job.isDisposed)
    }

    func testDefaultSchedulePeriodicIsTheEmulationWithBoundedCatchUp() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let disposable = scheduler.schedulePeriodic(0, startAfter: .seconds(10), period: .seconds(10)) { run in
            times.append(scheduler.clock)
            if run == 0 { scheduler.sleep(25) }
            return run + 1
        }
        scheduler.advanceTo(60)
        // Run 0 ends at 35: the ticks due at 20 and 30 are a short backlog,
        // caught up at once; then 40, 50, 60 on time.
        XCTAssertEqual(times, [10, 35, 35, 40, 50, 60])
        XCTAssertEqual((disposable as? PeriodicDisposable)?.skippedTicks, 0)
        disposable.dispose()
    }

    func testDefaultSchedulePeriodicSkipsAStallBeyondTheBound() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let disposable = scheduler.schedulePeriodic(0, startAfter: .seconds(10), period: .seconds(10)) { run in
            times.append(scheduler.clock)
            // Ends at 125: eleven due times (20 ... 120) passed, more than ten.
            if run == 0 { scheduler.sleep(115) }
            return run + 1
        }
        scheduler.advanceTo(140)
        XCTAssertEqual(times, [10, 130, 140])
        XCTAssertEqual((disposable as? PeriodicDisposable)?.skippedTicks, 11)
        disposable.dispose()
    }

    func testReferenceSpellingOfSchedulePeriodicUsesTheEmulation() {
        let scheduler = TestScheduler(initialClock: 0)
        var count = 0
        let disposable = scheduler.schedulePeriodic(state: 0, startAfter: .seconds(1), period: .seconds(2)) { state in
            count += 1
            return state + 1
        }
        scheduler.advanceTo(7)
        XCTAssertEqual(count, 4)
        disposable.dispose()
    }

    func testSubSecondPeriodsLandExactlyOnTicksWithFineResolution() {
        // One tick is a millisecond.
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            (), startAfter: .milliseconds(3), period: .milliseconds(7)
        ) { _ in
            times.append(scheduler.clock)
            scheduler.sleep(2)
        }
        scheduler.advanceTo(3 + 7 * 999)
        XCTAssertEqual(times, (0..<1_000).map { 3 + 7 * $0 })
        job.dispose()
    }

    func testZeroPeriodTicksOncePerVirtualTickLikeRxSwift() {
        // A zero period has no grid: each tick is scheduled with a zero delay
        // once the previous one returned; TestScheduler's processing delay
        // puts it one virtual tick later.
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(0, startAfter: .seconds(1), period: .seconds(0)) { run in
            times.append(scheduler.clock)
            if run == 2 { scheduler.sleep(5) }
            return run + 1
        }
        scheduler.advanceTo(12)
        XCTAssertEqual(times, [1, 2, 3, 9, 10, 11, 12])
        XCTAssertEqual(job.skippedTicks, 0)
        job.dispose()
    }

    func testTicksOnAConcurrentSchedulerNeverOverlapAndNoneStartsAfterDispose() {
        let scheduler = ConcurrentAfterScheduler()
        let state = TickObservations()
        let enoughTicks = expectation(description: "enough ticks ran")
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .nanoseconds(0), period: .microseconds(200), missedTicks: .catchUp
        ) { run in
            state.tickStarted()
            // Take longer than a period now and then, so catch-up and
            // rescheduling race with the timer threads.
            if run % 3 == 0 {
                usleep(300)
            }
            state.tickEnded()
            if run == 60 {
                enoughTicks.fulfill()
            }
            return run + 1
        }
        wait(for: [enoughTicks], timeout: 20)
        job.dispose()
        state.markDisposed()
        // Give a stray tick every chance to show up.
        usleep(20_000)
        XCTAssertEqual(state.overlaps, 0, "ticks of one job overlapped")
        // The job's start check runs under its lock just before the action;
        // a tick that passed it before dispose() returned may reach its first
        // line afterwards. Ticks never overlap, so at most one can.
        XCTAssertLessThanOrEqual(state.startsAfterDispose, 1, "ticks started after dispose() returned")
        let settled = state.startsAfterDispose
        usleep(20_000)
        XCTAssertEqual(state.startsAfterDispose, settled, "ticks kept starting after dispose() returned")
    }
}

/// Records tick entry and exit from any thread.
private final class TickObservations: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private var disposed = false
    private var overlapCount = 0
    private var lateStarts = 0

    var overlaps: Int { lock.withLock { overlapCount } }
    var startsAfterDispose: Int { lock.withLock { lateStarts } }

    func tickStarted() {
        lock.lock()
        if inside > 0 { overlapCount += 1 }
        if disposed { lateStarts += 1 }
        inside += 1
        lock.unlock()
    }

    func tickEnded() {
        lock.lock()
        inside -= 1
        lock.unlock()
    }

    func markDisposed() {
        lock.lock()
        disposed = true
        lock.unlock()
    }
}

/// A minimal concurrent scheduler over the global dispatch queue, with no
/// native periodic timer, so `schedulePeriodicEmulated` is exercised with
/// real threads.
private final class ConcurrentAfterScheduler: Scheduler, @unchecked Sendable {
    var now: RxTime { Date() }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let cancelled = BooleanDisposable()
        let work = UnsafeTransfer((state, action))
        DispatchQueue.global().asyncAfter(deadline: .now() + dueTime) {
            guard !cancelled.isDisposed else { return }
            _ = work.value.1(work.value.0)
        }
        return cancelled
    }
}
