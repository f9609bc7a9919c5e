import Dispatch
import ToolSupport
import Synchronization
import XCTest
@testable import StressKit

/// What the jobs of the tasks of one schedule did.
private final class TaskJobLog: @unchecked Sendable {
    private let lock = Mutex<(steps: [[Int]], running: [Int], mostRunning: [Int], onWorker: Bool, finished: [Bool])>(
        ([[], []], [0, 0], [0, 0], true, [false, false]))

    /// Task `task` runs step `step` of its body (between two suspensions).
    func step(_ task: Int, _ step: Int) {
        lock.withLock {
            $0.steps[task].append(step)
            $0.running[task] += 1
            $0.mostRunning[task] = max($0.mostRunning[task], $0.running[task])
            $0.onWorker = $0.onWorker && Exploration.isHandOffWorker
        }
    }

    func stepEnded(_ task: Int) {
        lock.withLock { $0.running[task] -= 1 }
    }

    func finish(_ task: Int) {
        lock.withLock { $0.finished[task] = true }
    }

    var steps: [[Int]] { lock.withLock { $0.steps } }
    var mostRunning: [Int] { lock.withLock { $0.mostRunning } }
    var onWorker: Bool { lock.withLock { $0.onWorker } }
    var finished: [Bool] { lock.withLock { $0.finished } }
}

/// A task's body: `steps` steps, each passing two sync points, with a
/// suspension (`Task.yield()`, which enqueues the task's next job) between.
private func taskBody(_ task: Int, steps: Int, log: TaskJobLog) async {
    for step in 0..<steps {
        log.step(task, step)
        Exploration.syncPoint(.atomicLoad)
        Exploration.syncPoint(.atomicStore)
        log.stepEnded(task)
        await Task.yield()
    }
    log.finish(task)
}

/// Each party starts a task on the controller's executor
/// (`Task.immediate`, so its first step runs on the party), then passes a
/// sync point. Runs up to `limit` schedules under `strategy`.
private func exploreTasks<Strategy: ExplorationStrategy>(
    limit: Int = 200, strategy: inout Strategy
) -> [(choices: [Int], log: TaskJobLog)] {
    let controller = ScheduleController(parties: 2, workers: 2)
    defer { controller.stop() }
    return exploreSchedules(on: controller, limit: limit, strategy: &strategy, makeRecord: TaskJobLog.init) { log in
        { party in
            XCTAssertTrue(Exploration.taskExecutor === controller.taskExecutor)
            Task.immediate(executorPreference: Exploration.taskExecutor) {
                await taskBody(party, steps: 3, log: log)
            }
            Exploration.syncPoint(.atomicUpdate)
        }
    }
    .map { (choices: $0.choices, log: $0.record) }
}

final class TaskExecutorExplorationTests: XCTestCase {
    func testATasksJobsRunOneAtATimeOnWorkersInProgramOrderUnderEveryStrategy() {
        var random = RandomStrategy(seed: 6)
        var pct = PCTStrategy(threads: 4, depth: 3, seed: 6)
        var exhaustive = ExhaustiveStrategy(preemptionBound: 2)
        let runs: [(String, [(choices: [Int], log: TaskJobLog)])] = [
            ("random", exploreTasks(strategy: &random)),
            ("pct", exploreTasks(strategy: &pct)),
            ("exhaustive", exploreTasks(strategy: &exhaustive)),
        ]
        for (label, schedules) in runs {
            XCTAssertGreaterThan(schedules.count, 5, label)
            for (choices, log) in schedules {
                XCTAssertEqual(log.finished, [true, true], "\(label): every task ran to its end within the schedule")
                XCTAssertEqual(log.steps, [[0, 1, 2], [0, 1, 2]], label)
                XCTAssertEqual(log.mostRunning, [1, 1], "\(label): one job of a task at a time")
                XCTAssertTrue(choices.contains { $0 >= 2 }, "\(label): the resumed jobs ran on workers")
            }
            // The schedule decides how the two tasks' jobs interleave.
            let orders = Set(schedules.map { Explorer.runs($0.choices).map(\.thread) })
            XCTAssertGreaterThan(orders.count, 1, label)
        }
    }

    func testATaskMadeWhileTheControllerPreparesRunsItsJobsInTheNextSchedule() {
        let controller = ScheduleController(parties: 1, workers: 1)
        defer { controller.stop() }
        var strategy = RandomStrategy(seed: 2)
        for _ in 0..<50 {
            _ = strategy.beginSchedule()
            let log = TaskJobLog()
            let task = controller.preparing {
                XCTAssertNotNil(Exploration.taskExecutor)
                return Task.detached(executorPreference: Exploration.taskExecutor) {
                    await taskBody(0, steps: 2, log: log)
                }
            }
            XCTAssertEqual(log.steps[0], [], "the task waits for the schedule")
            let (choices, end) = controller.run({ _ in
                Exploration.syncPoint(.atomicUpdate)
            }, chooser: &strategy)
            strategy.endSchedule(steps: choices.count)
            XCTAssertEqual(end, .completed)
            XCTAssertEqual(log.steps[0], [0, 1])
            XCTAssertEqual(log.finished[0], true)
            XCTAssertTrue(log.onWorker)
            _ = task
        }
        XCTAssertNil(Exploration.taskExecutor, "outside a controller, tasks keep the default executor")
    }

    func testAJobEnqueuedFromAnUncontrolledThreadEndsTheSchedule() {
        let controller = ScheduleController(parties: 1, workers: 1)
        var strategy = RandomStrategy(seed: 1)
        _ = strategy.beginSchedule()
        let resumed = Flag()
        let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
        let (_, end) = controller.run({ _ in
            Task.immediate(executorPreference: Exploration.taskExecutor) {
                await withCheckedContinuation { continuation in
                    waiting.withLock { $0 = continuation }
                }
            }
            // Task.immediate returned: the task is suspended. Resumed on a
            // thread no controller runs, its next job is a stray.
            DispatchQueue.global().async {
                waiting.withLock { $0.take() }?.resume()
                resumed.set()
            }
            while !resumed.isSet {
                Exploration.syncPoint(.atomicLoad)
            }
        }, chooser: &strategy)
        XCTAssertEqual(end, .uncontrolledJob)
        XCTAssertEqual(end.outcome?.grade, .forbidden)
        XCTAssertTrue(controller.isBroken)
    }

    func testTheValuesScenarioReplaysAScheduleAHundredTimes() throws {
        let scenario = ValuesCancelVersusDelivery()
        XCTAssertNil(scenario.explorationBlocker)
        var settings = ExplorationSettings(strategy: .random, seed: 8, limit: .iterations(200))
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(scenario)
        XCTAssertEqual(result.forbiddenCount, 0)
        XCTAssertEqual(result.leaked, 0)
        XCTAssertEqual(result.iterations, 200)

        // A schedule in which elements reached the task before the cancel.
        var generator = SeededGenerator(seed: 8)
        var found: (Schedule, String)?
        for _ in 0..<200 where found == nil {
            var strategy = RandomStrategy(seed: generator.next())
            _ = strategy.beginSchedule()
            let stateSeed = generator.next()
            let replays = try exploreOnce(scenario, stateSeed: stateSeed, strategy: &strategy)
            if replays.outcome == "some-delivered-then-cancelled" {
                found = (
                    Schedule(
                        scenario: scenario.name, stateSeed: stateSeed, choices: replays.choices,
                        build: Exploration.buildIdentity, runnable: replays.runnable, stepKinds: replays.kinds),
                    replays.outcome)
            }
        }
        let (schedule, outcome) = try XCTUnwrap(found, "no schedule delivered some elements before the cancel")
        XCTAssertTrue(schedule.choices.contains { $0 >= scenario.actorCount }, "the task's jobs ran on workers")
        let replays = Explorer.replay(try Schedule(parsing: schedule.description), on: scenario, times: 100)
        XCTAssertEqual(replays.count, 100)
        XCTAssertTrue(replays.allSatisfy { $0.outcome.id == outcome && $0.divergence == nil })
        XCTAssertEqual(Set(replays.map(\.choices)), [schedule.choices], "every replay makes the same choices")
    }

    /// One schedule of `scenario` with `stateSeed` under `strategy`: its outcome and choices.
    private func exploreOnce(
        _ scenario: ValuesCancelVersusDelivery, stateSeed: UInt64, strategy: inout RandomStrategy
    ) throws -> (outcome: String, choices: [Int], runnable: [UInt32], kinds: [UInt8]) {
        scenario.setUp()
        let controller = ScheduleController(parties: scenario.actorCount, workers: scenario.explorationWorkers)
        defer {
            controller.stop()
            scenario.tearDown()
        }
        let (outcome, choices, end, _, runnable) = Explorer.runOnce(
            scenario, stateSeed: stateSeed, on: controller, chooser: &strategy)
        XCTAssertEqual(end, .completed)
        return (try XCTUnwrap(outcome).id, choices, runnable, controller.stepKinds)
    }
}
