import Schedulers
import ToolSupport
import XCTest
@testable import StressKit

/// The recursive-chain scenario against the real trampoline and against
/// deliberately broken recursions. The orderings that decide the grading are
/// forced here on one thread (the actors run one after the other, or the
/// disposal happens inside a step), so these tests do not depend on timing.
final class RecursiveChainScenarioTests: XCTestCase {
    private typealias Scenario = TrampolineRecursionDisposeVersusChain

    private static let real: Scenario.Start = { state, action in
        CurrentThreadScheduler.instance.scheduleRecursive(state, action: action)
    }

    /// Broken: the chain runs on the trampoline, but its disposable does nothing.
    private static let ignoresDispose: Scenario.Start = { state, action in
        _ = CurrentThreadScheduler.instance.scheduleRecursive(state, action: action)
        return Disposables.create()
    }

    /// A probe of `scenario` from the first seeded choices that satisfy `wanted`.
    private func probe(
        _ scenario: Scenario, seed: UInt64 = 1, where wanted: (RecursiveChainProbe) -> Bool
    ) -> RecursiveChainProbe {
        var generator = SeededGenerator(seed: seed)
        while true {
            var choices = IterationChoices(actorCount: 2, generator: &generator)
            let probe = scenario.makeState(&choices)
            if wanted(probe) {
                return probe
            }
        }
    }

    /// Wraps `base` so that while step `id` runs, the probe's holder is
    /// disposed on the chain's own thread, just before (or just after) the
    /// step's first `recurse` call.
    private func disposing(
        during id: Int, afterRecursing: Bool, probe box: ProbeBox, base: @escaping Scenario.Start
    ) -> Scenario.Start {
        { state, action in
            base(state) { step, recurse in
                action(step) { child in
                    let now = step.id == id && !box.disposed
                    if now && !afterRecursing {
                        box.dispose()
                    }
                    recurse(child)
                    if now && afterRecursing {
                        box.dispose()
                    }
                }
            }
        }
    }

    func testChainCompletesWhenDisposedAfterItsEnd() {
        let scenario = Scenario(start: Self.real)
        let probe = probe(scenario) { $0.plan.depth >= 4 && $0.plan.twigs }
        scenario.act(0, on: probe)
        scenario.act(1, on: probe)
        XCTAssertEqual(probe.stepsRun, probe.plan.expectedSteps)
        XCTAssertEqual(scenario.arbitrate(probe), .completed)
    }

    func testNoStepRunsWhenDisposedBeforeTheChainStarts() {
        let cases: [(Scenario.Start, RecursiveChainOutcome)] = [
            (Self.real, .disposedBeforeFirstStep),
            (Self.ignoresDispose, .stepAfterDisposeReturned),
        ]
        for (start, expected) in cases {
            let scenario = Scenario(start: start)
            let probe = probe(scenario) { !$0.disposerWaitsForChain && $0.plan.depth >= 2 }
            scenario.act(1, on: probe)
            scenario.act(0, on: probe)
            XCTAssertEqual(scenario.arbitrate(probe), expected)
        }
    }

    func testDisposeInsideAStepStopsTheChainThereAndReleasesEverything() {
        for afterRecursing in [false, true] {
            for branchFirst in [false, true] {
                let box = ProbeBox()
                let scenario = Scenario(start: disposing(during: 3, afterRecursing: afterRecursing, probe: box, base: Self.real))
                let probe = probe(scenario) { $0.plan.depth >= 6 && $0.plan.fanOutEvery == 2 && $0.plan.branchFirst == branchFirst }
                box.probe = probe
                scenario.act(0, on: probe)
                XCTAssertEqual(probe.runs[3], 1)
                XCTAssertEqual(probe.runs[4], 0, "the step after the disposing one started")
                XCTAssertEqual(probe.heldWhenDrained, 0)
                XCTAssertEqual(scenario.arbitrate(probe), .stoppedMidChain, "after recursing: \(afterRecursing)")
            }
        }
    }

    func testGradingCatchesAChainThatIgnoresDispose() {
        for afterRecursing in [false, true] {
            let box = ProbeBox()
            let scenario = Scenario(
                start: disposing(during: 3, afterRecursing: afterRecursing, probe: box, base: Self.ignoresDispose)
            )
            let probe = probe(scenario) { $0.plan.depth >= 6 }
            box.probe = probe
            scenario.act(0, on: probe)
            XCTAssertEqual(scenario.arbitrate(probe), .stepAfterDisposeReturned, "after recursing: \(afterRecursing)")
        }
    }

    func testGradingCatchesARecursionThatKeepsItsAction() {
        let kept = KeptActions()
        let scenario = Scenario(name: "self-check.recursion-keeps-action") { state, action in
            kept.keep(action)
            return CurrentThreadScheduler.instance.scheduleRecursive(state, action: action)
        }
        let probe = probe(scenario) { _ in true }
        scenario.act(0, on: probe)
        scenario.act(1, on: probe)
        XCTAssertEqual(scenario.arbitrate(probe), .actionOrStateKept)

        // The runner catches it too, and counts what it kept as leaked.
        let result = StressRunner(limit: .iterations(40), seed: 3, leakGraceSeconds: 0.05, batchSize: 8).run(scenario)
        XCTAssertEqual(result.count(of: "action-or-state-kept"), 40)
        XCTAssertEqual(result.verdict, .failed)
        kept.clear()
    }

    func testRealTrampolinePassesAShortRun() {
        let result = StressRunner(limit: .iterations(2_000), seed: 11, batchSize: 16).run(Scenario())
        XCTAssertEqual(result.forbiddenCount, 0)
        XCTAssertEqual(result.leaked, 0)
        XCTAssertEqual(result.iterations, 2_000)
    }

    func testExplorationDecidesTheDisposersWaitAndFindsAChainThatIgnoresDispose() throws {
        XCTAssertNil(Scenario().explorationBlocker)
        for strategy in ExplorationStrategyKind.allCases {
            var settings = ExplorationSettings(strategy: strategy, seed: 7, limit: .iterations(300))
            settings.leakGraceSeconds = 1
            let real = Explorer(settings).run(Scenario())
            XCTAssertEqual(real.forbiddenCount, 0, "\(strategy)")
            XCTAssertEqual(real.leaked, 0, "\(strategy)")
            if strategy == .exhaustive {
                // Without the library's sync points the search space is small: searched to its end.
                XCTAssertEqual(real.exploration?.exhausted, true)
            } else {
                XCTAssertEqual(real.iterations, 300, "\(strategy): every schedule completed")
            }

            let broken = Scenario(name: "self-check.chain-ignores-dispose", start: Self.ignoresDispose)
            let result = Explorer(settings).run(broken)
            XCTAssertGreaterThan(result.count(of: "step-started-after-dispose-returned"), 0, "\(strategy)")
            let schedule = try XCTUnwrap(result.exploration?.failingSchedule, "\(strategy)")
            let replays = Explorer.replay(try Schedule(parsing: schedule.description), on: broken, times: 100)
            XCTAssertEqual(replays.count, 100)
            XCTAssertTrue(
                replays.allSatisfy { $0.outcome.id == "step-started-after-dispose-returned" && $0.divergence == nil },
                "\(strategy)")
            XCTAssertEqual(Set(replays.map(\.choices)).count, 1, "every replay makes the same choices")
        }
    }

    func testCatalogListsTheScenario() {
        XCTAssertTrue(ScenarioCatalog.all().contains { $0.name == "dispose-vs-recursive-chain.current-thread" })
    }
}

/// Lets a test's recursion reach the probe of the iteration it runs, to
/// dispose it from inside a step.
private final class ProbeBox: @unchecked Sendable {
    var probe: RecursiveChainProbe?
    private(set) var disposed = false

    func dispose() {
        disposed = true
        probe?.holder.dispose()
    }
}

/// Where a deliberately broken recursion keeps every action it was given.
private final class KeptActions: @unchecked Sendable {
    private let lock = NSLock()
    private var actions: [TrampolineRecursionDisposeVersusChain.StepAction] = []

    func keep(_ action: @escaping TrampolineRecursionDisposeVersusChain.StepAction) {
        lock.lock()
        actions.append(action)
        lock.unlock()
    }

    func clear() {
        lock.lock()
        actions.removeAll()
        lock.unlock()
    }
}
