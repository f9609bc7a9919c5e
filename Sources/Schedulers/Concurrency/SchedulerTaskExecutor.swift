import Dispatch
import Foundation

/// A `TaskExecutor` that runs a task's non-isolated work on a concurrent
/// scheduler's threads: `Task(executorPreference: scheduler.taskExecutor)`.
///
/// Code isolated to an actor still runs on that actor's executor; what the
/// preference moves is the rest (the task's body between actor calls,
/// `nonisolated` async functions it calls, child tasks that inherit it).
/// Jobs run concurrently, as they do on the global executor (guarantee 10
/// in Guarantees.md): a job enqueued while fewer jobs run than the width
/// below starts at once on another thread, however long the running ones
/// take, whether or not they ever suspend.
///
/// - `ConcurrentDispatchQueueScheduler`: jobs run on the scheduler's queue,
///   at once on up to one thread per processor (the width), each thread
///   taking the oldest waiting job: a job waits for a thread only while
///   that many run, and no job starts after one enqueued after it. A flood
///   of jobs costs one `async` per thread started, not per job, and nothing
///   of this executor is allocated per job. As on the global concurrent
///   executor, a job must not block waiting for a job enqueued after it:
///   with `width` such jobs running, the later one would never start.
/// - `OperationQueueScheduler`: each job is one operation added to the
///   scheduler's `operationQueue` at its `queuePriority`, so up to the
///   queue's `maxConcurrentOperationCount` run at once.
///
/// A job, once enqueued, always runs: a task on this executor runs to its
/// end. `cancelAllOperations()` on the operation queue, which drops the
/// scheduler's queued actions, does not cancel a job's operation (its
/// `cancel()` does nothing: dropping a job would leave its task suspended
/// forever). Cancel the task itself to stop it. A suspended operation queue
/// holds its jobs until it is resumed.
///
/// On an operation queue each job costs the allocations of one operation.
public final class SchedulerTaskExecutor: TaskExecutor, @unchecked Sendable {
    // Where jobs go: a concurrent dispatch queue's job queue, or an
    // operation queue (exactly one is set). Stored optionals, not an enum
    // with payloads: the hot path tests one field, where a switch copies the
    // payload (a reference count on an object every thread of the queue writes).
    private let dispatchJobs: ConcurrentJobQueue?
    private let operations: (queue: OperationQueue, priority: Operation.QueuePriority)?

    fileprivate init(queue: DispatchQueue) {
        dispatchJobs = ConcurrentJobQueue(queue: queue)
        operations = nil
    }

    fileprivate init(operationQueue: OperationQueue, priority: Operation.QueuePriority) {
        dispatchJobs = nil
        operations = (operationQueue, priority)
    }

    /// Runs `job` on the scheduler's threads.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let dispatchJobs {
            dispatchJobs.enqueue(job, on: self)
        } else if let (queue, priority) = operations {
            Self.checkConcurrency(of: queue)
            let operation = TaskJobOperation(job: job, executor: self)
            operation.queuePriority = priority
            SyncPoint.handOff(to: queue, operation)
        } else {
            preconditionFailure("a SchedulerTaskExecutor is made with a dispatch queue or an operation queue")
        }
    }

    /// A queue that runs nothing would hold a task forever.
    fileprivate static func checkConcurrency(of queue: OperationQueue) {
        precondition(
            queue.maxConcurrentOperationCount != 0,
            "maxConcurrentOperationCount of the OperationQueue is 0: a task on its OperationQueueScheduler's taskExecutor would never run; use a positive count or OperationQueue.defaultMaxConcurrentOperationCount"
        )
    }
}

/// The jobs waiting for a concurrent dispatch queue, oldest first, and the
/// one reusable block that runs them there.
///
/// Up to `width` runs of the block (one per processor) are on the queue at
/// once; each takes the oldest job, runs it, and goes on with the next until
/// none is left. A job enqueued while every run is busy with a job of its
/// own starts another run, up to `width` (`ConcurrentJobs`): so jobs run at
/// once on up to `width` threads, as on the global concurrent executor, a
/// job waits for a thread only while `width` jobs run, and jobs start in
/// the order enqueued. A flood of jobs costs one `async` per run of
/// the block, not per job. Nothing of this type is allocated per job (the
/// jobs wait in a buffer that keeps its capacity).
///
/// The block holds this object unowned; `keepAlive` keeps the executor
/// (which keeps this object) alive from the first job enqueued until the
/// last run of the block has ended.
final class ConcurrentJobQueue: @unchecked Sendable {
    // @unchecked: every `var` is guarded by `lock`.
    let queue: DispatchQueue
    /// How many runs of the block may be on the queue at once.
    let width = max(ProcessInfo.processInfo.activeProcessorCount, 1)
    /// Held for a few instructions at a time by the enqueuing threads and the
    /// queue's threads at once.
    private let lock = Lock(spinning: true)
    /// The jobs, the runs and the executor they keep alive, in one value,
    /// guarded by `lock`: exempt from run-time exclusivity checks in release
    /// builds, two per job otherwise (`LockGuardedState`).
    private let jobs = LockGuardedState(ConcurrentJobs())
    /// Runs jobs until none is left; set once in `init`.
    private var runBlock: (@Sendable @convention(block) () -> Void)?

    init(queue: DispatchQueue) {
        self.queue = queue
        runBlock = { [unowned self] in
            self.runJobs()
        }
    }

    func enqueue(_ job: UnownedJob, on executor: SchedulerTaskExecutor) {
        let startsARun = lock.withLock {
            jobs.withValue { $0.add(job, keeping: executor, width: width) }
        }
        guard startsARun else { return }
        // Read only here: a block's copy and release cost a call each, paid
        // per run started, not per job.
        let block = runBlock!
        if !SyncPoint.controllerTook(block, for: queue) {
            queue.async(execute: block)
        }
    }

    /// Runs the oldest job, then the next, until none waits.
    private func runJobs() {
        var ranAJob = false
        while true {
            let (next, last) = lock.withLock {
                jobs.withValue { $0.takeOldest(afterRunningAJob: ranAJob) }
            }
            // The last reference may go here, outside the lock.
            _ = last
            guard let (job, executor) = next else { return }
            // unsafe: `executor` is a strong reference, alive for the call.
            unsafe job.runSynchronously(on: executor.asUnownedTaskExecutor())
            ranAJob = true
        }
    }
}

/// A concurrent job queue's state under its lock.
///
/// A run of the block is busy while it runs a job, idle otherwise (on the
/// queue, not yet started, or between two jobs, about to take the next).
/// An idle run takes a waiting job; a busy one cannot until its job ends,
/// however long that is. So a job enqueued starts a run when fewer runs are
/// idle than jobs wait, as long as fewer than `width` runs are on the queue:
/// every waiting job has an idle run to take it, up to `width` jobs at once.
private struct ConcurrentJobs {
    /// Jobs enqueued and not yet taken.
    private var pending = WaitingJobs()
    /// Runs of the block on the queue or running.
    private var runners = 0
    /// Runs of the block running a job (taken, not yet returned).
    private var busyRunners = 0
    /// Set while `runners` is not zero, or a job waits.
    private var keepAlive: SchedulerTaskExecutor?

    /// Adds `job`, keeping `executor` alive.
    ///
    /// - Returns: Whether a run of the block must start: an idle run takes
    ///   this job, so one more starts only while more jobs wait than idle
    ///   runs could take, and at most `width` runs are on the queue at once.
    mutating func add(_ job: UnownedJob, keeping executor: SchedulerTaskExecutor, width: Int) -> Bool {
        pending.append(job)
        // A store into an empty field releases nothing (`LockGuardedState`, rule 2).
        if case .none = keepAlive {
            keepAlive = executor
        }
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .taskExecutorBusyRunnerFree {
            // The mutant: a busy run counts as free for the new job.
            guard runners < width, runners < pending.count else { return false }
            runners += 1
            return true
        }
        #endif
        guard runners < width, runners - busyRunners < pending.count else { return false }
        runners += 1
        return true
    }

    /// Ends the job the calling run ran (when `afterRunningAJob`), then
    /// gives it the oldest job and the executor to run it on; or, when none
    /// waits, the run ends (`nil`), and the last run to end gives up the
    /// executor (`released`, to be dropped outside the lock).
    mutating func takeOldest(afterRunningAJob: Bool) -> (next: (UnownedJob, SchedulerTaskExecutor)?, released: SchedulerTaskExecutor?) {
        if afterRunningAJob {
            busyRunners -= 1
        }
        guard let job = pending.popFirst() else {
            runners -= 1
            // The last run ends: no job waits or runs.
            guard runners == 0 else { return (nil, nil) }
            return (nil, keepAlive.take())
        }
        busyRunners += 1
        return ((job, keepAlive!), nil)
    }
}

/// The operation of one job: it cannot be cancelled, so a queue's
/// `cancelAllOperations()` never drops the job (its task would never finish).
private final class TaskJobOperation: Operation, @unchecked Sendable {
    private let job: UnownedJob
    private let executor: SchedulerTaskExecutor

    init(job: UnownedJob, executor: SchedulerTaskExecutor) {
        self.job = job
        self.executor = executor
    }

    /// Does nothing: a job must run. `isCancelled` stays `false`, so the
    /// queue starts the operation and `main` runs the job.
    override func cancel() {}

    override func main() {
        // unsafe: the operation keeps `executor`, alive for the call.
        unsafe job.runSynchronously(on: executor.asUnownedTaskExecutor())
    }
}

extension ConcurrentDispatchQueueScheduler {
    /// A task executor on this scheduler's queue (see `SchedulerTaskExecutor`).
    /// Each read makes a new, equivalent executor; a task keeps the one it
    /// was given.
    public var taskExecutor: SchedulerTaskExecutor {
        SchedulerTaskExecutor(queue: configuration.queue)
    }
}

extension OperationQueueScheduler {
    /// A task executor on this scheduler's operation queue (see
    /// `SchedulerTaskExecutor`). Each read makes a new, equivalent executor;
    /// a task keeps the one it was given.
    ///
    /// - Precondition: `operationQueue.maxConcurrentOperationCount` is not
    ///   zero (checked here and for every job).
    public var taskExecutor: SchedulerTaskExecutor {
        SchedulerTaskExecutor.checkConcurrency(of: operationQueue)
        return SchedulerTaskExecutor(operationQueue: operationQueue, priority: queuePriority)
    }
}
