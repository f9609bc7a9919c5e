import Dispatch
import Foundation

/// The queue and timer leeway behind a dispatch scheduler, and the scheduling
/// they share: immediate work with `async`, relative work on a one-shot
/// `DispatchSourceTimer`, periodic work on a repeating one.
///
/// Due times and periods are on `DispatchTime`, the monotonic uptime clock:
/// a wall-clock jump moves nothing already scheduled.
///
/// On a serial scheduler whose executor batches jobs (`gate` set), a timer
/// fires on `timerFireQueue` and enqueues its action (or tick) on the queue
/// through the gate, as `schedule` does: so the action takes its place in
/// the queue's order when its timer fires, and a job enqueued after that
/// runs after it. A timer firing on the queue itself would wait behind the
/// open batch's block, which every job enqueued meanwhile joins: a steady
/// stream of jobs would hold the action back without bound.
struct DispatchQueueConfiguration: Sendable {
    /// The queue every action runs on.
    let queue: DispatchQueue
    /// How late libdispatch may fire a timer to coalesce wakeups.
    let leeway: DispatchTimeInterval
    /// The gate of the serial scheduler's executor, whose batches a timer's
    /// work must not wait behind; `nil` where no executor batches jobs on
    /// the queue (a concurrent queue; the main queue, whose executor is the
    /// main actor's).
    let gate: ExecutorBatchGate?

    init(queue: DispatchQueue, leeway: DispatchTimeInterval, gate: ExecutorBatchGate? = nil) {
        self.queue = queue
        self.leeway = leeway
        self.gate = gate
    }

    /// Where the timers of every gated queue fire: each fire only enqueues
    /// work through a gate (a few instructions under its lock), so one
    /// serial queue serves them all.
    static let timerFireQueue = DispatchQueue(label: "Schedulers.timer-fires")

    /// The gate a timer enqueues its work through, firing on
    /// `timerFireQueue`; `nil`: the timer fires on the queue itself.
    private var firesThroughGate: ExecutorBatchGate? {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .timerPastBatchGate {
            // The mutant: the timer fires on the queue, past the gate.
            return nil
        }
        #endif
        return gate
    }

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
            let gate = firesThroughGate
            let timer = HandOffTimer(queue: gate == nil ? queue : Self.timerFireQueue)
            let item = DispatchScheduledItem(state: state, action: action, timer: timer)
            if let gate {
                let queue = queue
                timer.setEventHandler {
                    gate.enqueueFiredTimer {
                        if !SyncPoint.controllerTook({ item.run() }, for: queue) {
                            queue.async {
                                item.run()
                            }
                        }
                    }
                }
            } else {
                timer.setEventHandler {
                    item.run()
                }
            }
            timer.schedule(
                deadline: SyncPoint.dispatchNow() + .nanoseconds(Int(nanoseconds)),
                leeway: effectiveLeeway(callLeeway))
            timer.activate()
            return item
        }
    }

    /// Where a periodic job's timer goes, with `leeway` when given, else the
    /// scheduler's: on the queue, the ticks running in the timer's handler;
    /// on a gated queue, on `timerFireQueue`, each fire enqueuing a tick on
    /// the queue through the gate.
    func periodicPlacement(leeway callLeeway: DispatchTimeInterval? = nil) -> DispatchPeriodicPlacement {
        if let gate = firesThroughGate {
            return DispatchPeriodicPlacement(
                timerQueue: Self.timerFireQueue, leeway: effectiveLeeway(callLeeway),
                execution: .throughGate(gate, queue))
        }
        return DispatchPeriodicPlacement(timerQueue: queue, leeway: effectiveLeeway(callLeeway), execution: .onTimerQueue)
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

