import CAllocationCounter
@testable import Schedulers
import Synchronization
import XCTest

/// An element that counts its live instances, to check when the queue
/// destroys what it holds.
private final class Tracked: @unchecked Sendable {
    static let live = LiveCounter()
    let value: Int

    init(_ value: Int) {
        self.value = value
        Tracked.live.add(1)
    }

    deinit {
        Tracked.live.add(-1)
    }
}

private final class LiveCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add(_ delta: Int) {
        lock.lock()
        count += delta
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// `SPSCQueue`: order, wrap-around, linking of larger rings, element
/// lifetime, steady-state allocations and a producer and a consumer on two
/// threads.
final class SPSCQueueTests: XCTestCase {
    private func drained(_ queue: SPSCQueue<Int>) -> [Int] {
        var out: [Int] = []
        XCTAssertTrue(queue.deliverAvailable(stoppingWhen: { false }, to: { out.append($0) }))
        return out
    }

    func testElementsComeOutInOrderAcrossWrapArounds() {
        let queue = SPSCQueue<Int>(minimumCapacity: 8)
        var next = 0
        var expected = 0
        // Batches of 5 into 8 slots: the slots wrap around every few batches.
        for _ in 0..<50 {
            for _ in 0..<5 {
                queue.push(next)
                next += 1
            }
            let out = drained(queue)
            XCTAssertEqual(out, Array(expected..<next))
            expected = next
        }
        XCTAssertEqual(queue.producerCapacity, 8, "a backlog within the ring never grows it")
        XCTAssertTrue(queue.isEmpty)
    }

    func testAFullRingLinksALargerOneAndTheConsumerFollowsInOrder() {
        let queue = SPSCQueue<Int>(minimumCapacity: 4)
        queue.push(-2)
        queue.push(-1)
        XCTAssertEqual(drained(queue), [-2, -1], "the ring's start is now mid-ring")
        for value in 0..<4 {
            queue.push(value)
        }
        XCTAssertEqual(queue.producerCapacity, 4)
        queue.push(4)
        XCTAssertEqual(queue.producerCapacity, 8, "a full ring links one twice as large")
        for value in 5..<20 {
            queue.push(value)
        }
        XCTAssertEqual(queue.producerCapacity, 16, "and again")
        XCTAssertEqual(drained(queue), Array(0..<20))
        // The consumer now reads the largest ring; a backlog that fits stays there.
        for value in 20..<36 {
            queue.push(value)
        }
        XCTAssertEqual(queue.producerCapacity, 16)
        XCTAssertEqual(drained(queue), Array(20..<36))
    }

    func testStoppingLeavesTheRestQueuedForTheNextPass() {
        let queue = SPSCQueue<Int>(minimumCapacity: 4)
        for value in 0..<10 {
            queue.push(value)
        }
        var out: [Int] = []
        let finished = queue.deliverAvailable(stoppingWhen: { out.count == 3 }, to: { out.append($0) })
        XCTAssertFalse(finished)
        XCTAssertEqual(out, [0, 1, 2])
        XCTAssertFalse(queue.isEmpty)
        XCTAssertEqual(drained(queue), Array(3..<10))
    }

    func testAnElementPushedDuringDeliveryComesWithTheNextPass() {
        let queue = SPSCQueue<Int>(minimumCapacity: 2)
        queue.push(0)
        queue.push(1)
        var out: [Int] = []
        XCTAssertTrue(queue.deliverAvailable(stoppingWhen: { false }, to: { value in
            out.append(value)
            // Pushing from inside delivery (a drain running inline) fills
            // and grows the ring the consumer is reading.
            queue.push(value + 10)
            queue.push(value + 20)
        }))
        XCTAssertEqual(out, [0, 1])
        XCTAssertEqual(drained(queue), [10, 20, 11, 21])
    }

    func testElementsAreDestroyedWhenDeliveredRemovedOrLeftInAFreedQueue() {
        let baseline = Tracked.live.value
        do {
            let queue = SPSCQueue<Tracked>(minimumCapacity: 4)
            for value in 0..<10 {
                queue.push(Tracked(value))
            }
            XCTAssertEqual(Tracked.live.value, baseline + 10)
            var seen: [Int] = []
            _ = queue.deliverAvailable(stoppingWhen: { seen.count == 6 }, to: { seen.append($0.value) })
            XCTAssertEqual(seen, Array(0..<6))
            XCTAssertEqual(Tracked.live.value, baseline + 4, "delivered elements are destroyed")
            queue.removeAvailable()
            XCTAssertEqual(Tracked.live.value, baseline, "removed elements are destroyed")
            XCTAssertTrue(queue.isEmpty)
            for value in 0..<7 {
                queue.push(Tracked(value))
            }
            XCTAssertEqual(Tracked.live.value, baseline + 7)
        }
        XCTAssertEqual(Tracked.live.value, baseline, "a freed queue destroys what it held")
    }

    func testSteadyStateAllocatesNothingPerElement() throws {
        try XCTSkipUnless(allocation_counter_is_active() != 0, "allocation counting is off in sanitizer builds")
        let queue = SPSCQueue<Int>(minimumCapacity: 4)
        var sum = 0
        func cycle(_ count: Int) -> UInt64 {
            let before = allocation_counter_read_thread()
            for value in 0..<count {
                queue.push(value)
            }
            _ = queue.deliverAvailable(stoppingWhen: { false }, to: { sum &+= $0 })
            return allocation_counter_read_thread() - before
        }
        XCTAssertGreaterThan(cycle(5_000), 0, "growing to the backlog allocates rings")
        // The first backlog was spread over a chain of rings (4, 8, ...,
        // 4096 slots); the newest alone, where the consumer now is, holds
        // 4096: the same backlog links one more ring (an object and its slots).
        XCTAssertEqual(cycle(5_000), 2, "one ring of 8192 slots")
        XCTAssertEqual(queue.producerCapacity, 8192)
        XCTAssertEqual(cycle(5_000), 0, "a backlog the newest ring holds: nothing")
        XCTAssertEqual(cycle(1), 0)
        for _ in 0..<100 {
            XCTAssertEqual(cycle(3_000), 0)
        }
        XCTAssertEqual(sum, 3 * 12_497_500 + 100 * 4_498_500)
    }

    /// Producer bursts run on pool threads one after another (a serial
    /// queue), consumer passes too (each waited for before the next), so
    /// both roles move between threads as they do in `observe(on:)`; the
    /// consumer sometimes stops mid-run, the bursts make the rings grow:
    /// every element arrives once, in order.
    func testProducersAndConsumersOnChangingThreadsKeepExactOrderAndCount() {
        final class Box: @unchecked Sendable {
            let queue = SPSCQueue<Int>(minimumCapacity: 2)
            let produced = Atomic<Int>(0)
            var expected = 0
            var mismatches = 0
        }
        let box = Box()
        let total = 300_000
        let producerQueue = DispatchQueue(label: "spsc-test.producer")
        var start = 0
        var burst = 1
        while start < total {
            let range = start..<min(start + burst, total)
            producerQueue.async {
                for value in range {
                    box.queue.push(value)
                }
                box.produced.store(range.upperBound, ordering: .releasing)
            }
            start = range.upperBound
            burst = burst % 997 + 1
        }
        let passDone = DispatchSemaphore(value: 0)
        var passes = 0
        while box.expected < total {
            passes += 1
            let stopAfter = passes % 5 == 0 ? 3 : Int.max
            DispatchQueue.global().async {
                var left = stopAfter
                _ = box.queue.deliverAvailable(
                    stoppingWhen: {
                        left -= 1
                        return left < 0
                    },
                    to: { value in
                        if value != box.expected { box.mismatches += 1 }
                        box.expected += 1
                    })
                passDone.signal()
            }
            passDone.wait()
        }
        producerQueue.sync {}
        XCTAssertEqual(box.produced.load(ordering: .acquiring), total)
        XCTAssertEqual(box.mismatches, 0, "out of order or duplicated")
        XCTAssertEqual(box.expected, total)
        XCTAssertTrue(box.queue.isEmpty)
    }
}
