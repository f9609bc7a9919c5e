import Foundation
import Schedulers
import StressKit

/// A deliberately broken single-assignment disposable, for `--self-check` only.
///
/// `setDisposable` checks "disposed?" and stores the new disposable in two
/// separate critical sections, with a pause between them: a `dispose()` that
/// falls into the gap finds nothing to dispose, and the assigned disposable is
/// never disposed. Every access is locked, so ThreadSanitizer sees no data
/// race: only the harness's outcome grading can catch the bug. It lives in
/// the Stress executable, never in the library.
final class BrokenSingleAssignmentDisposable: AssignOnceDisposable, @unchecked Sendable {
    private let lock = NSLock()
    private var held: Disposable?
    private var disposed = false

    init() {}

    var isDisposed: Bool {
        lock.withLock { disposed }
    }

    func setDisposable(_ disposable: Disposable) {
        let alreadyDisposed = lock.withLock { disposed }
        // The bug: the decision above is stale by the time it is acted on.
        spinDelay(nanoseconds: 20_000)
        if alreadyDisposed {
            disposable.dispose()
        } else {
            lock.withLock { held = disposable }
        }
    }

    func dispose() {
        let toDispose: Disposable? = lock.withLock {
            disposed = true
            let current = held
            held = nil
            return current
        }
        toDispose?.dispose()
    }
}
