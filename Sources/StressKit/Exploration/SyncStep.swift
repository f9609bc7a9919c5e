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
public enum SyncStep: UInt8, Sendable, CaseIterable {
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
public enum Exploration {
    /// Announces that the calling thread is about to perform `step`. On a
    /// thread a schedule controller owns, parks it until the controller picks
    /// it again; on any other thread returns at once.
    ///
    /// - Returns: Whether the calling thread is controlled (`false` also once
    ///   its controller gave up a schedule and let the threads run freely:
    ///   a loop that waits for another thread must then block or give up).
    @discardableResult
    public static func syncPoint(_ step: SyncStep) -> Bool {
        guard let party = ControlledParty.current else { return false }
        return party.controller.yield(party: party.index, step: step)
    }

    /// The uptime clock in nanoseconds as the library sees it on the calling
    /// thread (`Scheduler.monotonicNanoseconds`, timer deadlines): on a
    /// thread a schedule controller with hand-off workers owns, the
    /// controller's virtual clock, which starts every schedule at
    /// `ScheduleController.virtualEpochNanoseconds` and moves only when a
    /// virtual timer fires; on any other thread the real clock.
    public static func uptimeNanoseconds() -> UInt64 {
        ControlledParty.current?.controller.virtualUptimeNanoseconds() ?? DispatchTime.now().uptimeNanoseconds
    }

    /// Whether the calling thread is run by a schedule controller.
    public static var isControlledThread: Bool {
        ControlledParty.current != nil
    }

    /// Whether the library in this build has sync points (built with the
    /// package trait `Exploration`); without them, exploration interleaves
    /// the library's code only at the harness's own sync points.
    public static var libraryIsInstrumented: Bool {
        #if SCHEDULERS_EXPLORATION
        SchedulersExploration.isInstrumented
        #else
        false
        #endif
    }

    /// Whether the calling thread is one of a schedule controller's hand-off
    /// workers, running a block handed to a queue (as if on that queue).
    public static var isHandOffWorker: Bool {
        guard let party = ControlledParty.current else { return false }
        return party.index >= party.controller.parties
    }

    /// Enqueues `block` on `queue` (as a barrier when `barrier`), through the
    /// same seam as the library's hand-offs: on a controlled thread whose
    /// controller has hand-off workers, the controller runs it in the queue's
    /// order; otherwise `queue.async`.
    public static func handOff(to queue: DispatchQueue, barrier: Bool = false, _ block: @escaping @Sendable () -> Void) {
        if let party = ControlledParty.current,
           party.controller.handOff(from: party.index, to: queue, barrier: barrier, block: block) {
            return
        }
        queue.async(flags: barrier ? .barrier : [], execute: block)
    }

    /// Adds an operation running `block` to `queue`, through the same seam
    /// as the library's hand-offs (see `handOff(to:barrier:_:)`).
    public static func handOff(to queue: OperationQueue, _ block: @escaping @Sendable () -> Void) {
        let operation = BlockOperation(block: block)
        let transfer = UnsafeTransfer(operation)
        if let party = ControlledParty.current,
           party.controller.handOff(from: party.index, to: queue, barrier: false, block: { transfer.value.start() }) {
            return
        }
        queue.addOperation(operation)
    }

    /// Tells the controllers that `queue` is concurrent: its handed-off
    /// blocks may interleave. A `DispatchQueue` not declared is treated as
    /// serial (Dispatch cannot tell); an `OperationQueue` is serial when its
    /// `maxConcurrentOperationCount` is 1.
    public static func declareConcurrent(_ queue: DispatchQueue) {
        concurrentQueues.withLock { queues in
            if !queues.contains(where: { $0 === queue }) {
                queues.append(queue)
            }
        }
    }

    /// Whether a controller runs `queue`'s handed-off blocks one at a time.
    static func isSerial(_ queue: AnyObject) -> Bool {
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
            guard let party = ControlledParty.current else { return false }
            return party.controller.handOff(from: party.index, to: queue, barrier: barrier, block: block)
        }
        SchedulersExploration.installTimers(
            arm: { queue, deadline, interval, handler in
                guard let party = ControlledParty.current else { return nil }
                return party.controller.armTimer(
                    from: party.index, queue: queue, repeating: interval != nil,
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
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<ControlledPartyBox>.fromOpaque(raw).takeUnretainedValue().party
    }

    /// Binds the calling thread to `box` (retained by the caller for the thread's life), or unbinds it.
    static func bind(_ box: ControlledPartyBox?) {
        pthread_setspecific(key, box.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()
}

/// Holds a `ControlledParty` by reference, for the thread-local slot.
final class ControlledPartyBox: @unchecked Sendable {
    let party: ControlledParty

    init(_ party: ControlledParty) {
        self.party = party
    }
}
