import Dispatch
import Foundation

/// The queue and timer leeway behind a dispatch scheduler, and the scheduling
/// they share: immediate work with `async`, relative work on a one-shot
/// `DispatchSourceTimer`, periodic work on a repeating one.
///
/// Due times and periods are on `DispatchTime`, the monotonic uptime clock:
/// a wall-clock jump moves nothing already scheduled.
struct DispatchQueueConfiguration: Sendable {
    /// The queue every action runs on.
    let queue: DispatchQueue
    /// How late libdispatch may fire a timer to coalesce wakeups.
    let leeway: DispatchTimeInterval

    /// Enqueues `action` with `async`; never runs it inline.
    func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let item = DispatchScheduledItem(state: state, action: action)
        if !SyncPoint.controllerTook({ item.run() }, for: queue) {
            queue.async {
                item.run()
            }
        }
        return item
    }

    /// Runs `action` once `dueTime` has passed: a negative due time is due
    /// now, `.never` never runs.
    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let nanoseconds = dueTime.dueNanoseconds else {
            // Never due: nothing to arm, nothing to hold.
            return Disposables.create(with: {})
        }
        guard nanoseconds > 0 else {
            return schedule(state, action: action)
        }
        // TIMER-SLACK: see DispatchPeriodicTimer; the same kernel slack delays this wakeup.
        let timer = HandOffTimer(queue: queue)
        let item = DispatchScheduledItem(state: state, action: action, timer: timer)
        timer.setEventHandler {
            item.run()
        }
        timer.schedule(deadline: SyncPoint.dispatchNow() + .nanoseconds(Int(nanoseconds)), leeway: leeway)
        timer.activate()
        return item
    }

    /// Runs `action` first after `startAfter`, then every `period`, at a fixed
    /// rate, on a repeating dispatch timer.
    ///
    /// - Precondition: `period` is zero or positive, and finite; a zero
    ///   period repeats at libdispatch's shortest interval.
    func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> PeriodicDisposable {
        let periodNanoseconds = period.validatedPeriodNanoseconds(argument: "period")
        return DispatchPeriodicTimer(
            state: state,
            timerQueue: queue,
            startAfter: startAfter.dueNanoseconds,
            periodNanoseconds: periodNanoseconds,
            leeway: leeway,
            execution: .onTimerQueue,
            action: action
        )
    }
}
