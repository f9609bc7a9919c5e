@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import XCTest

/// compare passes its own runs: every gated series of a run can be judged
/// from the run (a series measured once is not gated), so a run compared
/// with an identical copy of itself exits 0.
final class CompareOwnRunsTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// The package's `results/` folder.
    private static var resultsFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results")
    }

    private func compareWithItself(_ name: String) throws -> CompareOutcome {
        let path = Self.resultsFolder.appendingPathComponent(name).path
        let fixture = try CompareFixture()
        let copy = try fixture.write(try String(contentsOfFile: path, encoding: .utf8), to: "copy.csv")
        return CompareTool.run(basePath: path, newPath: copy, options: CompareOptions())
    }

    /// A quick run of `observeOn.busyQueue` with its flood series: thirty
    /// floods of each kind in one repetition, one value a run. They used to
    /// be gated and could never be judged ("too few repetitions"), so the
    /// run compared with itself exited 3. They are shown, not judged; every
    /// series measured in every repetition is judged, and the run passes.
    func testARunWithTheBusyQueueFloodSeriesPassesAgainstItself() throws {
        let outcome = try compareWithItself("20261128T083517Z-2f6241ff21fb.csv")
        let report = try XCTUnwrap(outcome.report, outcome.diagnostics)
        let floods = report.comparisons.filter { $0.key.params.contains("floods=") }
        XCTAssertFalse(floods.isEmpty)
        for comparison in floods {
            XCTAssertEqual(comparison.verdict, .shownOnly, "\(comparison.key)")
            XCTAssertEqual(comparison.baseValues?.count, 1, "\(comparison.key): one value a run")
        }
        XCTAssertTrue(report.unjudged.filter(\.isGated).isEmpty, outcome.output)
        XCTAssertGreaterThan(report.comparisons.filter { $0.isGated && $0.verdict.isJudged }.count, 0)
        XCTAssertEqual(outcome.status, .noRegression, outcome.output)
        XCTAssertTrue(outcome.output.contains("No regression: exit status 0."), outcome.output)
    }

    /// The rule behind it, over the whole catalogue: every benchmark takes
    /// at least the repetitions compare needs to judge a series, and the
    /// only plans timed in fewer are the busy-queue flood series, whose
    /// metrics compare shows without judging.
    func testEveryGatedTimingSeriesIsRepeated() throws {
        let floodMetrics = ["quiet_cpu_ns_per_element", "busy_queue_cpu_ns_per_element", "busy_queue_cpu_ratio"]
        for configuration in [SuiteConfiguration.quick(recursionProbe: nil), .standard(recursionProbe: nil)] {
            var onceTimed = 0
            // (The scale sweeps run in the default suite only.)
            for benchmark in BenchmarkCatalog.all where !benchmark.plans(for: configuration).isEmpty {
                let repetitions = configuration.repetitions(of: benchmark)
                XCTAssertGreaterThanOrEqual(
                    repetitions, RepetitionTarget.fewestJudged(), "\(benchmark.schema.name) in \(configuration.name)")
                for plan in benchmark.plans(for: configuration)
                where plan.timedRepetitions(of: repetitions) < RepetitionTarget.fewestJudged() {
                    onceTimed += 1
                    XCTAssertEqual(plan.benchmark, ObserveOnBusyQueueBenchmark.name, plan.identifier)
                    XCTAssertTrue(plan.params.contains("floods="), "\(plan.identifier) [\(plan.params)]")
                }
            }
            XCTAssertGreaterThan(onceTimed, 0, "the flood series, in \(configuration.name)")
        }
        for metric in floodMetrics {
            XCTAssertFalse(RepetitionTarget.isJudgedTime(metric: metric, benchmark: "observeOn.busyQueue", variant: "fast-path"))
        }
    }
}
