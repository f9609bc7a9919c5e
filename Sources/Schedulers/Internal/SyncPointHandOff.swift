import Dispatch
import Foundation

// Scheduler hand-offs through the seam (see SyncPoint.swift).
//
// Every place the library hands work to a queue it does not run itself
// offers it to the seam first: `OperationQueue.addOperation` through
// `SyncPoint.handOff`, `DispatchQueue.async` as
// `if !SyncPoint.controllerTook(work, for: queue) { queue.async(...) }`. In a
// normal build that is exactly the queue's own call, inlined. Built with the `Exploration` trait, a hand-off made on
// a thread a schedule controller owns goes to the controller instead, which
// runs the block on one of its own threads, one step at a time, keeping the
// queue's order: a serial queue's blocks one at a time, first in first out;
// a concurrent queue's blocks interleaved (a barrier block alone). Hand-offs
// from any other thread reach the queue as usual.
//
// Timers pass it too: see `HandOffTimer` below.

extension SyncPoint {
    /// Offers `work`, bound for `queue`, to the exploration controller;
    /// returns whether it took it. The caller enqueues `work` itself
    /// (`queue.async`) when it did not, so in a normal build, where this is
    /// `false` without evaluating `work`, the caller's own call is all the
    /// code there is: a `DispatchQueue.async` call is exactly today's (a
    /// closure literal passed straight to `async`, a block made beforehand
    /// passed as it is), with no copy of the block on the way.
    @_transparent
    static func controllerTook(
        _ work: @autoclosure () -> @Sendable () -> Void,
        for queue: @autoclosure () -> DispatchQueue
    ) -> Bool {
        #if SCHEDULERS_EXPLORATION
        // unsafe: exploration build only; the hook is written only by its install function, whose contract
        // is to run before the threads that run library code start and after they stop, so this read races with no write.
        if let hook = unsafe SyncPointHook.handOff {
            return hook(queue(), false, work())
        }
        #endif
        return false
    }

    /// Adds `operation` to `queue` (`queue.addOperation(operation)` in a normal build).
    @inlinable
    @inline(__always)
    static func handOff(to queue: OperationQueue, _ operation: Operation) {
        #if SCHEDULERS_EXPLORATION
        // unsafe: exploration build only; the hook is written only by its install function, whose contract
        // is to run before the threads that run library code start and after they stop, so this read races with no write.
        if let hook = unsafe SyncPointHook.handOff {
            let transfer = HandOffOperation(operation)
            if hook(queue, false, { transfer.operation.start() }) {
                return
            }
        }
        #endif
        queue.addOperation(operation)
    }
}

#if SCHEDULERS_EXPLORATION
/// Carries an operation to the controller's thread, which starts it (one thread runs it).
@usableFromInline
struct HandOffOperation: @unchecked Sendable {
    @usableFromInline
    let operation: Operation

    @usableFromInline
    init(_ operation: Operation) {
        self.operation = operation
    }
}

extension SyncPointHook {
    /// Called at every hand-off with the queue (a `DispatchQueue` or an
    /// `OperationQueue`), whether the block is a barrier, and the block.
    /// Returns whether it took the block (the calling thread is controlled).
    @usableFromInline
    nonisolated(unsafe) static var handOff: ((AnyObject, Bool, @escaping @Sendable () -> Void) -> Bool)?
}

extension SchedulersExploration {
    /// Installs `hook`, called at every hand-off of work to a queue with the
    /// queue (a `DispatchQueue` or an `OperationQueue`), whether the block is
    /// a barrier, and the block to run. It returns whether it took the block:
    /// then it must run the block exactly once, on some thread, as the queue
    /// would (an `OperationQueue`'s block starts the operation, which a
    /// cancelled operation skips); when it returns `false` the library
    /// enqueues the block on the queue itself.
    ///
    /// Contract: the same as `install(_:)`'s; it must return `false` promptly
    /// for threads it does not control.
    public static func installHandOff(_ hook: ((AnyObject, Bool, @escaping @Sendable () -> Void) -> Bool)?) {
        // unsafe: exploration build only; written only here, before the threads that run library code start
        // or after they stopped (the contract above), so no read races with this write.
        unsafe SyncPointHook.handOff = hook
    }
}
#endif

// Timers through the seam: `HandOffTimer` stands in for a
// `DispatchSourceTimer`, with the same calls (`schedule`, `setEventHandler`,
// `activate`, `cancel`, `data`). In a normal build it is that timer source
// and nothing else, each call forwarded inline. Built with the `Exploration`
// trait, a timer activated on a controlled thread is virtual: no source is
// made, the controller may fire it at any step as if its time had come, runs
// its handler in its queue's order, and never fires it once `cancel()` ran.
// Its deadline is on the controller's virtual clock (the callers compute it
// from `SyncPoint.dispatchNow()`, SyncPointClock.swift), which a fire moves
// to the deadline of the tick it fires.

#if SCHEDULERS_EXPLORATION
/// A dispatch timer whose arming passes the hand-off seam (see above).
///
/// Contract (the timer source's): configure it, then `activate()` once;
/// `cancel()` may come from any thread after `activate()`.
@usableFromInline
final class HandOffTimer: @unchecked Sendable {
    private let queue: DispatchQueue
    private var deadline = DispatchTime.distantFuture
    private var repeating = DispatchTimeInterval.never
    private var leeway = DispatchTimeInterval.nanoseconds(0)
    private var handler: (@Sendable () -> Void)?
    private var source: DispatchSourceTimer?
    private var virtualTimer: AnyObject?

    /// A timer that runs its handler on `queue`.
    @usableFromInline
    init(queue: DispatchQueue) {
        self.queue = queue
    }

    @usableFromInline
    func schedule(deadline: DispatchTime, repeating: DispatchTimeInterval = .never, leeway: DispatchTimeInterval) {
        self.deadline = deadline
        self.repeating = repeating
        self.leeway = leeway
    }

    @usableFromInline
    func setEventHandler(handler: @escaping @Sendable () -> Void) {
        self.handler = handler
    }

    @usableFromInline
    func activate() {
        let handler = self.handler
        self.handler = nil
        // unsafe: exploration build only; the hook is written only by its install function, whose contract
        // is to run before the threads that run library code start and after they stop, so this read races with no write.
        if deadline != .distantFuture, let handler, let hook = unsafe SyncPointHook.armTimer,
           let armed = hook(queue, deadline.uptimeNanoseconds, Self.nanoseconds(of: repeating), handler) {
            virtualTimer = armed
            return
        }
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: deadline, repeating: repeating, leeway: leeway)
        if let handler {
            source.setEventHandler(handler: handler)
        }
        self.source = source
        source.activate()
    }

    @usableFromInline
    func cancel() {
        if let virtualTimer {
            // unsafe: exploration build only; the hook is written only by its install function, whose contract
            // is to run before the threads that run library code start and after they stop, so this read races with no write.
            unsafe SyncPointHook.cancelTimer?(virtualTimer)
        } else {
            source?.cancel()
        }
    }

    /// `interval` in nanoseconds; `nil` for `.never` (a one-shot timer).
    private static func nanoseconds(of interval: DispatchTimeInterval) -> UInt64? {
        func scaled(_ value: Int, by unit: UInt64) -> UInt64 {
            let (product, overflow) = UInt64(clamping: value).multipliedReportingOverflow(by: unit)
            return overflow ? .max : product
        }
        switch interval {
        case .seconds(let value): return scaled(value, by: 1_000_000_000)
        case .milliseconds(let value): return scaled(value, by: 1_000_000)
        case .microseconds(let value): return scaled(value, by: 1_000)
        case .nanoseconds(let value): return scaled(value, by: 1)
        case .never: return nil
        @unknown default: return nil
        }
    }

    /// Fires since the handler last ran (1 for a virtual timer's fire).
    @usableFromInline
    var data: UInt {
        source?.data ?? 1
    }
}

extension SyncPointHook {
    /// Called when a timer is activated with its queue, its deadline (uptime
    /// nanoseconds), its repeat interval in nanoseconds (`nil`: one-shot) and
    /// its handler; returns the controller's timer when it took it.
    @usableFromInline
    nonisolated(unsafe) static var armTimer: ((DispatchQueue, UInt64, UInt64?, @escaping @Sendable () -> Void) -> AnyObject?)?
    /// Called when a timer the controller took is cancelled.
    @usableFromInline
    nonisolated(unsafe) static var cancelTimer: ((AnyObject) -> Void)?
}

extension SchedulersExploration {
    /// Installs the timer hooks. `arm` is called when a dispatch timer is
    /// activated (with its queue, its deadline in uptime nanoseconds, its
    /// repeat interval in nanoseconds or `nil` for a one-shot timer, and its
    /// handler); it
    /// returns a timer object when it takes the timer (the calling thread is
    /// controlled): then no timer source is made, the hook's owner fires the
    /// handler, on the queue's order, whenever it chooses, until `cancel` is
    /// called with that object, after which it must never start the handler
    /// again. Returning `nil` makes a real timer source.
    ///
    /// Contract: the same as `install(_:)`'s.
    public static func installTimers(
        arm: ((DispatchQueue, UInt64, UInt64?, @escaping @Sendable () -> Void) -> AnyObject?)?,
        cancel: ((AnyObject) -> Void)?
    ) {
        // unsafe: exploration build only; written only here, before the threads that run library code start
        // or after they stopped (the contract above), so no read races with this write.
        unsafe SyncPointHook.armTimer = arm
        // unsafe: exploration build only; written only here, before the threads that run library code start
        // or after they stopped (the contract above), so no read races with this write.
        unsafe SyncPointHook.cancelTimer = cancel
    }
}
#else
/// A dispatch timer source (see above): each call is the source's own, inlined.
@usableFromInline
struct HandOffTimer: @unchecked Sendable {
    @usableFromInline
    let source: DispatchSourceTimer

    /// A timer source that runs its handler on `queue`.
    @inlinable
    @inline(__always)
    init(queue: DispatchQueue) {
        source = DispatchSource.makeTimerSource(queue: queue)
    }

    @inlinable
    @inline(__always)
    func schedule(deadline: DispatchTime, repeating: DispatchTimeInterval = .never, leeway: DispatchTimeInterval) {
        source.schedule(deadline: deadline, repeating: repeating, leeway: leeway)
    }

    @inlinable
    @inline(__always)
    func setEventHandler(handler: @escaping @Sendable () -> Void) {
        source.setEventHandler(handler: handler)
    }

    @inlinable
    @inline(__always)
    func activate() {
        source.activate()
    }

    @inlinable
    @inline(__always)
    func cancel() {
        source.cancel()
    }

    /// Fires since the handler last ran.
    @inlinable
    @inline(__always)
    var data: UInt {
        source.data
    }
}
#endif
