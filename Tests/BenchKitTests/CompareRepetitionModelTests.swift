@testable import BenchAnalysis
import BenchKit
import Foundation
import ToolSupport
import XCTest

/// The committed resolution table is what `BenchRunner calibrate` makes of
/// the committed calibration runs. The A/A simulation of the repetition
/// model compare judges by, with those runs' spreads, is
/// `BenchRunner self-check` (``CompareSelfCheck``), run by CI in release
/// and by `CompareSelfCheckTests` at a small size.
final class CompareRepetitionModelTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    private static func loadCalibrationRuns() throws -> [ResultFile] {
        try CompareSelfCheck.resolutionRuns.map { name in
            try ResultFile.load(path: root.appendingPathComponent("results/\(name).csv").path)
        }
    }

    func testTheCommittedResolutionTableIsWhatCalibrateMakesOfTheCommittedRuns() throws {
        let runs = try Self.loadCalibrationRuns()
        let path = Self.root.appendingPathComponent(ResolutionTable.defaultPath).path
        let committed = try ResolutionTable.load(path: path)
        let recomputed = try ResolutionTable.calibrate(runs: runs, path: path)
        XCTAssertEqual(
            committed, recomputed,
            "results/resolution.csv is stale: BenchRunner calibrate " + CompareSelfCheck.resolutionRuns.map { "results/\($0).csv" }
                .joined(separator: " "))
    }
}
