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
