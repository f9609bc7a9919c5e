import BenchKit
import Foundation
import XCTest

/// What compare says of the committed evaluation runs (three quick runs of
/// the binary the committed resolution table was calibrated on, made right
/// after the calibration runs), with that table: every pair of them passes.
final class CommittedRunsVerdictTests: XCTestCase {
    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The evaluation runs (docs/Compare.md, "The resolution").
    static let evaluationRuns = [
        "20261126T094443Z-787b90b3c765",
        "20261126T094653Z-787b90b3c765",
        "20261126T094902Z-787b90b3c765",
    ]

    private func load(_ name: String) throws -> ResultFile {
        try ResultFile.load(path: Self.root.appendingPathComponent("results/\(name).csv").path)
    }

    private func options() throws -> CompareOptions {
        CompareOptions(
            resolution: try ResolutionTable.load(path: Self.root.appendingPathComponent(ResolutionTable.defaultPath).path))
    }

    func testTwoRunsOfOneBinaryPass() throws {
        let runs = Self.evaluationRuns
        for (base, new) in [(runs[0], runs[1]), (runs[0], runs[2]), (runs[1], runs[2])] {
            let report = try ComparisonReport(base: load(base), new: load(new), options: options())
            XCTAssertEqual(report.exitStatus, .noRegression, "\(base) against \(new)")
        }
    }
}
