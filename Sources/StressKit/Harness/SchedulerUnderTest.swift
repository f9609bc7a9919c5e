import Dispatch
import Foundation
import Schedulers

/// A scheduler set up for a stress scenario (what a ``StressScheduler``'s
/// registration made), with what the harness needs beside it: a way to put a
/// gate in front of the next action, a way to wait until everything enqueued
/// so far has run, and a way to tell whether the calling thread is running on it.
final class SchedulerUnderTest: @unchecked Sendable {
    /// How long ``settle(seconds:)`` waits by default (a registration's
    /// ``StressScheduler/stallTimeoutSeconds``).
    var settleSeconds: Double = 10
    /// The name scenario names end with.
    let name: String
    /// Whether the scheduler is a `SerialScheduler` (guarantee 3 applies to it).
    let isSerial: Bool
    /// The scheduler.
    let scheduler: any ImmediateScheduler
    /// The scheduler as a `Scheduler`, if it is one (the periodic scenarios need it).
    let timed: (any Scheduler)?
    /// The registration's answer to ``isCurrent``.
    private let isCurrentCheck: (@Sendable () -> Bool)?
    /// The registration's own gate (see ``enqueueGate(_:)``).
    private let gate: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    /// The registration's teardown, until ``finish()`` calls it.
    private let teardown: Locked<(@Sendable () -> Void)?>

    /// A scheduler a registration made: `gate`, when given, enqueues a block
    /// that the next action scheduled from the calling thread cannot
    /// overtake; otherwise `schedule` is (a serial scheduler's promise).
    init(
        name: String, isSerial: Bool, scheduler: any ImmediateScheduler, isCurrent: (@Sendable () -> Bool)?,
        gate: (@Sendable (@escaping @Sendable () -> Void) -> Void)?, teardown: (@Sendable () -> Void)? = nil
    ) {
        self.teardown = Locked(teardown)
        self.name = name
        self.isSerial = isSerial
        self.scheduler = scheduler
        timed = scheduler as? any Scheduler
        isCurrentCheck = isCurrent
        self.gate = gate
    }

    /// Whether the calling thread runs work of this scheduler. A
    /// registration without `isCurrent` answers `true`: the scenarios then
    /// do not check where its actions run.
    var isCurrent: Bool {
        isCurrentCheck?() ?? true
    }

    /// Enqueues `gate` so that the next action scheduled on this scheduler
    /// from the calling thread cannot start before `gate` returns.
    func enqueueGate(_ gate: @escaping @Sendable () -> Void) {
        if let own = self.gate {
            own(gate)
        } else {
            _ = scheduler.schedule(()) { _ in
                gate()
                return Disposables.create()
            }
        }
    }

    /// Hands the scheduler to its registration's teardown, once; the
    /// scenario is done with it.
    func finish() {
        let ends = teardown.withLock { ends in
            defer { ends = nil }
            return ends
        }
        ends?()
    }

    /// Waits until everything enqueued before the call has run or been
    /// dropped. Returns `false` if that took longer than `seconds`.
    func settle(seconds: Double? = nil) -> Bool {
        let seconds = seconds ?? settleSeconds
        let done = DispatchSemaphore(value: 0)
        enqueueGate { done.signal() }
        return done.wait(timeout: .now() + seconds) == .success
    }
}
