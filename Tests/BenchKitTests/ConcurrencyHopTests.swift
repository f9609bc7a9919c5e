@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import Schedulers
import XCTest

/// The Swift Concurrency variants of `observeOn.*` and
/// `asyncSequence.throughput` are only comparable with the others if they
/// deliver every element, once, in order, where they say they do, and
/// survive the gated counting pass.
final class ConcurrencyHopTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private func passInOrder(_ variant: HopVariant, count: Int = 20_000, onSchedulerQueue: Bool = false) throws {
        let session = try variant.makeSession()
        defer { session.close() }
        let received = ReceivedValues(expected: count)
        try session.pass(
            produce: { send in for value in 0..<UInt64(count) { send(value) } },
            consume: { value in
                if onSchedulerQueue && !SchedulerExecutorBenchActor.scheduler.executor.isIsolated {
                    received.offScheduler += 1
                }
                received.take(value)
            })
        XCTAssertEqual(
            received.done.wait(timeout: .now() + 60), .success,
            "\(variant.name): only \(received.values.count) of \(count) values arrived")
        XCTAssertEqual(received.values, Array(0..<UInt64(count)), variant.name)
        XCTAssertEqual(received.offScheduler, 0, "\(variant.name): elements consumed off the scheduler's queue")
    }

    func testActorExecutorHopRunsEveryElementInOrderOnTheSchedulersQueue() throws {
        try passInOrder(ActorHops.schedulerExecutor, onSchedulerQueue: true)
    }

    func testDefaultActorHopDeliversEveryElementInOrder() throws {
        try passInOrder(ActorHops.defaultActor)
    }

    func testLeastDispatchExecutorHopDeliversEveryElementInOrder() throws {
        try passInOrder(ActorHops.dispatchExecutor)
    }

    func testValuesHopDeliversEveryElementInOrder() throws {
        try passInOrder(ObservableValuesHop.variant)
    }

    func testTheNewVariantsAreRegisteredWhereListAndCompareFindThem() {
        let throughput = CSVSchema.benchmark(named: "observeOn.throughput")?.variants.map(\.name) ?? []
        let latency = CSVSchema.benchmark(named: "observeOn.latency")?.variants.map(\.name) ?? []
        for name in ["actor-executor", "peer.actor", "peer.dispatch-executor", "task-executor", "peer.task"] {
            XCTAssertTrue(throughput.contains(name), name)
            XCTAssertTrue(latency.contains(name), name)
            XCTAssertTrue(HopCatalog.all(.standard).contains { $0.name == name }, name)
        }
        XCTAssertEqual(CSVSchema.benchmark(named: "asyncSequence.throughput")?.variants.map(\.name), ["values", "peer.asyncstream"])
        XCTAssertEqual(AsyncSequenceThroughputBenchmark().hops.map(\.name), ["values", "peer.asyncstream"])
    }

    func testTimedAndGatedCountingPassesCompleteForEveryNewVariant() throws {
        let context = MeasureContext(counter: .disabled, configuration: .tiny(recursionProbe: nil))
        for hop in [
            ActorHops.schedulerExecutor, ActorHops.defaultActor, ActorHops.dispatchExecutor, ObservableValuesHop.variant,
            TaskHops.schedulerTaskExecutor, TaskHops.globalExecutor,
        ] {
            let region = try ObserveOnThroughputBenchmark.measureOnce(hop: hop, elements: 5_000, context: context)
            XCTAssertGreaterThan(region.operationsPerSecond(5_000), 0, hop.name)
            // The consumer blocks inside `consume` for each batch: no deadlock.
            // Counts need jemalloc, so the delta is nil here.
            XCTAssertNil(try HopAllocationCount.count(hop: hop, batch: 20, context: context), hop.name)
            // The busy latency regime keeps at most 8 in flight.
            let histogram = try ObserveOnLatencyBenchmark.recordBusy(hop: hop, samples: 50, inFlight: 8, timedEvery: 4)
            XCTAssertEqual(histogram.totalCount, 50, hop.name)
        }
    }
}
