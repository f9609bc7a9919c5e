import CAllocationCounter
import Foundation
import Schedulers
import SchedulersTesting
import XCTest

/// Exact allocation counts of a virtual-time scheduler's queue: what one
/// scheduled, disposed or run action costs must not depend on how many other
/// actions are queued.
final class VirtualTimeAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(
            allocation_counter_is_active() != 0,
            "allocation counting is off in sanitizer builds (the sanitizer owns malloc)"
        )
    }

    /// Allocations of each phase: schedule `count` actions at scattered due
    /// times, dispose every other one, run the rest.
    private func phases(count: Int) -> (schedule: UInt64, dispose: UInt64, run: UInt64) {
        let scheduler = VirtualTimeScheduler(
            initialClock: 0, converter: TestSchedulerVirtualTimeConverter(resolution: 1.0))
        var disposables: [Disposable] = []
        disposables.reserveCapacity(count)
        var ran = 0
        let action: (Int) -> Disposable = { _ in
            ran += 1
            return Disposables.create()
        }
        // Scattered due times (a fixed permutation), so the heap reorders.
        let spread = max(count, 1)
        var before = allocation_counter_read_thread()
        for index in 0..<count {
            disposables.append(scheduler.scheduleAbsoluteVirtual(index, time: (index &* 7_919) % spread, action: action))
        }
        let schedule = allocation_counter_read_thread() - before
        before = allocation_counter_read_thread()
        for index in stride(from: 0, to: count, by: 2) {
            disposables[index].dispose()
        }
        let dispose = allocation_counter_read_thread() - before
        before = allocation_counter_read_thread()
        scheduler.start()
        let run = allocation_counter_read_thread() - before
        XCTAssertEqual(ran, count / 2)
        return (schedule, dispose, run)
    }

    /// Per operation, each phase costs the same at 4,096 actions and at
    /// 65,536: the heap's storage grows by doubling, and nothing else in the
    /// queue allocates per comparison or per move.
    func testAllocationsPerOperationDoNotGrowWithTheQueue() {
        _ = phases(count: 64)  // metadata and conformance caches
        let small = phases(count: 1 << 12)
        let large = phases(count: 1 << 16)
        func perOperation(_ total: UInt64, _ operations: Int) -> Double { Double(total) / Double(operations) }
        print("virtual time allocations: small \(small), large \(large)")
        // Scheduling: one item per action, plus the doublings of the heap's
        // three arrays (due times, sequences, items: 3·log2 of the count),
        // which round to nothing per action: 0.009 at 4,096 (0.03 at 1,024,
        // more than the accuracy), 0.0007 at 65,536. A cost per comparison or
        // per move grows with log2 of the count: 12 against 16 per action here.
        XCTAssertEqual(perOperation(small.schedule, 1 << 12), perOperation(large.schedule, 1 << 16), accuracy: 0.02)
        XCTAssertEqual(perOperation(small.dispose, 1 << 11), perOperation(large.dispose, 1 << 15), accuracy: 0.02)
        XCTAssertEqual(perOperation(small.run, 1 << 11), perOperation(large.run, 1 << 15), accuracy: 0.02)
    }
}
