@testable import Schedulers
import XCTest

/// A drain that has delivered its batch lingers before it lets the sink go
/// idle (issue 29, Performance.md "After a busy queue"): an element that
/// upstream queues meanwhile finds the drain running, so it schedules no new
/// drain, and the same drain takes it.
final class ObserveOnLingerTests: XCTestCase {
    private func isDeliver(_ step: ObserveOnStateMachine.DrainStep) -> Bool {
        if case .deliverQueued = step { return true }
        return false
    }

    func testAnElementQueuedWhileTheDrainLingersIsTakenByTheSameDrain() {
        let queue = ObserveOnQueue<Int>()
        XCTAssertTrue(queue.elementArrived(1), "the first element schedules the drain")
        XCTAssertTrue(isDeliver(queue.takeQueued()), "the drain takes the first element")
        var delivered: [Int] = []
        queue.deliverBatch(stoppingWhen: { false }, to: { delivered.append($0) })
        var looks = 0
        var scheduledAnother = false
        let step = queue.lingerThenTakeQueued(beforeEachLook: {
            looks += 1
            if looks == 2 {
                // Upstream sends while the drain lingers.
                scheduledAnother = queue.elementArrived(2)
            }
        })
        XCTAssertFalse(scheduledAnother, "the element found the drain running: no new drain")
        XCTAssertEqual(looks, 2, "the look that found the element ended the linger")
        XCTAssertTrue(isDeliver(step), "the same drain takes the element")
        queue.deliverBatch(stoppingWhen: { false }, to: { delivered.append($0) })
        XCTAssertEqual(delivered, [1, 2])
        looks = 0
        XCTAssertFalse(isDeliver(queue.lingerThenTakeQueued(beforeEachLook: { looks += 1 })), "nothing more: the drain ends")
        XCTAssertGreaterThan(looks, 0, "after looking")
        XCTAssertTrue(queue.elementArrived(3), "idle again: the next element schedules a drain")
    }

    func testALingeringDrainStopsOnDisposal() {
        let queue = ObserveOnQueue<Int>()
        XCTAssertTrue(queue.elementArrived(1))
        XCTAssertTrue(isDeliver(queue.takeQueued()))
        queue.deliverBatch(stoppingWhen: { false }, to: { _ in })
        var looks = 0
        let step = queue.lingerThenTakeQueued(beforeEachLook: {
            looks += 1
            queue.dispose()
        })
        XCTAssertEqual(looks, 1, "disposal ends the linger at the next look")
        XCTAssertFalse(isDeliver(step), "and a disposed sink's drain stops")
        XCTAssertFalse(queue.elementArrived(2), "a disposed sink schedules nothing")
    }
}
