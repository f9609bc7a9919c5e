import Synchronization

/// Counts live instances of a scenario's probes, states and tokens, so the
/// runner can check that everything was freed (guarantee 8 in Guarantees.md).
public final class LiveCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Creates a counter at zero.
    public init() {}

    /// How many tracked instances are alive now.
    public var value: Int {
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
public final class LiveToken: Sendable {
    private let counter: LiveCounter

    /// Creates a token counted by `counter`.
    public init(_ counter: LiveCounter) {
        self.counter = counter
        counter.increment()
    }

    deinit {
        counter.decrement()
    }
}
