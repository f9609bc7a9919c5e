@testable import Schedulers
import XCTest

/// Direct tests of the state machine behind both `observe(on:)` sinks: each
/// transition returns what the sink must do, and these pin every one.
final class ObserveOnStateMachineTests: XCTestCase {
    private func isStop(_ step: ObserveOnStateMachine.DrainStep) -> Bool {
        if case .stop = step { return true }
        return false
    }

    /// `nil` when the step is `.stop`; else whether a terminal event came with it.
    private func deliveredTerminal(_ step: ObserveOnStateMachine.DrainStep) -> ObserveOnTerminalEvent?? {
        if case .deliverQueued(let terminal) = step { return .some(terminal) }
        return nil
    }

    /// Whether `step` delivers queued elements (whatever its terminal event).
    private func delivers(_ step: ObserveOnStateMachine.DrainStep) -> Bool {
        if case .deliverQueued = step { return true }
        return false
    }

    func testTheFirstElementSchedulesOneDrainAndLaterOnesOnlyQueue() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
        XCTAssertEqual(machine.elementArrived(), .enqueue)
        XCTAssertEqual(machine.elementArrived(), .enqueue)
    }

    func testADrainDeliversWhileSomethingIsQueuedThenGoesIdle() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
        guard case .some(.none) = deliveredTerminal(machine.drainNeedsWork(queuedCount: 1)) else {
            return XCTFail("a queued element is delivered, with no terminal event")
        }
        XCTAssertTrue(isStop(machine.drainNeedsWork(queuedCount: 0)), "empty queue, no terminal: stop")
        // Idle again: the next element schedules a new drain.
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
    }

    func testATerminalEventOnAnIdleSinkSchedulesADrainAndIsHandedOverOnce() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.terminalArrived(.completed), .scheduleDrain)
        guard case .some(.some(.completed)) = deliveredTerminal(machine.drainNeedsWork(queuedCount: 0)) else {
            return XCTFail("the drain must take the completion")
        }
        XCTAssertTrue(isStop(machine.drainNeedsWork(queuedCount: 0)), "handed over once, then stop")
    }

    func testATerminalEventWhileADrainIsScheduledRidesWithIt() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
        XCTAssertEqual(machine.terminalArrived(.error(TestError.boom)), .none, "a drain is on its way")
        guard case .some(.some(.error)) = deliveredTerminal(machine.drainNeedsWork(queuedCount: 1)) else {
            return XCTFail("the queued element and the error go together")
        }
    }

    func testEverythingAfterTheFirstTerminalEventIsDropped() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.terminalArrived(.completed), .scheduleDrain)
        XCTAssertEqual(machine.elementArrived(), .drop)
        XCTAssertEqual(machine.terminalArrived(.error(TestError.boom)), .none)
        guard case .some(.some(.completed)) = deliveredTerminal(machine.drainNeedsWork(queuedCount: 0)) else {
            return XCTFail("only the first terminal event is delivered")
        }
        XCTAssertTrue(isStop(machine.drainNeedsWork(queuedCount: 0)))
        XCTAssertEqual(machine.elementArrived(), .drop, "still dropped once the drain went idle")
    }

    func testDisposalDropsEverythingAndStopsTheDrain() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
        XCTAssertEqual(machine.terminalArrived(.completed), .none)
        machine.dispose()
        XCTAssertTrue(isStop(machine.drainNeedsWork(queuedCount: 5)), "a disposed sink delivers nothing, not even the terminal event")
        XCTAssertEqual(machine.elementArrived(), .drop)
        XCTAssertEqual(machine.terminalArrived(.completed), .none)
    }

    func testALingeringDrainSeesQueuedElementsATerminalEventOrDisposalWithoutChangingState() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
        XCTAssertTrue(machine.drainHasWork(queuedCount: 1))
        XCTAssertFalse(machine.drainHasWork(queuedCount: 0), "nothing queued, no terminal event: nothing to do")
        // Asking changed nothing: the drain is still scheduled, so an element only queues.
        XCTAssertEqual(machine.elementArrived(), .enqueue)
        XCTAssertEqual(machine.terminalArrived(.completed), .none)
        XCTAssertTrue(machine.drainHasWork(queuedCount: 0), "the terminal event is work")
        machine.dispose()
        XCTAssertTrue(machine.drainHasWork(queuedCount: 0), "disposal is news for the drain: it stops")
    }

    func testALookThatFindsNothingReturnsNoStepAndLeavesTheDrainScheduled() {
        var machine = ObserveOnStateMachine()
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
        XCTAssertTrue(delivers(machine.drainNeedsWork(queuedCount: 1)))
        XCTAssertNil(machine.drainStep(queuedCount: 0, lookingOnly: true), "nothing to take: no step")
        XCTAssertEqual(machine.elementArrived(), .enqueue, "still scheduled: the element only queues")
        guard let step = machine.drainStep(queuedCount: 1, lookingOnly: true) else {
            return XCTFail("a look that finds an element takes it")
        }
        XCTAssertTrue(delivers(step))
        guard let last = machine.drainStep(queuedCount: 0, lookingOnly: false) else {
            return XCTFail("not looking only: always a step")
        }
        XCTAssertTrue(isStop(last), "and the drain ends when nothing is queued")
        XCTAssertEqual(machine.elementArrived(), .enqueueAndScheduleDrain)
    }

    private enum TestError: Error {
        case boom
    }
}
