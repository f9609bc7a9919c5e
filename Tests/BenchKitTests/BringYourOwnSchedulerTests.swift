import Dispatch
import Schedulers
import XCTest
@testable import BenchKit

/// A user's scheduler registered through the public API is measured by every
/// benchmark group that applies, beside the library's and the peers; bad registrations
/// are refused; a scheduler that never runs fails its plans by name without
/// losing the others' rows.
final class BringYourOwnSchedulerTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private func registry(_ schedulers: [BenchScheduler]) throws -> SchedulerRegistry {
        var registry = SchedulerRegistry.standard
        for scheduler in schedulers {
            try registry.register(scheduler)
        }
        return registry
    }

    private func identifiers(_ registry: SchedulerRegistry) -> Set<String> {
        Set(BenchmarkCatalog.all(registry).flatMap { $0.plans(for: .tiny(recursionProbe: nil)) }.map(\.identifier))
    }

    func testASerialSchedulerGetsEveryBenchmarkGroupBesideTheLibraryAndThePeers() throws {
        let plans = identifiers(try registry([
            BenchScheduler("user-serial") { SerialDispatchQueueScheduler(internalSerialQueueName: "user-serial") }
        ]))
        for expected in [
            "observeOn.throughput/user-serial", "observeOn.throughput/user-serial.generic",
            "observeOn.latency/user-serial", "observeOn.latency/user-serial.generic",
            "observeOn.subscription/user-serial", "observeOn.subscription/user-serial.generic",
            "periodic.drift/user-serial.native", "periodic.drift/user-serial.emulated",
            "scheduler.recursion/user-serial",
            // The library's and the peers, in the same run.
            "observeOn.throughput/fast-path", "observeOn.throughput/peer.nio", "periodic.drift/serial-dispatch.native",
        ] {
            XCTAssertTrue(plans.contains(expected), expected)
        }
    }

    func testAnImmediateSchedulerGetsTheGenericPathAndNoPeriodicGroup() throws {
        let plans = identifiers(try registry([BenchScheduler("user-immediate") { ImmediateOnQueue() }]))
        XCTAssertTrue(plans.contains("observeOn.throughput/user-immediate"))
        XCTAssertTrue(plans.contains("scheduler.recursion/user-immediate"))
        XCTAssertFalse(plans.contains("observeOn.throughput/user-immediate.generic"))
        XCTAssertFalse(plans.contains { $0.hasPrefix("periodic.drift/user-immediate") })
    }

    func testTheStandardRegistryWritesNoRecursionGroupAndTheSameNamesAsBefore() {
        let names = BenchmarkCatalog.all(.standard).map(\.schema.name)
        XCTAssertFalse(names.contains(SchedulerRecursionBenchmark.name))
        let throughput = ObserveOnThroughputBenchmark(registry: .standard).schema.variants.map(\.name)
        XCTAssertEqual(
            Array(throughput.prefix(5)), ["fast-path", "generic", "concurrent", "operation-queue", "main"])
        XCTAssertEqual(Array(throughput.suffix(2)), ["fast-path.disturbed", "generic.disturbed"])
        let periodic = PeriodicDriftBenchmark(registry: .standard).jobs.map(\.name)
        XCTAssertEqual(periodic, [
            "serial-dispatch.native", "serial-dispatch.emulated", "concurrent-dispatch.native",
            "concurrent-dispatch.emulated", "operation-queue.native", "operation-queue.emulated", "main.native",
            "main.emulated", "user-scheduler.emulated", "peer.dispatch-timer", "peer.nio", "peer.opencombine",
        ])
    }

    func testTwoSchedulersUnderOneNameAreRefused() throws {
        var registry = SchedulerRegistry.standard
        try registry.register(BenchScheduler("twin") { ImmediateOnQueue() })
        XCTAssertThrowsError(try registry.register(BenchScheduler("twin") { ImmediateOnQueue() })) { error in
            XCTAssertTrue("\(error)".contains("another registration already writes"), "\(error)")
        }
        // A library variant's name is taken as well.
        XCTAssertThrowsError(try registry.register(BenchScheduler("fast-path") { ImmediateOnQueue() }))
    }

    func testANameThatWouldBreakTheCSVIsRefused() {
        var registry = SchedulerRegistry.standard
        for name in ["", "my loop", "a,b", "quote\"", "new\nline", "peer.mine", "reference.x", ".dot", "a..b", String(repeating: "x", count: 49)] {
            XCTAssertThrowsError(try registry.register(BenchScheduler(name) { ImmediateOnQueue() }), name) { error in
                XCTAssertTrue(error is SchedulerRegistrationError, "\(error)")
            }
        }
    }

    func testASchedulerThatNeverRunsFailsItsPlansByNameAndTheOthersKeepTheirRows() throws {
        let registry = try registry([
            BenchScheduler("never-runs") { NeverRuns() }.stallTimeout(seconds: 0.3),
            BenchScheduler("user-serial") { SerialDispatchQueueScheduler(internalSerialQueueName: "user-serial") },
        ])
        var configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        configuration.minimumRepetitionSeconds = 0
        let runner = SuiteRunner(
            configuration: configuration, benchmarks: BenchmarkCatalog.all(registry),
            filter: BenchmarkFilter(["observeOn.throughput/never-runs", "observeOn.throughput/user-serial", "scheduler.recursion"]),
            counter: .disabled)
        XCTAssertThrowsError(try runner.run(progress: ProgressReporter(style: .silent))) { error in
            guard let failure = error as? SuiteFailure else { return XCTFail("\(error)") }
            XCTAssertEqual(
                Set(failure.failures.map(\.identifier)),
                ["observeOn.throughput/never-runs", "scheduler.recursion/never-runs"])
            XCTAssertTrue(failure.description.contains("never-runs"), failure.description)
            XCTAssertTrue(failure.description.contains("does its scheduler run every action"), failure.description)
            let variants = Set(failure.rows.map { "\($0.benchmark)/\($0.variant)" })
            XCTAssertTrue(variants.contains("observeOn.throughput/user-serial"), "\(variants)")
            XCTAssertTrue(variants.contains("scheduler.recursion/user-serial"), "\(variants)")
            XCTAssertFalse(variants.contains { $0.hasSuffix("/never-runs") })
        }
    }

    func testAnIsolatedChildRunsOneBenchmarkAndKeepsTheParentsOptions() {
        var parent = RunOptions()
        parent.quick = true
        parent.isolate = true
        parent.filters = ["x"]
        XCTAssertEqual(
            IsolatedRun.childOptions(parent, benchmark: "periodic.drift", rowsFile: "/tmp/r", runID: "id").arguments(),
            ["run", "--quick", "--filter", "x", "--only-benchmark", "periodic.drift", "--rows-file", "/tmp/r", "--run-id", "id"])
    }
}

/// Not serial, not timed: actions on a serial queue, disposal ignored (the
/// benchmarks never dispose early).
final class ImmediateOnQueue: ImmediateScheduler, @unchecked Sendable {
    private let queue = DispatchQueue(label: "immediate-on-queue")

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let box = Box(state: state, action: action)
        queue.async { _ = box.action(box.state) }
        return Disposables.create()
    }

    private final class Box<StateType>: @unchecked Sendable {
        let state: StateType
        let action: (StateType) -> Disposable
        init(state: StateType, action: @escaping (StateType) -> Disposable) {
            self.state = state
            self.action = action
        }
    }
}

/// Broken: never runs what it is given.
final class NeverRuns: ImmediateScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        Disposables.create()
    }
}
