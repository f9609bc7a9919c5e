import Dispatch
import Synchronization

/// `executor-fifo` on a platform's own serial executor (a reference, never
/// gated): one thread enqueues a job, then an action; another an action,
/// then a job; a third a job. The library's serial scheduler promises the
/// first thread's job runs before its action and the second's after its
/// action (``ExecutorFIFOWithManyEnqueuers``), and that every job runs
/// isolated to the executor; this shows what the platform's executor does.
final class ReferenceExecutorFIFO: StressScenario, @unchecked Sendable {
    typealias Outcome = ExecutorFIFOWithManyEnqueuers.Outcome
    typealias OrderLog = ExecutorFIFOWithManyEnqueuers.OrderLog

    final class State: ScenarioState, @unchecked Sendable {
        let log = OrderLog()
        let token: LiveToken

        init(_ live: LiveCounter, choices: inout IterationChoices) {
            token = LiveToken(live)
        }
    }

    let name: String
    let guarantees = "5"
    let summary: String
    let actorCount = 3
    let live = LiveCounter()
    private let target: SerialProgressTarget
    private var made: SerialProgressTarget.Made?

    init(_ target: SerialProgressTarget) {
        self.target = target
        name = "reference.executor-fifo.\(target.name)"
        summary = "\(target.name): one thread enqueues a job, then an action; another an action, then a job; a third a "
            + "job (the library's executor-fifo, on the platform's executor)"
    }

    var explorationBlocker: String? {
        "the platform's executor runs its jobs on the runtime's threads, which the schedule controller does not run"
    }

    /// A reference needs fewer iterations than the gated scenario beside it.
    var iterationDivisor: Int { 10 }

    func setUp() {
        made = target.make()
    }

    func tearDown() {
        _ = made?.settle(10)
        made?.finish()
        made = nil
    }

    func act(_ actor: Int, on state: State) {
        guard let made else { return }
        let log = state.log
        let isolated = made.isIsolated
        if actor == 1 {
            made.action { log.record(OrderLog.earlierActionSlot) }
        }
        made.job {
            if let isolated, !isolated() {
                log.offExecutor.set()
            }
            log.record(actor)
        }
        if actor == 0 {
            made.action { log.record(OrderLog.actionSlot) }
        }
    }

    func settle() {
        _ = made?.settle(10)
    }

    func arbitrate(_ state: State) -> Outcome {
        ExecutorFIFOWithManyEnqueuers.grade(state.log, settleSeconds: 10)
    }
}
