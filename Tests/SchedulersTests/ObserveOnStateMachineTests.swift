@testable import Schedulers
import XCTest

/// Every transition of `ObserveOnStateMachine`, driven by hand in the orders
/// that upstream, the drain and `dispose()` can produce.
final class ObserveOnStateMachineTests: XCTestCase {
    private typealias Machine = ObserveOnStateMachine

    func testTheFirstEventSchedulesOneDrainAndLaterOnesOnlyCount() {
        let machine = Machine()
        XCTAssertTrue(machine.acceptsElements)
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain)
        XCTAssertEqual(machine.eventQueued(), .none)
        XCTAssertEqual(machine.eventQueued(), .none)
        XCTAssertEqual(machine.pendingCount, 3)
    }

    func testTheDrainPassesAgainWhileEventsArrivedAndThenGivesTheRoleUp() {
        let machine = Machine()
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain)
        XCTAssertEqual(machine.eventQueued(), .none)
        // The drain's first pass accounts for the event that scheduled it.
        XCTAssertEqual(machine.passWillStart(), .deliver(terminalQueued: false))
        XCTAssertEqual(machine.passDidEnd(handled: 1), .again(handled: 1))
        XCTAssertEqual(machine.eventQueued(), .none, "the role is still held")
        XCTAssertEqual(machine.passWillStart(), .deliver(terminalQueued: false))
        XCTAssertEqual(machine.passDidEnd(handled: 1), .again(handled: 1))
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
        XCTAssertEqual(machine.pendingCount, 0)
        // Idle again: the next event schedules the next drain.
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain)
    }

    func testAnEventAfterTheLastSubtractionTakesTheRoleItself() {
        let machine = Machine()
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain, "no event is left without a drain")
    }

    func testTheTerminalEventIsPublishedAndLaterEventsAreRefused() {
        let machine = Machine()
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain)
        XCTAssertTrue(machine.terminalWillArrive())
        XCTAssertEqual(machine.terminalQueued(), .none)
        XCTAssertFalse(machine.acceptsElements, "nothing after a terminal event (guarantee 1)")
        XCTAssertFalse(machine.terminalWillArrive(), "only the first terminal event")
        XCTAssertEqual(machine.passWillStart(), .deliver(terminalQueued: true))
        XCTAssertEqual(machine.passDidEnd(handled: 1), .again(handled: 1))
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
    }

    func testATerminalEventOnAnIdleSinkSchedulesADrain() {
        let machine = Machine()
        XCTAssertTrue(machine.terminalWillArrive())
        XCTAssertEqual(machine.terminalQueued(), .scheduleDrain)
        XCTAssertEqual(machine.passWillStart(), .deliver(terminalQueued: true))
    }

    func testDisposingAnIdleSinkHandsTheDisposerTheRoleToDiscard() {
        let machine = Machine()
        XCTAssertEqual(machine.dispose(), .discardQueued)
        XCTAssertTrue(machine.isDisposed)
        XCTAssertFalse(machine.acceptsElements)
        XCTAssertFalse(machine.terminalWillArrive())
        XCTAssertEqual(machine.passWillStart(), .discard)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
    }

    func testDisposingWhileADrainHoldsTheRoleLeavesTheDiscardingToIt() {
        let machine = Machine()
        XCTAssertEqual(machine.eventQueued(), .scheduleDrain)
        XCTAssertEqual(machine.passWillStart(), .deliver(terminalQueued: false))
        XCTAssertEqual(machine.dispose(), .none)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .again(handled: 1), "the disposal was counted")
        XCTAssertEqual(machine.passWillStart(), .discard)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
    }

    func testDisposingTwiceIsHarmless() {
        let machine = Machine()
        XCTAssertEqual(machine.dispose(), .discardQueued)
        XCTAssertEqual(machine.dispose(), .none, "the first disposer still holds the role")
        XCTAssertEqual(machine.passWillStart(), .discard)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .again(handled: 1))
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
        XCTAssertEqual(machine.dispose(), .discardQueued)
    }

    /// Upstream checked `acceptsElements` before the disposal and pushed
    /// after it: with no drain around, upstream takes the role and discards.
    func testAnElementThatSlipsPastDisposalIsDiscardedByUpstream() {
        let machine = Machine()
        XCTAssertEqual(machine.dispose(), .discardQueued)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
        XCTAssertEqual(machine.eventQueued(), .discardQueued)
        XCTAssertEqual(machine.passWillStart(), .discard)
        XCTAssertEqual(machine.passDidEnd(handled: 1), .stop)
    }

    /// Producers and a role holder on two threads: every event is accounted
    /// for exactly once, and exactly one party holds the role at a time.
    func testConcurrentEventsAndPassesLoseNoEventAndNeverShareTheRole() {
        final class Shared: @unchecked Sendable {
            let machine = ObserveOnStateMachine()
            var holders = 0
            var overlaps = 0
            var drainsScheduled = 0
        }
        let shared = Shared()
        let events = 200_000
        let lock = NSLock()
        let done = DispatchSemaphore(value: 0)
        /// Runs a drain the way a scheduler would, on another thread.
        @Sendable func drain() {
            lock.lock()
            shared.holders += 1
            if shared.holders > 1 { shared.overlaps += 1 }
            lock.unlock()
            var handled = 1
            while true {
                _ = shared.machine.passWillStart()
                lock.lock()
                shared.holders -= 1
                lock.unlock()
                let outcome = shared.machine.passDidEnd(handled: handled)
                guard case .again(let next) = outcome else { break }
                lock.lock()
                shared.holders += 1
                if shared.holders > 1 { shared.overlaps += 1 }
                lock.unlock()
                handled = next
            }
        }
        DispatchQueue.global().async {
            for _ in 0..<events {
                if shared.machine.eventQueued() == .scheduleDrain {
                    shared.drainsScheduled += 1
                    DispatchQueue.global().async { drain() }
                }
            }
            done.signal()
        }
        done.wait()
        let deadline = Date().addingTimeInterval(10)
        while shared.machine.pendingCount != 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
        XCTAssertEqual(shared.machine.pendingCount, 0, "every event accounted for")
        lock.lock()
        XCTAssertEqual(shared.overlaps, 0, "two role holders at once")
        lock.unlock()
        XCTAssertGreaterThanOrEqual(shared.drainsScheduled, 1)
    }
}
