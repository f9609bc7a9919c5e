@testable import BenchKit
import Foundation
import XCTest

/// `reference.batched-handoff` is a measuring stick, and one is made for
/// every repetition: it must deliver everything in order, and a closed one
/// must not stay alive.
final class BatchedHandoffHopTests: XCTestCase {
    func testDeliversInOrderAndIsFreedOnceClosed() throws {
        let count = 10_000
        let received = ReceivedValues(expected: count)
        weak var weakHop: BatchedHandoffHop?
        do {
            let hop = BatchedHandoffHop()
            weakHop = hop
            try hop.pass(
                produce: { send in for value in 0..<UInt64(count) { send(value) } },
                consume: { received.take($0) })
            XCTAssertEqual(
                received.done.wait(timeout: .now() + 30), .success,
                "only \(received.values.count) of \(count) values arrived")
            hop.close()
        }
        XCTAssertEqual(received.values, Array(0..<UInt64(count)))
        // The consumer thread ends soon after close() and lets go of the hop
        // then; the 30 s bound only keeps a regression from hanging the run.
        let deadline = Date() + 30
        while weakHop != nil, Date() < deadline {
            usleep(1_000)
        }
        XCTAssertNil(weakHop, "the closed hop is still alive: its consumer thread's closure holds it")
    }
}
