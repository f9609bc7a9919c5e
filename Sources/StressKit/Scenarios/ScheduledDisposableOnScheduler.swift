import Schedulers

/// `ScheduledDisposable`: disposed by two threads at once, it disposes the
/// wrapped disposable exactly once, on its scheduler (guarantee 7 in Guarantees.md).
/// Each iteration picks the scheduler (seeded) among the dispatch-based ones.
public final class ScheduledDisposableOnScheduler: StressScenario, @unchecked Sendable {
    public enum Outcome: String, ScenarioOutcome {
        case disposedOnScheduler = "disposed-once-on-scheduler"
        case notExactlyOnce = "not-disposed-exactly-once"
        case disposedOffScheduler = "disposed-off-scheduler"
        case notMarkedDisposed = "isDisposed-false-after-dispose"
        case hung = "never-settled"

        public var grade: Grade {
            self == .disposedOnScheduler ? .acceptable : .forbidden
        }
        public var meaning: String {
            switch self {
            case .disposedOnScheduler: "the wrapped disposable was disposed once, on the scheduler"
            case .notExactlyOnce: "the wrapped disposable was disposed 0 or 2+ times"
            case .disposedOffScheduler: "the wrapped disposable was disposed on a thread not of the scheduler"
            case .notMarkedDisposed: "isDisposed was false right after dispose() returned"
            case .hung: "a scheduler did not drain within its settle timeout (10 s unless registered otherwise)"
            }
        }
    }

    /// The schedulers an iteration picks from.
    static let kinds: [SchedulerUnderTest.Kind] = [.serialDispatch, .concurrentDispatch, .operationQueue, .main]

    public final class State: @unchecked Sendable {
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

    public let name = "scheduled-disposable.concurrent-dispose"
    public let guarantees = "7"
    public let summary = "ScheduledDisposable on a seeded choice of scheduler, disposed by 2 threads at once: once, on the scheduler"
    public let actorCount = 2
    public let live = LiveCounter()
    private var targets: [SchedulerUnderTest] = []
    private var settledInTime = true
    /// Explorable: the schedulers hand their work through the library's
    /// seam, which the schedule controller takes over (see `StressScenario.explorationBlocker`).
    public let explorationBlocker: String? = nil
    /// The scheduled disposal on a worker.
    public let explorationWorkers = 2

    public init() {}

    public func setUp() {
        targets = Self.kinds.map(SchedulerUnderTest.init)
    }

    public func tearDown() {
        for target in targets {
            _ = target.settle()
        }
        targets = []
    }

    public func makeState(_ choices: inout IterationChoices) -> State {
        State(live, target: targets[choices.pick(targets.count)])
    }

    public func act(_ actor: Int, on state: State) {
        state.subject.dispose()
        if !state.subject.isDisposed {
            state.notMarked.set()
        }
    }

    public func settle() {
        settledInTime = targets.allSatisfy { $0.settle() }
    }

    public func arbitrate(_ state: State) -> Outcome {
        if !settledInTime {
            return .hung
        }
        guard state.resource.disposeCount == 1 else { return .notExactlyOnce }
        if state.offScheduler.isSet {
            return .disposedOffScheduler
        }
        return state.notMarked.isSet ? .notMarkedDisposed : .disposedOnScheduler
    }
}
