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
///   together with the scheduler's actions: a job enqueued after an action
///   (or an `observe(on:)` delivery) runs after it, and before an action
///   scheduled later, whatever the number of threads enqueueing. Jobs run in
///   batches: a job joins the batch whose queue block is already waiting
///   when the scheduler has enqueued nothing since, otherwise it enqueues
///   the block once more, so a flood of jobs costs one `async` per batch.
///   A timer of the scheduler (`scheduleRelative`, a periodic tick,
///   `interval`) takes its place in that order when it fires: jobs enqueued
///   after it fired run after its action, however many keep coming, and a
///   steady stream of jobs delays it by no more than the jobs enqueued
///   before it fired.
///   The executor allocates nothing per job (jobs wait in buffers that keep
///   their capacity, and the block is made once). Blocks enqueued on the
///   queue directly, not through the scheduler, are not ordered with jobs
///   of a batch already waiting.
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
    // Which scheduler this executor runs on: a dispatch scheduler's job
    // queue, or any other serial scheduler, or neither (the main queue's
    // schedulers, whose executor is the main actor's). Two stored optionals,
    // not an enum with payloads: the hot paths test one field, where a
    // switch copies the payload (a reference count, per job, on an object
    // the enqueuing thread and the queue's thread both write).
    /// A `SerialDispatchQueueScheduler`'s jobs (not the main queue's).
    private let dispatchJobs: DispatchJobQueue?
    /// Any other serial scheduler, kept strongly.
    private let scheduler: (any SerialScheduler)?
    /// For `scheduler`: the thread running one of this executor's jobs.
    private let runningJob = RunningJobThread()
    /// Whether this is the main queue's executor, the main actor's: neither
    /// `dispatchJobs` nor `scheduler` is set (all three are `let`s, set
    /// together in `init`). Stored so that `asUnownedSerialExecutor()`,
    /// inlined into the actor's module, reads one field, and the two
    /// optionals stay private.
    @usableFromInline
    let isMainActorExecutor: Bool

    /// An executor for a serial scheduler that is not a dispatch scheduler:
    /// every job is one `scheduler.scheduleInOrder` call (one action, so the
    /// allocations of one `scheduleInOrder` per job).
    ///
    /// For a `SerialDispatchQueueScheduler` use `scheduler.executor`, which is
    /// faster and knows the queue's isolation.
    ///
    /// - Parameter scheduler: Kept (strongly) by the executor.
    public convenience init(_ scheduler: any SerialScheduler) {
        if let dispatchScheduler = scheduler as? SerialDispatchQueueScheduler {
            self.init(dispatchScheduler: dispatchScheduler)
        } else {
            self.init(dispatchJobs: nil, scheduler: scheduler)
        }
    }

    private init(dispatchJobs: DispatchJobQueue?, scheduler: (any SerialScheduler)?) {
        self.dispatchJobs = dispatchJobs
        self.scheduler = scheduler
        isMainActorExecutor = dispatchJobs == nil && scheduler == nil
    }

    /// An executor on a dispatch scheduler's serial queue, `batch` its gate;
    /// on the main queue, the main actor's.
    convenience init(queue: DispatchQueue, batch: ExecutorBatchGate, isMainQueue: Bool) {
        self.init(dispatchJobs: isMainQueue ? nil : DispatchJobQueue(queue: queue, batch: batch), scheduler: nil)
    }

    /// An executor on `dispatchScheduler`'s queue, beside the scheduler's own
    /// (the main actor's when the scheduler's own is).
    convenience init(dispatchScheduler: SerialDispatchQueueScheduler) {
        self.init(
            queue: dispatchScheduler.configuration.queue, batch: dispatchScheduler.executorBatch,
            isMainQueue: dispatchScheduler.executor.isMainActorExecutor)
    }

    /// Runs `job` on the scheduler after every job enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job))
    }

    /// Runs `job` on the scheduler after every job enqueued before it.
    public func enqueue(_ job: UnownedJob) {
        if case .some = dispatchJobs {
            // Optional chaining borrows the stored reference; `if let` would
            // retain and release it per job.
            dispatchJobs?.enqueue(job, on: self)
        } else if let scheduler {
            _ = scheduler.scheduleInOrder(self) { executor in
                executor.runningJob.running {
                    // unsafe: the action's state keeps `executor` alive for the call.
                    unsafe job.runSynchronously(on: executor.asUnownedSerialExecutor())
                }
                return Disposables.create()
            }
        } else {
            // The runtime sends an actor on the main queue's executor straight
            // to the main actor's executor; this path is only for a direct caller.
            let run: @Sendable () -> Void = {
                // unsafe: the main actor's executor lives for the whole process.
                unsafe job.runSynchronously(on: MainActor.sharedUnownedExecutor)
            }
            if !SyncPoint.controllerTook(run, for: DispatchQueue.main) {
                DispatchQueue.main.async(execute: run)
            }
        }
    }

    /// The unowned reference an actor returns from `unownedExecutor`; for the
    /// main queue, the main actor's executor.
    ///
    /// Inlined into the actor's `unownedExecutor`, which the runtime reads
    /// twice per hop.
    @inlinable
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        if isMainActorExecutor {
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
        if let dispatchJobs {
            return dispatchJobs.isCurrent
        }
        if case .some = scheduler {
            return runningJob.isCurrentThread
        }
        return MainQueueMarker.isOnMainQueue
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
        if let dispatchJobs {
            return "dispatch queue '\(dispatchJobs.queue.label)'"
        }
        if let scheduler {
            return "\(type(of: scheduler))"
        }
        return "the main queue"
    }
}

/// The lock a serial dispatch scheduler enqueues under, and whether jobs
/// enqueued on its executor may join the batch whose block is already on
/// the scheduler's queue.
///
/// The rule it keeps: work runs on the queue in the order it was enqueued
/// through this gate, whatever enqueues it. Jobs, actions, `observe(on:)`
/// drains, and the work of a timer when it fires (a one-shot timer's
/// action, a periodic job's tick: `enqueueFiredTimer`) all pass it, so a
/// timer that fell due is not overtaken by jobs enqueued after it fired,
/// however many keep coming.
///
/// A batch is open from the moment its block is enqueued until the
/// scheduler enqueues anything of its own (an action, an `observe(on:)`
/// drain: `enqueueClosingBatch`; a timer's work: `enqueueFiredTimer`) or
/// the block finds its batch done. Blocks,
/// actions and drains are enqueued under this one lock, so the order in
/// which they reach the queue is the order in which the lock saw them: a job
/// that finds the batch open runs before everything enqueued after it,
/// because the batch's block is on the queue already, and after everything
/// enqueued before it, because anything enqueued after the block closed it.
/// `async` runs nothing of the caller's, so holding the lock across it
/// cannot re-enter.
final class ExecutorBatchGate: @unchecked Sendable {
    // @unchecked: `openBatch` is guarded by `lock`.
    /// Spinning: held for a few instructions at a time, by the enqueuing
    /// threads and the queue's thread at once during a flood of jobs.
    let lock = Lock(spinning: true)
    /// The job queue whose newest batch may still be joined. Guarded by `lock`.
    var openBatch: ObjectIdentifier?
    /// How many fired timers wait for `lock` to enqueue their work
    /// (`enqueueFiredTimer`). A hint, read with no sync point: it orders
    /// nothing (`lock` does); it only tells enqueuers to let those timers in
    /// first (`giveWayToFiredTimers`).
    let firedTimersWaiting = Atomic<Int>(0)

    /// The most rounds an enqueuer gives way to fired timers before it takes
    /// the lock anyway, so that timers firing without pause on one scheduler
    /// never hold its other work back for long.
    static let mostGiveWayRounds = 1_000

    /// Lets fired timers that wait for `lock` take it first: called by every
    /// enqueuer of the scheduler's own before it takes `lock`. A mutex does
    /// not hand itself to a waiter, so a timer's handler woken at a release
    /// would otherwise find it retaken by threads that enqueue in a loop, and
    /// every job or action they enqueued meanwhile would go ahead of the
    /// timer's work. One relaxed load when no timer waits.
    @inline(__always)
    func giveWayToFiredTimers() {
        if firedTimersWaiting.load(ordering: .relaxed) != 0 {
            waitForFiredTimers()
        }
    }

    /// `giveWayToFiredTimers`' wait: yields the processor (a spin-wait round
    /// of the exploration seam) until no fired timer waits, at most
    /// `mostGiveWayRounds` rounds.
    @inline(never)
    private func waitForFiredTimers() {
        var rounds = 0
        while firedTimersWaiting.load(ordering: .relaxed) != 0 && rounds < Self.mostGiveWayRounds {
            rounds += 1
            if !SyncPoint.yield(.spinWait) {
                sched_yield()
            }
        }
    }

    /// Runs `enqueue`, which enqueues something of the scheduler's own on its
    /// queue, under the lock, with no batch open.
    @inline(__always)
    func enqueueClosingBatch<Result>(_ enqueue: () -> Result) -> Result {
        giveWayToFiredTimers()
        return lock.withLock {
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .executorBatchPastAction {
                // The mutant: the action leaves the batch open.
                return enqueue()
            }
            #endif
            openBatch = nil
            return enqueue()
        }
    }

    /// Runs `enqueue`, which enqueues the work of a timer that has fired on
    /// the scheduler's queue, under the lock, with no batch open: jobs
    /// enqueued after it run after the timer's work. While it waits for the
    /// lock the scheduler's other enqueuers give way to it
    /// (`giveWayToFiredTimers`).
    func enqueueFiredTimer(_ enqueue: () -> Void) {
        firedTimersWaiting.add(1, ordering: .relaxed)
        defer { firedTimersWaiting.subtract(1, ordering: .relaxed) }
        lock.withLock {
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .executorUnboundedBatch {
                // The mutant: the timer's work leaves the batch open.
                enqueue()
                return
            }
            #endif
            openBatch = nil
            enqueue()
        }
    }
}

/// The jobs waiting for a dispatch queue, in batches, and the one reusable
/// block that runs a batch there.
///
/// A job joins the batch whose block is already on the queue when the
/// scheduler has enqueued nothing since that block (`ExecutorBatchGate`);
/// otherwise it starts a batch and enqueues the block once more, under the
/// gate's lock, as the scheduler enqueues its own work. Each block runs the oldest batch, job by
/// job, including jobs that join while it runs. So a job takes its place in
/// the queue's FIFO order when it is enqueued, from any number of threads at
/// once: after every action the scheduler enqueued before it (an action
/// closes the batch, and the job then gets a block behind the action), and
/// before every action enqueued after it (its block is on the queue
/// already). A flood of jobs costs one `async` per batch, not per job.
/// Nothing of this type is allocated per job: the jobs and the batch sizes
/// wait in buffers that keep their capacity, and the block is made once.
///
/// Blocks that other code enqueues on the queue directly (not through the
/// scheduler) do not close the batch: a job may run before such a block
/// enqueued after its batch's block.
final class DispatchJobQueue: @unchecked Sendable {
    let queue: DispatchQueue
    /// This executor's isolation id, marked on `queue` for as long as this
    /// object lives.
    let id: UInt64
    private let marks: QueueIsolationMarks
    /// The scheduler's gate: its lock guards everything below, and says
    /// whether a job may join the newest batch.
    private let batch: ExecutorBatchGate

    /// The jobs, their batches and the executor they keep alive, in one
    /// value, guarded by the gate's lock: exempt from run-time exclusivity
    /// checks in release builds, one per job otherwise (`LockGuardedState`).
    private let jobs = LockGuardedState(BatchedJobs())
    /// The buffer of the jobs a block takes to run, kept for its capacity;
    /// empty between blocks. Touched only by `runOldestBatch`, which runs on
    /// the serial queue, one block at a time.
    private var running: [UnownedJob] = []
    /// Runs the oldest batch; set once in `init`.
    private var runBlock: (@Sendable @convention(block) () -> Void)?

    init(queue: DispatchQueue, batch: ExecutorBatchGate) {
        self.queue = queue
        self.batch = batch
        id = QueueIsolation.nextID()
        marks = QueueIsolation.marks(of: queue)
        marks.insert(id)
        // Unowned, not weak: a block is on the queue only while a job of its
        // batch is outstanding, and `keepAlive` keeps this object alive for
        // as long as one is (a weak reference would give this object a side
        // table, which slows every reference count on it).
        runBlock = { [unowned self] in
            self.runOldestBatch()
        }
    }

    deinit {
        marks.remove(id)
    }

    var isCurrent: Bool {
        QueueIsolation.isCurrent(id)
    }

    /// Appends `job` to the open batch, or starts a batch and enqueues its
    /// block, under the gate's lock (see `ExecutorBatchGate`).
    func enqueue(_ job: UnownedJob, on executor: SerialSchedulerExecutor) {
        batch.giveWayToFiredTimers()
        let started = batch.lock.withLock {
            let joins = batch.openBatch == ObjectIdentifier(self)
            guard jobs.withValue({ $0.add(job, keeping: executor, joiningOpenBatch: joins) }) else { return false }
            batch.openBatch = ObjectIdentifier(self)
            #if SCHEDULERS_MUTANTS
            if let mutant = Mutant.active, mutant == .executorFIFO || mutant == .executorWrongQueue {
                return true
            }
            #endif
            // Read only here: a block's copy and release cost a call each,
            // paid per batch, not per job.
            let block = runBlock!
            if !SyncPoint.controllerTook(block, for: queue) {
                queue.async(execute: block)
            }
            return true
        }
        #if SCHEDULERS_MUTANTS
        let block = runBlock!
        switch started ? Mutant.active : nil {
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

    /// Runs the oldest batch's jobs, one at a time, until it has none left
    /// (jobs that join it meanwhile included); the newest batch is closed
    /// when its block finds it done, so a job enqueued after that starts a
    /// batch of its own. The jobs waiting in the batch are taken together,
    /// under one lock, and run outside it: a flood takes the lock about once
    /// per job on the enqueuing side and once per chunk here.
    private func runOldestBatch() {
        // The buffer is lent to this run (blocks run one at a time on the
        // serial queue) and given back empty: reading it through a local
        // makes no exclusivity check per job.
        var chunk: [UnownedJob] = []
        swap(&chunk, &running)
        var ran = 0
        while true {
            let (executor, last) = batch.lock.withLock { () -> (SerialSchedulerExecutor?, SerialSchedulerExecutor?) in
                let taken = jobs.withValue { $0.takeOldestBatch(afterRunning: ran, into: &chunk) }
                if taken.closedNewestBatch, batch.openBatch == ObjectIdentifier(self) {
                    batch.openBatch = nil
                }
                return (taken.executor, taken.released)
            }
            guard let executor else {
                // The buffer goes back before the last reference to the
                // executor goes (outside the lock): that may free this object.
                withExtendedLifetime(last) {
                    swap(&chunk, &running)
                }
                return
            }
            // By index: an iterator would hold a second reference to the
            // buffer, and emptying a shared buffer allocates a new one.
            for index in chunk.indices {
                let job = chunk[index]
                // unsafe: `executor` is a strong reference, alive for the call.
                unsafe job.runSynchronously(on: executor.asUnownedSerialExecutor())
            }
            ran = chunk.count
            chunk.removeAll(keepingCapacity: true)
        }
    }
}

/// A dispatch job queue's state under the gate's lock: jobs not yet taken,
/// how many of them each batch whose block is on the queue has, and the
/// executor they keep alive.
private struct BatchedJobs {
    /// Jobs enqueued and not yet taken.
    private var pending = WaitingJobs()
    /// How many jobs each batch whose block is on the queue still has to
    /// run, oldest at `batchHead`.
    private var batches: [Int] = []
    private var batchHead = 0
    /// Jobs enqueued that have not finished.
    private var outstanding = 0
    /// The executor, kept while `outstanding` is not zero, so that it (and
    /// its job queue) outlive every job enqueued on it.
    private var keepAlive: SerialSchedulerExecutor?

    /// Adds `job` to the newest batch when `joiningOpenBatch`, else to a new
    /// batch, and keeps `executor` while jobs are outstanding.
    ///
    /// - Returns: Whether a new batch started (its block must be enqueued).
    mutating func add(_ job: UnownedJob, keeping executor: SerialSchedulerExecutor, joiningOpenBatch: Bool) -> Bool {
        pending.append(job)
        outstanding += 1
        if outstanding == 1 {
            // Kept only while jobs are outstanding, so empty here: the store
            // releases nothing (`LockGuardedState`, rule 2).
            guard case .none = keepAlive else { preconditionFailure("an executor kept with no job outstanding") }
            keepAlive = executor
        }
        if joiningOpenBatch {
            batches[batches.count - 1] += 1
            return false
        }
        batches.append(1)
        return true
    }

    /// Counts `ran` jobs as finished, then moves the oldest batch's waiting
    /// jobs into `running`; when it has none left, the batch ends.
    ///
    /// - Returns: `executor`, the executor to run the jobs taken on (`nil`
    ///   when none was taken: the batch ended); `released`, the executor no
    ///   longer kept because no job is outstanding, to be dropped outside the
    ///   lock; `closedNewestBatch`, whether the batch that ended was the
    ///   newest one.
    mutating func takeOldestBatch(afterRunning ran: Int, into running: inout [UnownedJob])
        -> (executor: SerialSchedulerExecutor?, released: SerialSchedulerExecutor?, closedNewestBatch: Bool)
    {
        outstanding -= ran
        var released: SerialSchedulerExecutor?
        if outstanding == 0 {
            released = keepAlive.take()
        }
        let waiting = batches[batchHead]
        guard waiting == 0 else {
            batches[batchHead] = 0
            pending.moveFirst(waiting, into: &running)
            // Set while the jobs just taken are outstanding.
            return (keepAlive!, released, false)
        }
        let wasNewest = batchHead == batches.count - 1
        batchHead += 1
        if batchHead == batches.count {
            batches.removeAll(keepingCapacity: true)
            batchHead = 0
        }
        return (nil, released, wasNewest)
    }
}

/// Jobs waiting in the order enqueued, oldest first, in a buffer that keeps
/// its capacity: once it has grown to a flood's backlog, enqueuing and
/// taking jobs allocate nothing.
struct WaitingJobs {
    private var jobs: [UnownedJob] = []
    /// The oldest job's index in `jobs`.
    private var head = 0

    /// How many jobs wait.
    var count: Int {
        jobs.count - head
    }

    mutating func append(_ job: UnownedJob) {
        jobs.append(job)
    }

    /// Takes the oldest job, if one waits.
    mutating func popFirst() -> UnownedJob? {
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        emptyIfTaken()
        return job
    }

    /// Moves the `count` oldest jobs, oldest first, to the end of `taken`.
    ///
    /// - Precondition: At least `count` jobs wait.
    mutating func moveFirst(_ count: Int, into taken: inout [UnownedJob]) {
        precondition(count <= self.count, "fewer jobs wait than are taken")
        taken.append(contentsOf: jobs[head..<(head + count)])
        head += count
        emptyIfTaken()
    }

    /// Every job taken: the buffer starts over, keeping its capacity.
    private mutating func emptyIfTaken() {
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        }
    }
}
