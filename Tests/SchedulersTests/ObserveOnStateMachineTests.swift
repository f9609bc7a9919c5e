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

    private enum TestError: Error {
        case boom
    }
}
