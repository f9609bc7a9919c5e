@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import ToolSupport
import XCTest

final class QuickSuiteTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// A `--quick`-like run at tiny sizes, in process: the CSV it produces has
    /// every benchmark, every available variant, every metric, every repetition.
    func testQuickRunProducesACSVWithEveryBenchmarkPresent() throws {
        try SlowTests.require("runs every benchmark of the suite")
        let probe = BenchRunnerBinary.path.map { PlainRecursionProbe(executable: $0, arguments: ["probe-recursion"]) }
        let configuration = SuiteConfiguration.tiny(recursionProbe: probe)
        let runner = SuiteRunner(configuration: configuration, counter: AllocationCounter())
        let rows = try MainQueueDriver.runWhileDrainingMainQueue {
            try runner.run(progress: ProgressReporter(style: .silent))
        }
        let environment = RunEnvironment(
            runID: "test", timestamp: "t", gitRevision: "g", host: "h", cpu: "c", cores: 2, swiftVersion: "6",
            allocator: "system")
        let directory = NSTemporaryDirectory() + "bench-quick-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try ResultsFolder(directory: directory).write(CSVWriter(environment: environment).document(rows), environment: environment)
        let records = try CSVReader.records(in: try String(contentsOfFile: path, encoding: .utf8)).map(\.fields)
        XCTAssertEqual(records.first, CSVSchema.columns)
        let data = records.dropFirst()
        XCTAssertEqual(Set(data.map { $0[8] }), Set(CSVSchema.benchmarks.map(\.name)))

        let plans = try runner.selectedPlans().filter { $0.unavailableReason == nil }
        for plan in plans {
            let schema = try XCTUnwrap(CSVSchema.benchmark(named: plan.benchmark))
            // Instruction counts come from the callgrind child of `BenchRunner run`
            // (InstructionPass), not from the suite runner: see InstructionPassTests.
            for metric in schema.metrics where !metric.isWrittenByInstructionPass {
                let matching = data.filter { $0[8] == plan.benchmark && $0[9] == plan.variant && $0[11] == metric.name }
                XCTAssertFalse(matching.isEmpty, "\(plan.identifier) \(metric.name) missing")
                XCTAssertEqual(
                    Set(matching.map { $0[13] }), Set((1...configuration.repetitions).map(String.init)),
                    "\(plan.identifier) \(metric.name)")
                XCTAssertTrue(matching.allSatisfy { $0[12] == metric.unit })
            }
        }
        // Timing values are always present; only allocation counts and unknowable skips may be empty.
        let timing = data.filter { $0[11] == "elements_per_s" || $0[11] == "latency_p50_ns" || $0[11] == "lateness_p50_us" }
        XCTAssertFalse(timing.isEmpty)
        XCTAssertTrue(
            timing.allSatisfy { Double($0[14]) != nil },
            "\(timing.filter { Double($0[14]) == nil }.map { "\($0[8])/\($0[9]) \($0[10]) \($0[11])" })")
        for (variant, expected) in [
            ("current-thread", TrampolineBenchmark.Configuration(configuration.size).depth),
            ("current-thread.recursive", TrampolineBenchmark.Configuration(configuration.size).recursiveDepth),
        ] {
            let depth = data.filter { $0[9] == variant && $0[11] == "depth" }.compactMap { Double($0[14]) }
            XCTAssertEqual(depth, Array(repeating: Double(expected), count: configuration.repetitions), variant)
        }
        if probe != nil {
            let limits = data.filter { $0[11] == "plain_recursion_limit" }.compactMap { Double($0[14]) }
            XCTAssertTrue(limits.allSatisfy { $0 > 1000 }, "\(limits)")
        }
    }

    func testVariantsAreInterleavedWithinEachRepetition() throws {
        let configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        let runner = SuiteRunner(
            configuration: configuration, filter: BenchmarkFilter(["observeOn.throughput/peer."]), counter: .disabled)
        let rows = try runner.run(progress: ProgressReporter(style: .silent))
            .filter { $0.metric == "elements_per_s" }
        let order = rows.map { "\($0.repetition) \($0.variant)" }
        let variants = rows.filter { $0.repetition == 1 }.map(\.variant)
        // peer.dispatch-async, peer.opencombine, peer.asyncstream, peer.actor, peer.dispatch-executor, peer.nio,
        // peer.task
        XCTAssertEqual(variants.count, 7)
        XCTAssertEqual(order, (1...configuration.repetitions).flatMap { repetition in variants.map { "\(repetition) \($0)" } })
    }

    func testSummaryShowsRatiosAgainstTheFastPath() {
        let rows = [
            CSVRow(benchmark: "observeOn.throughput", variant: "fast-path", params: "", metric: "elements_per_s", unit: "", repetition: 1, value: 300),
            CSVRow(benchmark: "observeOn.throughput", variant: "generic", params: "", metric: "elements_per_s", unit: "", repetition: 1, value: 100),
        ]
        let text = SummaryTable.render(rows)
        XCTAssertTrue(text.contains("fast-path / generic"), text)
        XCTAssertTrue(text.contains("3.00x"), text)
    }
}
