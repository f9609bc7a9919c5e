import Schedulers

/// `subscribe(on:)`: a `dispose()` from another thread races the pending
/// subscription (guarantees 4, 7 and 8 in Guarantees.md).
///
/// Actor 0 enqueues a gate, then subscribes through `subscribe(on:)`, whose
/// subscription action queues behind the gate; the gate and actor 1, the
/// disposer, meet and race as in the dispose-vs-action scenarios. A dispose
/// that returned before the gate opened means the source is never
/// subscribed; otherwise the subscription and its disposal both run on the
/// scheduler, and the source's resource is disposed exactly once.
final class SubscribeOnDisposeVersusSubscribe: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case disposedBeforeSubscribe = "disposed-before-subscribe"
        case subscribedThenDisposed = "subscribed-then-disposed-on-scheduler"
        case disposedWhileSubscribing = "dispose-came-while-subscribing"
        case subscribedAfterDispose = "subscribed-although-disposed-before-dequeue"
        case subscribedOffScheduler = "subscribed-off-scheduler"
        case disposedOffScheduler = "disposed-off-scheduler"
        case notDisposedOnce = "resource-not-disposed-exactly-once"
        case subscribedTwice = "subscribed-twice"
        case hung = "never-settled"

    /// A scheduler that did not settle stops the scenario (see `ScenarioOutcome.stopsTheRun`).
    var stopsTheRun: Bool { self == .hung }
        var grade: Grade {
            switch self {
            case .disposedBeforeSubscribe, .subscribedThenDisposed: .acceptable
            case .disposedWhileSubscribing: .interesting
            case .subscribedAfterDispose, .subscribedOffScheduler, .disposedOffScheduler, .notDisposedOnce,
                .subscribedTwice, .hung:
                .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .disposedBeforeSubscribe: "dispose() won: the source was never subscribed"
            case .subscribedThenDisposed: "subscribed on the scheduler, later disposed on the scheduler"
            case .disposedWhileSubscribing: "dispose() began while the subscription ran; disposed on the scheduler after"
            case .subscribedAfterDispose: "dispose() returned before the subscription could be dequeued, yet it ran"
            case .subscribedOffScheduler: "the source was subscribed on a thread not of the scheduler"
            case .disposedOffScheduler: "the source's resource was disposed on a thread not of the scheduler"
            case .notDisposedOnce: "the source's resource was disposed 0 or 2+ times"
            case .subscribedTwice: "the source was subscribed more than once"
            case .hung: "the scheduler did not drain within its stall timeout (10 s unless registered otherwise)"
            }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        let probe: ScheduledActionProbe
        let subscribedOff = Flag()
        let disposedOff = Flag()

        init(_ live: LiveCounter, choices: inout IterationChoices) {
            probe = ScheduledActionProbe(live, choices: &choices)
        }
    }

    /// Creates the scenario for the registered scheduler.
    init(_ registration: StressScheduler) {
        super.init(
            registration, name: "dispose-vs-subscribeOn.\(registration.name)", guarantees: "4, 7, 8",
            summary: "\(registration.name): dispose() from another thread races a pending subscribe(on:) subscription",
            explorationWorkers: 3)  // the gate, the subscription and its scheduled disposal, each on a worker
    }


    func act(_ actor: Int, on state: State) {
        let probe = state.probe
        guard let target = scheduler.current else { return }
        if actor == 0 {
            target.enqueueGate { probe.holdGateAfterMeeting() }
            let subscription = Observable<Int>.create { _ in
                if !target.isCurrent {
                    state.subscribedOff.set()
                }
                let resource = probe.run()
                return Disposables.create {
                    if !target.isCurrent {
                        state.disposedOff.set()
                    }
                    resource.dispose()
                }
            }
            .subscribe(on: target.scheduler)
            .subscribe()
            probe.keep(subscription)
            probe.hold(subscription)
        } else {
            probe.disposeRacingAfterMeeting()
        }
    }

    func settle() {
        // Disposal after a running subscription is itself scheduled: settle twice.
        scheduler.settle(rounds: 2)
    }

    func arbitrate(_ state: State) -> Outcome {
        let probe = state.probe
        if !scheduler.settledInTime {
            return .hung
        }
        probe.disposeKeptAgain()
        let subscriptions = probe.starts.value
        if subscriptions > 1 {
            return .subscribedTwice
        }
        if subscriptions == 1 && probe.returnedBeforeGateOpened.isSet {
            return .subscribedAfterDispose
        }
        if state.subscribedOff.isSet {
            return .subscribedOffScheduler
        }
        if subscriptions == 0 {
            return probe.result.disposeCount == 0 ? .disposedBeforeSubscribe : .notDisposedOnce
        }
        guard probe.result.disposeCount == 1 else { return .notDisposedOnce }
        if state.disposedOff.isSet {
            return .disposedOffScheduler
        }
        return probe.disposeOverlappedRun.isSet ? .disposedWhileSubscribing : .subscribedThenDisposed
    }
}
