@testable import BenchAnalysis
import BenchKit
import Foundation
import ToolSupport
import XCTest

/// `BenchRunner export`: each format checked against its published
/// definition (Bencher's BMF JSON schema; github-action-benchmark's custom
/// tool entries; the JMH element package-benchmark encodes), on a committed
/// run, with each metric's direction, unit and repetitions carried over.
final class ExportTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// README's headline run: a default run with system, jemalloc and callgrind rows.
    static let committedRun = "results/20261125T222703Z-982e4b49cd2c.csv"

    private func committed() throws -> ResultFile {
        try ResultFile.load(path: Repository.root.appendingPathComponent(Self.committedRun).path)
    }

    private func json(_ format: ExportFormat, _ file: ResultFile) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(format.json(ExportSelection(file)).utf8))
    }

    // MARK: Bencher Metric Format

    /// Bencher's published JSON schema of BMF (https://bencher.dev/bmf.json),
    /// written out from its reference page.
    static var bencherSchema: [String: Any] { [
        "type": "object",
        "patternProperties": [
            ".+": [
                "type": "object",
                "patternProperties": [
                    ".+": [
                        "type": "object",
                        "properties": [
                            "value": ["type": "number"],
                            "lower_value": ["type": "number"],
                            "upper_value": ["type": "number"],
                        ],
                        "required": ["value"],
                    ] as [String: Any]
                ],
            ] as [String: Any]
        ],
    ] }

    func testBencherExportOfACommittedRunMeetsTheBMFSchema() throws {
        let file = try committed()
        let document = try json(.bencher, file)
        XCTAssertEqual(SchemaCheck.problems(document, Self.bencherSchema), [])
        let benchmarks = try XCTUnwrap(document as? [String: [String: [String: Double]]])
        let fastPath = try XCTUnwrap(benchmarks["observeOn.throughput/fast-path elements=500000"])
        let rates = try XCTUnwrap(
            file.series.first {
                $0.key.benchmark == "observeOn.throughput" && $0.key.variant == "fast-path"
                    && $0.key.metric == "elements_per_s"
            }?.values)
        XCTAssertEqual(fastPath["elements_per_s"]?["value"], Statistics.median(rates))
        XCTAssertEqual(fastPath["elements_per_s"]?["lower_value"], rates.min())
        XCTAssertEqual(fastPath["elements_per_s"]?["upper_value"], rates.max())
        // Allocation counts (jemalloc rows) sit beside the times (system rows) of the same benchmark.
        XCTAssertNotNil(fastPath["allocs_per_element"])
        // Informational metrics carry no direction: left out.
        XCTAssertFalse(benchmarks.values.contains { $0["plain_recursion_limit"] != nil })
    }

    func testTheSchemaCheckRejectsWhatBMFForbids() {
        XCTAssertFalse(SchemaCheck.problems(["b": ["m": ["lower_value": 1.0]]], Self.bencherSchema).isEmpty)
        XCTAssertFalse(SchemaCheck.problems(["b": ["m": ["value": "fast"]]], Self.bencherSchema).isEmpty)
        XCTAssertFalse(SchemaCheck.problems(["b": [1.0]], Self.bencherSchema).isEmpty)
    }

    // MARK: github-action-benchmark

    /// An entry of github-action-benchmark's custom tools, from its README:
    /// `name`, `unit` and `value` required, `range` and `extra` optional strings.
    static var customToolSchema: [String: Any] { [
        "type": "array",
        "items": [
            "type": "object",
            "properties": [
                "name": ["type": "string"], "unit": ["type": "string"], "value": ["type": "number"],
                "range": ["type": "string"], "extra": ["type": "string"],
            ],
            "required": ["name", "unit", "value"],
            "additionalProperties": false,
        ] as [String: Any],
    ] }

    func testCustomToolExportsSplitACommittedRunByDirection() throws {
        let file = try committed()
        let smaller = try json(.customSmallerIsBetter, file)
        let bigger = try json(.customBiggerIsBetter, file)
        XCTAssertEqual(SchemaCheck.problems(smaller, Self.customToolSchema), [])
        XCTAssertEqual(SchemaCheck.problems(bigger, Self.customToolSchema), [])
        let smallerEntries = try XCTUnwrap(smaller as? [[String: Any]])
        let biggerEntries = try XCTUnwrap(bigger as? [[String: Any]])
        let selection = ExportSelection(file)
        XCTAssertEqual(smallerEntries.count + biggerEntries.count, selection.series.count)
        XCTAssertFalse(smallerEntries.isEmpty)
        XCTAssertFalse(biggerEntries.isEmpty)
        for entry in smallerEntries {
            let name = try XCTUnwrap(entry["name"] as? String)
            let metric = try XCTUnwrap(name.split(separator: " ").last.map(String.init))
            XCTAssertEqual(CSVSchema.metric(named: metric)?.direction, .lowerIsBetter, name)
        }
        for entry in biggerEntries {
            let name = try XCTUnwrap(entry["name"] as? String)
            let metric = try XCTUnwrap(name.split(separator: " ").last.map(String.init))
            XCTAssertEqual(CSVSchema.metric(named: metric)?.direction, .higherIsBetter, name)
        }
        let rate = try XCTUnwrap(
            biggerEntries.first { $0["name"] as? String == "observeOn.throughput/fast-path elements=500000 elements_per_s" })
        XCTAssertEqual(rate["unit"] as? String, "elements/s")
        XCTAssertTrue((rate["range"] as? String)?.hasPrefix("± ") == true)
        let time = try XCTUnwrap(
            smallerEntries.first { $0["name"] as? String == "observeOn.throughput/fast-path elements=500000 ns_per_element" })
        XCTAssertEqual(time["unit"] as? String, "ns")
    }

    // MARK: JMH

    /// A primary or secondary metric of JMH's result element, as
    /// package-benchmark's exporter declares it (`JMHPrimaryMetric`).
    static var jmhMetricSchema: [String: Any] {
        [
            "type": "object",
            "properties": [
                "score": ["type": "number"], "scoreError": ["type": "number"],
                "scoreConfidence": ["type": "array", "items": ["type": "number"]],
                "scorePercentiles": ["type": "object", "patternProperties": [".+": ["type": "number"]]],
                "scoreUnit": ["type": "string"],
                "rawData": ["type": "array", "items": ["type": "array", "items": ["type": "number"]]],
            ] as [String: Any],
            "required": ["score", "scoreError", "scoreConfidence", "scorePercentiles", "scoreUnit", "rawData"],
            "additionalProperties": false,
        ]
    }

    /// JMH's result array as package-benchmark's exporter declares it
    /// (`JMHElement`), with JMH's own optional `params`.
    static var jmhSchema: [String: Any] {
        let integer: [String: Any] = ["type": "number"]
        let text: [String: Any] = ["type": "string"]
        return [
            "type": "array",
            "items": [
                "type": "object",
                "properties": [
                    "benchmark": text, "mode": text, "threads": integer, "forks": integer,
                    "warmupIterations": integer, "warmupTime": text, "warmupBatchSize": integer,
                    "measurementIterations": integer, "measurementTime": text, "measurementBatchSize": integer,
                    "params": ["type": "object", "patternProperties": [".+": text]],
                    "primaryMetric": jmhMetricSchema,
                    "secondaryMetrics": ["type": "object", "patternProperties": [".+": jmhMetricSchema]],
                ] as [String: Any],
                "required": [
                    "benchmark", "mode", "threads", "forks", "warmupIterations", "warmupTime", "warmupBatchSize",
                    "measurementIterations", "measurementTime", "measurementBatchSize", "primaryMetric",
                ],
                "additionalProperties": false,
            ] as [String: Any],
        ]
    }

    func testJMHExportOfACommittedRunMeetsPackageBenchmarksElement() throws {
        let file = try committed()
        let document = try json(.jmh, file)
        XCTAssertEqual(SchemaCheck.problems(document, Self.jmhSchema), [])
        let elements = try XCTUnwrap(document as? [[String: Any]])
        XCTAssertFalse(elements.isEmpty)
        for element in elements {
            let name = element["benchmark"] as? String ?? "?"
            XCTAssertTrue(["thrpt", "avgt"].contains(element["mode"] as? String), name)
            let primary = try XCTUnwrap(element["primaryMetric"] as? [String: Any], name)
            let score = try XCTUnwrap(primary["score"] as? Double, name)
            let confidence = try XCTUnwrap(primary["scoreConfidence"] as? [Double], name)
            XCTAssertEqual(confidence.count, 2, name)
            XCTAssertLessThanOrEqual(confidence[0], score, name)
            XCTAssertGreaterThanOrEqual(confidence[1], score, name)
            XCTAssertEqual((primary["rawData"] as? [[Double]])?.first?.count, element["measurementIterations"] as? Int, name)
            XCTAssertEqual((primary["scorePercentiles"] as? [String: Double])?["50.0"], score, name)
        }
        let throughput = try XCTUnwrap(
            elements.first {
                $0["benchmark"] as? String == "observeOn.throughput.fast-path"
                    && $0["params"] as? [String: String] == ["elements": "500000"]
            })
        XCTAssertEqual(throughput["mode"] as? String, "thrpt")
        XCTAssertEqual((throughput["primaryMetric"] as? [String: Any])?["scoreUnit"] as? String, "elements/s")
        let secondary = try XCTUnwrap(throughput["secondaryMetrics"] as? [String: [String: Any]])
        XCTAssertEqual(secondary["ns_per_element"]?["scoreUnit"] as? String, "ns")
        let trampoline = try XCTUnwrap(elements.first { $0["benchmark"] as? String == "trampoline.recursion.current-thread" })
        XCTAssertEqual(trampoline["mode"] as? String, "avgt")
    }

    func testTheSchemaCheckRejectsAJMHElementWithoutItsPrimaryMetric() {
        let element: [String: Any] = [
            "benchmark": "b", "mode": "avgt", "threads": 1, "forks": 1, "warmupIterations": 1, "warmupTime": "",
            "warmupBatchSize": 1, "measurementIterations": 1, "measurementTime": "", "measurementBatchSize": 1,
        ]
        XCTAssertEqual(SchemaCheck.problems([element], Self.jmhSchema), ["$[0]: lacks primaryMetric"])
    }

    // MARK: Selection

    private func parse(_ rows: [String]) throws -> ResultFile {
        let header = "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value"
        return try ResultFile.parse(text: ([header] + rows).joined(separator: "\n") + "\n", path: "test.csv")
    }

    private func row(_ allocator: String, _ metric: String, _ unit: String, _ repetition: Int, _ value: String) -> String {
        "r,2026-11-28T09:21:12Z,abc,vm,cpu,2,6.3,\(allocator),trampoline.recursion,current-thread,depth=1000,"
            + "\(metric),\(unit),\(repetition),\(value)"
    }

    func testAMetricUnderTwoAllocatorsIsNamedWithEachAndEmptyOrUndeclaredSeriesAreLeftOut() throws {
        let file = try parse([
            row("system", "ns_per_schedule", "ns", 1, "10"),
            row("system", "ns_per_schedule", "ns", 2, "14"),
            row("jemalloc", "ns_per_schedule", "ns", 1, "20"),
            row("system", "allocs_per_schedule", "allocations", 1, ""),
            row("system", "made_up_metric", "x", 1, "3"),
        ])
        let selection = ExportSelection(file)
        XCTAssertEqual(selection.series.map(\.measure), ["ns_per_schedule [system]", "ns_per_schedule [jemalloc]"])
        XCTAssertEqual(selection.leftOut, 2)
        XCTAssertEqual(selection.series[0].median, 12)
        XCTAssertEqual(selection.series[0].lowest, 10)
        XCTAssertEqual(selection.series[0].highest, 14)
        XCTAssertEqual(selection.series[0].subject, "trampoline.recursion/current-thread depth=1000")
    }

    func testUnusableInputIsExitStatusTwoWithTheFileNamed() throws {
        let missing = ExportTool.run(path: "/nonexistent/run.csv", format: .bencher, outputPath: nil)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.diagnostics.contains("/nonexistent/run.csv: no such file"), missing.diagnostics)
        XCTAssertEqual(missing.output, "")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let malformed = directory.appendingPathComponent("bad.csv")
        try "benchmark,variant\nx,y\n".write(to: malformed, atomically: true, encoding: .utf8)
        let outcome = ExportTool.run(path: malformed.path, format: .jmh, outputPath: nil)
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.diagnostics.contains("header lacks the columns"), outcome.diagnostics)

        let run = Repository.root.appendingPathComponent(Self.committedRun).path
        let unwritable = ExportTool.run(
            path: run, format: .bencher, outputPath: directory.appendingPathComponent("no/such/folder.json").path)
        XCTAssertEqual(unwritable.status, 2)
        XCTAssertTrue(unwritable.diagnostics.contains("cannot be written"), unwritable.diagnostics)

        let written = directory.appendingPathComponent("bencher.json")
        let success = ExportTool.run(path: run, format: .bencher, outputPath: written.path)
        XCTAssertEqual(success.status, 0)
        XCTAssertEqual(success.output, "")
        XCTAssertEqual(try String(contentsOf: written, encoding: .utf8), ExportFormat.bencher.json(ExportSelection(try committed())))
    }
}

/// Checks a decoded JSON value against the part of JSON Schema the
/// published definitions above use: `type`, `properties`,
/// `patternProperties` (`.+`: every non-empty key), `required`,
/// `additionalProperties: false` and `items`.
enum SchemaCheck {
    static func problems(_ value: Any, _ schema: [String: Any], at path: String = "$") -> [String] {
        var problems: [String] = []
        if let type = schema["type"] as? String, !matches(value, type) {
            return ["\(path): expected \(type)"]
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for required in schema["required"] as? [String] ?? [] where object[required] == nil {
                problems.append("\(path): lacks \(required)")
            }
            for (key, member) in object {
                if let property = properties[key] {
                    problems += Self.problems(member, property, at: "\(path).\(key)")
                } else if let pattern = (schema["patternProperties"] as? [String: [String: Any]])?[".+"], !key.isEmpty {
                    problems += Self.problems(member, pattern, at: "\(path).\(key)")
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path): unexpected \(key)")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() {
                problems += Self.problems(item, items, at: "\(path)[\(index)]")
            }
        }
        return problems
    }

    private static func matches(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "number": return !(value is String) && (value is Double || value is Int || value is NSNumber)
        default: return false
        }
    }
}
