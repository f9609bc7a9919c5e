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
    /// sink), the queue object (lock, state machine and queued elements in
    /// one), and the queue's storage, allocated by the first element (the
    /// drain's batch lives in the sink and takes that storage over instead of
    /// allocating its own): 6 allocations, the same on both paths (the test
    /// scheduler's closure per drain is its own cost and is counted apart).
    func testAnObserveOnLifecycleAddsSixAllocationsAndOneDrainClosure() {
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
            XCTAssertEqual(withObserveOn - plain - perDrain, 6, "\(path)")
        }
    }
}
