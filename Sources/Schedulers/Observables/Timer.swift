extension ObservableType where Element: RxAbstractInteger {
    /// Sends 0 after `dueTime`; then, with a `period`, 1, 2, … every `period`
    /// (never completing), without one, completes.
    ///
    /// A negative `dueTime` counts as zero; `.never` means nothing is ever
    /// sent. The periodic form uses `scheduler.schedulePeriodic` (native or
    /// fixed-rate emulated, see `interval(_:scheduler:)`) and keeps guarantee 6
    /// in Guarantees.md: ticks never overlap and none starts after `dispose()` returns.
    ///
    /// A zero `period` is accepted, as in `interval(_:scheduler:)`.
    ///
    /// A `.never` period means the next tick never comes: 0 is sent after
    /// `dueTime` and nothing follows, not even completion. That is RxSwift's
    /// behaviour, whose repeating dispatch timer with a `.never` interval
    /// fires once; `timer(_:scheduler:)` without a period is the one-shot
    /// timer that completes.
    ///
    /// - Precondition: `period`, when given, is zero or positive (finite, or
    ///   `.never`); a negative period stops the program with a message
    ///   naming `period`.
    public static func timer(
        _ dueTime: RxTimeInterval,
        period: RxTimeInterval? = nil,
        scheduler: SchedulerType
    ) -> Observable<Element> {
        if let period {
            _ = period.validatedPeriodNanoseconds(argument: "period")
        }
        return TimerObservable(dueTime: dueTime, period: period, scheduler: scheduler)
    }
}

final class TimerObservable<Element: RxAbstractInteger>: Producer<Element>, @unchecked Sendable {
    let dueTime: RxTimeInterval
    let period: RxTimeInterval?
    let scheduler: SchedulerType

    init(dueTime: RxTimeInterval, period: RxTimeInterval?, scheduler: SchedulerType) {
        self.dueTime = dueTime
        self.period = period
        self.scheduler = scheduler
    }

    override func run<Observer: ObserverType>(
        _ observer: Observer, cancel: Cancelable
    ) -> (sink: Disposable, subscription: Disposable) where Observer.Element == Element {
        let sink = TimerSink(observer: observer, cancel: cancel)
        let subscription: Disposable
        if let period, period.nanosecondsOrNil == nil {
            // A `.never` period: the first tick, and no next one.
            subscription = scheduler.scheduleRelative(sink, dueTime: dueTime) { sink in
                _ = sink.tick(Element.zero)
                return Disposables.create()
            }
        } else if let period {
            subscription = scheduler.schedulePeriodic(Element.zero, startAfter: dueTime, period: period) { count in
                sink.tick(count)
            }
        } else {
            subscription = scheduler.scheduleRelative(sink, dueTime: dueTime) { sink in
                sink.fireOnce()
                return Disposables.create()
            }
        }
        return (sink, subscription)
    }
}

final class TimerSink<Observer: ObserverType>: Sink<Observer>, @unchecked Sendable
where Observer.Element: RxAbstractInteger {
    typealias Element = Observer.Element

    /// One periodic tick: sends `count`, returns the next count.
    func tick(_ count: Element) -> Element {
        forwardOn(.next(count))
        return count &+ 1
    }

    /// The one-shot timer: sends 0 and completes.
    func fireOnce() {
        forwardOn(.next(Element.zero))
        forwardOn(.completed)
        dispose()
    }
}
