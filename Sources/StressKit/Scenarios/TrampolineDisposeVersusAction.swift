import Schedulers

/// CurrentThreadScheduler: an action queued on one thread's trampoline races
/// a `dispose()` from another thread (guarantees 5 and 7 in Guarantees.md).
///
/// Actor 0 runs an outer action that queues the inner one, hands its
/// disposable to the probe's holder and holds the gate (the inner action
/// cannot start before the outer returns); actor 1 disposes the holder after a
/// seeded delay. Actor 0 disposes the inner action again once its trampoline
/// drained: the result is still disposed exactly once.
public final class TrampolineDisposeVersusAction: ExplorableScenario, @unchecked Sendable {
    public typealias Outcome = ScheduledActionOutcome
    public typealias State = ScheduledActionProbe

    public let name = "dispose-vs-action.current-thread"
    public let guarantees = "5, 7"
    public let summary = "CurrentThreadScheduler: dispose() from another thread races a queued trampoline action"
    public let actorCount = 2
    public let live = LiveCounter()

    public init() {}

    public func makeState(_ choices: inout IterationChoices) -> State {
        ScheduledActionProbe(live, choices: &choices)
    }

    public func act(_ actor: Int, on probe: State) {
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

    public func arbitrate(_ probe: State) -> Outcome {
        // Actor 0 returned only after its trampoline drained: nothing is pending.
        probe.classify()
    }
}
