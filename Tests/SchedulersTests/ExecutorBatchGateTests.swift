import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import Schedulers

/// A fired timer that waits for a serial scheduler's gate says so, and the
/// scheduler's enqueuers give way to it for a bounded number of rounds
/// (`ExecutorBatchGate.giveWayToFiredTimers`).
final class ExecutorBatchGateTests: XCTestCase {
    func testAFiredTimerCountsItselfWaitingOnlyWhileItWaitsForTheLockThenEnqueuesWithTheBatchClosed() throws {
        let gate = ExecutorBatchGate()
        gate.lock.lock()
        gate.openBatch = ObjectIdentifier(gate)
        let ran = DispatchSemaphore(value: 0)
        let enqueued = Atomic<Bool>(false)
        Thread.detachNewThread {
            gate.enqueueFiredTimer { enqueued.store(true, ordering: .relaxed) }
            ran.signal()
        }
        // The timer's thread must reach the lock and count itself waiting.
        let deadline = Date().addingTimeInterval(10)
        while gate.firedTimersWaiting.load(ordering: .relaxed) != 1 && Date() < deadline {
            usleep(1_000)
        }
        XCTAssertEqual(gate.firedTimersWaiting.load(ordering: .relaxed), 1)
        XCTAssertFalse(enqueued.load(ordering: .relaxed), "the timer's work was enqueued while another thread held the lock")
        gate.lock.unlock()
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(enqueued.load(ordering: .relaxed))
        XCTAssertEqual(gate.firedTimersWaiting.load(ordering: .relaxed), 0)
        gate.lock.withLock {
            XCTAssertNil(gate.openBatch, "a fired timer's work closes the open batch")
        }
    }

    func testAnEnqueuerGivesWayForABoundedNumberOfRoundsThenGoesOn() {
        let gate = ExecutorBatchGate()
        // A timer that never takes the lock: the enqueuer still gets through.
        gate.firedTimersWaiting.add(1, ordering: .relaxed)
        let result = gate.enqueueClosingBatch { 42 }
        XCTAssertEqual(result, 42)
        gate.firedTimersWaiting.subtract(1, ordering: .relaxed)
        XCTAssertEqual(gate.enqueueClosingBatch { 7 }, 7)
    }
}
