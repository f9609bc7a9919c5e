import Foundation
import Schedulers

import Synchronization

/// A deliberately broken single-assignment disposable, for `--self-check` only.
///
/// `setDisposable` checks "disposed?" and stores the new disposable in two
/// separate critical sections: a `dispose()` that falls into the gap finds
/// nothing to dispose, and the assigned disposable is never disposed. Every
/// access is locked, so ThreadSanitizer sees no data race: only the
/// harness's outcome grading can catch the bug. With `widened`, a pause in
/// the gap makes it easy to hit on real threads. Each lock is a sync point
/// (`Exploration.syncPoint`), so exploration can put a `dispose()` in the
/// gap too. It lives in the harness (StressKit), never in the library.
final class BrokenSingleAssignmentDisposable<Window: BugWindow>: AssignOnceDisposable, @unchecked Sendable {
    private let lock = NSLock()
    private var held: Disposable?
    private var disposed = false

    var isDisposed: Bool {
        Exploration.syncPoint(.lockAcquire)
        return lock.withLock { disposed }
    }

    func setDisposable(_ disposable: Disposable) {
        Exploration.syncPoint(.lockAcquire)
        let alreadyDisposed = lock.withLock { disposed }
        // The bug: the decision above is stale by the time it is acted on.
        spinDelay(nanoseconds: Window.pauseNanoseconds)
        if alreadyDisposed {
            disposable.dispose()
        } else {
            Exploration.syncPoint(.lockAcquire)
            lock.withLock { held = disposable }
        }
    }

    func dispose() {
        Exploration.syncPoint(.lockAcquire)
        let toDispose: Disposable? = lock.withLock {
            disposed = true
            let current = held
            held = nil
            return current
        }
        toDispose?.dispose()
    }
}

/// How wide a broken disposable's window is on real threads.
protocol BugWindow {
    /// The pause inside the window, in nanoseconds (0: no widening).
    static var pauseNanoseconds: Int { get }
}

/// A 20 µs pause in the window: real threads hit it easily.
enum WidenedWindow: BugWindow {
    static var pauseNanoseconds: Int { 20_000 }
}

/// No pause: the window is the gap between two critical sections.
enum NarrowWindow: BugWindow {
    static var pauseNanoseconds: Int { 0 }
}

/// A deliberately broken single-assignment disposable whose window is one
/// step: `dispose()` checks the disposed flag with a load and sets it with a
/// separate store (a check-then-act on one atomic, where an exchange was
/// needed), and then assumes it is the only disposer, so two disposers that
/// both load `false` both dispose the assigned disposable. Nothing widens
/// the window; the assignment itself is correct (under the lock).
final class CheckThenActSingleAssignmentDisposable: AssignOnceDisposable, @unchecked Sendable {
    private let flag = Atomic<Bool>(false)
    private let lock = NSLock()
    private var held: Disposable?
    private var disposedUnderLock = false

    var isDisposed: Bool {
        Exploration.syncPoint(.atomicLoad)
        return flag.load(ordering: .acquiring)
    }

    func setDisposable(_ disposable: Disposable) {
        Exploration.syncPoint(.lockAcquire)
        let disposeNow: Bool = lock.withLock {
            if disposedUnderLock { return true }
            held = disposable
            return false
        }
        if disposeNow {
            disposable.dispose()
        }
    }

    func dispose() {
        Exploration.syncPoint(.atomicLoad)
        guard !flag.load(ordering: .acquiring) else { return }
        // The bug: another disposer can load `false` right here too.
        Exploration.syncPoint(.atomicStore)
        flag.store(true, ordering: .releasing)
        Exploration.syncPoint(.lockAcquire)
        // "Only the one disposer gets here", so `held` is not cleared.
        let current: Disposable? = lock.withLock {
            disposedUnderLock = true
            return held
        }
        current?.dispose()
    }
}
