import Synchronization

/// Counts live instances of a scenario's probes, states and tokens, so the
/// runner can check that everything was freed (guarantee 8 in Guarantees.md).
final class LiveCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// How many tracked instances are alive now.
    var value: Int {
        count.load(ordering: .acquiring)
    }

    func increment() {
        count.wrappingAdd(1, ordering: .relaxed)
    }

    func decrement() {
        count.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }
}

/// An object whose life `LiveCounter` counts. Capture one in a closure handed
/// to the library: if the library never frees the closure, the count stays up.
final class LiveToken: Sendable {
    private let counter: LiveCounter

    /// Creates a token counted by `counter`.
    init(_ counter: LiveCounter) {
        self.counter = counter
        counter.increment()
    }

    deinit {
        counter.decrement()
    }
}
