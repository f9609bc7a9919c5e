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
    /// now, `.never` never runs. The timer gets `leeway` when given, else
    /// the scheduler's.
    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        leeway callLeeway: DispatchTimeInterval? = nil,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        dueTime.scheduleOnce(now: { schedule(state, action: action) }) { nanoseconds in
            // TIMER-SLACK: see DispatchPeriodicTimer; the same kernel slack delays this wakeup.
            let timer = HandOffTimer(queue: queue)
            let item = DispatchScheduledItem(state: state, action: action, timer: timer)
            timer.setEventHandler {
                item.run()
            }
            timer.schedule(
                deadline: SyncPoint.dispatchNow() + .nanoseconds(Int(nanoseconds)),
                leeway: effectiveLeeway(callLeeway))
            timer.activate()
            return item
        }
    }

    /// Where a periodic job's timer goes: on the queue, with `leeway` when
    /// given, else the scheduler's; the ticks run in the timer's handler.
    func periodicPlacement(leeway callLeeway: DispatchTimeInterval? = nil) -> DispatchPeriodicPlacement {
        DispatchPeriodicPlacement(timerQueue: queue, leeway: effectiveLeeway(callLeeway), execution: .onTimerQueue)
    }

    /// The leeway a timer gets: the call's (validated) when given, else the scheduler's.
    func effectiveLeeway(_ callLeeway: DispatchTimeInterval?) -> DispatchTimeInterval {
        callLeeway.map(Self.validated) ?? leeway
    }

    /// A per-call leeway as libdispatch takes it: a negative one is zero;
    /// `.never` lets the system fire the timer as late as it likes.
    static func validated(_ leeway: DispatchTimeInterval) -> DispatchTimeInterval {
        switch leeway {
        case .never: return .never
        default:
            return (leeway.nanosecondsOrNil ?? 0) < 0 ? .nanoseconds(0) : leeway
        }
    }
}

