@testable import BenchAnalysis
import BenchKit
import Foundation
import XCTest

/// What compare says of the committed evaluation runs (three quick runs of
/// the binary the committed resolution table was calibrated on, made right
/// after the calibration runs), with that table: every pair of them passes,
/// in either order, and a fast path made 20 % slower in every repetition of
/// one of them (`scripts/derived-slowdown.sh` does the same from the command
/// line) is a regression (`worse`, exit 1), whichever run is the base.
final class CommittedRunsVerdictTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    private static let evaluationRuns = CompareSelfCheck.evaluationRuns

    private func load(_ name: String) throws -> ResultFile {
        try ResultFile.load(path: Self.root.appendingPathComponent("results/\(name).csv").path)
    }

    private func options() throws -> CompareOptions {
        try CompareSelfCheck.committedOptions(root: Self.root)
    }

    func testTwoRunsOfOneBinaryPass() throws {
        let runs = Self.evaluationRuns
        for base in runs {
            for new in runs where new != base {
            let report = try ComparisonReport(base: load(base), new: load(new), options: options())
                XCTAssertEqual(report.exitStatus, .noRegression, "\(base) against \(new)")
            }
        }
    }

    private static func isFastPathThroughput(_ key: ResultSeriesKey) -> Bool {
        CompareSelfCheck.isSystemFastPathThroughput(key)
    }

    private func slowed(_ run: ResultFile, by factor: Double) -> ResultFile {
        CompareSelfCheck.slowed(run, by: factor)
    }

    func testATwentyPercentSlowerFastPathIsWorseInEveryOrderedPair() throws {
        let runs = Self.evaluationRuns
        var pairs: [(String, String)] = []
        for base in runs {
            for new in runs where new != base { pairs.append((base, new)) }
        }
        XCTAssertEqual(pairs.count, 6)
        for (base, new) in pairs {
            let report = try ComparisonReport(base: load(base), new: slowed(load(new), by: 1.2), options: options())
            XCTAssertEqual(report.exitStatus, .regression, "\(base) against \(new) x1.2")
            let fastPath = report.comparisons.filter {
                Self.isFastPathThroughput($0.key) && !$0.rule.isExact && $0.rule.preference != .informational
            }
            XCTAssertEqual(fastPath.count, 2, "ns_per_element and elements_per_s")
            for comparison in fastPath {
                XCTAssertTrue(
                    comparison.verdict == .worse,
                    "\(base) against \(new) x1.2: \(comparison.key.metric) \(comparison.verdict)")
            }
            XCTAssertTrue(report.regressions.allSatisfy { Self.isFastPathThroughput($0.key) }, "nothing else is worse")
        }
    }
}
