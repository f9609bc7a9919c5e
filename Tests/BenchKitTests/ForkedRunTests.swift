@testable import BenchAnalysis
@testable import BenchKit
import XCTest

/// Sampling across processes: how `--forks` splits the repetitions, what
/// each fork is told, and how their rows become one run.
final class ForkedRunTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testRepetitionsAreSplitAsEvenlyAsPossibleAndNeverIntoEmptyForks() {
        XCTAssertEqual(ForkedRun.repetitions(total: 7, forks: 3), [3, 2, 2])
        XCTAssertEqual(ForkedRun.repetitions(total: 6, forks: 3), [2, 2, 2])
        XCTAssertEqual(ForkedRun.repetitions(total: 5, forks: 1), [5])
        XCTAssertEqual(ForkedRun.repetitions(total: 2, forks: 5), [1, 1], "no fork without a repetition")
        XCTAssertEqual(ForkedRun.repetitions(total: 7, forks: 3).reduce(0, +), 7)
    }

    func testAForkIsToldItsShareAndTheParentKeepsItsOwnOptionsToItself() {
        var parent = RunOptions()
        parent.quick = true
        parent.forks = 3
        parent.repetitions = 7
        parent.filters = ["observeOn.throughput"]
        parent.output = "out"
        let fork = ForkedRun.childOptions(parent, repetitions: 3, rowsFile: "/tmp/rows.csv", runID: "run-1")
        XCTAssertEqual(
            fork.arguments(),
            ["run", "--quick", "--filter", "observeOn.throughput", "--repetitions", "3", "--output", "out", "--allocator",
             "system", "--rows-file", "/tmp/rows.csv", "--run-id", "run-1"])
        XCTAssertEqual(fork.forks, 1, "a fork is one process (1 is the default, so not written)")
    }

    func testABenchmarkTimedInProcessesOfItsOwnNamesItselfAndTimesOnly() {
        var parent = RunOptions()
        parent.quick = true
        parent.onlyBenchmark = "other"
        parent.output = "out"
        let process = ForkedRun.benchmarkProcessOptions(
            parent, benchmark: "observeOn.throughput", repetitions: 3, rowsFile: "/tmp/rows.csv", runID: "run-1")
        let arguments = process.arguments()
        XCTAssertEqual(arguments.filter { $0 == "--only-benchmark" }.count, 1, "the parent's own is not passed on")
        XCTAssertEqual(process.onlyBenchmark, "observeOn.throughput")
        XCTAssertTrue(process.timingOnly)
        XCTAssertEqual(
            arguments,
            ["run", "--quick", "--repetitions", "3", "--output", "out", "--allocator", "system", "--only-benchmark",
             "observeOn.throughput", "--timing-only", "--rows-file", "/tmp/rows.csv", "--run-id", "run-1"])
    }

    func testTheSerialHopIsTimedInFiveProcessesOfSixRepetitionsAndEveryOtherBenchmarkInTheRunsOwn() {
        let throughput = BenchmarkCatalog.all.first { $0.schema.name == "observeOn.throughput" }
        XCTAssertEqual(throughput?.processes(in: .quick), 5)
        XCTAssertEqual(throughput?.processes(in: .standard), 5)
        XCTAssertEqual(throughput?.processes(in: .tiny), 1, "tests run the tiny suite in one process")
        XCTAssertEqual(throughput.map { ForkedRun.repetitions(total: $0.repetitions(in: .quick), forks: 5) }, [6, 6, 6, 6, 6])
        for benchmark in BenchmarkCatalog.all where benchmark.schema.name != "observeOn.throughput" {
            XCTAssertEqual(benchmark.processes(in: .quick), 1, benchmark.schema.name)
        }
    }

    private func row(_ variant: String, _ metric: String, _ repetition: Int, _ value: Double?) -> CSVRow {
        CSVRow(
            benchmark: "observeOn.throughput", variant: variant, params: "elements=100000", metric: metric,
            unit: "elements/s", repetition: repetition, value: value, allocator: "system")
    }

    func testTheForksRowsAreNumberedOnAndTheirEmptyCountsDropped() {
        let first = [
            row("fast-path", "elements_per_s", 1, 10), row("fast-path", "elements_per_s", 2, 11),
            row("fast-path", "allocs_per_element", 1, nil),
        ]
        let second = [row("fast-path", "elements_per_s", 1, 20), row("fast-path", "allocs_per_element", 1, nil)]
        let merged = ForkedRun.merge([first, second])
        XCTAssertEqual(merged.map(\.repetition), [1, 2, 3])
        XCTAssertEqual(merged.map(\.value), [10, 11, 20])
        XCTAssertTrue(merged.allSatisfy { $0.metric == "elements_per_s" })
        // Without a counting pass the first fork's empty counts stay, as one process writes them.
        let kept = ForkedRun.merge([first, second], keepingCountsOf: 0)
        XCTAssertEqual(kept.filter { $0.metric == "allocs_per_element" }.count, 1)
        XCTAssertEqual(kept.count, 4)
    }
}
