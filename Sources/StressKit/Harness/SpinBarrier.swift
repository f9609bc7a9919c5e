import Synchronization

/// A reusable barrier for a fixed number of threads, built on atomics only.
///
/// Every `arriveAndWait()` returns once all parties have arrived; everything a
/// party wrote before arriving is visible to every party after the barrier.
/// Waiting spins briefly, then yields (see `Backoff`).
final class SpinBarrier: Sendable {
    let parties: Int
    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)

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
            generation.wrappingAdd(1, ordering: .releasing)
            return
        }
        var backoff = Backoff()
        while generation.load(ordering: .acquiring) == current {
            backoff.pause()
        }
    }
}
