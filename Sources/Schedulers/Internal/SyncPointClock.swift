import Dispatch

// The uptime clock through the seam (see SyncPoint.swift).
//
// The library's reads of the uptime clock (`DispatchTime.now()`: the default
// `Scheduler.monotonicNanoseconds`, and the deadlines of the timers it arms)
// go through `SyncPoint.dispatchNow()` / `SyncPoint.uptimeNanoseconds()`. In a
// normal build each is that `DispatchTime.now()` read, inlined. Built with
// the `Exploration` trait, a read on a thread a schedule controller owns
// returns the controller's virtual time instead: it starts at the same value
// in every schedule and moves only when the controller fires a virtual timer
// (to that timer's deadline, when later), so code that computes with the
// clock (the emulated periodic job's due times) computes the same numbers in
// every replay of a schedule, and never finds that a step took longer than
// a period. Reads on any other thread see the real clock.

extension SyncPoint {
    /// `DispatchTime.now()`, or the controller's virtual time on a controlled thread.
    @_transparent
    static func dispatchNow() -> DispatchTime {
        #if SCHEDULERS_EXPLORATION
        // unsafe: exploration build only; the hook is written only by its install function, whose contract
        // is to run before the threads that run library code start and after they stop, so this read races with no write.
        if let hook = unsafe SyncPointHook.uptime, let virtual = hook() {
            return DispatchTime(uptimeNanoseconds: virtual)
        }
        #endif
        return DispatchTime.now()
    }

    /// `DispatchTime.now().uptimeNanoseconds`, or the controller's virtual
    /// time on a controlled thread.
    @_transparent
    static func uptimeNanoseconds() -> UInt64 {
        #if SCHEDULERS_EXPLORATION
        // unsafe: exploration build only; the hook is written only by its install function, whose contract
        // is to run before the threads that run library code start and after they stop, so this read races with no write.
        if let hook = unsafe SyncPointHook.uptime, let virtual = hook() {
            return virtual
        }
        #endif
        return DispatchTime.now().uptimeNanoseconds
    }
}

#if SCHEDULERS_EXPLORATION
extension SyncPointHook {
    /// Called at every read of the uptime clock; returns the virtual time
    /// when the calling thread is controlled, `nil` otherwise.
    @usableFromInline
    nonisolated(unsafe) static var uptime: (() -> UInt64?)?
}

extension SchedulersExploration {
    /// Installs `hook`, called at every read of the uptime clock (the default
    /// `Scheduler.monotonicNanoseconds`, a timer's deadline). It returns the
    /// time, in uptime nanoseconds, the calling thread is to see, or `nil`
    /// for the real clock.
    ///
    /// Contract: the same as `install(_:)`'s; it must return `nil` promptly
    /// for threads it does not control, and whenever it returns a time, the
    /// timer hook (`installTimers`) must take the timers that thread arms,
    /// whose deadlines are then on the same virtual clock (a value above 0:
    /// `DispatchTime(uptimeNanoseconds: 0)` means "now" to Dispatch).
    public static func installUptime(_ hook: (() -> UInt64?)?) {
        // unsafe: exploration build only; written only here, before the threads that run library code start
        // or after they stopped (the contract above), so no read races with this write.
        unsafe SyncPointHook.uptime = hook
    }
}
#endif
