extension ObservableType where Element: RxAbstractInteger {
    /// Counts 0, 1, 2, … one element every `period`, the first after one
    /// `period`; never completes.
    ///
    /// Runs on `scheduler.schedulePeriodic`: natively where the scheduler has
    /// periodic scheduling (dispatch timers), emulated at a fixed rate
    /// elsewhere, so ticks do not drift however late each one runs. Ticks
    /// never overlap and none starts after `dispose()` returns
    /// (guarantee 6 in Guarantees.md); the count wraps around at `Element.max`.
    ///
    /// A zero period is accepted, as in RxSwift: the count goes up as often as
    /// the scheduler allows (on `TestScheduler`, once per virtual tick; on a
    /// dispatch scheduler, back to back, each element a separate turn of the
    /// queue); see `Scheduler.schedulePeriodic`.
    ///
    /// A `.never` period never sends anything, as in RxSwift: the first
    /// element would be due after one period (like `timer(.never, period: .never,
    /// scheduler:)`).
    ///
    /// - Precondition: `period` is zero or positive (finite, or `.never`);
    ///   a negative period stops the program with a message naming `period`.
    public static func interval(_ period: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        _ = period.validatedPeriodNanoseconds(argument: "period")
        return TimerObservable(dueTime: period, period: period, scheduler: scheduler)
    }
}
