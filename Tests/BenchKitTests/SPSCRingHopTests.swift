@testable import BenchKit
import Foundation
import XCTest

/// `reference.spsc-ring` is a measuring stick: if it lost, duplicated or
/// reordered elements, or hung, every ratio against it would be wrong.
final class SPSCRingHopTests: XCTestCase {
    private func waitFor(_ received: ReceivedValues, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(received.done.wait(timeout: .now() + 30), .success,
                       "only \(received.values.count) of \(received.expected) values arrived", file: file, line: line)
    }

    func testDeliversEveryValueInOrderAcrossManyWrapArounds() throws {
        // 8 slots and 100,000 values: the indices wrap 12,500 times and the
        // producer finds the ring full again and again.
        let hop = SPSCRingHop(capacity: 8)
        let count = 100_000
        let received = ReceivedValues(expected: count)
        try hop.pass(
            produce: { send in for value in 0..<UInt64(count) { send(value) } },
            consume: { received.take($0) })
        waitFor(received)
        hop.close()
        XCTAssertEqual(received.values, Array(0..<UInt64(count)))
    }

    func testCapacityIsRoundedUpToAPowerOfTwoAndStillDelivers() throws {
        let hop = SPSCRingHop(capacity: 3)
        let received = ReceivedValues(expected: 1000)
        try hop.pass(produce: { send in for value in 0..<UInt64(1000) { send(value) } }, consume: { received.take($0) })
        waitFor(received)
        hop.close()
        XCTAssertEqual(received.values, Array(0..<UInt64(1000)))
    }

    /// Each burst starts only once the consumer has announced that it parks,
    /// so every burst's first value must wake a sleeping (or about to sleep)
    /// consumer: a lost wake-up leaves the value undelivered and the wait
    /// times out.
    func testWakesAParkedConsumerForEveryBurst() throws {
        let hop = SPSCRingHop(capacity: 16)
        let bursts = 200
        let perBurst = 5
        let received = ReceivedValues(expected: bursts * perBurst)
        let failure = ProducerFailure()
        try hop.pass(
            produce: { send in
                for burst in 0..<bursts {
                    let deadline = Date().addingTimeInterval(30)
                    while !hop.isConsumerSleeping {
                        if Date() > deadline {
                            failure.message = "the consumer never parked before burst \(burst)"
                            return
                        }
                        sched_yield()
                    }
                    for index in 0..<perBurst { send(UInt64(burst * perBurst + index)) }
                }
            },
            consume: { received.take($0) })
        XCTAssertNil(failure.message)
        waitFor(received)
        hop.close()
        XCTAssertEqual(received.values, Array(0..<UInt64(bursts * perBurst)))
        // The consumer parked before every burst (and once more at the end
        // or not, depending on when close() came).
        XCTAssertGreaterThanOrEqual(hop.parks, bursts)
    }

    func testCloseEndsTheConsumerWhetherItIsParkedOrNeverStarted() throws {
        let idle = SPSCRingHop(capacity: 4)
        try idle.pass(produce: { _ in }, consume: { _ in })
        let closed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            idle.close()  // returns only once the consumer thread has exited
            closed.signal()
        }
        XCTAssertEqual(closed.wait(timeout: .now() + 30), .success, "close() did not end a parked consumer")

        // A session that never passed anything closes at once.
        SPSCRingHop(capacity: 4).close()
    }

    func testTheThroughputBenchmarkTimesTheRingAndItsGatedCountingPassCompletes() throws {
        let hop = try XCTUnwrap(HopCatalog.throughput(.standard).first { $0.name == "reference.spsc-ring" })
        let context = MeasureContext(counter: .disabled, configuration: .tiny(recursionProbe: nil))
        let region = try ObserveOnThroughputBenchmark.measureOnce(hop: hop, elements: 10_000, context: context)
        XCTAssertGreaterThan(region.operationsPerSecond(10_000), 0)
        // The counting pass gates batches (the consumer blocks inside
        // `consume`): the ring must not deadlock on it. Counts need jemalloc.
        XCTAssertNil(try HopAllocationCount.count(hop: hop, batch: 20, context: context))
    }

    private final class ProducerFailure: @unchecked Sendable {
        var message: String?
    }
}
