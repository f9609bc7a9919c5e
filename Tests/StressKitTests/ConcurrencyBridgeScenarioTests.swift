import Foundation
import ToolSupport
import XCTest
@testable import StressKit

/// The Swift Concurrency bridge's scenarios against the real library: a
/// short run breaks no guarantee, leaks nothing, and is in the catalog.
final class ConcurrencyBridgeScenarioTests: XCTestCase {
    func testValuesCancellationVersusDeliveryBreaksNothingInAShortRun() {
        let result = StressRunner(limit: .iterations(400), seed: 3, batchSize: 16).run(ValuesCancelVersusDelivery())
        XCTAssertEqual(result.forbiddenCount, 0, "\(result)")
        XCTAssertEqual(result.leaked, 0)
    }

    func testActorJobVersusSchedulerTearDownBreaksNothingInAShortRun() {
        let result = StressRunner(limit: .iterations(400), seed: 3, batchSize: 16).run(ActorJobVersusSchedulerTeardown())
        XCTAssertEqual(result.forbiddenCount, 0, "\(result)")
        XCTAssertEqual(result.leaked, 0)
    }

    func testTheCatalogRunsBothBridgeScenarios() {
        let names = ScenarioCatalog.all().map(\.name)
        XCTAssertTrue(names.contains("cancel-vs-values.task"))
        XCTAssertTrue(names.contains("actor-job-vs-teardown.serial-dispatch"))
    }
}

/// The bridge scenarios' arbiters on orderings forced on one thread (the
/// actors run one after the other), so these do not depend on timing, and on
/// doctored logs, to show that the forbidden outcomes can be reported at all.
final class ConcurrencyBridgeArbiterTests: XCTestCase {
    private func choices(seed: UInt64 = 1) -> IterationChoices {
        var generator = SeededGenerator(seed: seed)
        return IterationChoices(actorCount: 2, generator: &generator)
    }

    /// The consuming task of `cancel-vs-values.task` never subscribed.
    private struct NotSubscribed: Error, CustomStringConvertible {
        var description: String { "the consuming task did not subscribe within 10 s" }
    }

    /// Waits (bounded, as a hang guard only) until the consuming task subscribed.
    private func waitUntilSubscribed(_ state: ValuesCancelVersusDelivery.State) throws {
        let deadline = Date().addingTimeInterval(10)
        while state.observer.current == nil {
            guard Date() < deadline else { throw NotSubscribed() }
            usleep(100)
        }
    }

    func testValuesEmittedOnlyAfterTheCancellationReturnedReachNobody() throws {
        let scenario = ValuesCancelVersusDelivery()
        var choices = choices()
        let state = scenario.makeState(&choices)
        try waitUntilSubscribed(state)
        scenario.act(1, on: state)
        scenario.act(0, on: state)
        XCTAssertEqual(scenario.arbitrate(state), .noneDelivered)
        XCTAssertEqual(state.firstEmittedAfterCancel.load(ordering: .relaxed), 0, "every element was emitted after cancel returned")
    }

    func testValuesTakenBeforeTheCancellationAllCount() throws {
        let scenario = ValuesCancelVersusDelivery()
        var choices = choices(seed: 2)
        let state = scenario.makeState(&choices)
        try waitUntilSubscribed(state)
        scenario.act(0, on: state)
        let deadline = Date().addingTimeInterval(10)
        while state.log.values.count < ValuesCancelVersusDelivery.elementCount && Date() < deadline {
            usleep(100)
        }
        scenario.act(1, on: state)
        XCTAssertEqual(scenario.arbitrate(state), .allDelivered)
    }

    func testTheValuesArbiterReportsAnElementFromANextBegunAfterCancellation() throws {
        let scenario = ValuesCancelVersusDelivery()
        var choices = choices(seed: 3)
        let state = scenario.makeState(&choices)
        try waitUntilSubscribed(state)
        scenario.act(1, on: state)
        scenario.act(0, on: state)
        state.log.elementFromLateNext.set()
        XCTAssertEqual(scenario.arbitrate(state), .deliveredAfterCancel)
        XCTAssertEqual(ValuesCancelVersusDelivery.Outcome.deliveredAfterCancel.grade, .forbidden)
    }

    func testAnActorDroppedBeforeTheEnqueueGetsNoJob() {
        let scenario = ActorJobVersusSchedulerTeardown()
        var choices = choices()
        let state = scenario.makeState(&choices)
        scenario.act(1, on: state)
        scenario.act(0, on: state)
        XCTAssertEqual(scenario.arbitrate(state), .tornDownFirst)
        XCTAssertEqual(state.log.runs.value, 0)
    }

    func testAJobEnqueuedBeforeTheTearDownRunsOnceOnTheScheduler() {
        let scenario = ActorJobVersusSchedulerTeardown()
        var choices = choices(seed: 2)
        let state = scenario.makeState(&choices)
        scenario.act(0, on: state)
        XCTAssertEqual(state.log.ran.wait(timeout: .now() + 10), .success, "the job did not run within 10 s")
        state.log.ran.signal()  // give the arbiter back the signal it waits for
        scenario.act(1, on: state)
        XCTAssertEqual(scenario.arbitrate(state), .ranBeforeTearDown)
        XCTAssertEqual(state.log.runs.value, 1)
    }

    func testTheActorArbiterReportsAJobThatRanOffTheScheduler() {
        let scenario = ActorJobVersusSchedulerTeardown()
        var choices = choices(seed: 4)
        let state = scenario.makeState(&choices)
        scenario.act(0, on: state)
        scenario.act(1, on: state)
        state.log.offExecutor.set()
        XCTAssertEqual(scenario.arbitrate(state), .ranOffExecutor)
    }
}
