@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import XCTest

/// Where allocation rows come from: the counting pass, never the timed repetitions.
final class AllocationPassTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private let configuration = SuiteConfiguration.tiny(recursionProbe: nil)
    private let filter = BenchmarkFilter(["observeOn.throughput/peer.dispatch-async", "trampoline.recursion"])

    func testUnavailableCountsAreWrittenEmptyForEveryTimingRepetition() throws {
        let runner = SuiteRunner(configuration: configuration, filter: filter, counter: .disabled)
        XCTAssertEqual(runner.allocationPass, .unavailable)
        let rows = try runner.run(progress: ProgressReporter(style: .silent))
        let counts = rows.filter { $0.metric == "allocs_per_element" }
        XCTAssertEqual(counts.map(\.repetition), Array(1...configuration.repetitions))
        XCTAssertTrue(counts.allSatisfy { $0.value == nil })
        XCTAssertTrue(rows.filter { $0.metric == "bytes_per_schedule" }.allSatisfy { $0.value == nil })
        XCTAssertTrue(rows.filter { $0.metric == "elements_per_s" }.allSatisfy { $0.value != nil })
    }

    func testCountsTakenElsewhereLeaveNoAllocationRowsInTheTimingRun() throws {
        let runner = SuiteRunner(
            configuration: configuration, filter: filter, counter: .disabled, allocationPass: .elsewhere)
        let rows = try runner.run(progress: ProgressReporter(style: .silent))
        XCTAssertFalse(rows.isEmpty)
        XCTAssertFalse(rows.contains { CSVSchema.metric($0.metric, in: $0.benchmark)?.isAllocationCount ?? true })
        XCTAssertTrue(rows.contains { $0.metric == "ns_per_element" })
        XCTAssertTrue(rows.contains { $0.metric == "depth" })
    }

    func testCountingOnlyWithoutAnExactCounterFailsInsteadOfTiming() {
        let runner = SuiteRunner(configuration: configuration, filter: filter, counter: .disabled, allocationPass: .only)
        XCTAssertThrowsError(try runner.run(progress: ProgressReporter(style: .silent))) { error in
            XCTAssertTrue("\(error)".contains("cannot count allocations"), "\(error)")
        }
    }

    func testOnlyTheAllocationMetricsBelongToTheCountingPass() {
        let counted = CSVSchema.benchmarks.flatMap { $0.metrics.filter(\.isAllocationCount).map(\.name) }
        XCTAssertEqual(
            Set(counted),
            [
                "allocs_per_element", "bytes_per_element", "allocs_per_lifecycle", "bytes_per_lifecycle",
                "allocs_per_schedule", "bytes_per_schedule", "allocs_per_op", "allocs_growth_exponent",
                "bytes_per_queued_action", "bytes_per_live_subscription",
            ])
    }

    func testEveryBenchmarkWithAllocationMetricsCountsThem() {
        for benchmark in BenchmarkCatalog.all {
            let hasCounts = benchmark.schema.metrics.contains(where: \.isAllocationCount)
            for plan in benchmark.plans(for: configuration) where plan.unavailableReason == nil {
                // observeOn.busyQueue's flood series times whole floods by CPU
                // time; its variants' counts come from the benchmark's other plans.
                let floodSeries = plan.benchmark == ObserveOnBusyQueueBenchmark.name && plan.params.contains("floods=")
                XCTAssertEqual(plan.countAllocations != nil, hasCounts && !floodSeries, plan.identifier)
            }
        }
    }
}

/// The gate that makes a counted batch cross a hop the same way on every run.
final class BatchGateTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// What the consumer saw, written only on its serial queue.
    final class Seen: @unchecked Sendable {
        var sentWhenFirstArrived: [Int] = []
        var sentAfterFirst: [Int] = []
        var values: [UInt64] = []
    }

    final class SentCount: @unchecked Sendable {
        let lock = NSLock()
        private var value = 0
        func increment() {
            lock.lock()
            value += 1
            lock.unlock()
        }
        var current: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    func testConsumerHoldsTheFirstElementUntilTheWholeBatchWasSent() throws {
        let batch = 50
        let gate = BatchGate(batch: batch)
        let queue = DispatchQueue(label: "test.batch-gate")
        let sent = SentCount()
        let seen = Seen()
        for _ in 0..<3 {
            try gate.sendBatch(variant: "test") { value in
                sent.increment()
                queue.async {
                    if value == 0 { seen.sentWhenFirstArrived.append(sent.current) }
                    gate.consume(value)
                    if value == 0 { seen.sentAfterFirst.append(sent.current) }
                    seen.values.append(value)
                }
            }
        }
        queue.sync {}
        // Each batch: the first element alone, then the consumer waits for all the others.
        XCTAssertEqual(seen.sentWhenFirstArrived, [1, batch + 1, 2 * batch + 1])
        XCTAssertEqual(seen.sentAfterFirst, [batch, 2 * batch, 3 * batch])
        XCTAssertEqual(seen.values, Array(repeating: (0..<UInt64(batch)).map { $0 }, count: 3).flatMap { $0 })
    }

    func testCountingAHopWithoutJemallocCompletesWithoutCounts() throws {
        let context = MeasureContext(counter: .disabled, configuration: .tiny(recursionProbe: nil))
        let hop = try XCTUnwrap(HopCatalog.all(.standard).first { $0.name == "fast-path" })
        XCTAssertNil(try HopAllocationCount.count(hop: hop, batch: 20, context: context))
    }
}
