import Schedulers

/// CurrentThreadScheduler: a `scheduleRecursive` chain running on one
/// thread's trampoline races a `dispose()` from another thread
/// (guarantees 5 and 8 in Guarantees.md).
///
/// Actor 0 schedules an action that starts the chain (so the first step is
/// queued behind it and the disposable exists before any step runs), hands
/// the chain's disposable to the probe's holder and returns; its trampoline
/// then runs the chain, whose steps recurse once each, some twice (fan-out,
/// in either order, a branch sometimes recursing once more). Actor 1 disposes
/// the holder after a seeded delay: before the first step, mid-chain, or
/// after the end. See `RecursiveChainOutcome` for the grading.
final class TrampolineRecursionDisposeVersusChain: StressScenario, @unchecked Sendable {
    typealias Outcome = RecursiveChainOutcome
    typealias State = RecursiveChainProbe
    /// A step's body, as `scheduleRecursive` calls it.
    typealias StepAction = (ChainStep, (ChainStep) -> Void) -> Void
    /// Starts a recursive chain and returns what cancels it.
    typealias Start = @Sendable (ChainStep, @escaping StepAction) -> Disposable

    let name: String
    let guarantees = "5, 8"
    let summary = "CurrentThreadScheduler: dispose() from another thread races a running scheduleRecursive chain with fan-out"
    let actorCount = 2
    let live = LiveCounter()
    /// Explorable: the chain runs on actor 0's own trampoline, and under a
    /// controller the disposer's bounded wait for the chain is a bounded
    /// number of spin-wait sync points, so the schedule decides how long it
    /// lasts (see `StressScenario.explorationBlocker`).
    let explorationBlocker: String? = nil
    private let start: Start

    /// Creates the scenario on `CurrentThreadScheduler.scheduleRecursive`;
    /// `name` and `start` let a test run the same grading against a
    /// deliberately broken recursion.
    init(
        name: String = "dispose-vs-recursive-chain.current-thread",
        start: @escaping Start = { state, action in
            CurrentThreadScheduler.instance.scheduleRecursive(state, action: action)
        }
    ) {
        self.name = name
        self.start = start
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        RecursiveChainProbe(live, choices: &choices)
    }

    func act(_ actor: Int, on probe: State) {
        guard actor == 0 else {
            probe.disposeRacing()
            return
        }
        probe.begin()
        let start = start
        _ = CurrentThreadScheduler.instance.schedule(probe) { probe in
            // The token lives only in the action: if the recursion keeps the
            // action, the iteration's `held` count stays up.
            let chain = start(probe.firstStep()) { [token = LiveToken(probe.held)] state, recurse in
                withExtendedLifetime(token) {
                    probe.step(state, recurse)
                }
            }
            probe.hold(chain)
            probe.endStart()
            return Disposables.create()
        }.dispose()
        // The trampoline has drained: the chain ran to its end or was dropped.
        probe.drained()
    }

    func arbitrate(_ probe: State) -> Outcome {
        probe.classify()
    }
}
