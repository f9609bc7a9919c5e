extension ObservableType {
    /// A sequence of `elements`, then completion.
    ///
    /// - Parameters:
    ///   - elements: What to send, in this order.
    ///   - scheduler: Where the elements are sent. On the default
    ///     `CurrentThreadScheduler` they are sent by one trampolined action, in
    ///     a loop that stops as soon as the subscription is disposed; on another
    ///     scheduler each element is one recursive scheduling step.
    public static func of(
        _ elements: Element...,
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        ObservableSequence(elements: elements, scheduler: scheduler)
    }

    /// A sequence of the elements of `array`, then completion. See `of(_:scheduler:)`.
    public static func from(
        _ array: [Element],
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        ObservableSequence(elements: array, scheduler: scheduler)
    }

    /// A sequence of the elements of `sequence`, then completion. See `of(_:scheduler:)`.
    public static func from<Source: Swift.Sequence>(
        _ sequence: Source,
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> where Source.Element == Element {
        ObservableSequence(elements: sequence, scheduler: scheduler)
    }
}

extension ObservableType where Element: RxAbstractInteger {
    /// The `count` integers from `start` on, then completion. See `of(_:scheduler:)`.
    ///
    /// The last element, `start + count - 1`, may be the type's maximum
    /// (`Observable<UInt8>.range(start: 1, count: 255)` ends at 255), as in
    /// RxSwift; a `count` of zero completes at once.
    ///
    /// - Precondition: `count` is not negative and the last element,
    ///   `start + count - 1`, does not overflow.
    public static func range(
        start: Element,
        count: Element,
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        precondition(count >= 0, "range(start:count:) needs a count that is not negative, got \(count)")
        guard count > 0 else {
            return ObservableSequence(elements: EmptyCollection<Element>(), scheduler: scheduler)
        }
        let (last, overflow) = start.addingReportingOverflow(count - 1)
        precondition(!overflow, "range(start:count:) overflows: its last element, start \(start) + count \(count) - 1, is past \(Element.self).max")
        return ObservableSequence(elements: stride(from: start, through: last, by: 1), scheduler: scheduler)
    }
}

final class ObservableSequence<Elements: Swift.Sequence>: Producer<Elements.Element>, @unchecked Sendable {
    let elements: Elements
    let scheduler: ImmediateSchedulerType

    init(elements: Elements, scheduler: ImmediateSchedulerType) {
        self.elements = elements
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = ObservableSequenceSink(parent: self, observer: observer, cancel: cancel)
        let subscription = sink.run()
        return (sink, subscription)
    }
}

final class ObservableSequenceSink<Elements: Swift.Sequence, Observer: ObserverType>: Sink<Observer>, @unchecked Sendable
where Elements.Element == Observer.Element {
    private let parent: ObservableSequence<Elements>

    init(parent: ObservableSequence<Elements>, observer: Observer, cancel: Cancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }

    func run() -> Disposable {
        if parent.scheduler is CurrentThreadScheduler {
            return parent.scheduler.schedule(self) { sink in
                sink.sendAll()
                return Disposables.create()
            }
        }
        return parent.scheduler.scheduleRecursive(parent.elements.makeIterator()) { [self] iterator, recurse in
            var iterator = iterator
            if let element = iterator.next() {
                forwardNext(element)
                recurse(iterator)
            } else {
                forwardOn(.completed)
                dispose()
            }
        }
    }

    private func sendAll() {
        for element in parent.elements {
            if isDisposed {
                return
            }
            forwardNext(element)
        }
        forwardOn(.completed)
        dispose()
    }
}
