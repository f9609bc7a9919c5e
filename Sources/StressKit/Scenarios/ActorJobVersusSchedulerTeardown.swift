import Dispatch
import Schedulers

/// An actor whose executor is a `SerialDispatchQueueScheduler`'s `executor`:
/// one thread enqueues a job on it (a task calling into the actor) while
/// another drops the last references to the actor and its scheduler
/// (guarantees 5 and 8 in Guarantees.md, across the Swift Concurrency bridge).
///
/// The actor keeps its scheduler, as `SerialSchedulerExecutor` requires, and
/// a job keeps the actor, so a job enqueued before the tear-down runs: once,
/// on the scheduler's queue, isolated to the actor. Afterwards the actor, the
/// scheduler, its executor and its queue are all freed, whichever thread let
/// go last (the job's own, on the queue, included).
final class ActorJobVersusSchedulerTeardown: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case tornDownFirst = "torn-down-before-enqueue"
        case pendingAtTearDown = "torn-down-while-job-pending"
        case ranBeforeTearDown = "job-ran-before-tear-down"
        case ranOffExecutor = "job-ran-off-the-scheduler"
        case ranTwice = "job-ran-twice"
        case neverRan = "job-never-ran"

        var grade: Grade {
            switch self {
            case .tornDownFirst, .pendingAtTearDown, .ranBeforeTearDown: .acceptable
            case .ranOffExecutor, .ranTwice, .neverRan: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .tornDownFirst: "the last references were dropped before the job could be enqueued"
            case .pendingAtTearDown: "the last outside references were dropped after the job took the actor, before it ran"
            case .ranBeforeTearDown: "the job ran before the references were dropped"
            case .ranOffExecutor: "the job ran, but not isolated to the scheduler's executor"
            case .ranTwice: "the job ran more than once"
            case .neverRan: "the job was enqueued but did not run within 10 s"
            }
        }
    }

    /// The actor under test: its jobs run on `scheduler`'s queue.
    actor SchedulerBoundActor {
        let scheduler: SerialDispatchQueueScheduler
        let token: LiveToken

        nonisolated var unownedExecutor: UnownedSerialExecutor {
            scheduler.executor.asUnownedSerialExecutor()
        }

        init(_ live: LiveCounter) {
            scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "stress.actor-executor")
            token = LiveToken(live)
        }

        func record(_ log: JobLog) {
            if !scheduler.executor.isIsolated {
                log.offExecutor.set()
            }
            log.runs.increment()
            log.ran.signal()
        }
    }

    /// What the job did; read by the arbiter.
    final class JobLog: Sendable {
        let runs = Counter()
        let offExecutor = Flag()
        let ran = DispatchSemaphore(value: 0)
        let enqueued = Flag()
        let pendingAtTearDown = Flag()
        let tornDownFirst = Flag()
    }

    final class State: ScenarioState, @unchecked Sendable {
        /// The only reference outside a job: the tear-down takes it out.
        let actor: Locked<SchedulerBoundActor?>
        let log = JobLog()
        let tearDownDelay: Int

        init(_ live: LiveCounter, choices: inout IterationChoices) {
            actor = Locked(SchedulerBoundActor(live))
            tearDownDelay = choices.pick(20_000)
        }
    }

    let name = "actor-job-vs-teardown.serial-dispatch"
    /// Explorable: the actor's job reaches the scheduler's queue through the
    /// library's hand-off seam, and the task prefers the controller's task
    /// executor (`Exploration.taskExecutor`), so every job runs on the
    /// controller's workers (see `StressScenario.explorationBlocker`).
    let explorationBlocker: String? = nil
    /// The actor's job on the scheduler's queue, and the task's own.
    let explorationWorkers = 2
    let guarantees = "5, 8"
    let summary = "an actor on a serial scheduler's executor: a job is enqueued while the actor and scheduler are dropped"
    let actorCount = 2
    let live = LiveCounter()


    func act(_ actor: Int, on state: State) {
        let log = state.log
        if actor == 0 {
            guard let target = state.actor.withLock({ $0 }) else {
                log.tornDownFirst.set()
                return
            }
            log.enqueued.set()
            // Runs on this thread up to the hop, so the job is enqueued here.
            // Under a schedule controller the task's own jobs (after the hop
            // back from the actor) run on the controller's workers; the
            // actor's job goes through the executor's enqueue, which passes
            // the library's hand-off seam.
            Task.immediate(executorPreference: Exploration.taskExecutor) {
                await target.record(log)
            }
        } else {
            spinDelay(nanoseconds: state.tearDownDelay)
            let dropped = state.actor.withLock { actor -> SchedulerBoundActor? in
                let taken = actor
                actor = nil
                return taken
            }
            let pending = log.enqueued.isSet && log.runs.value == 0
            // The last outside reference goes here (or in actor 0's frame, or in the job).
            _ = consume dropped
            if pending {
                log.pendingAtTearDown.set()
            }
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        let log = state.log
        if log.tornDownFirst.isSet {
            return .tornDownFirst
        }
        guard log.ran.wait(timeout: .now() + 10) == .success else { return .neverRan }
        if log.runs.value > 1 {
            return .ranTwice
        }
        if log.offExecutor.isSet {
            return .ranOffExecutor
        }
        return log.pendingAtTearDown.isSet ? .pendingAtTearDown : .ranBeforeTearDown
    }
}
