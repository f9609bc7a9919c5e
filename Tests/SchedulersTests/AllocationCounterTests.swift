import CAllocationCounter
import Schedulers
import XCTest

private final class Probe {
    var value = 0
}

/// A chain of nested `schedule` calls on `CurrentThreadScheduler`, the way
/// operators use it: each level schedules the next one from inside an action.
private final class NestedScheduleChain {
    var remaining = 0
    var levels = 0
}

/// One level of `NestedScheduleChain`. The actions are closure literals that
/// capture nothing, as operators write them: a function passed by name to the
/// generic `schedule` would be wrapped in a reabstraction thunk, allocated at
/// every call in a debug build (the caller's cost, not the scheduler's).
private func nestedScheduleLevel(_ chain: NestedScheduleChain) -> Disposable {
    chain.levels += 1
    if chain.remaining > 0 {
        chain.remaining -= 1
        _ = CurrentThreadScheduler.instance.schedule(chain) { nestedScheduleLevel($0) }
    }
    return Disposables.create()
}

/// Exact allocation counts for `observe(on:)`: in steady state, more elements
/// must not mean more allocations, on either path.
final class AllocationCounterTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(
            allocation_counter_is_active() != 0,
            "allocation counting is off in sanitizer builds (the sanitizer owns malloc)"
        )
    }

    func testCounterCountsAClassAllocation() {
        let before = allocation_counter_read_thread()
        let processBefore = allocation_counter_read()
        let probe = Probe()
        probe.value = 1
        withExtendedLifetime(probe) {}
        XCTAssertGreaterThanOrEqual(allocation_counter_read_thread() - before, 1)
        XCTAssertGreaterThanOrEqual(allocation_counter_read() - processBefore, 1)
    }

    func testCounterCountsNothingForArithmetic() {
        var sum = 0
        let before = allocation_counter_read_thread()
        for value in 0..<1_000 {
            sum &+= value
        }
        XCTAssertEqual(allocation_counter_read_thread() - before, 0)
        XCTAssertEqual(sum, 499_500)
    }

    /// In steady state (the thread's spare item exists), a chain of nested
    /// schedules reuses one queue entry: no allocation per schedule (what a
    /// chain costs once, outside its levels, does not grow with its length).
    func testSteadyStateNestedScheduleOnCurrentThreadAllocatesNothingPerSchedule() {
        let chain = NestedScheduleChain()
        func run(_ nested: Int) -> UInt64 {
            chain.remaining = nested
            chain.levels = 0
            let before = allocation_counter_read_thread()
            _ = CurrentThreadScheduler.instance.schedule(chain) { nestedScheduleLevel($0) }
            let allocations = allocation_counter_read_thread() - before
            XCTAssertEqual(chain.levels, nested + 1)
            return allocations
        }
        _ = run(100)
        let single = run(1_000)
        let double = run(2_000)
        print("allocations per chain of nested schedules: 1000 levels \(single), 2000 levels \(double)")
        // 1000 more nested schedules, not one allocation more: 0 per schedule.
        XCTAssertEqual(single, double, "allocations grew with the number of nested schedules")
    }

    func testSteadyStateFastPathAllocatesNothingPerElement() {
        assertSteadyStateAllocatesNothingPerElement(path: .automatic)
    }

    func testSteadyStateGenericPathAllocatesNothingPerElement() {
        assertSteadyStateAllocatesNothingPerElement(path: .generic)
    }

    func testSteadyStateFastPathWithMapAndFilterAllocatesNothingPerElement() {
        let scheduler = ManualSerialScheduler()
        let subject = SequencesTestSubject<Int>()
        var received = 0
        let subscription = subject.observable
            .observe(on: scheduler)
            .map { $0 * 2 }
            .filter { $0 % 4 == 0 }
            .subscribe(onNext: { _ in received += 1 })
        let elements = 2_000
        func deliver(_ count: Int) -> UInt64 {
            let before = allocation_counter_read_thread()
            for value in 0..<count {
                subject.send(value)
            }
            scheduler.runQueued()
            return allocation_counter_read_thread() - before
        }
        _ = deliver(2 * elements)
        _ = deliver(2 * elements)
        let single = deliver(elements)
        let double = deliver(2 * elements)
        XCTAssertEqual(single, double, "allocations grew with the element count")
        XCTAssertEqual(received, (2 * elements + 2 * elements + elements + 2 * elements) / 2)
        subscription.dispose()
    }

    /// Warms up with two batches of 2N elements (both ring buffers of the sink
    /// reach their size), then
    /// delivers N and 2N elements, each run as one batch: the counts must be
    /// equal, and equal to what a single element costs.
    private func assertSteadyStateAllocatesNothingPerElement(
        path: ObserveOnPath, file: StaticString = #filePath, line: UInt = #line
    ) {
        let scheduler = ManualSerialScheduler()
        let subject = SequencesTestSubject<Int>()
        var sum = 0
        let subscription = subject.observable
            .observe(on: scheduler, path: path)
            .subscribe(onNext: { sum &+= $0 })
        let elements = 4_000
        func deliver(_ count: Int) -> UInt64 {
            let before = allocation_counter_read_thread()
            for value in 0..<count {
                subject.send(value)
            }
            scheduler.runQueued()
            return allocation_counter_read_thread() - before
        }
        // Two batches: the sink alternates between two ring buffers.
        _ = deliver(2 * elements)
        _ = deliver(2 * elements)
        let schedulesBefore = scheduler.scheduledCount
        let one = deliver(1)
        let single = deliver(elements)
        let double = deliver(2 * elements)
        XCTAssertEqual(scheduler.scheduledCount - schedulesBefore, 3, "one drain per batch", file: file, line: line)
        print("allocations per batch (\(path)): one \(one), N \(single), 2N \(double)")
        XCTAssertEqual(single, double, "allocations grew with the element count", file: file, line: line)
        XCTAssertEqual(one, single, "a batch of N costs more than a batch of one", file: file, line: line)
        XCTAssertLessThanOrEqual(single, 2, "per-batch allocations: the test scheduler's closure only", file: file, line: line)
        let expected = 3 * (2 * elements * (2 * elements - 1) / 2) + elements * (elements - 1) / 2
        XCTAssertEqual(sum, expected, file: file, line: line)
        subscription.dispose()
    }
}
