import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
///   schedulers): jobs run on the scheduler's serial queue, in FIFO order. No
///   allocation per job: a job goes into a buffer the executor reuses, and one
///   reusable dispatch block drains it. Isolation is the queue: code running
///   on the scheduler's queue (a job, or any action of the scheduler) is
///   isolated to this executor, code anywhere else is not.
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
        adoptJobQueue()
    }

    /// An executor on a dispatch scheduler's serial queue.
    init(dispatchScheduler: SerialDispatchQueueScheduler) {
        kind = Self.kind(for: dispatchScheduler)
        adoptJobQueue()
    }

    private func adoptJobQueue() {
        if case .dispatch(let jobs) = kind {
            jobs.owner = self
        }
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
            jobs.enqueue(job)
        case .main:
            // The runtime sends an actor on this executor straight to the main
            // actor's executor; this path is only for a direct caller.
            let transfer = UnsafeTransfer(job)
            if !SyncPoint.controllerTook(
                { transfer.value.runSynchronously(on: MainActor.sharedUnownedExecutor) }, for: DispatchQueue.main
            ) {
                DispatchQueue.main.async {
                    transfer.value.runSynchronously(on: MainActor.sharedUnownedExecutor)
                }
            }
        case .scheduler(let scheduler):
            let transfer = UnsafeTransfer(job)
            _ = scheduler.scheduleInOrder(self) { executor in
                CurrentJobExecutor.running(executor) {
                    transfer.value.runSynchronously(on: executor.asUnownedSerialExecutor())
                }
                return Disposables.create()
            }
        }
    }

    /// The unowned reference an actor returns from `unownedExecutor`; for the
    /// main queue, the main actor's executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        if case .main = kind {
            return MainActor.sharedUnownedExecutor
        }
        return UnownedSerialExecutor(ordinary: self)
    }

    /// Whether the calling code runs isolated to this executor: on the
    /// scheduler's queue for a dispatch scheduler, on the main queue for the
    /// main scheduler, inside one of this executor's jobs otherwise.
    public var isIsolated: Bool {
        switch kind {
        case .dispatch(let jobs):
            return DispatchQueue.getSpecific(key: jobs.key) == ObjectIdentifier(jobs)
        case .main:
            return MainQueueMarker.isOnMainQueue
        case .scheduler:
            return CurrentJobExecutor.isRunning(self)
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

extension SerialDispatchQueueScheduler {
    /// The `SerialExecutor` that runs jobs on this scheduler's queue: the same
    /// executor on every call, made on first use, living as long as the
    /// scheduler. See `SerialSchedulerExecutor`.
    ///
    /// For `MainScheduler` it is the main actor's executor.
    public var executor: SerialSchedulerExecutor {
        if let existing = executorReference.load() {
            return existing
        }
        return executorReference.storeIfNil(SerialSchedulerExecutor(dispatchScheduler: self))
    }
}

extension SerialScheduler where Self: AnyObject {
    /// The `SerialExecutor` that runs jobs on this scheduler: the same
    /// executor on every call for as long as the scheduler lives. See
    /// `SerialSchedulerExecutor`.
    public var executor: SerialSchedulerExecutor {
        if let dispatchScheduler = self as? SerialDispatchQueueScheduler {
            return dispatchScheduler.executor
        }
        return SchedulerExecutorTable.shared.executor(for: self)
    }
}

/// The executors of serial schedulers that are neither dispatch schedulers
/// nor able to store one: one per live scheduler, dropped once the scheduler
/// is gone (checked whenever a scheduler gets its first executor).
final class SchedulerExecutorTable: @unchecked Sendable {
    static let shared = SchedulerExecutorTable()

    private struct Entry {
        weak var scheduler: AnyObject?
        let executor: SerialSchedulerExecutor
    }

    private let lock = Lock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    func executor<S: SerialScheduler & AnyObject>(for scheduler: S) -> SerialSchedulerExecutor {
        let id = ObjectIdentifier(scheduler)
        return lock.withLock {
            if let entry = entries[id], entry.scheduler === scheduler {
                return entry.executor
            }
            entries = entries.filter { $0.value.scheduler != nil }
            let executor = SerialSchedulerExecutor(WeakSerialScheduler(scheduler))
            entries[id] = Entry(scheduler: scheduler, executor: executor)
            return executor
        }
    }
}

/// Forwards to a scheduler without keeping it, so that the table's executor
/// does not keep its scheduler alive.
private struct WeakSerialScheduler: SerialScheduler {
    weak var scheduler: (any SerialScheduler & AnyObject)?

    init(_ scheduler: any SerialScheduler & AnyObject) {
        self.scheduler = scheduler
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        guard let scheduler else {
            preconditionFailure(
                "An actor enqueued a job on the executor of a deallocated scheduler: keep the scheduler alive (store it in the actor) for as long as the actor uses its executor"
            )
        }
        return scheduler.scheduleInOrder(state, action: action)
    }
}

/// The jobs waiting for a dispatch queue, and the one reusable block that
/// runs them there. Each drain runs the jobs present when it started, then
/// enqueues itself again if more came, so a steady stream of jobs does not
/// hold the queue against the scheduler's other work.
final class DispatchJobQueue: ReusableDrainTarget, @unchecked Sendable {
    let queue: DispatchQueue
    /// Marks the queue: set to this object's identity, read by `isIsolated`.
    let key = DispatchSpecificKey<ObjectIdentifier>()
    /// The executor this queue belongs to (which owns it); set once, right
    /// after creation. Retained while a drain is enqueued or running.
    unowned(unsafe) var owner: SerialSchedulerExecutor!

    private let lock = Lock()
    /// Jobs enqueued and not yet taken by a drain. Guarded by `lock`.
    ///
    /// These three are exempt from the run-time exclusivity check: the lock,
    /// or for `running` the one drain at a time, already makes each access
    /// exclusive, and the check cost a thread-local lookup and an access-set
    /// insertion per access, paid per job.
    @exclusivity(unchecked)
    private var pending: [UnownedJob] = []
    /// Whether a drain block is on the queue or running. Guarded by `lock`.
    @exclusivity(unchecked)
    private var drainScheduled = false
    /// The jobs the current drain runs; swapped with `pending` under the
    /// lock, so both buffers keep their capacity. Touched only by the drain.
    @exclusivity(unchecked)
    private var running: [UnownedJob] = []
    private var drainBlock: (@Sendable @convention(block) () -> Void)?

    init(queue: DispatchQueue) {
        self.queue = queue
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
        drainBlock = ReusableDrainBlock.make(running: self)
    }

    func enqueue(_ job: UnownedJob) {
        let mustSchedule = lock.withLock {
            pending.append(job)
            if drainScheduled {
                return false
            }
            drainScheduled = true
            return true
        }
        if mustSchedule {
            // Keeps the executor (and so this object) alive until the drain
            // that finds nothing more to run gives the reference back.
            _ = Unmanaged.passUnretained(owner).retain()
            if !SyncPoint.controllerTook(drainBlock!, for: queue) {
                queue.async(execute: drainBlock!)
            }
        }
    }

    func drainAndRelease() {
        lock.withLock {
            swap(&running, &pending)
        }
        let executor = owner.asUnownedSerialExecutor()
        // An index loop: `for in` over the array costs an allocation per
        // job in unoptimised builds (the generic iterator's subscript).
        var index = 0
        while index < running.count {
            running[index].runSynchronously(on: executor)
            index += 1
        }
        running.removeAll(keepingCapacity: true)
        let more = lock.withLock {
            if pending.isEmpty {
                drainScheduled = false
                return false
            }
            return true
        }
        if more {
            if !SyncPoint.controllerTook(drainBlock!, for: queue) {
                queue.async(execute: drainBlock!)
            }
        } else {
            Unmanaged.passUnretained(owner).release()
        }
    }
}

/// Which executor's job the current thread runs, for executors that cannot
/// ask their queue.
enum CurrentJobExecutor {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with status \(status)")
        return key
    }()

    static func running(_ executor: SerialSchedulerExecutor, _ body: () -> Void) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(executor).toOpaque())
        defer { pthread_setspecific(key, previous) }
        body()
    }

    static func isRunning(_ executor: SerialSchedulerExecutor) -> Bool {
        pthread_getspecific(key) == Unmanaged.passUnretained(executor).toOpaque()
    }
}
