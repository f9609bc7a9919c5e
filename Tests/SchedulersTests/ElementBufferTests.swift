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
        try XCTSkipUnless(
            allocation_counter_is_active() != 0,
            "allocation counting is off in sanitizer builds (the sanitizer owns malloc)"
        )
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
