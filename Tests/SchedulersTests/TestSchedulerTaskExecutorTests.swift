import Foundation
import Schedulers
import SchedulersTesting
import Synchronization
import Testing

/// What tasks and actions saw, in order, shared between them.
private final class Log<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])

    func record(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    var all: [Entry] {
        entries.withLock { $0 }
    }
}

@Suite struct TestSchedulerTaskExecutorTests {
    /// The reviewer's scenario, on the executor: a task sleeps 5 s in a loop
    /// on the scheduler's clock; one `advanceTo(20)` wakes it exactly at 5,
    /// 10, 15 and 20, reading `now` equal to each deadline, in every one of
    /// 300 runs, with no `waitForSleepers` and no real-time wait. (Without
    /// the executor, on the global executor, the same advance woke it 1, 2
    /// or 4 times and the first wake read 5 or 20.)
    @Test func advanceToWakesASleepingLoopAtEveryDeadline() {
        let runs = 300
        var exact = 0
        var outcomes: [String: Int] = [:]
        for _ in 0..<runs {
            let scheduler = TestScheduler(initialClock: 0)
            let clock = scheduler.asClock()
            let log = Log<Duration>()
            let task = Task(executorPreference: scheduler.taskExecutor) {
                var deadline = clock.now
                while true {
                    deadline = deadline.advanced(by: .seconds(5))
                    try await clock.sleep(until: deadline)
                    log.record(clock.now.offset)
                }
            }
            scheduler.advanceTo(20)
            let wakes = log.all
            outcomes["\(wakes)", default: 0] += 1
            if wakes == [.seconds(5), .seconds(10), .seconds(15), .seconds(20)] {
                exact += 1
            }
            #expect(clock.sleeperCount == 1, "the task sleeps again, until 25")
            task.cancel()
            // Cancelling resumes the sleeper, whose next job is an action now.
            scheduler.advanceTo(21)
            #expect(clock.sleeperCount == 0)
        }
        print("advanceTo(20) on the task executor: \(exact) of \(runs) runs woke exactly at 5, 10, 15, 20; outcomes \(outcomes)")
        #expect(exact == runs, "outcomes: \(outcomes)")
    }

    /// The task's first job is queued when the task is made, runs only in
    /// an advance, and at the scheduler's current time; everything the task
    /// does before its first suspension happens inside that advance.
    @Test func aTaskRunsOnlyInsideTheSchedulersAdvances() async throws {
        let scheduler = TestScheduler(initialClock: 100)
        let clock = scheduler.asClock()
        let steps = Log<String>()
        let task = Task(executorPreference: scheduler.taskExecutor) {
            steps.record("started at \(scheduler.clock)")
            await Task.yield()
            steps.record("after a yield at \(scheduler.clock)")
            try await clock.sleep(for: .seconds(3))
            steps.record("woke at \(scheduler.clock)")
            return scheduler.clock
        }
        #expect(steps.all.isEmpty, "nothing runs before an advance")
        scheduler.advanceTo(100)
        #expect(steps.all == ["started at 100", "after a yield at 100"])
        scheduler.advanceTo(102)
        #expect(steps.all.count == 2)
        scheduler.advanceTo(103)
        #expect(steps.all == ["started at 100", "after a yield at 100", "woke at 103"])
        #expect(try await task.value == 103)
    }

    /// Jobs are actions at the current time: they run in order with the
    /// scheduler's other actions due then, and `start()` runs them too.
    @Test func jobsAndActionsDueAtOneTimeRunInSchedulingOrder() async {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let order = Log<String>()
        scheduler.scheduleAt(0) { order.record("action scheduled first") }
        let task = Task(executorPreference: scheduler.taskExecutor) {
            order.record("task")
        }
        scheduler.scheduleAt(0) { order.record("action scheduled second") }
        scheduler.start()
        await task.value
        #expect(order.all == ["action scheduled first", "task", "action scheduled second"])
    }

    @Test func theExecutorIsTheSameObjectOnEveryRead() {
        let scheduler = TestScheduler(initialClock: 0)
        #expect(scheduler.taskExecutor === scheduler.taskExecutor)
    }

    /// A job enqueued after the scheduler is gone stops the program with a
    /// message that says what to do.
    @Test func aJobForAFreedSchedulerStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var scheduler: TestScheduler? = TestScheduler(initialClock: 0)
            let executor = scheduler!.taskExecutor
            scheduler = nil
            _ = Task(executorPreference: executor) {}
            // The enqueue above stops the program; this is never reached.
            try? await Task.sleep(for: .seconds(10))
        }
        expectStopped(
            result,
            messageContaining: "A task enqueued a job on the taskExecutor of a TestScheduler that no longer exists: keep the TestScheduler alive")
    }

    /// Advancing backwards stops with a message naming both times, with
    /// tasks queued on the executor as without.
    @Test func advancingBackwardsStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = TestScheduler(initialClock: 0)
            let clock = scheduler.asClock()
            _ = Task(executorPreference: scheduler.taskExecutor) {
                try await clock.sleep(for: .seconds(50))
            }
            scheduler.advanceTo(30)
            scheduler.advanceTo(10)
        }
        expectStopped(result, messageContaining: "advanceTo(_:): virtualTime 10 is before the clock 30")
    }

    /// A job's task calling `advanceTo` (the scheduler is running it) stops
    /// with a message rather than running the scheduler inside itself.
    @Test func advancingFromATaskOnTheExecutorStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let scheduler = TestScheduler(initialClock: 0)
            _ = Task(executorPreference: scheduler.taskExecutor) {
                scheduler.advanceTo(10)
            }
            scheduler.advanceTo(5)
        }
        expectStopped(result, messageContaining: "advanceTo(_:) was called while the scheduler is running")
    }
}
