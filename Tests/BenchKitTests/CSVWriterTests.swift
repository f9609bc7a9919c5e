@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import ToolSupport
import XCTest

final class CSVWriterTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    let environment = RunEnvironment(
        runID: "20260101T000000Z-abc", timestamp: "2026-01-01T00:00:00Z", gitRevision: "abc", host: "box",
        cpu: "Some CPU, 2 GHz", cores: 2, swiftVersion: "6.3.1", allocator: "jemalloc")

    func testHeaderIsTheIssueColumnListInOrder() {
        XCTAssertEqual(
            CSVWriter.header,
            "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value")
    }

    func testRowCarriesRunColumnsAndQuotesFieldsWithCommas() {
        let row = CSVRow(
            benchmark: "periodic.drift", variant: "peer.nio", params: "period_ms=1;ticks=2000",
            metric: "lateness_p50_us", unit: "us", repetition: 3, value: 12.5)
        XCTAssertEqual(
            CSVWriter(environment: environment).line(row),
            "20260101T000000Z-abc,2026-01-01T00:00:00Z,abc,box,\"Some CPU, 2 GHz\",2,6.3.1,jemalloc,"
                + "periodic.drift,peer.nio,period_ms=1;ticks=2000,lateness_p50_us,us,3,12.5")
    }

    func testMissingValueIsAnEmptyField() {
        let row = CSVRow(
            benchmark: "b", variant: "v", params: "", metric: "allocs_per_element", unit: "allocations",
            repetition: 1, value: nil)
        XCTAssertTrue(CSVWriter(environment: environment).line(row).hasSuffix(",allocations,1,"))
    }

    func testDocumentParsesBackToTheSameFields() throws {
        let rows = [
            CSVRow(benchmark: "a", variant: "x,y", params: "k=v", metric: "m", unit: "ns", repetition: 1, value: 1),
            CSVRow(benchmark: "a", variant: "q\"r", params: "", metric: "m", unit: "ns", repetition: 2, value: nil),
        ]
        let records = try CSVReader.records(in: CSVWriter(environment: environment).document(rows)).map(\.fields)
        XCTAssertEqual(records.count, 3)
        XCTAssertEqual(records[0], CSVSchema.columns)
        XCTAssertEqual(records[1][9], "x,y")
        XCTAssertEqual(records[2][9], "q\"r")
        XCTAssertEqual(records[2][14], "")
        XCTAssertTrue(records.allSatisfy { $0.count == CSVSchema.columns.count })
    }

    func testParamsAreKeyValuePairsJoinedBySemicolons() {
        XCTAssertEqual(formatParams(["period_ms": "1", "ticks": "2000"]), "period_ms=1;ticks=2000")
    }

    func testRowAllocatorOverridesTheRunsAllocator() throws {
        let environment = RunEnvironment(
            runID: "r", timestamp: "t", gitRevision: "g", host: "h", cpu: "c", cores: 2, swiftVersion: "6",
            allocator: "system")
        let writer = CSVWriter(environment: environment)
        let counted = CSVRow(
            benchmark: "b", variant: "v", params: "", metric: "allocs_per_element", unit: "allocations",
            repetition: 1, value: 3, allocator: "jemalloc")
        var timed = counted
        timed.allocator = nil
        let column = CSVSchema.columns.firstIndex(of: "allocator") ?? 0
        XCTAssertEqual(try CSVReader.records(in: writer.line(counted)).first?.fields[column], "jemalloc")
        XCTAssertEqual(try CSVReader.records(in: writer.line(timed)).first?.fields[column], "system")
    }
}
