import BenchAnalysis
import Foundation
import XCTest

/// docs/BenchRunner.md, "Reading results from code": the example's calls,
/// through the public API only, on a small result file.
final class ReadingResultsExampleTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("reading-results-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    func testTheDocumentedCallsReadAFileIntoSeries() throws {
        let path = folder.appendingPathComponent("A.csv").path
        var text = "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,"
            + "repetition,value\n"
        for repetition in 0..<3 {
            for (variant, value) in [("fast-path", 65.0 + Double(repetition)), ("peer.nio", 1.8)] {
                text += "r1,20261206T000000Z,abc123,host1,cpu1,2,6.3,system,observeOn.throughput,\(variant),,"
                    + "elements_per_s,elements/s,\(repetition),\(value)\n"
            }
        }
        text += "r1,20261206T000000Z,abc123,host1,cpu1,2,6.3,system,periodic.drift,serial,period_ms=1;ticks=2000,"
            + "lateness_p50_us,us,0,12\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").first.map(String.init), CSVSchema.columns.joined(separator: ","))

        let file = try ResultFile.load(path: path)
        XCTAssertEqual(file.revisions, ["abc123"])
        XCTAssertEqual(file.facts.host, "host1")
        let throughput = file.series.filter { $0.key.benchmark == "observeOn.throughput" }
        XCTAssertEqual(throughput.map(\.key.variant), ["fast-path", "peer.nio"])
        XCTAssertEqual(throughput.first?.values, [65, 66, 67])
        XCTAssertEqual(throughput.first?.unit, "elements/s")
        let drift = try XCTUnwrap(file.series.first { $0.key.benchmark == "periodic.drift" })
        XCTAssertEqual(drift.key.params.split(separator: CSVSchema.paramsSeparator), ["period_ms=1", "ticks=2000"])
        XCTAssertEqual(drift.key, ResultSeriesKey(
            benchmark: "periodic.drift", variant: "serial", params: "period_ms=1;ticks=2000", metric: "lateness_p50_us",
            allocator: "system"))
    }

    func testAMissingFileIsAnErrorNamingIt() {
        let path = folder.appendingPathComponent("missing.csv").path
        XCTAssertThrowsError(try ResultFile.load(path: path)) { error in
            XCTAssertEqual((error as? CompareInputError)?.file, path)
        }
    }
}
