import Foundation
import Synchronization

/// A boolean set once by one thread and read by others.
final class Flag: Sendable {
    private let state = Atomic<Bool>(false)

    /// Sets the flag.
    func set() {
        state.store(true, ordering: .releasing)
    }

    /// Whether the flag is set.
    var isSet: Bool {
        state.load(ordering: .acquiring)
    }
}

/// A counter shared by threads.
final class Counter: Sendable {
    private let state = Atomic<Int>(0)

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        state.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Subtracts one and returns the new value.
    @discardableResult
    func decrement() -> Int {
        state.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
    }

    /// The current value.
    var value: Int {
        state.load(ordering: .acquiring)
    }
}

extension Flag {
    /// Waits on a real thread until the flag is set, spinning and, after 64
    /// rounds, yielding the core (the thread that sets it may need it), for
    /// at most about two milliseconds. A controlled thread waits at sync
    /// points instead, where the schedule decides when the other side runs.
    func spinBriefly() {
        let deadline = monotonicNanoseconds() &+ 2_000_000
        var rounds = 0
        while !isSet && monotonicNanoseconds() < deadline {
            rounds += 1
            if rounds > 64 {
                sched_yield()
            }
        }
    }
}
