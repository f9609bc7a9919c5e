@testable import BenchAnalysis
import ToolSupport
import BenchKit
import Foundation
import XCTest

/// One series to write into a fixture CSV.
struct FixtureSeries {
    var benchmark = "observeOn"
    var variant = "serial"
    var params = "elements=100000"
    var metric = "elements_per_s"
    var unit = "1/s"
    var allocator = "system"
    /// One row per value; nil writes an empty `value`.
    var values: [Double?]
}

/// Builds BenchRunner-style result CSVs in a temporary directory.
final class CompareFixture {
    static let standardColumns = [
        "run_id", "timestamp", "git_rev", "host", "cpu", "cores", "swift_version", "allocator",
        "benchmark", "variant", "params", "metric", "unit", "repetition", "value",
    ]

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("compare-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Writes the series as a long-form result CSV with `columns` in that order.
    @discardableResult
    func writeResults(
        _ series: [FixtureSeries], to name: String, columns: [String] = CompareFixture.standardColumns
    ) throws -> String {
        try write(Self.csv(series, columns: columns), to: name)
    }

    static func csv(_ series: [FixtureSeries], columns: [String] = standardColumns) -> String {
        var text = columns.joined(separator: ",") + "\n"
        for entry in series {
            for (repetition, value) in entry.values.enumerated() {
                let fields = columns.map { column -> String in
                    switch column {
                    case "run_id": "run-1"
                    case "timestamp": "2026-11-21T07:00:00Z"
                    case "git_rev": "abc1234"
                    case "host": "ci-host"
                    case "cpu": "Some CPU, 2 cores"
                    case "cores": "2"
                    case "swift_version": "6.3.1"
                    case "allocator": entry.allocator
                    case "benchmark": entry.benchmark
                    case "variant": entry.variant
                    case "params": entry.params
                    case "metric": entry.metric
                    case "unit": entry.unit
                    case "repetition": "\(repetition)"
                    case "value": value.map { "\($0)" } ?? ""
                    default: "extra"
                    }
                }
                text += fields.map(quoted).joined(separator: ",") + "\n"
            }
        }
        return text
    }

    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `count` values around `center`, each multiplied by a factor uniform in
    /// `1 ± spread`: run-to-run noise as seen on the shared 2-core machine (10–30 %).
    static func noisy(
        around center: Double, spread: Double, count: Int, using generator: inout SeededGenerator
    ) -> [Double?] {
        (0..<count).map { _ in center * (1 + Double.random(in: -spread...spread, using: &generator)) }
    }

    /// Compares `base` and `new` written as two files.
    func compare(
        base: [FixtureSeries], new: [FixtureSeries], options: CompareOptions = CompareOptions()
    ) throws -> CompareOutcome {
        let basePath = try writeResults(base, to: "base.csv")
        let newPath = try writeResults(new, to: "new.csv")
        return CompareTool.run(basePath: basePath, newPath: newPath, options: options)
    }
}

/// Checks of the fixture itself, so a broken generator cannot make other tests pass.
final class CompareFixtureTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testSeededGeneratorRepeatsItsSequence() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        XCTAssertEqual((0..<5).map { _ in first.next() }, (0..<5).map { _ in second.next() })
    }

    func testNoisyValuesStayWithinTheirSpread() {
        var generator = SeededGenerator(seed: 7)
        let values = CompareFixture.noisy(around: 100, spread: 0.3, count: 200, using: &generator).compactMap { $0 }
        XCTAssertEqual(values.count, 200)
        XCTAssertTrue(values.allSatisfy { $0 >= 70 && $0 <= 130 })
        XCTAssertLessThan(values.min() ?? 0, 80, "noise should reach well into its spread")
        XCTAssertGreaterThan(values.max() ?? 0, 120, "noise should reach well into its spread")
    }
}
