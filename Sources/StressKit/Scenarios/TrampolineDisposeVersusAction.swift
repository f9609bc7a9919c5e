import Schedulers

/// CurrentThreadScheduler: an action queued on one thread's trampoline races
/// a `dispose()` from another thread (DESIGN.md guarantees 5 and 7).
///
/// Actor 0 runs an outer action that queues the inner one, publishes its
/// disposable and lingers a seeded while, so the inner action starts when the
/// outer returns; actor 1 disposes it meanwhile. Actor 0 disposes it again
/// after the trampoline drained: the result is still disposed once.
public final class TrampolineDisposeVersusAction: StressScenario, @unchecked Sendable {
    public typealias Outcome = ScheduledActionOutcome

    public final class State: @unchecked Sendable {
        let probe: ScheduledActionProbe
        let linger: Int

        init(_ live: LiveCounter, linger: Int) {
            probe = ScheduledActionProbe(live)
            self.linger = linger
        }
    }

    public let name = "dispose-vs-action.current-thread"
    public let guarantees = "5, 7"
    public let summary = "CurrentThreadScheduler: dispose() from another thread races a queued trampoline action"
    public let actorCount = 2
    public let live = LiveCounter()

    public init() {}

    public func makeState(_ choices: inout IterationChoices) -> State {
        State(live, linger: choices.pick(64) * 8)
    }

    public func act(_ actor: Int, on state: State) {
        let probe = state.probe
        if actor == 0 {
            _ = CurrentThreadScheduler.instance.schedule(state) { state in
                let inner = CurrentThreadScheduler.instance.schedule(state.probe) { probe in
                    probe.run()
                }
                state.probe.scheduled.publish(inner)
                spinDelay(state.linger)
                return Disposables.create()
            }
            probe.dispose(probe.scheduled.wait())
        } else {
            probe.dispose(probe.scheduled.wait())
        }
    }

    public func arbitrate(_ state: State) -> Outcome {
        // Actor 0 returned only after its trampoline drained: nothing is pending.
        state.probe.classify()
    }
}
