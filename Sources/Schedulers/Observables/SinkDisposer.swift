/// The disposable a `Producer` returns: disposes the sink and the upstream
/// subscription exactly once each (guarantee 7 in Guarantees.md), even when
/// `dispose()` races with, or comes before, their assignment.
final class SinkDisposer: Cancelable, @unchecked Sendable {
    private enum State {
        case waitingForSink
        case holding(sink: Disposable, subscription: Disposable)
        case disposedBeforeAssignment
        case disposed
    }

    private let lock = Lock()
    private var state = State.waitingForSink

    init() {
        LiveInstances.disposerCreated()
    }

    deinit {
        LiveInstances.disposerFreed()
    }

    var isDisposed: Bool {
        lock.withLock {
            switch state {
            case .disposed, .disposedBeforeAssignment: return true
            case .waitingForSink, .holding: return false
            }
        }
    }

    /// Called once by `Producer.subscribe` after `run` returns.
    func setSinkAndSubscription(sink: Disposable, subscription: Disposable) {
        let disposeNow: Bool = lock.withLock {
            switch state {
            case .waitingForSink:
                state = .holding(sink: sink, subscription: subscription)
                return false
            case .disposedBeforeAssignment:
                state = .disposed
                return true
            case .holding, .disposed:
                preconditionFailure("SinkDisposer assigned twice")
            }
        }
        if disposeNow {
            sink.dispose()
            subscription.dispose()
        }
    }

    func dispose() {
        let toDispose: (Disposable, Disposable)? = lock.withLock {
            switch state {
            case .waitingForSink:
                state = .disposedBeforeAssignment
                return nil
            case .holding(let sink, let subscription):
                state = .disposed
                return (sink, subscription)
            case .disposedBeforeAssignment, .disposed:
                return nil
            }
        }
        if let (sink, subscription) = toDispose {
            sink.dispose()
            subscription.dispose()
        }
    }
}
