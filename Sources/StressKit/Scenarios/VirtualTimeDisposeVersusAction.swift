import Foundation
import Schedulers

/// Virtual time (`HistoricalScheduler`): one thread runs the scheduler
/// (`start()`) while another disposes a queued action (guarantees 5 and 7 in
/// Guarantees.md). Scheduling and disposing are thread-safe on virtual-time
/// schedulers; running happens on the thread that calls `start()`.
///
/// A gate action, queued first at the same virtual time, lingers a seeded
/// while on the running thread; the action cannot be taken before the gate
/// returns, so a `dispose()` that returned before the gate opened must keep
/// it from running.
public final class VirtualTimeDisposeVersusAction: ExplorableScenario, @unchecked Sendable {
    public typealias Outcome = ScheduledActionOutcome

    public final class State: ScenarioState, @unchecked Sendable {
        let probe: ScheduledActionProbe
        let scheduler = HistoricalScheduler()

        public init(_ live: LiveCounter, choices: inout IterationChoices) {
            let probe = ScheduledActionProbe(live, choices: &choices)
            self.probe = probe
            _ = scheduler.schedule(probe) { probe in
                probe.holdGate()
                return Disposables.create()
            }
            let scheduled = scheduler.schedule(probe) { probe in
                probe.run()
            }
            probe.keep(scheduled)
            probe.hold(scheduled)
        }
    }

    public let name = "dispose-vs-action.historical"
    public let guarantees = "5, 7"
    public let summary = "HistoricalScheduler: dispose() from another thread races start() running a queued action"
    public let actorCount = 2
    public let live = LiveCounter()

    public init() {}


    public func act(_ actor: Int, on state: State) {
        if actor == 0 {
            state.scheduler.start()
        } else {
            state.probe.disposeRacing()
        }
    }

    public func arbitrate(_ state: State) -> Outcome {
        // start() returned on actor 0 with the queue empty: nothing is pending.
        state.probe.disposeKeptAgain()
        return state.probe.classify()
    }
}
