@testable import BenchKit
import Foundation
import XCTest

/// The progress line plans each adaptive benchmark at the rounds it took in
/// the newest earlier run that chose them the same way.
final class PriorRoundsTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private func folder(_ files: [String: [String]]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prior-rounds-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        for (name, rows) in files {
            let text = (["benchmark,variant,params,metric,unit,repetition,value"] + rows).joined(separator: "\n") + "\n"
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        return directory
    }

    /// `count` repetitions of a timed series of `benchmark`, its budget row
    /// when `adaptive`, and three counting repetitions.
    private func rows(_ benchmark: String, metric: String, count: Int, adaptive: Bool) -> [String] {
        var rows = (1...count).map { "\(benchmark),fast-path,n=1,\(metric),ns,\($0),\(100 + $0)" }
        rows += (1...3).map { "\(benchmark),fast-path,n=1,allocs_per_element,allocations,\($0),1" }
        if adaptive { rows.append("\(benchmark),fast-path,n=1,budget_reached,flag,1,0") }
        return rows
    }

    func testTheNewestAdaptiveRunOfEachBenchmarkGivesItsRounds() throws {
        let directory = try folder([
            "20261201T000000Z-aaaaaaaaaaaa.csv": rows("scale.fanIn", metric: "ns_per_element", count: 19, adaptive: true)
                + rows("observeOn.subscription", metric: "ns_per_lifecycle", count: 9, adaptive: true),
            // Newer, but a fixed count (a quick run): no budget rows, not read.
            "20261202T000000Z-bbbbbbbbbbbb.csv": rows("scale.fanIn", metric: "ns_per_element", count: 7, adaptive: false),
            // Newest: the subscription benchmark only.
            "20261203T000000Z-cccccccccccc.csv": rows(
                "observeOn.subscription", metric: "ns_per_lifecycle", count: 4, adaptive: true),
            "resolution.csv": ["not,a,run"],
        ])
        let rounds = PriorRounds.newest(in: directory, benchmarks: ["scale.fanIn", "observeOn.subscription", "elementPath"])
        XCTAssertEqual(rounds, ["scale.fanIn": 19, "observeOn.subscription": 4])
        XCTAssertEqual(PriorRounds.newest(in: directory + "/missing", benchmarks: ["scale.fanIn"]), [:])
    }

    func testARunnerPlansAnAdaptiveBenchmarkAtItsPriorRoundsWithinItsFewestAndMost() {
        let configuration = SuiteConfiguration.standard(recursionProbe: nil)
        func planned(_ prior: [String: Int], _ name: String) -> Int {
            SuiteRunner(configuration: configuration, counter: .disabled, priorRounds: prior).plannedRounds(of: name)
        }
        XCTAssertEqual(planned([:], "scale.fanIn"), 3, "no prior run: the fewest")
        XCTAssertEqual(planned(["scale.fanIn": 19], "scale.fanIn"), 19)
        XCTAssertEqual(planned(["scale.fanIn": 1], "scale.fanIn"), 3, "never below the fewest")
        XCTAssertEqual(planned(["scale.fanIn": 99], "scale.fanIn"), 30, "never above the most")
        // periodic.drift takes exactly its three rounds whatever a prior run says.
        XCTAssertEqual(planned(["periodic.drift": 9], "periodic.drift"), 3)
    }
}
