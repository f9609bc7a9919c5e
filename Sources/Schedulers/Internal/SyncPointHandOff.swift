import Dispatch
import Foundation

// Scheduler hand-offs through the seam (see SyncPoint.swift).
//
// Every place the library hands work to a queue it does not run itself
// (`DispatchQueue.async`, `OperationQueue.addOperation`) calls
// `SyncPoint.handOff` instead. In a normal build that is exactly the queue's
// own call, inlined. Built with the `Exploration` trait, a hand-off made on
// a thread a schedule controller owns goes to the controller instead, which
// runs the block on one of its own threads, one step at a time, keeping the
// queue's order: a serial queue's blocks one at a time, first in first out;
// a concurrent queue's blocks interleaved (a barrier block alone). Hand-offs
// from any other thread reach the queue as usual.
//
// Timers (`DispatchSource.makeTimerSource`) do not pass this seam yet: work
// scheduled with a due time runs on libdispatch's threads even under a
// controller.

extension SyncPoint {
    /// Enqueues `block` on `queue` (`queue.async(execute: block)` in a normal build).
    @inlinable
    @inline(__always)
    static func handOff(to queue: DispatchQueue, execute block: @escaping @Sendable @convention(block) () -> Void) {
        #if SCHEDULERS_EXPLORATION
        if let hook = SyncPointHook.handOff, hook(queue, false, block) {
            return
        }
        #endif
        queue.async(execute: block)
    }

    /// Adds `operation` to `queue` (`queue.addOperation(operation)` in a normal build).
    @inlinable
    @inline(__always)
    static func handOff(to queue: OperationQueue, _ operation: Operation) {
        #if SCHEDULERS_EXPLORATION
        if let hook = SyncPointHook.handOff {
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
        SyncPointHook.handOff = hook
    }
}
#endif
