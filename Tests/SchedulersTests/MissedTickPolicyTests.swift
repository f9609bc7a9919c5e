import Foundation
import Testing

@testable import Schedulers
import SchedulersTesting

/// A user-style scheduler on virtual time that runs every action late: each
/// relative schedule lands `0...maxLateness` virtual ticks after its due
/// time (seeded), as a real timer with leeway and wake-up latency would.
/// One virtual tick is a microsecond.
private final class LateVirtualScheduler: Scheduler, @unchecked Sendable {
    let base = TestScheduler(initialClock: 0, resolution: 1e-6, simulateProcessingDelay: false)
    private var generator: SeededGenerator
    private let maxLateness: Int

    init(seed: UInt64, maxLatenessTicks: Int) {
        generator = SeededGenerator(seed: seed)
        maxLateness = maxLatenessTicks
    }

    var now: RxTime { base.now }
    var monotonicNanoseconds: UInt64 { base.monotonicNanoseconds }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let nanoseconds = dueTime.dueNanoseconds else { return Disposables.create() }
        let late = Int.random(in: 0...maxLateness, using: &generator)
        let ticks = Int((nanoseconds + 500) / 1_000)
        return base.scheduleRelativeVirtual(state, dueTime: ticks + late, action: action)
    }
}

@Suite struct MissedTickPolicyTests {
    /// Period 1 ms = 1,000 virtual ticks of 1 µs.
    private let periodTicks = 1_000

    /// Runs `runs` ticks on a scheduler that is up to `maxLatenessTicks` late
    /// each time; returns each run's lateness in virtual ticks (its time minus
    /// its tick's due time, where the tick is the run's index plus the ticks
    /// skipped so far) and the skipped count.
    private func runOnLateScheduler(
        runs: Int, maxLatenessTicks: Int, seed: UInt64, policy: MissedTickPolicy
    ) -> (lateness: [Int], skipped: Int, ticks: [Int]) {
        let scheduler = LateVirtualScheduler(seed: seed, maxLatenessTicks: maxLatenessTicks)
        let start = periodTicks  // startAfter one period, from clock 0
        var lateness: [Int] = []
        var ticks: [Int] = []
        var job: PeriodicDisposable?
        job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .milliseconds(1), period: .milliseconds(1), missedTicks: policy
        ) { run in
            let skipped = job?.skippedTicks ?? 0
            let tick = run + skipped
            ticks.append(tick)
            lateness.append(scheduler.base.clock - (start + tick * self.periodTicks))
            if run + 1 == runs {
                job?.dispose()
            }
            return run + 1
        }
        scheduler.base.start()
        return (lateness, job?.skippedTicks ?? -1, ticks)
    }

    @Test(.tags(.guarantee6))
    func defaultCatchesUpATimerUpToOneAndAHalfPeriodsLateOverTenThousandTicks() {
        let runs = 10_000
        let maxLate = periodTicks * 3 / 2
        let result = runOnLateScheduler(runs: runs, maxLatenessTicks: maxLate, seed: 2026, policy: .default)
        #expect(result.skipped == 0, "a timer at most 1.5 periods late must never lose a tick")
        #expect(result.ticks == Array(0..<runs), "every tick ran, in order")
        #expect(result.lateness.count == runs)
        #expect(result.lateness.min() ?? -1 >= 0, "no tick runs early")
        #expect(result.lateness.max() ?? .max <= maxLate, "lateness never accumulates beyond the scheduler's own")
        #expect(result.lateness.filter { $0 > periodTicks }.count > 0, "the pattern must include ticks more than a period late")
        let finalLateness = result.lateness.suffix(100)
        let meanFinal = finalLateness.reduce(0, +) / finalLateness.count
        #expect(meanFinal < periodTicks, "after 10,000 ticks the job is on average less than a period late")
    }

    @Test
    func skipLosesTicksOnTheSameLateScheduler() {
        // The same scheduler under `.skip`: the ticks the default keeps are the
        // ones `.skip` loses, which is why `.skip` is no longer the default.
        let result = runOnLateScheduler(
            runs: 10_000, maxLatenessTicks: periodTicks * 3 / 2, seed: 2026, policy: .skip
        )
        #expect(result.skipped > 1_000)
    }

    @Test(.tags(.guarantee6))
    func aStallOfAThousandPeriodsIsSkippedAndCountedNotReplayed() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .seconds(10), period: .seconds(10)
        ) { run in
            times.append(scheduler.clock)
            // Tick 2 (due at 30) stalls for 1,000 periods: it returns at 10,030.
            if run == 2 { scheduler.sleep(10_000) }
            return run + 1
        }
        scheduler.advanceTo(10_060)
        // Ticks due at 40 ... 10,020 (999 of them) passed during the stall:
        // all are dropped; tick due at 10,030 is due now and runs at once.
        #expect(times == [10, 20, 30, 10_030, 10_040, 10_050, 10_060])
        #expect(job.skippedTicks == 999)
        // Back to back means at the same virtual time: at most the bound (here
        // none of the backlog, only the tick due now) ran at 10,030.
        #expect(times.filter { $0 == 10_030 }.count <= 10)
        job.dispose()
    }

    @Test
    func aBacklogOfExactlyMaxTicksIsCaughtUpAndOneMoreIsSkipped() {
        func run(sleep: Int) -> (times: [Int], skipped: Int) {
            let scheduler = TestScheduler(initialClock: 0)
            var times: [Int] = []
            let job = scheduler.schedulePeriodicEmulated(
                0, startAfter: .seconds(10), period: .seconds(10),
                missedTicks: .boundedCatchUp(maxTicks: 3, maxDuration: .seconds(5))
            ) { run in
                times.append(scheduler.clock)
                if run == 0 { scheduler.sleep(sleep) }
                return run + 1
            }
            scheduler.advanceTo(60)
            job.dispose()
            return (times, job.skippedTicks)
        }
        // Tick 0 runs at 10 and returns at 45: ticks due 20, 30, 40 (three) passed.
        let three = run(sleep: 35)
        #expect(three.times == [10, 45, 45, 45, 50, 60])
        #expect(three.skipped == 0)
        // Returns at 55: four passed (20 ... 50), the oldest 35 s overdue: a stall.
        let four = run(sleep: 45)
        #expect(four.times == [10, 60])
        #expect(four.skipped == 4)
    }

    @Test
    func aBacklogWithinMaxDurationIsCaughtUpHoweverManyTicks() {
        // Period 1 tick, bound 2 ticks or 50 ticks: a 30-tick backlog is short in time.
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .seconds(1), period: .seconds(1),
            missedTicks: .boundedCatchUp(maxTicks: 2, maxDuration: .seconds(50))
        ) { run in
            times.append(scheduler.clock)
            if run == 0 { scheduler.sleep(30) }
            return run + 1
        }
        scheduler.advanceTo(40)
        // Tick 0 at 1 returns at 31: ticks due 2 ... 30 (29) run at 31, then 31 ... 40.
        #expect(times == [1] + Array(repeating: 31, count: 29) + Array(31...40))
        #expect(job.skippedTicks == 0)
        job.dispose()
    }

    @Test
    func anActionSlowerThanItsPeriodFallsBehindThenSkipsAndYieldsTheScheduler() {
        // Each run takes 15 ticks of a 10-tick period: catching up can never
        // succeed. The bound turns it into a skip and the scheduler is yielded.
        let scheduler = TestScheduler(initialClock: 0)
        var runs = 0
        var otherWorkRanAt: Int?
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .seconds(10), period: .seconds(10),
            missedTicks: .boundedCatchUp(maxTicks: 4, maxDuration: .seconds(0))
        ) { run in
            runs += 1
            scheduler.sleep(15)
            return run + 1
        }
        _ = scheduler.scheduleRelative((), dueTime: .seconds(11)) { _ in
            otherWorkRanAt = scheduler.clock
            return Disposables.create()
        }
        scheduler.advanceTo(500)
        #expect(otherWorkRanAt != nil, "catching up must not keep the scheduler busy for ever")
        #expect(job.skippedTicks > 0)
        #expect(runs > 10)
        job.dispose()
    }

    @Test
    func defaultBoundIsTenTicksOrAHundredMilliseconds() {
        #expect(MissedTickPolicy.default == .boundedCatchUp(maxTicks: 10, maxDuration: .milliseconds(100)))
    }

    @Test
    func theDefaultBoundHoldsForSubMillisecondPeriodsThroughItsDuration() {
        // 100 µs period (100 ticks of 1 µs): a tick 1.15 ms late leaves 11 due
        // times behind, more than 10 ticks but well under 100 ms: caught up.
        let result = runSubMillisecond(lateTicks: 1_150)
        #expect(result.skipped == 0)
        #expect(result.runs == 13, "ticks 0 and 1, then the 11 missed ones back to back")
        // 50 ms late: 499 ticks behind, but under 100 ms: still caught up.
        let busy = runSubMillisecond(lateTicks: 50_000)
        #expect(busy.skipped == 0)
        #expect(busy.runs == 502, "ticks 0 and 1, the 499 missed ones, and the one due now")
        // 200 ms late: more than 10 ticks and more than 100 ms: a stall.
        let stalled = runSubMillisecond(lateTicks: 200_000)
        #expect(stalled.skipped == 1_999)
        #expect(stalled.runs == 3, "ticks 0 and 1, then only the tick due now")
    }

    private func runSubMillisecond(lateTicks: Int) -> (runs: Int, skipped: Int) {
        let scheduler = TestScheduler(initialClock: 0, resolution: 1e-6, simulateProcessingDelay: false)
        var runs = 0
        let job = scheduler.schedulePeriodicEmulated(
            0, startAfter: .microseconds(100), period: .microseconds(100)
        ) { run in
            runs += 1
            if run == 1 { scheduler.sleep(lateTicks) }
            return run + 1
        }
        // Tick 1 (due 200) returns at 200 + lateTicks; stop before the next due time.
        scheduler.advanceTo(200 + lateTicks)
        job.dispose()
        return (runs, job.skippedTicks)
    }

    @Test
    func aWallClockChangeDoesNotMakeTicksDue() {
        // Due times follow `monotonicNanoseconds`, never `now`: a scheduler
        // whose wall clock jumps an hour ahead sees no backlog.
        let scheduler = WallClockJumpScheduler()
        var times: [Int] = []
        let job = scheduler.schedulePeriodicEmulated((), startAfter: .seconds(10), period: .seconds(10)) { _ in
            times.append(scheduler.base.clock)
            scheduler.wallClockOffset += 3_600
        }
        scheduler.base.advanceTo(50)
        #expect(times == [10, 20, 30, 40, 50])
        #expect(job.skippedTicks == 0)
        job.dispose()
    }
}

/// A virtual-time scheduler whose `now` (wall clock) can jump while its
/// monotonic clock does not.
private final class WallClockJumpScheduler: Scheduler, @unchecked Sendable {
    let base = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    var wallClockOffset: TimeInterval = 0

    var now: RxTime { base.now.addingTimeInterval(wallClockOffset) }
    var monotonicNanoseconds: UInt64 { base.monotonicNanoseconds }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        base.schedule(state, action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        base.scheduleRelative(state, dueTime: dueTime, action: action)
    }
}
