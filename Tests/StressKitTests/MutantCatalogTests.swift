import Foundation
import XCTest
@testable import StressKit

/// The mutation score's three lists agree: the mutants the library can
/// compile in (Sources/Schedulers/Internal/Mutant.swift), the catalog
/// scripts/mutation-score.sh runs, and the expected results in
/// scripts/mutants-expected.txt; and every scenario text of the catalog
/// selects a scenario Stress has. A mutant in one list only would be run
/// without an expectation, or expected and never run.
final class MutantCatalogTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The raw values of `Mutant`'s cases.
    private func mutantCases() throws -> [String] {
        let source = try text("Sources/Schedulers/Internal/Mutant.swift")
        let pattern = try NSRegularExpression(pattern: #"^\s*case \w+ = "([a-z0-9-]+)"$"#, options: [.anchorsMatchLines])
        let range = NSRange(source.startIndex..., in: source)
        return pattern.matches(in: source, range: range).compactMap { match in
            Range(match.range(at: 1), in: source).map { String(source[$0]) }
        }
    }

    /// The catalog's rows: name and scenario texts.
    private func catalog() throws -> [(name: String, filters: [String])] {
        let script = try text("scripts/mutation-score.sh")
        guard let start = script.range(of: "<<'CATALOG'\n"), let end = script.range(of: "\nCATALOG\n") else {
            XCTFail("scripts/mutation-score.sh has no CATALOG block")
            return []
        }
        return script[start.upperBound..<end.lowerBound].split(separator: "\n").map { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return (fields[0], fields.count > 2 ? fields[2].split(separator: ",").map(String.init) : [])
        }
    }

    /// The expected file's mutant names and verdicts.
    private func expected() throws -> [(name: String, verdict: String)] {
        try text("scripts/mutants-expected.txt").split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { line in
                let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
                return (fields[0], fields.count > 1 ? fields[1] : "")
            }
    }

    func testTheLibrarysMutantsTheScriptsCatalogAndTheExpectedResultsNameTheSameMutants() throws {
        let cases = try mutantCases()
        let catalogNames = try catalog().map(\.name)
        let expectedNames = try expected().map(\.name)
        XCTAssertGreaterThanOrEqual(cases.count, 12)
        XCTAssertEqual(Set(cases).count, cases.count, "a mutant name is used twice in Mutant.swift")
        XCTAssertEqual(Set(catalogNames), Set(cases), "scripts/mutation-score.sh's catalog against Mutant.swift")
        XCTAssertEqual(catalogNames.count, cases.count, "a mutant is in the catalog twice")
        XCTAssertEqual(Set(expectedNames), Set(cases), "scripts/mutants-expected.txt against Mutant.swift")
        XCTAssertEqual(expectedNames.count, cases.count, "a mutant is in scripts/mutants-expected.txt twice")
        for (name, verdict) in try expected() {
            XCTAssertTrue(["caught", "missed", "equivalent"].contains(verdict), "\(name): '\(verdict)' is not caught, missed or equivalent")
        }
    }

    func testEveryScenarioTextOfTheCatalogSelectsAScenario() throws {
        let names = ScenarioCatalog.all().map(\.name)
        for (mutant, filters) in try catalog() {
            XCTAssertFalse(filters.isEmpty, "\(mutant) names no scenario")
            for filter in filters {
                XCTAssertTrue(names.contains { $0.contains(filter) }, "\(mutant): no scenario name contains '\(filter)'")
            }
        }
    }
}
