#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization
#if SCHEDULERS_EXPLORATION
@_spi(Exploration) import Schedulers
#endif

/// What a controlled thread is about to do when it reaches a sync point.
///
/// The raw values are the library's `SyncPointKind` (Sources/Schedulers/Internal/SyncPoint.swift),
/// which `SyncStepMirrorTests` checks case by case.
enum SyncStep: UInt8, Sendable, CaseIterable {
    /// About to take a lock.
    case lockAcquire = 0
    /// Found the lock taken: cannot go on until another thread makes progress.
    case lockBlocked = 1
    /// About to load an atomic.
    case atomicLoad = 2
    /// About to store to an atomic.
    case atomicStore = 3
    /// About to read-modify-write an atomic.
    case atomicUpdate = 4
    /// Spinning until another thread makes progress.
    case spinWait = 5

    /// Whether a thread that stopped here waits for another thread's progress
    /// (the controller does not pick it again until another thread moved on).
    var waitsForOthers: Bool {
        self == .lockBlocked || self == .spinWait
    }
}

/// Sync points for code outside the library (the self-check's broken
/// disposables, tests): the same seam the library's locks and atomics pass
/// through in a build with the `Exploration` trait.
enum Exploration {
    /// Announces that the calling thread is about to perform `step`. On a
    /// thread a schedule controller owns, parks it until the controller picks
    /// it again; on any other thread returns at once.
    ///
    /// - Returns: Whether the calling thread is controlled (`false` also once
    ///   its controller gave up a schedule and let the threads run freely:
    ///   a loop that waits for another thread must then block or give up).
    @discardableResult
    static func syncPoint(_ step: SyncStep) -> Bool {
        guard let box = ControlledPartyBox.current, box.oneStepDepth == 0 else { return false }
        return box.party.controller.yield(party: box.party.index, step: step)
    }

    /// Runs `body` as one step of the schedule: on a controlled thread, its
    /// sync points pass straight through (as on a thread no controller
    /// owns: a lock found taken is waited for), its hand-offs still go to
    /// the controller, and no other thread runs until it returns.
    ///
    /// For code that runs while the Swift runtime holds a lock the
    /// controller cannot see: `Task.cancel()` runs the task's cancellation
    /// handlers under the task's status-record lock, which the task's own
    /// thread takes to enter or leave `withTaskCancellationHandler`; parked
    /// at a sync point inside a handler, the cancelling thread would leave
    /// that thread blocked outside the seam. The interleavings inside `body`
    /// are then not explored (real threads still race them). Contract:
    /// `body` must not wait for another controlled thread.
    static func asOneStep<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let box = ControlledPartyBox.current else { return try body() }
        box.oneStepDepth += 1
        defer { box.oneStepDepth -= 1 }
        return try body()
    }

    /// The uptime clock in nanoseconds as the library sees it on the calling
    /// thread (`Scheduler.monotonicNanoseconds`, timer deadlines): on a
    /// thread a schedule controller with hand-off workers owns, the
    /// controller's virtual clock, which starts every schedule at
    /// `ScheduleController.virtualEpochNanoseconds` and moves only when a
    /// virtual timer fires; on any other thread the real clock.
    static func uptimeNanoseconds() -> UInt64 {
        ControlledParty.current?.controller.virtualUptimeNanoseconds() ?? DispatchTime.now().uptimeNanoseconds
    }

    /// The task executor to give a Swift task as its executor preference so
    /// that a schedule controller runs its jobs (see
    /// `ControlledTaskExecutor`): the executor of the controller that runs
    /// the calling thread, or that prepares a schedule's state on it, if that
    /// controller has hand-off workers; `nil` otherwise (the default
    /// executor: a task on real threads is unchanged).
    static var taskExecutor: (any TaskExecutor)? {
        guard let controller = ControlledParty.current?.controller ?? ScheduleController.preparingOnThisThread,
              controller.workers > 0 else { return nil }
        return controller.taskExecutor
    }

    /// On a thread a schedule controller runs: whether a virtual timer of
    /// the schedule in progress has fired and its fire has reached `queue`
    /// (see `ScheduleController.timerFireReached`); `false` on any other
    /// thread.
    static func timerFireReached(_ queue: DispatchQueue) -> Bool {
        ControlledParty.current?.controller.timerFireReached(queue) ?? false
    }

    /// Whether the calling thread is run by a schedule controller.
    static var isControlledThread: Bool {
        ControlledParty.current != nil
    }

    /// Whether the library in this build has sync points (built with the
    /// package trait `Exploration`); without them, exploration interleaves
    /// the library's code only at the harness's own sync points.
    static var libraryIsInstrumented: Bool {
        #if SCHEDULERS_EXPLORATION
        SchedulersExploration.isInstrumented
        #else
        false
        #endif
    }

    /// The traits and defines of this build that change which sync points
    /// the code passes, as a recorded schedule names its build: `exploration`
    /// (the package trait Exploration: the library's own sync points),
    /// and, in a build with the seeded bugs (`-DSCHEDULERS_MUTANTS`), the
    /// mutant `SCHEDULERS_MUTANT` selects at run time (`broken-cell`, the
    /// split exchange scripts/stress-explore-broken.sh runs), joined by `+`;
    /// `plain` for neither. A schedule recorded on one build does not follow
    /// the same steps on another, so `--replay` refuses it there.
    static var buildIdentity: String {
        var parts: [String] = []
        if libraryIsInstrumented {
            parts.append("exploration")
        }
        #if SCHEDULERS_MUTANTS
        if let mutant = ProcessInfo.processInfo.environment["SCHEDULERS_MUTANT"], !mutant.isEmpty {
            parts.append(mutant)
        }
        #endif
        return parts.isEmpty ? "plain" : parts.joined(separator: "+")
    }

    /// Whether the calling thread is one of a schedule controller's hand-off
    /// workers, running a block handed to a queue (as if on that queue).
    static var isHandOffWorker: Bool {
        guard let party = ControlledParty.current else { return false }
        return party.index >= party.controller.parties
    }

    /// Enqueues `block` on `queue` (as a barrier when `barrier`), through the
    /// same seam as the library's hand-offs: on a controlled thread whose
    /// controller has hand-off workers, the controller runs it in the queue's
    /// order; otherwise `queue.async`.
    static func handOff(to queue: DispatchQueue, barrier: Bool = false, _ block: @escaping @Sendable () -> Void) {
        if let box = ControlledPartyBox.current,
           box.party.controller.handOff(from: box, to: queue, barrier: barrier, block: block) {
            return
        }
        queue.async(flags: barrier ? .barrier : [], execute: block)
    }

    /// Adds an operation running `block` to `queue`, through the same seam
    /// as the library's hand-offs (see `handOff(to:barrier:_:)`).
    static func handOff(to queue: OperationQueue, _ block: @escaping @Sendable () -> Void) {
        let operation = BlockOperation(block: block)
        let transfer = UnsafeTransfer(operation)
        if let box = ControlledPartyBox.current,
           box.party.controller.handOff(from: box, to: queue, barrier: false, block: { transfer.value.start() }) {
            return
        }
        queue.addOperation(operation)
    }

    /// Tells the controllers that `queue` is concurrent: its handed-off
    /// blocks may interleave. A `DispatchQueue` not declared is treated as
    /// serial (Dispatch cannot tell); an `OperationQueue` is serial when its
    /// `maxConcurrentOperationCount` is 1.
    static func declareConcurrent(_ queue: DispatchQueue) {
        concurrentQueues.withLock { queues in
            if !queues.contains(where: { $0 === queue }) {
                queues.append(queue)
            }
        }
    }

    /// Whether a controller runs `queue`'s handed-off blocks one at a time.
    static func isSerial(_ queue: AnyObject) -> Bool {
        if queue is ControlledTaskExecutor {
            return false
        }
        if let operations = queue as? OperationQueue {
            return operations.maxConcurrentOperationCount == 1
        }
        return !concurrentQueues.withLock { $0.contains { $0 === queue } }
    }

    private static let concurrentQueues = Mutex<[DispatchQueue]>([])

    /// Routes the library's sync points and hand-offs to the controllers
    /// (idempotent). A no-op in a build without the `Exploration` trait.
    static func installLibraryHook() {
        #if SCHEDULERS_EXPLORATION
        SchedulersExploration.install { raw in
            Exploration.syncPoint(SyncStep(rawValue: raw) ?? .atomicUpdate)
        }
        SchedulersExploration.installUptime {
            ControlledParty.current?.controller.virtualUptimeNanoseconds()
        }
        SchedulersExploration.installHandOff { queue, barrier, block in
            guard let box = ControlledPartyBox.current else { return false }
            return box.party.controller.handOff(from: box, to: queue, barrier: barrier, block: block)
        }
        SchedulersExploration.installTimers(
            arm: { queue, deadline, interval, handler in
                guard let box = ControlledPartyBox.current else { return nil }
                return box.party.controller.armTimer(
                    from: box.party.index, yielding: box.oneStepDepth == 0, queue: queue, repeating: interval != nil,
                    deadlineNanoseconds: deadline, intervalNanoseconds: interval ?? 0, handler: handler)
            },
            cancel: { timer in
                guard let timer = timer as? VirtualTimer else { return }
                timer.controller?.cancelTimer(timer)
            })
        #endif
    }
}

/// Which controller owns the calling thread, and as which party (thread-local).
struct ControlledParty {
    let controller: ScheduleController
    let index: Int

    static var current: ControlledParty? {
        ControlledPartyBox.current?.party
    }

    /// Binds the calling thread to `box` (retained by the caller for the thread's life), or unbinds it.
    static func bind(_ box: ControlledPartyBox?) {
        pthread_setspecific(key, box.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    fileprivate static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()
}

/// Holds a `ControlledParty` by reference, for the thread-local slot.
final class ControlledPartyBox: @unchecked Sendable {
    let party: ControlledParty
    /// How many `Exploration.asOneStep` calls the thread is in (read and
    /// written by that thread only).
    var oneStepDepth = 0

    /// The calling thread's box, if a controller owns the thread.
    static var current: ControlledPartyBox? {
        guard let raw = pthread_getspecific(ControlledParty.key) else { return nil }
        return Unmanaged<ControlledPartyBox>.fromOpaque(raw).takeUnretainedValue()
    }

    init(_ party: ControlledParty) {
        self.party = party
    }
}
