import ArgumentParser
import BenchAnalysis
import BenchKit
@testable import BenchRunnerCLI
import Foundation
import XCTest

/// `BenchRunner self-check`'s checks (``CompareSelfCheck``) in a debug
/// build, at ``CompareSelfCheck/Size/smoke``: the machinery holds and
/// reports; the full sample sizes and the documents' lines are CI's
/// release-built `BenchRunner self-check` (docs/CI.md).
final class CompareSelfCheckTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    func testEveryCheckHoldsAtTheSmokeSizeAndPrintsWhatItMeasured() {
        let outcomes = CompareSelfCheck.run(root: Self.root, size: .smoke, processes: CompareSelfCheck.quickProcesses)
        XCTAssertEqual(outcomes.map(\.name), CompareSelfCheck.names)
        for outcome in outcomes {
            XCTAssertEqual(outcome.failures, [], outcome.name)
            XCTAssertFalse(outcome.lines.isEmpty, "\(outcome.name) prints what it measured")
        }
        let model = outcomes.first { $0.name == "repetition-model" }
        // Three A/A pairs and three slowed ones, every one counted.
        let line = model?.lines.first ?? ""
        XCTAssertTrue(line.hasPrefix("A/A: exit 0 in ") && line.contains(" of 3, exit 3 in "), line)
        XCTAssertTrue(line.hasSuffix(" of 3"), line)
    }

    func testOnlyTheNamedChecksRun() {
        let outcomes = CompareSelfCheck.run(
            root: Self.root, size: .smoke, only: ["correction"], processes: CompareSelfCheck.quickProcesses)
        XCTAssertEqual(outcomes.map(\.name), ["correction"])
    }

    func testADocumentThatDoesNotPrintTheLineAsItIsNowFailsTheCheck() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("self-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("docs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let line = "A/A: exit 0 in 590 of 600"
        try "Before.\n\(line)\nAfter.\n".write(
            to: folder.appendingPathComponent("docs/Compare.md"), atomically: true, encoding: .utf8)
        XCTAssertNil(CompareSelfCheck.documentFailure(root: folder, document: "docs/Compare.md", line: line))
        let stale = CompareSelfCheck.documentFailure(
            root: folder, document: "docs/Compare.md", line: "A/A: exit 0 in 591 of 600")
        XCTAssertEqual(
            stale, "docs/Compare.md must print the simulation's line as it is now:\nA/A: exit 0 in 591 of 600")
        let missing = CompareSelfCheck.documentFailure(root: folder, document: "docs/AtAGlance.md", line: line)
        XCTAssertEqual(missing, "docs/AtAGlance.md could not be read under \(folder.path)")
    }

    func testAMissingCommittedRunFailsItsCheckWithoutStoppingTheOthers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("self-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcomes = CompareSelfCheck.run(
            root: folder, size: .smoke, only: ["repetition-model", "correction"],
            processes: CompareSelfCheck.quickProcesses)
        XCTAssertEqual(outcomes.map(\.name), ["repetition-model", "correction"])
        XCTAssertEqual(outcomes.first?.failures.count, 1)
        XCTAssertTrue(
            outcomes.first?.failures.first?.contains("20261126T092931Z-787b90b3c765.csv") ?? false,
            "\(outcomes.first?.failures ?? [])")
        // The correction simulates its runs and reads no file.
        XCTAssertEqual(outcomes.last?.failures, [])
    }

    func testTheCommandRefusesARootWithoutTheCommittedRunsAndAnUnknownCheckWithStatus2() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("self-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (arguments, message) in [
            (["self-check", "--root", folder.path], "results/resolution.csv is missing: self-check reads the repository's"),
            (["self-check", "--root", Self.root.path, "--check", "nope"], "unknown check 'nope'; the checks are repetition-model,"),
        ] {
            do {
                _ = try BenchRunnerCommand.parseAsRoot(arguments)
                XCTFail("\(arguments) was accepted")
            } catch {
                let text = BenchRunnerCommand.message(for: error)
                XCTAssertTrue(text.contains(message), text)
            }
            // The entry point turns the refusal into bad input, status 2, having run nothing.
            XCTAssertEqual(BenchRunnerMain.main(arguments), 2, "\(arguments)")
        }
        XCTAssertNoThrow(try BenchRunnerCommand.parseAsRoot(["self-check", "--root", Self.root.path, "--check", "correction"]))
    }
}

