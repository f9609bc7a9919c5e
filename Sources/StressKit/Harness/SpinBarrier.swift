import Foundation
import Synchronization

/// A reusable barrier for a fixed number of threads.
///
/// Every `arriveAndWait()` returns once all parties have arrived; everything a
/// party wrote before arriving is visible to every party after the barrier.
/// A waiter spins briefly (so the parties leave within a few hundred
/// nanoseconds of each other), then yields, then parks on a condition, so a
/// long wait does not steal a core from the thread it waits for.
final class SpinBarrier: @unchecked Sendable {
    let parties: Int
    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    private let condition = NSCondition()

    static let spinRounds = 256
    static let yieldRounds = 256

    init(parties: Int) {
        precondition(parties >= 1, "SpinBarrier(parties:) needs at least one party")
        self.parties = parties
    }

    func arriveAndWait() {
        let current = generation.load(ordering: .acquiring)
        let count = arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if count == parties {
            // Nobody can arrive for the next generation before seeing this bump.
            arrived.store(0, ordering: .relaxed)
            generation.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                condition.lock()
                condition.broadcast()
                condition.unlock()
            }
            return
        }
        for round in 0..<(Self.spinRounds + Self.yieldRounds) {
            if generation.load(ordering: .acquiring) != current {
                return
            }
            if round < Self.spinRounds {
                spinDelay(nanoseconds: 50)
            } else {
                sched_yield()
            }
        }
        // Either the releaser sees this sleeper and broadcasts under the
        // lock, or this thread sees the new generation: no lost wake-up.
        sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        condition.lock()
        while generation.load(ordering: .sequentiallyConsistent) == current {
            condition.wait()
        }
        condition.unlock()
        sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }
}
