import Foundation
import Schedulers

/// A hot source for tests: `send` pushes events to the current subscriber.
///
/// The subscriber is kept under a lock, so a producer thread may send while
/// another thread disposes; sends from several threads at once would break
/// the Rx contract and are not made by the tests.
final class SequencesTestSubject<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var currentObserver: AnyObserver<Element>?
    private var subscriptions = 0
    private var disposals = 0

    var subscriptionCount: Int {
        lock.withLock { subscriptions }
    }

    var disposalCount: Int {
        lock.withLock { disposals }
    }

    lazy var observable: Observable<Element> = Observable.create { [weak self] observer in
        guard let self else { return Disposables.create() }
        self.lock.withLock {
            self.currentObserver = observer
            self.subscriptions += 1
        }
        return Disposables.create { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                self.disposals += 1
                self.currentObserver = nil
            }
        }
    }

    func send(_ element: Element) {
        lock.withLock { currentObserver }?.on(.next(element))
    }

    func send(_ event: Event<Element>) {
        lock.withLock { currentObserver }?.on(event)
    }
}
