import Dispatch
import Schedulers
import Synchronization

/// A serial scheduler's `executor` keeps FIFO order with the scheduler's own
/// actions while several threads enqueue jobs at once (guarantee 5's
/// ordering, across the Swift Concurrency bridge; `SerialSchedulerExecutor`'s
/// contract: "a job enqueued after an action runs after it, and before an
/// action scheduled later").
///
/// Actor 0 enqueues a job (a task hopping onto an actor whose executor is
/// the scheduler's) and then schedules an action on the scheduler, both from
/// its own thread; actor 1 schedules an action and then enqueues a job;
/// actor 2 enqueues a job. All on the same executor at the same time. Actor
/// 0's job must run before actor 0's action, and actor 1's job after actor
/// 1's action, whatever the other jobs do: a job never joins a batch of
/// jobs whose block the queue holds ahead of an action enqueued before it.
final class ExecutorFIFOWithManyEnqueuers: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case othersFirst = "other-jobs-before-job"
        case othersBetween = "other-jobs-around-job"
        case othersLast = "other-jobs-after-action"
        case jobAfterAction = "job-ran-after-later-action"
        case jobBeforeAction = "job-ran-before-earlier-action"
        case offExecutor = "job-ran-off-the-scheduler"
        case lost = "job-or-action-never-ran"

        /// A scheduler that lost a job stops the scenario: the next batches
        /// would only wait out the same timeout.
        var stopsTheRun: Bool { self == .lost }
        var grade: Grade {
            switch self {
            case .othersBetween, .othersLast: .acceptable
            // Allowed, but an exhaustive search within two preemptions may
            // not reach it: both other threads must enqueue before actor 0.
            case .othersFirst: .interesting
            case .jobAfterAction, .jobBeforeAction, .offExecutor, .lost: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .othersFirst: "the other threads' jobs ran before actor 0's job, which ran before its action"
            case .othersBetween: "the other threads' jobs ran around actor 0's job, which ran before its action"
            case .othersLast: "actor 0's job and action ran before the other threads' jobs"
            case .jobAfterAction: "actor 0's job ran after the action it scheduled after enqueuing the job (FIFO broken)"
            case .jobBeforeAction: "actor 1's job ran before the action it scheduled before enqueuing the job (FIFO broken)"
            case .offExecutor: "a job ran, but not isolated to the scheduler's executor"
            case .lost: "a job or the action did not run within the stall timeout"
            }
        }
    }

    /// An actor whose jobs run on the scheduler: it keeps the executor, as
    /// `SerialSchedulerExecutor` requires.
    actor ScheduledActor {
        let executor: SerialSchedulerExecutor

        nonisolated var unownedExecutor: UnownedSerialExecutor {
            executor.asUnownedSerialExecutor()
        }

        init(_ executor: SerialSchedulerExecutor) {
            self.executor = executor
        }

        func record(_ log: OrderLog, slot: Int) {
            if !executor.isIsolated {
                log.offExecutor.set()
            }
            log.record(slot)
        }
    }

    /// When each job and the action ran, as positions in one sequence.
    final class OrderLog: Sendable {
        /// Slot 0: actor 0's job; 1, 2: the other actors' jobs; 3: actor 0's
        /// action; 4: actor 1's action.
        static let actionSlot = 3
        static let earlierActionSlot = 4
        static let slots = 5
        /// The next position, and each slot's (0 until it ran).
        private let positions = Mutex<(next: Int, slots: [Int])>((1, Array(repeating: 0, count: OrderLog.slots)))
        let offExecutor = Flag()
        let done = DispatchSemaphore(value: 0)

        func record(_ slot: Int) {
            positions.withLock { positions in
                positions.slots[slot] = positions.next
                positions.next += 1
            }
            done.signal()
        }

        func position(_ slot: Int) -> Int {
            positions.withLock { $0.slots[slot] }
        }
    }

    final class State: @unchecked Sendable {
        let log = OrderLog()
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }
    }

    /// One actor per racing thread, all on the scheduler's executor.
    private var actors: [ScheduledActor] = []

    /// Creates the scenario for the registered serial scheduler.
    init(_ registration: StressScheduler) {
        super.init(
            registration, name: "executor-fifo.\(registration.name)", guarantees: "5",
            summary: "\(registration.name): one thread enqueues a job on the scheduler's executor, then schedules an "
                + "action; another schedules an action, then enqueues a job; a third enqueues a job",
            explorationWorkers: 5,  // the three jobs' hand-offs and the two actions
            actorCount: 3,
            // The main scheduler's executor is the main actor's: the runtime
            // sends its jobs to the main queue itself, past the library's
            // hand-off seam, so a schedule would order only the actions.
            explorationBlocker: registration.explorable && registration.isMainScheduler
                ? "the main actor's jobs reach the main queue through the runtime, which the schedule controller does not run"
                : nil)
    }

    override func setUp() {
        super.setUp()
        let executor = Self.executor(of: scheduler.current.unsafelyUnwrapped.scheduler)
        actors = (0..<3).map { _ in ScheduledActor(executor) }
    }

    override func tearDown() {
        actors = []
        super.tearDown()
    }

    /// The scheduler's executor: the one it keeps for a dispatch scheduler
    /// (or a class), a new one for any other serial scheduler.
    static func executor(of scheduler: any ImmediateScheduler) -> SerialSchedulerExecutor {
        if let dispatch = scheduler as? SerialDispatchQueueScheduler {
            return dispatch.executor
        }
        guard let serial = scheduler as? any SerialScheduler else {
            preconditionFailure("executor-fifo runs on serial schedulers only")
        }
        return SerialSchedulerExecutor(serial)
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live)
    }

    func act(_ actor: Int, on state: State) {
        let log = state.log
        let target = actors[actor]
        if actor == 1 {
            _ = scheduler.current.unsafelyUnwrapped.scheduler.schedule(()) { _ in
                log.record(OrderLog.earlierActionSlot)
                return Disposables.create()
            }
        }
        // `Task.immediate` runs on the calling thread up to its first
        // suspension: the job is on the executor when the call returns.
        Task.immediate(executorPreference: Exploration.taskExecutor) {
            await target.record(log, slot: actor)
        }
        if actor == 0 {
            _ = scheduler.current.unsafelyUnwrapped.scheduler.schedule(()) { _ in
                log.record(OrderLog.actionSlot)
                return Disposables.create()
            }
        }
    }

    func settle() {
        scheduler.settle()
    }

    func arbitrate(_ state: State) -> Outcome {
        Self.grade(state.log, settleSeconds: scheduler.current?.settleSeconds ?? 10)
    }

    /// Grades one iteration's order log once every slot is filled, or
    /// `lost` after `settleSeconds`; the platform's references grade theirs
    /// by the same rule.
    static func grade(_ log: OrderLog, settleSeconds: Double) -> Outcome {
        let deadline = DispatchTime.now() + settleSeconds
        for _ in 0..<OrderLog.slots where log.done.wait(timeout: deadline) != .success {
            return .lost
        }
        if log.offExecutor.isSet {
            return .offExecutor
        }
        let job = log.position(0)
        let action = log.position(OrderLog.actionSlot)
        guard job < action else { return .jobAfterAction }
        guard log.position(1) > log.position(OrderLog.earlierActionSlot) else { return .jobBeforeAction }
        let others = [log.position(1), log.position(2)]
        if others.allSatisfy({ $0 < job }) {
            return .othersFirst
        }
        if others.allSatisfy({ $0 > action }) {
            return .othersLast
        }
        return .othersBetween
    }
}
