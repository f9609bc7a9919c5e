@testable import BenchAnalysis
import Foundation
import XCTest

/// The verdict table's rows on evidence chosen so the expected verdict
/// follows from docs/Compare.md by hand: no catalogue, no result file.
final class VerdictTableTests: XCTestCase {
    func testASeriesInOneFileOnlyIsAddedOrRemovedUnlessItIsShownOnly() {
        XCTAssertEqual(VerdictTable.verdict(for: SeriesEvidence(presence: .baseOnly, reading: .time)), .removed)
        XCTAssertEqual(VerdictTable.verdict(for: SeriesEvidence(presence: .newOnly, reading: .time)), .added)
        XCTAssertEqual(VerdictTable.verdict(for: SeriesEvidence(presence: .baseOnly, reading: .shownOnly)), .shownOnly)
        XCTAssertEqual(VerdictTable.verdict(for: SeriesEvidence(presence: .newOnly, reading: .shownOnly)), .shownOnly)
    }

    /// The evidence of a tested time, as ``SeriesComparison/evidence`` states it.
    private func tested(
        separatedWorse: Bool = false, separatedBetter: Bool = false, worse: Double, better: Double, within: Bool,
        harmful: Bool = false, beneficial: Bool = false, raised: Bool = false
    ) -> CompareVerdict {
        var evidence = SeriesEvidence(presence: .both, reading: .time)
        let worseMoved = !raised || harmful
        let betterMoved = !raised || beneficial
        evidence.confirmedWorse = worseMoved && worse <= 0.05
        evidence.confirmedBetter = betterMoved && better <= 0.05
        evidence.separatedWorse = worseMoved && separatedWorse
        evidence.separatedBetter = betterMoved && separatedBetter
        evidence.medianMovedHarmfully = harmful
        evidence.shownEqual = within
        return VerdictTable.verdict(for: evidence)
    }

    func testTestedVerdictInItsOrder() {
        XCTAssertEqual(tested(separatedWorse: true, worse: 0.01, better: 0.01, within: true), .worse)
        XCTAssertEqual(tested(worse: 0.5, better: 0.01, within: true), .better)
        // Separated and significant alone, not after the correction: not judged, not "same".
        XCTAssertEqual(tested(separatedWorse: true, worse: 0.2, better: 1, within: true), .possiblyWorse)
        // The same evidence the good way: likely better, not "not shown equal".
        XCTAssertEqual(tested(separatedBetter: true, worse: 1, better: 0.2, within: false), .possiblyBetter)
        XCTAssertEqual(tested(worse: 1, better: 0.2, within: false), .notShownEqual)
        XCTAssertEqual(tested(worse: 0.2, better: 0.7, within: true), .same)
        XCTAssertEqual(tested(worse: 0.2, better: 0.7, within: false), .notShownEqual)
        // A harmful move no test confirmed is not judged, never a pass.
        XCTAssertEqual(tested(worse: 0.2, better: 0.7, within: false, harmful: true), .movedWorse)
    }

    /// When a resolution raised the threshold, the tests (asked about the
    /// declared threshold) decide only for a median that also moved beyond
    /// the resolution in the tested direction; a significant test alone is a
    /// move two runs of one binary make by chance.
    func testARaisedThresholdAlsoAsksTheMedianToMoveBeyondTheResolution() {
        func verdict(worse: Double, better: Double, harmful: Bool, beneficial: Bool, raised: Bool) -> CompareVerdict {
            tested(
                separatedWorse: true, separatedBetter: true, worse: worse, better: better, within: false,
                harmful: harmful, beneficial: beneficial, raised: raised)
        }
        // Confirmed by the test and beyond the resolution: worse.
        XCTAssertEqual(verdict(worse: 0.001, better: 1, harmful: true, beneficial: false, raised: true), .worse)
        // Confirmed by the test, median within the resolution: not a change.
        XCTAssertEqual(verdict(worse: 0.001, better: 1, harmful: false, beneficial: false, raised: true), .notShownEqual)
        // Unconfirmed but separated: worse? only beyond the resolution.
        XCTAssertEqual(verdict(worse: 0.2, better: 1, harmful: true, beneficial: false, raised: true), .possiblyWorse)
        XCTAssertEqual(verdict(worse: 0.2, better: 1, harmful: false, beneficial: false, raised: true), .notShownEqual)
        // The good direction asks the same of its median.
        XCTAssertEqual(verdict(worse: 1, better: 0.001, harmful: false, beneficial: true, raised: true), .better)
        XCTAssertEqual(verdict(worse: 1, better: 0.001, harmful: false, beneficial: false, raised: true), .notShownEqual)
        XCTAssertEqual(verdict(worse: 1, better: 0.2, harmful: false, beneficial: false, raised: true), .notShownEqual)
        // Without a raise the tests decide alone.
        XCTAssertEqual(verdict(worse: 0.001, better: 1, harmful: false, beneficial: false, raised: false), .worse)
        XCTAssertEqual(verdict(worse: 1, better: 0.001, harmful: false, beneficial: false, raised: false), .better)
    }

    /// A process-bound time is never confirmed: moved worse?, same or ~,
    /// whatever its tests say.
    func testAProcessBoundTimeIsNeverWorseOrBetter() {
        var evidence = SeriesEvidence(presence: .both, reading: .processBoundTime)
        evidence.confirmedWorse = true
        evidence.separatedWorse = true
        XCTAssertEqual(VerdictTable.verdict(for: evidence), .notShownEqual)
        evidence.shownEqual = true
        XCTAssertEqual(VerdictTable.verdict(for: evidence), .same)
        evidence.medianMovedHarmfully = true
        XCTAssertEqual(VerdictTable.verdict(for: evidence), .movedWorse)
        evidence.repetitionsCanReachAlpha = false
        XCTAssertEqual(VerdictTable.verdict(for: evidence), .tooFewRepetitions)
    }

    /// The exit status: a regression outranks series that could not be
    /// judged, a sweep's worse growth is a regression, and unusable input
    /// outranks everything.
    func testTheExitStatusTable() {
        typealias Run = VerdictTable.RunEvidence
        XCTAssertEqual(VerdictTable.exitStatus(for: Run()), .noRegression)
        XCTAssertEqual(VerdictTable.exitStatus(for: Run(gatedUnjudged: 2)), .notJudged)
        XCTAssertEqual(VerdictTable.exitStatus(for: Run(gatedWorse: 1, gatedUnjudged: 2)), .regression)
        XCTAssertEqual(VerdictTable.exitStatus(for: Run(gatedWorseGrowth: true, gatedUnjudged: 2)), .regression)
        XCTAssertEqual(VerdictTable.exitStatus(for: Run(inputUsable: false, gatedWorse: 1)), .unusableInput)
    }

    /// docs/Compare.md prints the verdict table as the code holds it.
    func testTheDocumentationPrintsTheVerdictTableOfTheCode() throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/Compare.md"), encoding: .utf8)
        XCTAssertTrue(page.contains(VerdictTable.markdown()), "docs/Compare.md lacks:\n\(VerdictTable.markdown())")
    }
}
