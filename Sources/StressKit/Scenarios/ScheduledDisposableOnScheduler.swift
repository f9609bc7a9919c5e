import Schedulers

/// `ScheduledDisposable`: disposed by two threads at once, it disposes the
/// wrapped disposable exactly once, on its scheduler (guarantee 7 in Guarantees.md).
/// One scenario per registered scheduler (the library's and a user's alike):
/// where the registration can tell whether the calling thread is its own
/// (`isCurrent`), the disposal must also have run there.
final class ScheduledDisposableOnScheduler: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case disposedOnScheduler = "disposed-once-on-scheduler"
        case notExactlyOnce = "not-disposed-exactly-once"
        case disposedOffScheduler = "disposed-off-scheduler"
        case notMarkedDisposed = "isDisposed-false-after-dispose"
        case hung = "never-settled"

        var grade: Grade {
            self == .disposedOnScheduler ? .acceptable : .forbidden
        }
        var meaning: String {
            switch self {
            case .disposedOnScheduler: "the wrapped disposable was disposed once, on the scheduler"
            case .notExactlyOnce: "the wrapped disposable was disposed 0 or 2+ times"
            case .disposedOffScheduler: "the wrapped disposable was disposed on a thread not of the scheduler"
            case .notMarkedDisposed: "isDisposed was false right after dispose() returned"
            case .hung: "a scheduler did not drain within its stall timeout (10 s unless registered otherwise)"
            }
        }
    }

    final class State: @unchecked Sendable {
        let subject: ScheduledDisposable
        let resource: ProbeDisposable
        let offScheduler = Flag()
        let notMarked = Flag()

        init(_ live: LiveCounter, target: SchedulerUnderTest) {
            let resource = ProbeDisposable(live)
            let offScheduler = offScheduler
            self.resource = resource
            subject = ScheduledDisposable(
                scheduler: target.scheduler,
                disposable: Disposables.create {
                    if !target.isCurrent {
                        offScheduler.set()
                    }
                    resource.dispose()
                }
            )
        }
    }

    /// Creates the scenario for the registered scheduler.
    init(_ registration: StressScheduler) {
        super.init(
            registration, name: "scheduled-disposable.concurrent-dispose.\(registration.name)", guarantees: "7",
            summary: "\(registration.name): a ScheduledDisposable disposed by 2 threads at once disposes once, on the scheduler",
            explorationWorkers: 2)  // the scheduled disposal on a worker
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        // Set up before the first iteration (`setUp()`); `current` is nil only outside a run.
        guard let target = scheduler.current else {
            preconditionFailure("\(name): makeState before setUp")
        }
        return State(live, target: target)
    }

    func act(_ actor: Int, on state: State) {
        state.subject.dispose()
        if !state.subject.isDisposed {
            state.notMarked.set()
        }
    }

    func settle() {
        scheduler.settle()
    }

    func arbitrate(_ state: State) -> Outcome {
        if !scheduler.settledInTime {
            return .hung
        }
        guard state.resource.disposeCount == 1 else { return .notExactlyOnce }
        if state.offScheduler.isSet {
            return .disposedOffScheduler
        }
        return state.notMarked.isSet ? .notMarkedDisposed : .disposedOnScheduler
    }
}
