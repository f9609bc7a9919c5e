@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import XCTest

final class AllocationChildTests: XCTestCase {
    func testTheChildGetsTheParentsOptionsWithItsAllocatorItsPassAndOneProcess() {
        var parent = RunOptions()
        parent.quick = true
        parent.filters = ["x"]
        parent.allocator = .both
        parent.forks = 3
        parent.output = "out"
        let counting = AllocationChild.childOptions(parent, kind: .counts, rowsFile: "/tmp/r", runID: "id")
        XCTAssertEqual(
            counting.arguments(),
            ["run", "--quick", "--filter", "x", "--output", "out", "--allocator", "jemalloc", "--counts-only",
             "--rows-file", "/tmp/r", "--run-id", "id"])
        var counts = parent
        counts.allocator = .jemalloc
        counts.forks = 1
        counts.countsOnly = true
        counts.rowsFile = "/tmp/r"
        counts.runID = "id"
        XCTAssertEqual(counting, counts, "only the allocator, the pass, the processes, the rows file and the run id change")
        let everything = AllocationChild.childOptions(counting, kind: .everything, rowsFile: "/tmp/r", runID: "id")
        XCTAssertFalse(everything.countsOnly, "a child that times and counts is not the counting child")
        XCTAssertEqual(everything.allocator, .jemalloc)
    }

    func testRowsOfTheChildCSVKeepTheirAllocator() throws {
        let environment = RunEnvironment(
            runID: "r", timestamp: "t", gitRevision: "g", host: "h", cpu: "c, d", cores: 2, swiftVersion: "6",
            allocator: "jemalloc")
        let rows = [
            CSVRow(benchmark: "b", variant: "v,w", params: "k=1", metric: "allocs_per_element", unit: "allocations",
                   repetition: 2, value: 0.002),
            CSVRow(benchmark: "b", variant: "v", params: "", metric: "m", unit: "ns", repetition: 1, value: nil),
        ]
        let read = try AllocationChild.rows(fromCSV: CSVWriter(environment: environment).document(rows))
        var expected = rows
        expected[0].allocator = "jemalloc"
        expected[1].allocator = "jemalloc"
        XCTAssertEqual(read, expected)
    }

    func testABrokenChildCSVIsAnErrorNotFewerRows() {
        XCTAssertThrowsError(try AllocationChild.rows(fromCSV: "benchmark,value\nb,1\n"))
        XCTAssertThrowsError(try AllocationChild.rows(fromCSV: CSVWriter.header + "\na,b\n"))
        XCTAssertEqual(try AllocationChild.rows(fromCSV: ""), [])
    }

    func testChildProcessReportsStatusSignalAndOutput() throws {
        let echo = try ChildProcess.run("/bin/sh", arguments: ["-c", "echo hi; exit 3"], standardOutput: .capture)
        XCTAssertEqual(String(decoding: echo.output, as: UTF8.self), "hi\n")
        XCTAssertEqual(echo.status, 3)
        XCTAssertFalse(echo.endedBySignal)
        let killed = try ChildProcess.run("/bin/sh", arguments: ["-c", "kill -KILL $$"], standardOutput: .discard)
        XCTAssertTrue(killed.endedBySignal)
        XCTAssertEqual(killed.status, SIGKILL)
        XCTAssertThrowsError(try ChildProcess.run("/nonexistent/program", arguments: []))
    }
}
