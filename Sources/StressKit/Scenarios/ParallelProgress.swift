import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Lost parallelism: on anything that promises to run at least two pieces of
/// work at once, a job that waits (a bounded time) for a second one to start
/// sees it start.
///
/// Actor 0 submits job A, which says it started and then waits up to
/// ``ParallelProgress/waitSeconds`` for job B to start. Actor 1 waits until A
/// started, then submits B. Forbidden: B started only after A gave up
/// waiting (the second job waited for a thread the first one held, as a
/// busy runner counted as free does), or a job never ran at all.
final class ParallelProgress: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case overlapped = "second-started-while-first-waited"
        case serialized = "second-started-only-after-first-ended"
        case firstNeverStarted = "first-never-started"
        case neverFinished = "job-never-finished"

        /// A target that lost a job stops the scenario: the next iterations
        /// would only wait out the same bounds.
        var stopsTheRun: Bool { self == .firstNeverStarted || self == .neverFinished }
        var grade: Grade {
            switch self {
            case .overlapped: .acceptable
            case .serialized, .firstNeverStarted, .neverFinished: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .overlapped: "the second job started while the first was still running"
            case .serialized:
                "the second job did not start while the first ran (\(Int(ParallelProgress.waitSeconds)) s): "
                    + "parallelism lost"
            case .firstNeverStarted:
                "the first job did not start within \(Int(ParallelProgress.waitSeconds)) s of its submission"
            case .neverFinished: "a job did not finish within the stall timeout"
            }
        }
    }

    /// How long job A waits for job B to start, and actor 1 for job A: far
    /// beyond a thread's start on a loaded machine, so only a target that
    /// keeps B waiting for A's thread reaches it.
    static let waitSeconds: Double = 2

    final class State: ScenarioState, @unchecked Sendable {
        let firstStarted = DispatchSemaphore(value: 0)
        let secondStarted = Flag()
        let secondStartedSignal = DispatchSemaphore(value: 0)
        /// Set by job A: whether B had started before A stopped waiting.
        let sawSecond = Flag()
        let actorGaveUp = Flag()
        let done = DispatchSemaphore(value: 0)
        let token: LiveToken

        init(_ live: LiveCounter, choices: inout IterationChoices) {
            token = LiveToken(live)
        }
    }

    let name: String
    /// Guarantee 10 (progress) in Guarantees.md.
    let guarantees = "10"
    let summary: String
    let actorCount = 2
    let live = LiveCounter()
    private let target: ParallelTarget
    private var runner: ParallelTarget.Runner?

    /// A scenario on `target`, which must promise at least two jobs at once.
    init(_ target: ParallelTarget) {
        self.target = target
        name = target.scenarioName("parallel-progress")
        summary = "\(target.name): a job waits up to \(Int(Self.waitSeconds)) s for a second one, submitted once it "
            + "started, to start too (\(target.promise))"
    }

    var explorationBlocker: String? {
        "it waits for a second job to start on real threads, which a schedule controller runs one at a time"
    }

    /// One iteration per batch: a target that serialises costs one wait before it is graded.
    var batchLimit: Int? { 1 }
    /// An iteration costs two thread wake-ups, not microseconds.
    var iterationDivisor: Int { 100 }

    func setUp() {
        runner = target.make()
    }

    func tearDown() {
        runner?.finish()
        runner = nil
    }

    func act(_ actor: Int, on state: State) {
        guard let runner else { return }
        if actor == 0 {
            runner.submit {
                state.firstStarted.signal()
                if state.secondStartedSignal.wait(timeout: .now() + Self.waitSeconds) == .success {
                    state.sawSecond.set()
                }
                state.done.signal()
            }
        } else {
            guard state.firstStarted.wait(timeout: .now() + Self.waitSeconds) == .success else {
                state.actorGaveUp.set()
                return
            }
            runner.submit {
                state.secondStarted.set()
                state.secondStartedSignal.signal()
                state.done.signal()
            }
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        if state.actorGaveUp.isSet {
            return .firstNeverStarted
        }
        let deadline = DispatchTime.now() + Self.waitSeconds + 10
        for _ in 0..<2 where state.done.wait(timeout: deadline) != .success {
            return .neverFinished
        }
        return state.sawSecond.isSet ? .overlapped : .serialized
    }
}

/// Somewhere jobs run that promises at least two at once: how to make it for
/// a scenario, submit a job to it and end it.
struct ParallelTarget: ProgressScenarioTarget, Sendable {
    /// A made target: submits jobs, and is ended once.
    struct Runner: Sendable {
        let submit: @Sendable (_ job: @escaping @Sendable () -> Void) -> Void
        let finish: @Sendable () -> Void
    }

    /// The target's name (the scenario's last part).
    let name: String
    /// Whether it is the platform's own executor: a reference, not gated.
    var isReference = false
    /// What promises the width, for the scenario's summary.
    let promise: String
    /// Makes the target, once per scenario.
    let make: @Sendable () -> Runner

    /// `ConcurrentDispatchQueueScheduler` actions, on a concurrent queue of its own.
    static let concurrentDispatch = ParallelTarget(
        name: "concurrent-dispatch", promise: "a concurrent queue runs its blocks at once"
    ) {
        let scheduler = ConcurrentDispatchQueueScheduler(
            queue: DispatchQueue(label: "stress.parallel.concurrent", attributes: .concurrent))
        return Runner(submit: { job in _ = scheduler.schedule(()) { _ in job(); return Disposables.create() } }, finish: {})
    }

    /// Tasks on a `ConcurrentDispatchQueueScheduler`'s `taskExecutor`, which
    /// runs jobs at once on up to one thread per processor.
    static let concurrentDispatchTaskExecutor = ParallelTarget(
        name: "concurrent-dispatch.task-executor",
        promise: "its taskExecutor runs jobs at once on up to one thread per processor"
    ) {
        let scheduler = ConcurrentDispatchQueueScheduler(
            queue: DispatchQueue(label: "stress.parallel.task-executor", attributes: .concurrent))
        let executor = scheduler.taskExecutor
        return Runner(submit: { job in Task(executorPreference: executor) { job() } }, finish: {})
    }

    /// `OperationQueueScheduler` actions on a queue that runs two operations at once.
    static let operationQueueWidth2 = ParallelTarget(
        name: "operation-queue.width-2", promise: "maxConcurrentOperationCount 2"
    ) {
        let scheduler = OperationQueueScheduler(operationQueue: twoAtOnce("stress.parallel.operations"))
        return Runner(
            submit: { job in _ = scheduler.schedule(()) { _ in job(); return Disposables.create() } },
            finish: { scheduler.operationQueue.waitUntilAllOperationsAreFinished() })
    }

    /// Tasks on the `taskExecutor` of an `OperationQueueScheduler` whose queue runs two operations at once.
    static let operationQueueWidth2TaskExecutor = ParallelTarget(
        name: "operation-queue.width-2.task-executor", promise: "maxConcurrentOperationCount 2"
    ) {
        let scheduler = OperationQueueScheduler(operationQueue: twoAtOnce("stress.parallel.task-operations"))
        let executor = scheduler.taskExecutor
        return Runner(
            submit: { job in Task(executorPreference: executor) { job() } },
            finish: { scheduler.operationQueue.waitUntilAllOperationsAreFinished() })
    }

    /// The platform's global concurrent executor (a task with no preference):
    /// a reference, not gated.
    static let globalConcurrentExecutor = ParallelTarget(
        name: "global-concurrent-executor", isReference: true, promise: "the runtime's global concurrent executor"
    ) {
        Runner(submit: { job in Task.detached { job() } }, finish: {})
    }

    /// A registered scheduler that promises width 2 or more
    /// (``StressScheduler/promisingParallelism()``): its actions.
    static func registered(_ registration: StressScheduler) -> ParallelTarget {
        ParallelTarget(
            name: registration.name, promise: "registered as promising two actions at once"
        ) {
            let made = registration.make()
            return Runner(
                submit: { job in _ = made.scheduler.schedule(()) { _ in job(); return Disposables.create() } },
                finish: {
                    _ = made.settle()
                    made.finish()
                })
        }
    }

    /// The library's targets, the task executors only where there is more
    /// than one processor (their width is the processor count).
    static var library: [ParallelTarget] {
        var targets = [concurrentDispatch, operationQueueWidth2, operationQueueWidth2TaskExecutor]
        if ProcessInfo.processInfo.activeProcessorCount >= 2 {
            targets.insert(concurrentDispatchTaskExecutor, at: 1)
        }
        return targets
    }

    private static func twoAtOnce(_ name: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 2
        return queue
    }
}
