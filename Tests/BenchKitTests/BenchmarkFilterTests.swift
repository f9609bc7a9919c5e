@testable import BenchKit
import XCTest

final class BenchmarkFilterTests: XCTestCase {
    let plans = BenchmarkCatalog.all.flatMap { $0.plans(for: .tiny(recursionProbe: nil)) }

    func testEmptyFilterKeepsEverything() throws {
        XCTAssertEqual(try BenchmarkFilter([]).select(plans).count, plans.count)
    }

    func testBenchmarkNameKeepsOnlyThatBenchmark() throws {
        let selected = try BenchmarkFilter(["observeOn.latency"]).select(plans)
        XCTAssertFalse(selected.isEmpty)
        XCTAssertTrue(selected.allSatisfy { $0.benchmark == "observeOn.latency" })
    }

    func testVariantPartKeepsThatVariantInEveryBenchmark() throws {
        let selected = try BenchmarkFilter(["peer.nio"]).select(plans)
        // The scale sweeps have SwiftNIO peers too (`peer.nio`, `peer.nio-embedded`).
        XCTAssertEqual(
            Set(selected.map(\.benchmark)),
            [
                "observeOn.throughput", "observeOn.latency", "periodic.drift", "scale.timers", "scale.virtualTime",
                "observeOn.busyQueue",
            ])
    }

    func testUnknownFilterIsAnErrorNamingIt() {
        XCTAssertThrowsError(try BenchmarkFilter(["observeOn.nosuch"]).select(plans)) { error in
            XCTAssertTrue("\(error)".contains("'observeOn.nosuch'"), "\(error)")
            XCTAssertTrue("\(error)".contains("observeOn.throughput/fast-path"), "\(error)")
        }
    }
}
