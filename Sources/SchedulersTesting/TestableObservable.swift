import Schedulers

/// An observable that replays recorded events on a `TestScheduler` and
/// records its subscriptions. Made by `createHotObservable(_:)` or
/// `createColdObservable(_:)`. Used on the scheduler's thread only.
public class TestableObservable<Element>: Observable<Element>, @unchecked Sendable {
    /// The scheduler the events are replayed on.
    public let testScheduler: TestScheduler
    /// The events this observable replays.
    public let recordedEvents: [Recorded<Event<Element>>]
    /// Every subscription so far, with its disposal time once disposed.
    public internal(set) var subscriptions: [Subscription] = []

    init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.testScheduler = testScheduler
        self.recordedEvents = recordedEvents
    }

    /// Records a subscription now; returns its index in `subscriptions`.
    func recordSubscription() -> Int {
        subscriptions.append(Subscription(testScheduler.clock))
        return subscriptions.count - 1
    }

    /// Marks the subscription at `index` as disposed now.
    func recordUnsubscription(at index: Int) {
        let subscribed = subscriptions[index].subscribe
        subscriptions[index] = Subscription(subscribed, testScheduler.clock)
    }
}

/// Sends its recorded events at their absolute times to whoever is subscribed
/// then, whether or not anyone is: a hot source.
final class HotObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    private var observers: [(key: Int, observer: AnyObserver<Element>)] = []
    private var nextKey = 0

    override init(testScheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(testScheduler: testScheduler, recordedEvents: recordedEvents)
        for recorded in recordedEvents {
            testScheduler.scheduleAt(recorded.time) { [weak self] in
                guard let self else { return }
                for entry in self.observers {
                    entry.observer.on(recorded.value)
                }
            }
        }
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let key = nextKey
        nextKey += 1
        observers.append((key, AnyObserver(observer)))
        let index = recordSubscription()
        return Disposables.create { [weak self] in
            guard let self else { return }
            self.observers.removeAll { $0.key == key }
            self.recordUnsubscription(at: index)
        }
    }
}

/// Sends its recorded events to each subscriber at times relative to that
/// subscription: a cold source.
final class ColdObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let index = recordSubscription()
        let scheduled = CompositeDisposable()
        for recorded in recordedEvents {
            let event = recorded.value
            _ = scheduled.insert(testScheduler.scheduleRelativeVirtual((), dueTime: recorded.time) { _ in
                observer.on(event)
                return Disposables.create()
            })
        }
        return Disposables.create { [weak self] in
            scheduled.dispose()
            self?.recordUnsubscription(at: index)
        }
    }
}
