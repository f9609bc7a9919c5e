import CAllocationCounter
@testable import Schedulers
import XCTest

/// `ElementBuffer`, the queue of an `observe(on:)` sink: order, growth,
/// emptying that keeps capacity, early stop, and element lifetimes.
final class ElementBufferTests: XCTestCase {
    func testDeliversEveryElementInOrderAcrossGrowthAndEmpties() {
        var buffer = ElementBuffer()
        defer { buffer.release(of: Int.self) }
        for value in 0..<1_000 {
            buffer.append(value)
        }
        XCTAssertEqual(buffer.count, 1_000)
        var delivered: [Int] = []
        buffer.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        XCTAssertEqual(delivered, Array(0..<1_000))
        XCTAssertEqual(buffer.count, 0)
    }

    func testTrivialAndNonTrivialElementsOfEverySizeRoundTrip() {
        // A trivial element is stored by assignment, any other by an
        // initialising copy: both, across growth, must come out as they went in.
        assertRoundTrip((0..<100).map { TrivialTriple(a: UInt8(truncatingIfNeeded: $0), b: $0 * 3, c: Double($0) / 2) })
        assertRoundTrip((0..<100).map { LabelledValue(label: "element \($0) " + String(repeating: "x", count: $0), value: $0) })
    }

    /// Appends `values` to a new buffer, delivers them, and checks they come out unchanged.
    private func assertRoundTrip<Element: Equatable>(
        _ values: [Element], file: StaticString = #filePath, line: UInt = #line
    ) {
        var buffer = ElementBuffer()
        defer { buffer.release(of: Element.self) }
        for value in values {
            buffer.append(value)
        }
        var delivered: [Element] = []
        buffer.deliverAll(stoppingWhen: { false }, to: { (value: Element) in delivered.append(value) })
        XCTAssertEqual(delivered, values, file: file, line: line)
    }

    func testStoppingDropsTheRestUndeliveredAndEmptiesTheBuffer() {
        var buffer = ElementBuffer()
        defer { buffer.release(of: Int.self) }
        for value in 0..<10 {
            buffer.append(value)
        }
        var delivered: [Int] = []
        buffer.deliverAll(stoppingWhen: { delivered.count == 3 }, to: { (value: Int) in delivered.append(value) })
        XCTAssertEqual(delivered, [0, 1, 2])
        XCTAssertEqual(buffer.count, 0)
    }

    func testSwappingTradesContents() {
        var queued = ElementBuffer()
        var batch = ElementBuffer()
        defer {
            queued.release(of: Int.self)
            batch.release(of: Int.self)
        }
        queued.append(1)
        queued.append(2)
        swap(&queued, &batch)
        XCTAssertEqual(queued.count, 0)
        queued.append(3)
        var delivered: [Int] = []
        batch.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        queued.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        XCTAssertEqual(delivered, [1, 2, 3])
    }

    func testElementsAreDestroyedWhenDeliveredDroppedOrReleased() {
        weak var delivered: Tracked?
        weak var dropped: Tracked?
        weak var released: Tracked?
        var buffer = ElementBuffer()
        do {
            let first = Tracked()
            let second = Tracked()
            delivered = first
            dropped = second
            buffer.append(first)
            buffer.append(second)
        }
        var count = 0
        buffer.deliverAll(stoppingWhen: { count == 1 }, to: { (_: Tracked) in count += 1 })
        XCTAssertNil(delivered, "a delivered element is destroyed when the buffer empties")
        XCTAssertNil(dropped, "an element dropped by the stop is destroyed too")
        do {
            let third = Tracked()
            released = third
            buffer.append(third)
        }
        XCTAssertNotNil(released)
        buffer.release(of: Tracked.self)
        XCTAssertNil(released, "release() destroys what is still queued")
    }

    func testStorageComesWithTheFirstElementAndIsKeptWhenEmptied() throws {
        try skipUnlessCountingAllocations()
        ElementSegmentPool.shared.releaseAll()
        var buffer = ElementBuffer()
        defer { buffer.release(of: Int.self) }
        var before = allocation_counter_read_thread()
        XCTAssertEqual(buffer.count, 0)
        XCTAssertEqual(allocation_counter_read_thread() - before, 0, "an empty buffer has no storage")
        buffer.append(1)
        XCTAssertEqual(allocation_counter_read_thread() - before, 1, "the first element allocates the storage")
        for value in 2...16 {
            buffer.append(value)
        }
        buffer.deliverAll(stoppingWhen: { false }, to: { (_: Int) in })
        before = allocation_counter_read_thread()
        for value in 1...16 {
            buffer.append(value)
        }
        buffer.deliverAll(stoppingWhen: { false }, to: { (_: Int) in })
        XCTAssertEqual(allocation_counter_read_thread() - before, 0, "refilling up to the kept capacity allocates nothing")
    }
    /// Skips a test that reads the allocation counter where it does not
    /// count: in sanitizer builds the sanitizer owns malloc.
    private func skipUnlessCountingAllocations() throws {
        try XCTSkipUnless(
            allocation_counter_is_active() != 0,
            "allocation counting is off in sanitizer builds (the sanitizer owns malloc)"
        )
    }

    /// How many allocations a fresh buffer makes to hold `elements`
    /// elements of `stride` bytes: one first segment, then later segments.
    private func segments(holding elements: Int, stride: Int) -> UInt64 {
        let first = max(1, ElementBuffer.firstSegmentBytes / stride)
        let later = max(1, ElementBuffer.segmentBytes / stride)
        return elements <= first ? 1 : UInt64(1 + (elements - first + later - 1) / later)
    }

    func testAFloodNeverRequestsABlockOfOneKilobyteOrMore() throws {
        // glibc merges every small freed block before it serves a request of
        // 1 KB or more; a buffer that made one inside a flood would pay that
        // merge on the producer's thread after a busy queue.
        try skipUnlessCountingAllocations()
        var buffer = ElementBuffer()
        defer { buffer.release(of: Int.self) }
        allocation_counter_reset_thread_largest_request()
        for value in 0..<100_000 {
            buffer.append(value)
        }
        XCTAssertLessThan(allocation_counter_thread_largest_request(), 1_024)
        var triples = ElementBuffer()
        defer { triples.release(of: TrivialTriple.self) }
        allocation_counter_reset_thread_largest_request()
        for value in 0..<10_000 {
            triples.append(TrivialTriple(a: 1, b: value, c: 0))
        }
        XCTAssertLessThan(allocation_counter_thread_largest_request(), 1_024)
    }

    func testSegmentsAreAllocatedOnceAndRecycledAcrossEmpties() throws {
        try skipUnlessCountingAllocations()
        ElementSegmentPool.shared.releaseAll()
        var buffer = ElementBuffer()
        defer { buffer.release(of: Int.self) }
        allocation_counter_reset_thread_largest_request()
        var before = allocation_counter_read_thread()
        buffer.append(0)
        XCTAssertEqual(allocation_counter_thread_largest_request(), 128, "the first segment is a 128-byte request, header included")
        for value in 1..<1_000 {
            buffer.append(value)
        }
        XCTAssertEqual(allocation_counter_read_thread() - before, segments(holding: 1_000, stride: 8), "one allocation per segment")
        XCTAssertEqual(segments(holding: 1_000, stride: 8), 17, "14 Ints, then 16 segments of 64")
        for round in 0..<3 {
            buffer.deliverAll(stoppingWhen: { false }, to: { (_: Int) in })
            before = allocation_counter_read_thread()
            for value in 0..<1_000 {
                buffer.append(value)
            }
            XCTAssertEqual(allocation_counter_read_thread() - before, 0, "round \(round): the kept segments are reused")
        }
        // 17 segments hold 14 + 16 * 64 = 1,038 Ints: 1,100 need one more segment, and only that.
        buffer.deliverAll(stoppingWhen: { false }, to: { (_: Int) in })
        before = allocation_counter_read_thread()
        for value in 0..<1_100 {
            buffer.append(value)
        }
        XCTAssertEqual(allocation_counter_read_thread() - before, 1, "a deeper backlog lengthens the chain by what it needs")
        var delivered = 0
        var inOrder = true
        buffer.deliverAll(stoppingWhen: { false }, to: { (value: Int) in
            inOrder = inOrder && value == delivered
            delivered += 1
        })
        XCTAssertEqual(delivered, 1_100)
        XCTAssertTrue(inOrder)
    }

    func testAReleasedChainServesTheNextBufferWithoutAnAllocatorCall() throws {
        // A new subscription's buffer takes the segments an ended one gave
        // back: its flood neither allocates nor frees.
        try skipUnlessCountingAllocations()
        ElementSegmentPool.shared.releaseAll()
        var grown = ElementBuffer()
        for value in 0..<1_000 {
            grown.append(value)
        }
        grown.release(of: Int.self)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.first, 1)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.later, 16)
        let allocationsBefore = allocation_counter_read_thread()
        let freesBefore = allocation_counter_frees()
        var next = ElementBuffer()
        for value in 0..<1_000 {
            next.append(value)
        }
        var delivered = 0
        var inOrder = true
        next.deliverAll(stoppingWhen: { false }, to: { (value: Int) in
            inOrder = inOrder && value == delivered
            delivered += 1
        })
        XCTAssertEqual(allocation_counter_read_thread() - allocationsBefore, 0, "every segment comes from the pool")
        XCTAssertEqual(delivered, 1_000)
        XCTAssertTrue(inOrder)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.first, 0)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.later, 0)
        next.release(of: Int.self)
        XCTAssertEqual(allocation_counter_frees() - freesBefore, 0, "the chain goes back to the pool, not to the allocator")
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.first, 1)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.later, 16)
    }

    func testPooledSegmentsServeElementsOfAnotherType() {
        // A segment holds no element once given back, so a buffer of another
        // type may bind its slots anew.
        ElementSegmentPool.shared.releaseAll()
        assertRoundTrip(Array(0..<1_000))
        assertRoundTrip((0..<1_000).map { LabelledValue(label: "element \($0)", value: $0) })
        assertRoundTrip((0..<1_000).map { TrivialTriple(a: UInt8(truncatingIfNeeded: $0), b: $0, c: Double($0)) })
        assertRoundTrip(Array(0..<1_000))
    }

    func testThePoolKeepsABoundedNumberOfSegments() throws {
        ElementSegmentPool.shared.releaseAll()
        let limit = ElementSegmentPool.maximumSegments(first: false)
        var buffers = (0..<2).map { _ in ElementBuffer() }
        // Each chain holds `limit` later segments: the second does not fit beside the first.
        for index in buffers.indices {
            for value in 0..<(14 + 64 * limit) {
                buffers[index].append(value)
            }
        }
        for index in buffers.indices {
            buffers[index].release(of: Int.self)
        }
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.first, 2)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.later, limit)
        ElementSegmentPool.shared.releaseAll()
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.first, 0)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.later, 0)
    }

    func testElementsTooLargeForThePoolBypassIt() {
        XCTAssertTrue(ElementSegmentPool.pools(Int.self))
        XCTAssertTrue(ElementSegmentPool.pools(TrivialTriple.self))
        XCTAssertFalse(ElementSegmentPool.pools(Large.self), "an element larger than a first segment's 112 bytes")
        ElementSegmentPool.shared.releaseAll()
        assertRoundTrip((0..<100).map { Large(first: $0, last: -$0) })
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.first, 0)
        XCTAssertEqual(ElementSegmentPool.shared.freeCounts.later, 0)
    }

    func testOrderHoldsAcrossSegmentBoundariesForEveryElementSize() {
        // Ints fill 14, then 64 per segment; 24-byte triples 4, then 21; an
        // element larger than a segment's budget gets a segment of its own;
        // a 16-byte-aligned element moves the slots past the header.
        assertRoundTrip(Array(0..<1_000))
        assertRoundTrip((0..<300).map { TrivialTriple(a: UInt8(truncatingIfNeeded: $0), b: $0, c: Double($0)) })
        assertRoundTrip((0..<40).map { Large(first: $0, last: -$0) })
        assertRoundTrip((0..<200).map { SIMD4<Double>(Double($0), 1, 2, Double(-$0)) })
        assertRoundTrip((0..<300).map { LabelledValue(label: "element \($0)", value: $0) })
    }

    func testStoppingInALaterSegmentDropsTheRestAndRefillsFromTheStart() {
        var buffer = ElementBuffer()
        defer { buffer.release(of: Int.self) }
        for value in 0..<500 {
            buffer.append(value)
        }
        var delivered: [Int] = []
        buffer.deliverAll(stoppingWhen: { delivered.count == 250 }, to: { (value: Int) in delivered.append(value) })
        XCTAssertEqual(delivered, Array(0..<250))
        XCTAssertEqual(buffer.count, 0)
        for value in 1_000..<1_200 {
            buffer.append(value)
        }
        delivered = []
        buffer.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        XCTAssertEqual(delivered, Array(1_000..<1_200))
    }

    func testSwappingTradesChainsOfSeveralSegments() {
        var queued = ElementBuffer()
        var batch = ElementBuffer()
        defer {
            queued.release(of: Int.self)
            batch.release(of: Int.self)
        }
        for value in 0..<300 {
            queued.append(value)
        }
        swap(&queued, &batch)
        for value in 300..<700 {
            queued.append(value)
        }
        var delivered: [Int] = []
        batch.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        swap(&queued, &batch)
        for value in 700..<800 {
            queued.append(value)
        }
        batch.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        queued.deliverAll(stoppingWhen: { false }, to: { (value: Int) in delivered.append(value) })
        XCTAssertEqual(delivered, Array(0..<800))
    }

    func testEveryElementOfEverySegmentIsDestroyedOnceWhenDroppedEmptiedOrReleased() {
        let deinits = DeinitCounter()
        var buffer = ElementBuffer()
        for _ in 0..<300 {
            buffer.append(Counted(deinits))
        }
        var delivered = 0
        buffer.deliverAll(stoppingWhen: { delivered == 100 }, to: { (_: Counted) in delivered += 1 })
        XCTAssertEqual(deinits.count, 300, "delivered and dropped elements, in every segment, are destroyed")
        for _ in 0..<500 {
            buffer.append(Counted(deinits))
        }
        buffer.removeAll(of: Counted.self)
        XCTAssertEqual(deinits.count, 800, "emptying destroys the elements of every segment")
        for _ in 0..<700 {
            buffer.append(Counted(deinits))
        }
        XCTAssertEqual(deinits.count, 800)
        buffer.release(of: Counted.self)
        XCTAssertEqual(deinits.count, 1_500, "release() destroys what is still queued, in every segment")
    }
}

/// Elements queued in an `observe(on:)` sink when its subscription is
/// disposed are released then, not leaked nor delivered.
final class ObserveOnBufferedDisposalTests: XCTestCase {
    func testDisposingMidFloodReleasesEveryBufferedElement() {
        let deinits = DeinitCounter()
        let subject = SequencesTestSubject<Counted>()
        let scheduler = ManualSerialScheduler()
        var received = 0
        let subscription = subject.observable.observe(on: scheduler).subscribe(onNext: { _ in received += 1 })
        for _ in 0..<1_000 {
            subject.send(Counted(deinits))
        }
        // No drain has run: all 1,000 wait in the queue, over several segments.
        XCTAssertEqual(deinits.count, 0, "queued elements are alive")
        subscription.dispose()
        XCTAssertEqual(deinits.count, 1_000, "dispose() releases the queued elements of every segment")
        scheduler.runQueued()
        XCTAssertEqual(received, 0, "nothing is delivered after dispose()")
        XCTAssertEqual(deinits.count, 1_000)
    }

    func testDisposingDuringADrainReleasesTheBatchAndTheQueue() {
        let deinits = DeinitCounter()
        let subject = SequencesTestSubject<Counted>()
        let scheduler = ManualSerialScheduler()
        var received = 0
        var subscription: (any Disposable)?
        subscription = subject.observable.observe(on: scheduler).subscribe(onNext: { _ in
            received += 1
            if received == 150 {
                // Upstream keeps sending from inside the drain: these queue behind the batch.
                for _ in 0..<400 {
                    subject.send(Counted(deinits))
                }
                subscription?.dispose()
            }
        })
        for _ in 0..<600 {
            subject.send(Counted(deinits))
        }
        scheduler.runQueued()
        XCTAssertEqual(received, 150, "delivery stops at dispose()")
        XCTAssertEqual(deinits.count, 1_000, "the undelivered rest of the batch and the queue behind it are released")
        subscription = nil
    }
}

/// Counts deinitialisations; touched on one thread per test.
private final class DeinitCounter: @unchecked Sendable {
    var count = 0
}

/// An element whose deinit is counted.
private final class Counted: @unchecked Sendable {
    let counter: DeinitCounter
    init(_ counter: DeinitCounter) { self.counter = counter }
    deinit { counter.count += 1 }
}

/// Larger than a segment's budget: one per segment.
private struct Large: Equatable {
    var first: Int
    var padding: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var padding2: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var padding3: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var padding4: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var padding5: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var padding6: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var padding7: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var last: Int

    init(first: Int, last: Int) {
        self.first = first
        self.last = last
        padding.9 = first
        padding7.0 = last
    }

    static func == (lhs: Large, rhs: Large) -> Bool {
        lhs.first == rhs.first && lhs.last == rhs.last && lhs.padding.9 == rhs.padding.9 && lhs.padding7.0 == rhs.padding7.0
    }
}

private final class Tracked {}

/// Trivial, with padding between its fields.
private struct TrivialTriple: Equatable {
    var a: UInt8
    var b: Int
    var c: Double
}

/// Not trivial: holds a reference-counted string.
private struct LabelledValue: Equatable {
    var label: String
    var value: Int
}
