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
final class VirtualTimeDisposeVersusAction: ExplorableScenario, @unchecked Sendable {
    typealias Outcome = ScheduledActionOutcome

    final class State: ScenarioState, @unchecked Sendable {
        let probe: ScheduledActionProbe
        let scheduler = HistoricalScheduler()

        init(_ live: LiveCounter, choices: inout IterationChoices) {
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

    let name = "dispose-vs-action.historical"
    let guarantees = "5, 7"
    let summary = "HistoricalScheduler: dispose() from another thread races start() running a queued action"
    let actorCount = 2
    let live = LiveCounter()


    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            state.scheduler.start()
        } else {
            state.probe.disposeRacing()
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        // start() returned on actor 0 with the queue empty: nothing is pending.
        state.probe.disposeKeptAgain()
        return state.probe.classify()
    }
}
