import Foundation
import Schedulers

extension TestScheduler {
    /// The `TaskExecutor` that runs tasks on this scheduler's virtual time:
    /// the same executor on every read (see `TestSchedulerTaskExecutor`).
    ///
    /// ```swift
    /// let scheduler = TestScheduler(initialClock: 0)
    /// let clock = scheduler.asClock()
    /// Task(executorPreference: scheduler.taskExecutor) {
    ///     while true { try await clock.sleep(for: .seconds(5)) }
    /// }
    /// scheduler.advanceTo(20)   // the task woke at 5, 10, 15 and 20
    /// ```
    public var taskExecutor: TestSchedulerTaskExecutor {
        taskExecutorStorage.executor(for: self)
    }
}

/// A `TaskExecutor` whose jobs are actions of a `TestScheduler` at its
/// current virtual time: a task that prefers it
/// (`Task(executorPreference: scheduler.taskExecutor) { ... }`) runs only
/// inside the scheduler's `start()` or `advanceTo(_:)`, on the thread that
/// calls it, one job at a time, so a test of `async` code on virtual time
/// is deterministic.
///
/// The contract:
/// - Enqueuing a job schedules an action at the scheduler's current `clock`
///   (never adjusted by `simulateProcessingDelay`) that runs the job. Jobs
///   and actions due at one time run in the order they were scheduled.
/// - `Task(executorPreference:)` enqueues the task's first job when the
///   task is created: nothing of the task runs before the next advance.
/// - A task that sleeps on the scheduler's clock (`asClock()`) registers its
///   wake-up as an action at the deadline; the wake-up resumes the task,
///   which enqueues its next job here, at that virtual time. So
///   `advanceTo(t)` runs everything that falls due up to `t`, including what
///   the woken tasks do next and the sleeps they start, before it returns:
///   no `waitForSleepers`, no yielding, no real-time wait. A task that sleeps
///   5 s in a loop is woken exactly 4 times by `advanceTo(20)` from 0, and
///   reads `now` equal to its deadline on each wake.
///
/// Outside this guarantee (the work runs, but not inside the advance):
/// - Code isolated to an actor with its own executor, the main actor, or a
///   serial scheduler's executor: it runs there; the task's job after it
///   comes back here, and runs at the next advance if the current one has
///   finished meanwhile.
/// - Tasks without this preference (the global executor), and detached
///   tasks that do not pass it on.
/// - Work that hops to a real queue or thread (a dispatch scheduler, a
///   `Task.sleep` on a real clock, I/O): the advance does not wait for it.
///
/// Keep the scheduler alive while tasks run on its executor: the executor
/// holds it weakly, and a job enqueued after the scheduler is gone stops the
/// program with a message saying so. Jobs still queued when the scheduler is
/// freed never run (their tasks stay suspended).
public final class TestSchedulerTaskExecutor: TaskExecutor, Sendable {
    weak let scheduler: TestScheduler?

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// Schedules `job` as an action at the scheduler's current virtual time.
    ///
    /// - Precondition: the scheduler still exists.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        guard let scheduler else {
            preconditionFailure(
                "A task enqueued a job on the taskExecutor of a TestScheduler that no longer exists: keep the TestScheduler alive until every task that prefers its taskExecutor has finished"
            )
        }
        _ = scheduler.scheduleAbsoluteVirtual(self, time: scheduler.clock) { executor in
            // unsafe: the action's state keeps `executor` alive for the call.
            unsafe job.runSynchronously(on: executor.asUnownedTaskExecutor())
            return Disposables.create()
        }
    }
}

/// A `TestScheduler`'s one task executor, made on first use.
final class TestSchedulerTaskExecutorStorage: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var executor: TestSchedulerTaskExecutor?

    func executor(for scheduler: TestScheduler) -> TestSchedulerTaskExecutor {
        lock.withLock {
            if let executor {
                return executor
            }
            let made = TestSchedulerTaskExecutor(scheduler: scheduler)
            executor = made
            return made
        }
    }
}
