import Dispatch
import Schedulers

/// `values` in `asyncSequence.throughput`: the producer's thread calls
/// `onNext` on the observer of an `Observable.create`, and one task on the
/// cooperative pool reads `observable.values` (the default, unbounded
/// buffer), the way `peer.asyncstream` reads an `AsyncStream`.
///
/// The reading task subscribes on its first `next()`; `pass` waits for that
/// subscription before producing, so every element crosses from the
/// producer's thread to the task.
final class ObservableValuesHop: HopSession {
    private var reader: Task<Void, Never>?

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let subscribed = SubscribedObserver()
        let source = Observable<UInt64>.create { observer in
            subscribed.publish(observer)
            return Disposables.create()
        }
        reader = Task.detached {
            do {
                for try await value in source.values {
                    consume(value)
                }
            } catch {
                // The source never fails; nothing to report.
            }
        }
        let observer = try subscribed.wait(timeoutSeconds: 60)
        produce { value in observer.onNext(value) }
        observer.onCompleted()
    }

    func close() {
        reader?.cancel()
        reader = nil
    }

    static let variant = HopVariant(id: .library("values")) { ObservableValuesHop() }

    /// The observer the reading task's subscription handed to `create`.
    final class SubscribedObserver: @unchecked Sendable {
        private var observer: AnyObserver<UInt64>?
        private let ready = DispatchSemaphore(value: 0)

        func publish(_ observer: AnyObserver<UInt64>) {
            self.observer = observer
            ready.signal()
        }

        /// The observer once the reader subscribed; fails rather than hang.
        func wait(timeoutSeconds: Double) throws -> AnyObserver<UInt64> {
            guard ready.wait(timeout: .now() + timeoutSeconds) == .success, let observer else {
                throw BenchmarkFailure("values: the reading task did not subscribe within \(Int(timeoutSeconds)) s")
            }
            return observer
        }
    }
}
