import Synchronization

/// A boolean set once by one thread and read by others.
public final class Flag: Sendable {
    private let state = Atomic<Bool>(false)

    /// Creates an unset flag.
    public init() {}

    /// Sets the flag.
    public func set() {
        state.store(true, ordering: .releasing)
    }

    /// Whether the flag is set.
    public var isSet: Bool {
        state.load(ordering: .acquiring)
    }
}

/// A counter shared by threads.
public final class Counter: Sendable {
    private let state = Atomic<Int>(0)

    /// Creates a counter at zero.
    public init() {}

    /// Adds one and returns the new value.
    @discardableResult
    public func increment() -> Int {
        state.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Subtracts one and returns the new value.
    @discardableResult
    public func decrement() -> Int {
        state.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue
    }

    /// The current value.
    public var value: Int {
        state.load(ordering: .acquiring)
    }
}
