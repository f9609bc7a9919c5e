import Dispatch
import Foundation
import Synchronization

/// The `SerialExecutor` of a serial scheduler: an actor whose executor this is
/// runs every job on the scheduler, one at a time, in the order enqueued.
///
/// Get one with `scheduler.executor` and give it to an actor:
///
/// ```swift
/// actor Counter {
///     let scheduler: SerialDispatchQueueScheduler
///     nonisolated var unownedExecutor: UnownedSerialExecutor {
///         scheduler.executor.asUnownedSerialExecutor()
///     }
///     init(scheduler: SerialDispatchQueueScheduler) { self.scheduler = scheduler }
/// }
/// ```
///
/// The actor must keep the scheduler (as above): the unowned executor it
/// returns lives as long as the scheduler does.
///
/// What each kind of scheduler gives:
/// - `SerialDispatchQueueScheduler` (and `init(queue:...)`/`init(qos:...)`
///   schedulers): jobs run on the scheduler's serial queue in FIFO order,
///   together with the scheduler's actions: each job is one `async` on the
///   queue, so a job enqueued after an action runs after it, and before an
///   action scheduled later. The executor allocates nothing per job (a job
///   goes into a buffer it reuses, and the block enqueued for it is made
///   once), but each `async` may allocate libdispatch's continuation: in a
///   flood of jobs from another thread, one per job (`BenchRunner`'s
///   `observeOn.throughput/actor-executor` counts 5 allocations per element
///   against the default actor's 4).
///   Isolation is the queue: code running on the scheduler's queue (a job,
///   any action of the scheduler, or a block of a queue that targets it) is
///   isolated to this executor for the executor's whole life, code anywhere
///   else never is, whatever executors were made and freed before or are made
///   for other queues (the queue marks the executor with an id that is never
///   reused, under a key of the executor's own).
/// - `MainScheduler.instance`, `MainScheduler.asyncInstance`: the executor is
///   the main actor's. An actor on it is isolated to the main actor, so
///   `MainActor.assumeIsolated` holds in its jobs; they run on the main queue
///   (on Linux, drive it with `MainScheduler.runMainQueue(until:)`).
/// - Any other `SerialScheduler` (a class; for a value type create a
///   `SerialSchedulerExecutor(scheduler)` and keep it): each job is one
///   `scheduleInOrder` call, which the scheduler contract runs after every
///   earlier one and never concurrently. Only this executor's own jobs count
///   as isolated to it: the executor cannot see the scheduler's other actions.
public final class SerialSchedulerExecutor: SerialExecutor, @unchecked Sendable {
    private enum Kind {
        case dispatch(DispatchJobQueue)
        case main
        case scheduler(any SerialScheduler)
    }

    private let kind: Kind
    /// For `.scheduler`: the thread running one of this executor's jobs.
    private let runningJob = RunningJobThread()

    /// An executor for a serial scheduler that is not a dispatch scheduler:
    /// every job is one `scheduler.scheduleInOrder` call (one action, so the
    /// allocations of one `scheduleInOrder` per job).
    ///
    /// For a `SerialDispatchQueueScheduler` use `scheduler.executor`, which is
    /// faster and knows the queue's isolation.
    ///
    /// - Parameter scheduler: Kept (strongly) by the executor.
    public init(_ scheduler: any SerialScheduler) {
        if let dispatchScheduler = scheduler as? SerialDispatchQueueScheduler {
            kind = Self.kind(for: dispatchScheduler)
        } else {
            kind = .scheduler(scheduler)
        }
    }

    /// An executor on a dispatch scheduler's serial queue.
    init(dispatchScheduler: SerialDispatchQueueScheduler) {
        kind = Self.kind(for: dispatchScheduler)
    }

    /// The main queue's schedulers are the `MainScheduler`s and
    /// `asyncInstance` (the initialiser that takes a queue as serial is
    /// internal). Not `queue === DispatchQueue.main`: on Linux every read of
    /// `DispatchQueue.main` makes a new wrapper object.
    private static func kind(for scheduler: SerialDispatchQueueScheduler) -> Kind {
        if scheduler is MainScheduler || scheduler === MainScheduler.asyncInstance {
            return .main
        }
        return .dispatch(DispatchJobQueue(queue: scheduler.configuration.queue))
    }

    /// Runs `job` on the scheduler after every job enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    /// Runs `job` on the scheduler after every job enqueued before it.
    public func enqueue(_ job: UnownedJob) {
        switch kind {
        case .dispatch(let jobs):
            jobs.enqueue(job, on: self)
        case .main:
            // The runtime sends an actor on this executor straight to the main
            // actor's executor; this path is only for a direct caller.
            let run: @Sendable () -> Void = {
                // unsafe: the main actor's executor lives for the whole process.
                unsafe job.runSynchronously(on: MainActor.sharedUnownedExecutor)
            }
            if !SyncPoint.controllerTook(run, for: DispatchQueue.main) {
                DispatchQueue.main.async(execute: run)
            }
        case .scheduler(let scheduler):
            _ = scheduler.scheduleInOrder(self) { executor in
                executor.runningJob.running {
                    // unsafe: the action's state keeps `executor` alive for the call.
                    unsafe job.runSynchronously(on: executor.asUnownedSerialExecutor())
                }
                return Disposables.create()
            }
        }
    }

    /// The unowned reference an actor returns from `unownedExecutor`; for the
    /// main queue, the main actor's executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        if case .main = kind {
            // unsafe: the main actor's executor lives for the whole process.
            return unsafe MainActor.sharedUnownedExecutor
        }
        // unsafe: the actor must keep this executor alive (the contract above:
        // it keeps the scheduler, which keeps its executor).
        return unsafe UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the calling code runs isolated to this executor: on the
    /// scheduler's queue (or a queue targeting it) for a dispatch scheduler,
    /// on the main queue for the main scheduler, inside one of this
    /// executor's jobs otherwise.
    public var isIsolated: Bool {
        switch kind {
        case .dispatch(let jobs):
            return jobs.isCurrent
        case .main:
            return MainQueueMarker.isOnMainQueue
        case .scheduler:
            return runningJob.isCurrentThread
        }
    }

    /// Stops the program with a message unless the caller is isolated to this
    /// executor (see `isIsolated`). The runtime calls this for
    /// `assumeIsolated` and `preconditionIsolated` on an actor of this
    /// executor when the caller is not one of its jobs.
    public func checkIsolated() {
        precondition(isIsolated, "Not running on the scheduler of this SerialSchedulerExecutor: \(description)")
    }

    /// `isIsolated`: never `nil`, this executor always knows.
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    public func isIsolatingCurrentContext() -> Bool? {
        isIsolated
    }

    private var description: String {
        switch kind {
        case .dispatch(let jobs): "dispatch queue '\(jobs.queue.label)'"
        case .main: "the main queue"
        case .scheduler(let scheduler): "\(type(of: scheduler))"
        }
    }
}

/// The jobs waiting for a dispatch queue, and the one reusable block that
/// runs them there.
///
/// Every job is one `async` of that block, made under the same lock as the
/// job's append, and the block runs the oldest waiting job: a job takes its
/// place in the queue's FIFO order when it is enqueued, from any number of
/// threads at once,
/// between the scheduler's actions (or anyone's blocks) enqueued before and
/// after it. Nothing of this type is allocated per job (libdispatch may
/// allocate its `async` continuation): the jobs wait in a buffer that keeps its
/// capacity, and the block is made once.
final class DispatchJobQueue: @unchecked Sendable {
    let queue: DispatchQueue
    /// This executor's isolation id, marked on `queue` for as long as this
    /// object lives.
    let id: UInt64
    private let marks: QueueIsolationMarks

    private let lock = Lock()
    /// Jobs enqueued and not yet taken, oldest at `head`. Guarded by `lock`.
    private var pending: [UnownedJob] = []
    private var head = 0
    /// Jobs enqueued whose block has not finished. Guarded by `lock`.
    private var outstanding = 0
    /// The executor, kept while `outstanding` is not zero, so that it (and
    /// this object) outlive every job enqueued on it. Guarded by `lock`.
    private var keepAlive: SerialSchedulerExecutor?
    /// Runs the oldest job; set once in `init`.
    private var runBlock: (@Sendable @convention(block) () -> Void)?

    init(queue: DispatchQueue) {
        self.queue = queue
        id = QueueIsolation.nextID()
        marks = QueueIsolation.marks(of: queue)
        marks.insert(id)
        runBlock = { [weak self] in
            self?.runOldest()
        }
    }

    deinit {
        marks.remove(id)
    }

    var isCurrent: Bool {
        QueueIsolation.isCurrent(id)
    }

    /// Appends `job` and enqueues one run of the block, both under `lock`:
    /// the blocks reach the queue in the order their jobs were appended, so
    /// the block a thread enqueues never runs before its own job is taken
    /// (each block runs the oldest job). Enqueued after the lock is released,
    /// a block could overtake the block of a job appended before it by
    /// another thread, and this thread's job would then wait behind an action
    /// it scheduled after the job. `async` runs nothing of the caller's, so
    /// holding the lock across it cannot re-enter.
    func enqueue(_ job: UnownedJob, on executor: SerialSchedulerExecutor) {
        let block = runBlock!
        lock.withLock {
            pending.append(job)
            outstanding += 1
            if outstanding == 1 {
                keepAlive = executor
            }
            #if SCHEDULERS_MUTANTS
            if let mutant = Mutant.active, mutant == .executorFIFO || mutant == .executorWrongQueue {
                return
            }
            #endif
            if !SyncPoint.controllerTook(block, for: queue) {
                queue.async(execute: block)
            }
        }
        #if SCHEDULERS_MUTANTS
        switch Mutant.active {
        case .executorFIFO?:
            // The mutant: enqueued after the lock is released, so two
            // enqueuers' blocks may reach the queue in the other order.
            if !SyncPoint.controllerTook(block, for: queue) {
                queue.async(execute: block)
            }
        case .executorWrongQueue?:
            // The mutant: the global queue instead of the scheduler's.
            let global = DispatchQueue.global()
            if !SyncPoint.controllerTook(block, for: global) {
                global.async(execute: block)
            }
        default:
            break
        }
        #endif
    }

    private func runOldest() {
        let (job, executor) = lock.withLock {
            let job = pending[head]
            head += 1
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return (job, keepAlive!)
        }
        // unsafe: `executor` is a strong reference, alive for the call.
        unsafe job.runSynchronously(on: executor.asUnownedSerialExecutor())
        let last: SerialSchedulerExecutor? = lock.withLock {
            outstanding -= 1
            guard outstanding == 0 else { return nil }
            let last = keepAlive
            keepAlive = nil
            return last
        }
        // The last reference may go here, outside the lock.
        _ = last
    }
}
