import Schedulers
import Synchronization

/// A disposable that counts how often it is disposed and remembers who did it first.
///
/// Handed to the library in place of a real resource: the library promises
/// to dispose each resource exactly once (guarantee 7 in Guarantees.md), so any
/// count but one at the end of an iteration is a broken guarantee.
final class ProbeDisposable: Cancelable, Sendable {
    /// `disposedBy` when the first disposal ran on a thread that is not an actor's.
    static let otherThread = -1
    /// `disposedBy` while it was never disposed.
    static let nobody = -2

    private let calls = Atomic<Int>(0)
    private let firstDisposer = Atomic<Int>(ProbeDisposable.nobody)
    private let token: LiveToken

    /// Creates a probe counted by `live`.
    init(_ live: LiveCounter) {
        token = LiveToken(live)
    }

    /// How many times `dispose()` was called.
    var disposeCount: Int {
        calls.load(ordering: .acquiring)
    }

    /// The actor whose thread disposed first, `otherThread`, or `nobody`.
    var disposedBy: Int {
        firstDisposer.load(ordering: .acquiring)
    }

    /// Whether `dispose()` was called at least once.
    var isDisposed: Bool {
        disposeCount > 0
    }

    /// Counts the call; the first records the calling actor.
    func dispose() {
        if calls.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            firstDisposer.store(CurrentActor.index ?? Self.otherThread, ordering: .releasing)
        }
    }
}
