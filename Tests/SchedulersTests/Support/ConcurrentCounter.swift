import Synchronization

/// A thread-safe counter for actions run from several threads.
final class ConcurrentCounter: Sendable {
    private let value = Atomic<Int>(0)

    init() {}

    var count: Int {
        value.load(ordering: .acquiring)
    }

    @discardableResult
    func increment() -> Int {
        value.add(1, ordering: .acquiringAndReleasing).newValue
    }
}
