@testable import Schedulers
import XCTest

/// Every transition of `TrampolineRecursionStateMachine`. The ones the
/// recursion never makes stop the program: `TrampolineRecursionStateMachineStopTests`.
final class TrampolineRecursionStateMachineTests: XCTestCase {
    private typealias Machine = TrampolineRecursionStateMachine

    /// A machine inside the first step of `runSteps`.
    private func inFirstStep(holdingReference: Bool) -> Machine {
        var machine = Machine()
        machine.runWillStart(holdingReference: holdingReference)
        machine.stepWillStart()
        return machine
    }

    /// A machine running the one extra step left, its next step not queued:
    /// step 0 recursed twice, step 1 ran in place without recursing.
    private func inExtraStepWithNothingElseQueued() -> Machine {
        var machine = inFirstStep(holdingReference: false)
        _ = machine.recurse()
        _ = machine.recurse()
        _ = machine.stepDidEnd(nextIsFirstInQueue: true)
        machine.stepWillStart()
        _ = machine.stepDidEnd(nextIsFirstInQueue: true)
        _ = machine.runDidEnd()
        machine.extraStepWillRun()
        return machine
    }

    // MARK: - Valid transitions

    func testNewRecursionWaitsForItsFirstStep() {
        let machine = Machine()
        XCTAssertEqual(machine.state, .waiting(nextQueued: true))
        XCTAssertEqual(machine.extraSteps, 0)
        XCTAssertFalse(machine.isInStep)
    }

    func testRunAndStepStartTrackTheReferenceAndTheStep() {
        var machine = Machine()
        machine.runWillStart(holdingReference: true)
        XCTAssertEqual(machine.state, .running(inStep: false, nextQueued: false, holdsReference: true))
        XCTAssertFalse(machine.isInStep)
        machine.stepWillStart()
        XCTAssertEqual(machine.state, .running(inStep: true, nextQueued: false, holdsReference: true))
        XCTAssertTrue(machine.isInStep)
    }

    func testFirstRecurseHandsTheHeldReferenceToTheQueue() {
        var machine = inFirstStep(holdingReference: true)
        XCTAssertEqual(machine.recurse(), .enqueueHandingOverReference)
        XCTAssertEqual(machine.state, .running(inStep: true, nextQueued: true, holdsReference: false))
    }

    func testFirstRecurseWithoutAHeldReferenceTakesANewOne() {
        var machine = inFirstStep(holdingReference: false)
        XCTAssertEqual(machine.recurse(), .enqueueRetaining)
        XCTAssertEqual(machine.state, .running(inStep: true, nextQueued: true, holdsReference: false))
    }

    func testSecondRecurseInOneStepQueuesAnExtraStep() {
        var machine = inFirstStep(holdingReference: true)
        _ = machine.recurse()
        XCTAssertEqual(machine.recurse(), .enqueueExtraStep)
        XCTAssertEqual(machine.recurse(), .enqueueExtraStep)
        XCTAssertEqual(machine.extraSteps, 2)
        XCTAssertEqual(machine.state, .running(inStep: true, nextQueued: true, holdsReference: false))
    }

    func testStepThatRecursedRunsTheNextInPlaceWhenItIsFirstInTheQueue() {
        var machine = inFirstStep(holdingReference: false)
        _ = machine.recurse()
        XCTAssertEqual(machine.stepDidEnd(nextIsFirstInQueue: true), .runNextInPlace)
        // The queue's reference, taken back from the queue, is now the steps'.
        XCTAssertEqual(machine.state, .running(inStep: false, nextQueued: false, holdsReference: true))
        machine.stepWillStart()
        XCTAssertTrue(machine.isInStep)
    }

    func testStepThatRecursedStopsWhenOtherWorkIsAhead() {
        var machine = inFirstStep(holdingReference: true)
        _ = machine.recurse()
        XCTAssertEqual(machine.stepDidEnd(nextIsFirstInQueue: false), .stop)
        XCTAssertEqual(machine.state, .running(inStep: false, nextQueued: true, holdsReference: false))
        XCTAssertEqual(machine.runDidEnd(), .init(releaseReference: false, end: false))
        XCTAssertEqual(machine.state, .waiting(nextQueued: true))
    }

    func testStepThatDidNotRecurseStopsAndEndsTheRecursion() {
        var machine = inFirstStep(holdingReference: true)
        XCTAssertEqual(machine.stepDidEnd(nextIsFirstInQueue: true), .stop)
        XCTAssertEqual(machine.runDidEnd(), .init(releaseReference: true, end: true))
        XCTAssertEqual(machine.state, .ended)
    }

    func testRunWithoutAStepEndsAndReleasesTheHeldReference() {
        // Disposed before the step: runSteps stops without running it.
        var machine = Machine()
        machine.runWillStart(holdingReference: true)
        XCTAssertEqual(machine.runDidEnd(), .init(releaseReference: true, end: true))
        XCTAssertEqual(machine.state, .ended)
    }

    func testRunEndsWaitingWhileExtraStepsAreQueued() {
        var machine = inFirstStep(holdingReference: false)
        _ = machine.recurse()
        _ = machine.recurse()
        XCTAssertEqual(machine.stepDidEnd(nextIsFirstInQueue: true), .runNextInPlace)
        machine.stepWillStart()
        XCTAssertEqual(machine.stepDidEnd(nextIsFirstInQueue: true), .stop)
        XCTAssertEqual(machine.runDidEnd(), .init(releaseReference: true, end: false))
        XCTAssertEqual(machine.state, .waiting(nextQueued: false))
        XCTAssertEqual(machine.extraSteps, 1)
    }

    func testExtraStepWhileTheNextStepIsQueued() {
        var machine = inFirstStep(holdingReference: false)
        _ = machine.recurse()
        _ = machine.recurse()
        _ = machine.stepDidEnd(nextIsFirstInQueue: false)
        _ = machine.runDidEnd()
        machine.extraStepWillRun()
        XCTAssertEqual(machine.state, .inExtraStep(nextQueued: true))
        XCTAssertEqual(machine.extraSteps, 0)
        XCTAssertTrue(machine.isInStep)
        XCTAssertEqual(machine.recurse(), .enqueueExtraStep)
        XCTAssertEqual(machine.extraSteps, 1)
        XCTAssertFalse(machine.extraStepDidEnd())
        XCTAssertEqual(machine.state, .waiting(nextQueued: true))
    }

    func testExtraStepThatRecursesQueuesTheNextStep() {
        var machine = inExtraStepWithNothingElseQueued()
        XCTAssertEqual(machine.state, .inExtraStep(nextQueued: false))
        XCTAssertEqual(machine.recurse(), .enqueueRetaining)
        XCTAssertEqual(machine.state, .inExtraStep(nextQueued: true))
        XCTAssertFalse(machine.extraStepDidEnd())
        XCTAssertEqual(machine.state, .waiting(nextQueued: true))
    }

    func testLastExtraStepEndsTheRecursion() {
        var machine = inExtraStepWithNothingElseQueued()
        XCTAssertTrue(machine.extraStepDidEnd())
        XCTAssertEqual(machine.state, .ended)
        XCTAssertFalse(machine.isInStep)
    }
}
