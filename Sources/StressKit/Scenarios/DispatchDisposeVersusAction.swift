import Schedulers

/// A dispatch-based scheduler: a scheduled action races its `dispose()` from
/// another thread (guarantees 5 and 7 in Guarantees.md), one scenario per builtin
/// scheduler.
///
/// Actor 0 enqueues a gate, then schedules the action behind it (FIFO) and
/// hands its disposable to the probe's holder. The gate, once running, and
/// actor 1, the disposer, meet, then each waits a seeded while: the gate
/// opens and the disposer disposes within a couple of microseconds of each
/// other, in either order. A `dispose()` that returned before the gate opened
/// must keep the action from ever running. The arbiter disposes once more:
/// the result is still disposed exactly once.
final class DispatchDisposeVersusAction: SchedulerScenario, StressScenario, @unchecked Sendable {
    typealias Outcome = ScheduledActionOutcome
    typealias State = ScheduledActionProbe

    /// Creates the scenario for the registered scheduler.
    init(_ registration: StressScheduler) {
        super.init(
            registration, name: "dispose-vs-action.\(registration.name)", guarantees: "5, 7",
            summary: "\(registration.name): dispose() from another thread races the start of a scheduled action",
            explorationWorkers: 2)  // the gate and the action, each on a worker
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        ScheduledActionProbe(live, choices: &choices)
    }

    func act(_ actor: Int, on probe: State) {
        guard let target = scheduler.current else { return }
        if actor == 0 {
            target.enqueueGate { probe.holdGateAfterMeeting() }
            let scheduled = target.scheduler.schedule(probe) { probe in
                probe.run()
            }
            probe.keep(scheduled)
            probe.hold(scheduled)
        } else {
            probe.disposeRacingAfterMeeting()
        }
    }

    func settle() {
        scheduler.settle()
    }

    func arbitrate(_ probe: State) -> Outcome {
        if !scheduler.settledInTime {
            probe.hung.set()
        }
        probe.disposeKeptAgain()
        return probe.classify()
    }
}
