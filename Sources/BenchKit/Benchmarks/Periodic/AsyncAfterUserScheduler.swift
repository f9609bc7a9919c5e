import Dispatch
import Foundation
import Schedulers

/// `user-scheduler.emulated` of `periodic.drift` (registered in
/// ``SchedulerRegistry/standard``): the simplest scheduler a user writes,
/// driven through this library's periodic emulation exactly as
/// `Observable.interval` drives it (`schedulePeriodic`, which such a
/// scheduler does not implement).
///
/// The scheduler is written as a user would: `now` is `Date()`, `schedule`
/// forwards to `scheduleRelative`, and `scheduleRelative` calls
/// `DispatchQueue.asyncAfter(deadline: .now() + dueTime)` with libdispatch's
/// default leeway (a tenth of the delay, at least 1 ms), nothing else; a
/// flag lets disposing skip the action. It measures what the default
/// missed-tick policy does with a timer that wakes up late by up to about a
/// period plus 1 ms.
final class AsyncAfterUserScheduler: SchedulerType, @unchecked Sendable {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    var now: RxTime {
        Date()
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let cancelled = BooleanDisposable()
        let work = UnsafeSendableBox((state, action))
        queue.asyncAfter(deadline: .now() + dueTime) {
            guard !cancelled.isDisposed else { return }
            _ = work.value.1(work.value.0)
        }
        return cancelled
    }
}
