import Schedulers
import Synchronization

/// A disposable that counts how often it was disposed, from any thread.
///
/// The count is the underlying resource's release count: guarantee 7 says it
/// must end at exactly 1.
final class DisposalCounter: Cancelable, Sendable {
    private let disposals = Atomic<Int>(0)

    init() {}

    /// How many times `dispose()` was called.
    var disposeCount: Int {
        disposals.load(ordering: .acquiring)
    }

    var isDisposed: Bool {
        disposeCount > 0
    }

    func dispose() {
        disposals.add(1, ordering: .acquiringAndReleasing)
    }
}

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

/// An object to watch through a `weak` reference: it must be freed once
/// whatever held it is disposed (DESIGN.md guarantee 8).
final class LifetimeToken: Sendable {
    init() {}
}
