import CAllocationCounter
@testable import Schedulers
import XCTest

/// Exact allocation counts of an `observe(on:)` subscription's lifecycle:
/// what `observe(on:)` adds to a plain subscription.
final class ObserveOnAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(
            allocation_counter_is_active() != 0,
            "allocation counting is off in sanitizer builds (the sanitizer owns malloc)"
        )
    }

    /// Subscribe, one element, (optionally) one drain, dispose, release.
    private func lifecycle(_ subject: SequencesTestSubject<Int>, on scheduler: ManualSerialScheduler?, path: ObserveOnPath) -> UInt64 {
        var received = 0
        let before = allocation_counter_read_thread()
        do {
            let source = scheduler.map { subject.observable.observe(on: $0, path: path) } ?? subject.observable
            let subscription = source.subscribe(onNext: { received += $0 })
            subject.send(1)
            scheduler?.runQueued()
            subscription.dispose()
        }
        let allocations = allocation_counter_read_thread() - before
        XCTAssertEqual(received, 1)
        return allocations
    }

    /// The operator's producer object, the disposer and the sink, the
    /// closure through which upstream hands the sink elements (it holds the
    /// sink), and the queue object (lock, state machine and queued elements
    /// in one): 5 allocations, the same on both paths (the test scheduler's
    /// closure per drain is its own cost and is counted apart). The queue's
    /// storage is a segment an earlier lifecycle gave back to
    /// `ElementSegmentPool` (the drain's batch lives in the sink and takes
    /// that storage over instead of taking its own).
    func testAnObserveOnLifecycleAddsFiveAllocationsAndOneDrainClosure() {
        let subject = SequencesTestSubject<Int>()
        let scheduler = ManualSerialScheduler()
        // Warm up: type metadata, conformance caches, the scheduler's queue.
        for path in [ObserveOnPath.automatic, .generic] {
            _ = lifecycle(subject, on: scheduler, path: path)
        }
        _ = lifecycle(subject, on: nil, path: .automatic)
        let plain = lifecycle(subject, on: nil, path: .automatic)
        func scheduleOne() -> UInt64 {
            let before = allocation_counter_read_thread()
            _ = scheduler.schedule(scheduler) { _ in Disposables.create() }
            scheduler.runQueued()
            return allocation_counter_read_thread() - before
        }
        _ = scheduleOne()
        let perDrain = scheduleOne()
        for path in [ObserveOnPath.automatic, .generic] {
            let withObserveOn = lifecycle(subject, on: scheduler, path: path)
            print("allocations per lifecycle (\(path)): plain \(plain), with observe(on:) \(withObserveOn), per drain \(perDrain)")
            XCTAssertEqual(withObserveOn - plain - perDrain, 5, "\(path)")
        }
    }

    /// A flood through a new subscription, its drain held back so that the
    /// whole flood queues: after the first element (which schedules the one
    /// drain), upstream's sends make no allocator call at all, as many as
    /// the same sends without `observe(on:)`, because the queue's segments
    /// are those an earlier subscription gave back (after a busy queue, any
    /// allocator call inside a flood may pay glibc's merge of the
    /// blocks the queue freed).
    func testAFloodThroughANewSubscriptionMakesNoAllocatorCallOnceSegmentsWereGivenBack() {
        let scheduler = ManualSerialScheduler()
        let elements = 10_000
        // The same sends without observe(on:), the second of two (the first warms up).
        func plainFlood() -> UInt64 {
            let subject = SequencesTestSubject<Int>()
            var received = 0
            let subscription = subject.observable.subscribe(onNext: { received += $0 })
            defer { subscription.dispose() }
            subject.send(1)
            let before = allocation_counter_read_thread()
            for _ in 1..<elements {
                subject.send(1)
            }
            return allocation_counter_read_thread() - before
        }
        _ = plainFlood()
        let plain = plainFlood()
        for path in [ObserveOnPath.automatic, .generic] {
            // Three floods: the first grows the segments (or finds them pooled) and warms up, the last is counted.
            var counts: [UInt64] = []
            for _ in 0..<3 {
                let subject = SequencesTestSubject<Int>()
                var received = 0
                let subscription = subject.observable.observe(on: scheduler, path: path).subscribe(onNext: { received += $0 })
                subject.send(1)
                let before = allocation_counter_read_thread()
                for _ in 1..<elements {
                    subject.send(1)
                }
                let allocations = allocation_counter_read_thread() - before
                scheduler.runQueued()
                XCTAssertEqual(received, elements, "\(path)")
                subscription.dispose()
                counts.append(allocations)
            }
            print("\(elements - 1) elements after the first through a new subscription (\(path)): \(counts[2]) allocations, plain \(plain)")
            XCTAssertEqual(counts[2], plain, "\(path): the element path allocates nothing")
        }
    }
}
