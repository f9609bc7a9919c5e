import Dispatch
import Synchronization
import XCTest
@testable import StressKit

/// What a watching party saw in one schedule of `exploreFireReach`.
private struct ReachRun {
    /// At each of the watcher's sync points: whether the fire had reached
    /// the target queue, and whether the timer's handler had started and
    /// returned by then.
    var seen: [(reached: Bool, started: Bool, returned: Bool)] = []
}

/// Party 0 arms a one-shot virtual timer on `timerQueue` (the target
/// queue itself, or another); party 1 asks at each of eight sync points
/// whether its fire reached `target`. The handler marks its start, passes
/// a sync point, and marks its return.
private func exploreFireReach<Strategy: ExplorationStrategy>(
    firesOnTarget: Bool, strategy: inout Strategy, limit: Int = 200
) -> [ReachRun] {
    let target = DispatchQueue(label: "test.reach.target")
    let timerQueue = firesOnTarget ? target : DispatchQueue(label: "test.reach.timer")
    let controller = ScheduleController(parties: 2, workers: 2)
    defer { controller.stop() }
    var runs: [ReachRun] = []
    while runs.count < limit, strategy.beginSchedule() {
        let started = Atomic<Bool>(false)
        let returned = Atomic<Bool>(false)
        let run = Mutex(ReachRun())
        let (choices, end) = controller.run({ party in
            guard party == 1 else {
                _ = controller.armTimer(
                    from: 0, queue: timerQueue, repeating: false,
                    deadlineNanoseconds: Exploration.uptimeNanoseconds() + 1_000_000
                ) {
                    started.store(true, ordering: .relaxed)
                    Exploration.syncPoint(.atomicUpdate)
                    returned.store(true, ordering: .relaxed)
                }
                return
            }
            for _ in 0..<8 {
                Exploration.syncPoint(.atomicLoad)
                let reached = Exploration.timerFireReached(target)
                run.withLock {
                    $0.seen.append((reached, started.load(ordering: .relaxed), returned.load(ordering: .relaxed)))
                }
            }
        }, chooser: &strategy)
        XCTAssertEqual(end, .completed)
        strategy.endSchedule(steps: choices.count)
        runs.append(run.withLock { $0 })
    }
    return runs
}

/// Arms a one-shot virtual timer that runs `handler` on `queue` once
/// `seconds` passed; off a controlled thread, a real one.
private func armVirtualTimer(on queue: DispatchQueue, after seconds: Double, _ handler: @escaping @Sendable () -> Void) {
    let deadline = Exploration.uptimeNanoseconds() + UInt64(seconds * 1e9)
    if let party = ControlledParty.current,
       party.controller.armTimer(
           from: party.index, queue: queue, repeating: false, deadlineNanoseconds: deadline, handler: handler) != nil {
        return
    }
    queue.asyncAfter(deadline: .now() + seconds, execute: handler)
}

/// A serial target a schedule controller runs, whose timer (virtual) fires
/// on its queue: the handler runs the work there, in the queue's order, or,
/// `requeuing`, enqueues it at the back of the queue, so work enqueued
/// between the fire and the handler overtakes it (a starved timer).
private func explorableTarget(requeuing: Bool) -> SerialProgressTarget {
    SerialProgressTarget(name: requeuing ? "requeuing-timers" : "in-order-timers", explorable: true) {
        let queue = DispatchQueue(label: "test.due-order")
        let enqueue: @Sendable (@escaping @Sendable () -> Void) -> Void = { block in
            Exploration.handOff(to: queue, block)
        }
        let after: @Sendable (Double, @escaping @Sendable () -> Void) -> Void = { seconds, work in
            if requeuing {
                armVirtualTimer(on: queue, after: seconds) { enqueue(work) }
            } else {
                armVirtualTimer(on: queue, after: seconds, work)
            }
        }
        let settle: @Sendable (Double) -> Bool = { seconds in
            let done = DispatchSemaphore(value: 0)
            queue.async { done.signal() }
            return done.wait(timeout: .now() + seconds) == .success
        }
        return SerialProgressTarget.Made(
            after: after, action: enqueue, job: enqueue,
            periodic: { _, _ in SerialProgressTarget.PeriodicHandle(dispose: {}, skippedTicks: { nil }) },
            settle: settle, finish: {}, isIsolated: nil, queue: queue)
    }
}

/// The explored due-order rule: a virtual timer has fallen due once its
/// fire reached the target's queue, and the outcome is the schedule's alone.
final class DueOrderExplorationTests: XCTestCase {
    private func everyStrategy() -> [(String, any ExplorationStrategy)] {
        [
            ("random", RandomStrategy(seed: 2)),
            ("pct", PCTStrategy(threads: 4, depth: 3, seed: 2)),
            ("exhaustive", ExhaustiveStrategy(preemptionBound: 2)),
        ]
    }

    func testAFireOnTheTargetQueueReachesItWhenHandedThereBeforeItsHandlerRuns() {
        for (label, var strategy) in everyStrategy() {
            let runs = exploreFireReach(firesOnTarget: true, strategy: &strategy)
            XCTAssertGreaterThan(runs.count, 5, label)
            let seen = runs.flatMap(\.seen)
            XCTAssertTrue(seen.allSatisfy { $0.reached || !$0.started }, "\(label): a handler ran before its fire reached the queue")
            XCTAssertTrue(seen.contains { $0.reached && !$0.started }, "\(label): reached while the handler waits on the queue")
            XCTAssertTrue(seen.contains { !$0.reached }, "\(label): not reached before the fire")
        }
    }

    func testAFireOnAnotherQueueReachesTheTargetOnlyOnceItsHandlerReturned() {
        for (label, var strategy) in everyStrategy() {
            let runs = exploreFireReach(firesOnTarget: false, strategy: &strategy)
            XCTAssertGreaterThan(runs.count, 5, label)
            let seen = runs.flatMap(\.seen)
            XCTAssertTrue(seen.allSatisfy { $0.reached == $0.returned }, "\(label): reached exactly when the handler returned")
            XCTAssertTrue(seen.contains { $0.started && !$0.returned }, "\(label): the handler was seen running, not yet reached")
            XCTAssertTrue(seen.contains { $0.reached }, label)
        }
    }

    func testNoFireHasReachedAnythingOffAControlledThreadOrAtAScheduleStart() {
        XCTAssertFalse(Exploration.timerFireReached(DispatchQueue(label: "test.reach.uncontrolled")))
        var strategy = RandomStrategy(seed: 5)
        let runs = exploreFireReach(firesOnTarget: true, strategy: &strategy, limit: 20)
        // Each schedule starts with nothing fired, though the one before it
        // fired: a later schedule's first look can find nothing reached.
        XCTAssertTrue(runs.dropFirst().contains { $0.seen.first?.reached == false })
    }

    func testExploredDueOrderForbidsATimerOvertakenAfterItsFireReachedTheQueueAndReplaysIt() throws {
        let scenario = DueOrderProgress(explorableTarget(requeuing: true))
        XCTAssertNil(scenario.explorationBlocker)
        for strategy in [ExplorationStrategyKind.random, .pct] {
            var settings = ExplorationSettings(strategy: strategy, seed: 1, limit: .iterations(300))
            settings.leakGraceSeconds = 1
            let result = Explorer(settings).run(scenario)
            let overtaken = result.count(of: DueOrderProgress.Outcome.timerOvertakenByJobs.id)
                + result.count(of: DueOrderProgress.Outcome.timerOvertakenByActions.id)
            XCTAssertGreaterThan(overtaken, 0, ResultTable.render(result))
            // The actions it schedules are run in the queue's order: never overtaken.
            XCTAssertEqual(result.count(of: DueOrderProgress.Outcome.actionOvertakenByJobs.id), 0, ResultTable.render(result))
            XCTAssertEqual(result.count(of: DueOrderProgress.Outcome.actionOvertakenByActions.id), 0, ResultTable.render(result))
            XCTAssertEqual(result.verdict, .failed)
            let schedule = try XCTUnwrap(result.exploration?.failingSchedule, ResultTable.render(result))
            // As printed, then parsed: what `--replay` is given.
            let replays = Explorer.replay(try Schedule(parsing: schedule.description), on: scenario, times: 20)
            XCTAssertEqual(replays.count, 20)
            for replay in replays {
                XCTAssertNil(replay.divergence)
                XCTAssertTrue(replay.outcome.id.hasPrefix("timer-overtaken-by-later-"), replay.outcome.id)
            }
        }
    }

    func testExploredDueOrderPassesATargetThatRunsTheTimersWorkWhereItsFireReachedTheQueue() {
        let scenario = DueOrderProgress(explorableTarget(requeuing: false))
        for strategy in [ExplorationStrategyKind.random, .pct, .exhaustive] {
            var settings = ExplorationSettings(strategy: strategy, seed: 1, limit: .iterations(300))
            settings.leakGraceSeconds = 1
            let result = Explorer(settings).run(scenario)
            XCTAssertEqual(result.iterations, 300, ResultTable.render(result))
            XCTAssertEqual(result.verdict, .passed, ResultTable.render(result))
        }
    }

    func testAScheduleShrunkToNoStepIsPrintedAsOneThatParses() throws {
        let empty = Schedule(
            scenario: "due-order.x", stateSeed: 0x2a, choices: [], build: "exploration", runnable: [], stepKinds: [])
        XCTAssertEqual(empty.description, "due-order.x:2a::exploration:")
        XCTAssertEqual(try Schedule(parsing: empty.description), empty)
    }

    func testOnlyTheLibrarysSerialTargetIsExplorable() {
        XCTAssertNil(DueOrderProgress(.serialDispatch).explorationBlocker)
        XCTAssertNotNil(DueOrderProgress(.defaultActor).explorationBlocker)
        XCTAssertNotNil(DueOrderProgress(.mainActor).explorationBlocker)
    }
}
