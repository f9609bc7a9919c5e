import Schedulers

/// CurrentThreadScheduler: an action queued on one thread's trampoline races
/// a `dispose()` from another thread (guarantees 5 and 7 in Guarantees.md).
///
/// Actor 0 runs an outer action that queues the inner one, hands its
/// disposable to the probe's holder and holds the gate (the inner action
/// cannot start before the outer returns); actor 1 disposes the holder after a
/// seeded delay. Actor 0 disposes the inner action again once its trampoline
/// drained: the result is still disposed exactly once.
final class TrampolineDisposeVersusAction: ExplorableScenario, @unchecked Sendable {
    typealias Outcome = ScheduledActionOutcome
    typealias State = ScheduledActionProbe

    let name = "dispose-vs-action.current-thread"
    let guarantees = "5, 7"
    let summary = "CurrentThreadScheduler: dispose() from another thread races a queued trampoline action"
    let actorCount = 2
    let live = LiveCounter()

    func makeState(_ choices: inout IterationChoices) -> State {
        ScheduledActionProbe(live, choices: &choices)
    }

    func act(_ actor: Int, on probe: State) {
        if actor == 0 {
            _ = CurrentThreadScheduler.instance.schedule(probe) { probe in
                let inner = CurrentThreadScheduler.instance.schedule(probe) { probe in
                    probe.run()
                }
                probe.hold(inner)
                probe.holdGate()
                return inner
            }.dispose()
        } else {
            probe.disposeRacing()
        }
    }

    func arbitrate(_ probe: State) -> Outcome {
        // Actor 0 returned only after its trampoline drained: nothing is pending.
        probe.classify()
    }
}
