extension ObservableType {
    /// Subscribes to this sequence, and disposes that subscription, on `scheduler`.
    ///
    /// Without it, `subscribe` (the closure of `Observable.create`) runs on the
    /// thread that subscribes and disposal on the thread that disposes.
    ///
    /// Guarantee 4 in Guarantees.md: subscription and disposal of the source run on
    /// `scheduler`; a `dispose()` that wins the race against the pending
    /// subscription means the source is never subscribed (checked by the sink
    /// itself, whatever the scheduler's own cancellation does). A `dispose()`
    /// that comes while the subscription is running disposes it on
    /// `scheduler` as soon as it is in place. Events pass through unchanged
    /// (grammar kept, guarantee 1) and the sink is freed after disposal or
    /// termination (guarantee 8).
    public func subscribe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        SubscribeOn(source: asObservable(), scheduler: scheduler)
    }

    /// The spelling of `subscribe(on:)` in RxSwift's Schedulers guide (and RxSwift 5).
    public func subscribeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        subscribe(on: scheduler)
    }
}

final class SubscribeOn<Element>: Producer<Element>, @unchecked Sendable {
    let source: Observable<Element>
    let scheduler: ImmediateSchedulerType

    init(source: Observable<Element>, scheduler: ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = SubscribeOnSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink, subscription)
    }
}

/// Subscribes on the scheduler; its state machine decides who disposes what.
final class SubscribeOnSink<Observer: ObserverType>: Sink<Observer>, ObserverType, @unchecked Sendable {
    typealias Element = Observer.Element

    private enum State {
        /// The subscription is scheduled and has not started.
        case waitingToSubscribe
        /// The scheduled action is subscribing to the source right now.
        case subscribing
        /// Subscribed; holds the source subscription.
        case subscribed(Disposable)
        /// Disposed; nothing more is subscribed or delivered.
        case disposed
    }

    /// What the caller of a transition must do.
    private enum Action {
        case none
        case subscribe
        case disposeOnScheduler(Disposable)
    }

    private let parent: SubscribeOn<Element>
    private let lock = Lock()
    private var state = State.waitingToSubscribe
    /// The scheduled subscription, so a winning `dispose()` can cancel it too.
    private let scheduledSubscription = SingleAssignmentDisposable()

    init(parent: SubscribeOn<Element>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func on(_ event: Event<Element>) {
        forwardOn(event)
        if event.isStopEvent {
            dispose()
        }
    }

    /// Schedules the subscription; returns what cancels it.
    func run() -> Disposable {
        let scheduled = parent.scheduler.schedule(self) { sink in
            sink.subscribeOnScheduler()
            return Disposables.create()
        }
        scheduledSubscription.setDisposable(scheduled)
        return scheduledSubscription
    }

    private func subscribeOnScheduler() {
        let action: Action = lock.withLock {
            switch state {
            case .waitingToSubscribe:
                state = .subscribing
                return .subscribe
            case .disposed:
                return .none
            case .subscribing, .subscribed:
                preconditionFailure("subscribe(on:) subscription ran twice")
            }
        }
        guard case .subscribe = action else { return }
        let subscription = parent.source.subscribe(self)
        let after: Action = lock.withLock {
            switch state {
            case .subscribing:
                state = .subscribed(subscription)
                return .none
            case .disposed:
                #if SCHEDULERS_MUTANTS
                if Mutant.active == .subscribeOnDropsLateSubscription {
                    return .none
                }
                #endif
                return .disposeOnScheduler(subscription)
            case .waitingToSubscribe, .subscribed:
                preconditionFailure("subscribe(on:) state corrupted")
            }
        }
        if case .disposeOnScheduler(let subscription) = after {
            disposeOnScheduler(subscription)
        }
    }

    override func dispose() {
        let action: Action = lock.withLock {
            switch state {
            case .waitingToSubscribe, .subscribing:
                // A pending subscription will see `.disposed` and not subscribe;
                // a running one disposes what it got when it is done.
                state = .disposed
                return .none
            case .subscribed(let subscription):
                state = .disposed
                return .disposeOnScheduler(subscription)
            case .disposed:
                return .none
            }
        }
        super.dispose()
        if case .disposeOnScheduler(let subscription) = action {
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .subscribeOnDisposeInline {
                subscription.dispose()
                return
            }
            #endif
            disposeOnScheduler(subscription)
        }
    }

    private func disposeOnScheduler(_ subscription: Disposable) {
        _ = parent.scheduler.schedule(subscription) { subscription in
            subscription.dispose()
            return Disposables.create()
        }
    }
}
