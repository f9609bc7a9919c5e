import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import StressKit

/// What the handed-off blocks of one schedule did: the order they started
/// in, whether two of one serial line ever ran at once, which threads ran them.
private final class HandOffLog: @unchecked Sendable {
    private let lock = Mutex<(started: [Int], running: Int, mostRunning: Int, onWorker: Bool)>(([], 0, 0, true))

    func begin(_ block: Int) {
        lock.withLock {
            $0.started.append(block)
            $0.running += 1
            $0.mostRunning = max($0.mostRunning, $0.running)
            $0.onWorker = $0.onWorker && Exploration.isHandOffWorker
        }
    }

    func end() {
        lock.withLock { $0.running -= 1 }
    }

    var started: [Int] { lock.withLock { $0.started } }
    var mostRunning: Int { lock.withLock { $0.mostRunning } }
    var onWorker: Bool { lock.withLock { $0.onWorker } }
}

/// Party 0 hands `blocks` blocks to `queue` (block `barrierAt` as a
/// barrier), each passing two sync points inside; party 1 passes sync points
/// meanwhile. Returns the log.
private func handOffBody(
    queue: DispatchQueue, blocks: Int, barrierAt: Int? = nil, log: HandOffLog
) -> (Int) -> Void {
    { party in
        guard party == 0 else {
            Exploration.syncPoint(.atomicUpdate)
            Exploration.syncPoint(.atomicUpdate)
            return
        }
        for block in 0..<blocks {
            Exploration.handOff(to: queue, barrier: block == barrierAt) {
                log.begin(block)
                Exploration.syncPoint(.atomicLoad)
                Exploration.syncPoint(.atomicStore)
                log.end()
            }
        }
    }
}

/// Runs `body` under `strategy` until it is exhausted or `limit` schedules
/// ran, on 2 parties and 3 hand-off workers; returns each schedule's choices
/// and its log (`makeLog` gives a fresh one per schedule).
private func exploreHandOffs<Strategy: ExplorationStrategy>(
    limit: Int, strategy: inout Strategy, _ body: (HandOffLog) -> (Int) -> Void
) -> [(choices: [Int], log: HandOffLog)] {
    let controller = ScheduleController(parties: 2, workers: 3)
    defer { controller.stop() }
    return exploreSchedules(on: controller, limit: limit, strategy: &strategy, makeRecord: HandOffLog.init, body)
        .map { (choices: $0.choices, log: $0.record) }
}

/// A lost update through hand-offs: actor 0 hands a load-then-store
/// increment to a concurrent queue, actor 1 hands another, then both blocks
/// race on the counter.
final class HandOffLostUpdateScenario: StressScenario, @unchecked Sendable {
    typealias Outcome = LostUpdateScenario.Outcome

    final class State: @unchecked Sendable {
        let counter = Atomic<Int>(0)
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }
    }

    let name = "test.hand-off-lost-update"
    let guarantees = "test"
    let summary = "two handed-off increments by load then store on a concurrent queue"
    let actorCount = 2
    let explorationWorkers = 2
    let live = LiveCounter()
    let explorationBlocker: String? = nil
    private let queue = DispatchQueue(label: "test.hand-off.concurrent", attributes: .concurrent)

    init() {
        Exploration.declareConcurrent(queue)
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live)
    }

    func act(_ actor: Int, on state: State) {
        Exploration.handOff(to: queue) {
            Exploration.syncPoint(.atomicLoad)
            let value = state.counter.load(ordering: .acquiring)
            Exploration.syncPoint(.atomicStore)
            state.counter.store(value + 1, ordering: .releasing)
        }
    }

    func settle() {
        queue.sync(flags: .barrier) {}
    }

    func arbitrate(_ state: State) -> Outcome {
        state.counter.load(ordering: .acquiring) == 2 ? .allCounted : .lostUpdate
    }
}

final class HandOffExplorationTests: XCTestCase {
    private func everyStrategy() -> [(String, any ExplorationStrategy)] {
        [
            ("random", RandomStrategy(seed: 3)),
            ("pct", PCTStrategy(threads: 5, depth: 3, seed: 3)),
            ("exhaustive", ExhaustiveStrategy(preemptionBound: 2)),
        ]
    }

    func testASerialQueuesBlocksRunOneAtATimeInOrderOnWorkersUnderEveryStrategy() {
        let queue = DispatchQueue(label: "test.hand-off.serial")
        for (label, strategy) in everyStrategy() {
            var chooser = strategy
            let schedules = exploreHandOffs(limit: 300, strategy: &chooser) {
                handOffBody(queue: queue, blocks: 3, log: $0)
            }
            XCTAssertGreaterThan(schedules.count, 10, label)
            for (choices, log) in schedules {
                XCTAssertEqual(log.started, [0, 1, 2], "\(label): \(choices)")
                XCTAssertEqual(log.mostRunning, 1, "\(label): \(choices)")
                XCTAssertTrue(log.onWorker, "\(label): the blocks ran on the controller's workers")
                XCTAssertTrue(choices.contains { $0 >= 2 }, "\(label): the workers are threads of the schedule")
            }
            // The blocks interleave with party 1: not every schedule runs them after it.
            XCTAssertGreaterThan(Set(schedules.map(\.choices)).count, 5, label)
        }
    }

    func testAConcurrentQueuesBlocksInterleaveAndABarrierRunsAlone() {
        let queue = DispatchQueue(label: "test.hand-off.concurrent", attributes: .concurrent)
        Exploration.declareConcurrent(queue)
        var strategy = ExhaustiveStrategy(preemptionBound: 2)
        let schedules = exploreHandOffs(limit: 3_000, strategy: &strategy) {
            handOffBody(queue: queue, blocks: 2, log: $0)
        }
        XCTAssertTrue(schedules.contains { $0.log.mostRunning == 2 }, "two blocks of a concurrent queue overlap in some schedule")
        XCTAssertTrue(schedules.contains { $0.log.started == [1, 0] }, "the second block may start first")

        var barrierStrategy = ExhaustiveStrategy(preemptionBound: 2)
        let withBarrier = exploreHandOffs(limit: 3_000, strategy: &barrierStrategy) {
            handOffBody(queue: queue, blocks: 3, barrierAt: 1, log: $0)
        }
        for (choices, log) in withBarrier {
            XCTAssertEqual(log.started, [0, 1, 2], "\(choices)")
            XCTAssertEqual(log.mostRunning, 1, "a barrier runs after the block before it and before the one after: \(choices)")
        }
    }

    func testWithoutWorkersAHandOffReachesTheQueue() {
        let queue = DispatchQueue(label: "test.hand-off.plain")
        let controller = ScheduleController(parties: 1)
        defer { controller.stop() }
        let ranOnWorker = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        var strategy = RandomStrategy(seed: 1)
        _ = strategy.beginSchedule()
        let (choices, end) = controller.run({ _ in
            Exploration.handOff(to: queue) {
                ranOnWorker.withLock { $0 = Exploration.isControlledThread }
                done.signal()
            }
        }, chooser: &strategy)
        XCTAssertEqual(end, .completed)
        XCTAssertEqual(choices, [0])
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(ranOnWorker.withLock { $0 }, false)
    }

    func testEveryStrategyFindsTheHandedOffLostUpdateAndItsScheduleReplaysAHundredTimes() throws {
        for strategy in ExplorationStrategyKind.allCases {
            let scenario = HandOffLostUpdateScenario()
            var settings = ExplorationSettings(strategy: strategy, seed: 5, limit: .iterations(500))
            settings.leakGraceSeconds = 1
            let result = Explorer(settings).run(scenario)
            XCTAssertGreaterThan(result.count(of: "lost-update"), 0, "\(strategy)")
            XCTAssertGreaterThan(result.count(of: "all-counted"), 0, "\(strategy)")
            XCTAssertEqual(result.leaked, 0)
            let schedule = try XCTUnwrap(result.exploration?.failingSchedule, "\(strategy)")
            XCTAssertTrue(schedule.choices.contains { $0 >= scenario.actorCount }, "\(strategy): \(schedule)")

            let parsed = try Schedule(parsing: schedule.description)
            let replays = Explorer.replay(parsed, on: scenario, times: 100)
            XCTAssertEqual(replays.count, 100)
            XCTAssertTrue(replays.allSatisfy { $0.outcome.id == "lost-update" && $0.divergence == nil }, "\(strategy)")
            XCTAssertEqual(Set(replays.map(\.choices)).count, 1, "every replay makes the same choices")
        }
    }
}

/// One schedule of `exploreTimer`: the handler's runs, those that began
/// after `cancel` returned, and the choices.
private struct TimerRun {
    let fires: Int
    let firesAfterCancel: Int
    let choices: [Int]
}

/// Party 0 arms a timer on a serial queue, passes a sync point, cancels it
/// (when `cancels`) and notes that `cancel` returned; party 1 passes sync
/// points. Runs up to `limit` schedules under `strategy`.
private func exploreTimer<Strategy: ExplorationStrategy>(
    repeating: Bool, cancels: Bool, limit: Int = 500, strategy: inout Strategy
) -> [TimerRun] {
    let queue = DispatchQueue(label: "test.timer")
    let controller = ScheduleController(parties: 2, workers: 3)
    defer { controller.stop() }
    var results: [TimerRun] = []
    while results.count < limit, strategy.beginSchedule() {
        let fires = Mutex(0)
        let firesAfterCancel = Mutex(0)
        let cancelled = Mutex(false)
        let (choices, end) = controller.run({ party in
            guard party == 0 else {
                Exploration.syncPoint(.atomicUpdate)
                Exploration.syncPoint(.atomicUpdate)
                return
            }
            let timer = controller.armTimer(from: 0, queue: queue, repeating: repeating) {
                fires.withLock { $0 += 1 }
                if cancelled.withLock({ $0 }) {
                    firesAfterCancel.withLock { $0 += 1 }
                }
                Exploration.syncPoint(.atomicLoad)
            }
            Exploration.syncPoint(.atomicUpdate)
            if cancels, let timer {
                controller.cancelTimer(timer)
                cancelled.withLock { $0 = true }
            }
        }, chooser: &strategy)
        XCTAssertEqual(end, .completed)
        strategy.endSchedule(steps: choices.count)
        results.append(TimerRun(fires: fires.withLock { $0 }, firesAfterCancel: firesAfterCancel.withLock { $0 }, choices: choices))
    }
    return results
}

/// `exploreTimer` under each strategy.
private func exploreTimerUnderEveryStrategy(repeating: Bool, cancels: Bool) -> [(String, [TimerRun])] {
    var random = RandomStrategy(seed: 3)
    var pct = PCTStrategy(threads: 5, depth: 3, seed: 3)
    var exhaustive = ExhaustiveStrategy(preemptionBound: 2)
    return [
        ("random", exploreTimer(repeating: repeating, cancels: cancels, strategy: &random)),
        ("pct", exploreTimer(repeating: repeating, cancels: cancels, strategy: &pct)),
        ("exhaustive", exploreTimer(repeating: repeating, cancels: cancels, strategy: &exhaustive)),
    ]
}

final class VirtualTimerExplorationTests: XCTestCase {
    func testACancelledTimerNeverFiresUnderEveryStrategyAndMayFireBefore() {
        for repeating in [false, true] {
            for (label, results) in exploreTimerUnderEveryStrategy(repeating: repeating, cancels: true) {
                let context = "\(label), repeating \(repeating)"
                XCTAssertGreaterThan(results.count, 5, context)
                XCTAssertTrue(results.allSatisfy { $0.firesAfterCancel == 0 }, context)
                let most = repeating ? ScheduleController.maximumRepeatingFires : 1
                XCTAssertTrue(results.allSatisfy { $0.fires <= most }, context)
                XCTAssertTrue(results.contains { $0.fires == 0 }, "\(context): cancelled before its first fire")
                XCTAssertTrue(results.contains { $0.fires > 0 }, "\(context): fired before the cancel")
            }
        }
    }

    func testAnUncancelledTimerFiresInEverySchedule() {
        for (label, results) in exploreTimerUnderEveryStrategy(repeating: false, cancels: false) {
            XCTAssertTrue(results.allSatisfy { $0.fires == 1 }, "\(label): a one-shot timer fires exactly once")
        }
        for (label, results) in exploreTimerUnderEveryStrategy(repeating: true, cancels: false) {
            XCTAssertTrue(
                results.allSatisfy { $0.fires == ScheduleController.maximumRepeatingFires },
                "\(label): a repeating timer fires its most per schedule, then time stands still for it")
        }
    }

    func testAScheduleWithTimerFiresReplaysTheSameChoicesAndFiresAHundredTimes() {
        var random = RandomStrategy(seed: 9)
        let explored = exploreTimer(repeating: true, cancels: true, strategy: &random)
        guard let sample = explored.first(where: { $0.fires > 0 }) else {
            return XCTFail("no schedule fired the timer before the cancel")
        }
        for _ in 0..<100 {
            var replay = ReplayStrategy(sample.choices)
            let again = exploreTimer(repeating: true, cancels: true, limit: 1, strategy: &replay)
            XCTAssertEqual(again.first?.choices, sample.choices)
            XCTAssertEqual(again.first?.fires, sample.fires)
        }
    }
}
