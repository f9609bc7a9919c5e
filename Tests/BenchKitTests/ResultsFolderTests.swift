@testable import BenchKit
import Foundation
import XCTest

final class ResultsFolderTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "bench-results-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func environment() -> RunEnvironment {
        RunEnvironment(
            runID: "20260101T000000Z-abc", timestamp: "t", gitRevision: "abc", host: "h", cpu: "c", cores: 1,
            swiftVersion: "6", allocator: "system")
    }

    /// A run rewrites the committed progress history in the results folder:
    /// the next run is still of the commit, not `-dirty`; a changed source is.
    func testAChangeInTheResultsFolderLeavesTheRevisionClean() throws {
        let git = { (arguments: [String]) throws -> Void in
            let result = try ChildProcess.run(
                "/usr/bin/env", arguments: ["git", "-C", self.directory] + arguments, standardOutput: .discard,
                standardError: .discard)
            XCTAssertEqual(result.status, 0, "git \(arguments)")
        }
        try FileManager.default.createDirectory(atPath: directory + "/results", withIntermediateDirectories: true)
        try "{}\n".write(toFile: directory + "/results/progress-standard.json", atomically: true, encoding: .utf8)
        try "let x = 1\n".write(toFile: directory + "/main.swift", atomically: true, encoding: .utf8)
        try git(["init", "-q"])
        try git(["add", "."])
        try git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c"])
        let clean = RunEnvironment.gitRevision(in: directory)
        XCTAssertEqual(clean.count, 12, clean)
        try "{\"ratios\":{}}\n".write(toFile: directory + "/results/progress-standard.json", atomically: true, encoding: .utf8)
        XCTAssertEqual(RunEnvironment.gitRevision(in: directory), clean)
        try "let x = 2\n".write(toFile: directory + "/main.swift", atomically: true, encoding: .utf8)
        XCTAssertEqual(RunEnvironment.gitRevision(in: directory), clean + "-dirty")
    }

    func testWriteNamesTheFileAfterTimeAndRevisionAndLeavesNoTemporaryFile() throws {
        let path = try ResultsFolder(directory: directory).write("a,b\n", environment: environment())
        XCTAssertEqual((path as NSString).lastPathComponent, "20260101T000000Z-abc.csv")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "a,b\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["20260101T000000Z-abc.csv"])
    }

    func testSecondRunWithTheSameNameNeverOverwritesTheFirst() throws {
        let file = ResultsFolder(directory: directory)
        let first = try file.write("first\n", environment: environment())
        let second = try file.write("second\n", environment: environment())
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try String(contentsOfFile: first, encoding: .utf8), "first\n")
        XCTAssertEqual(try String(contentsOfFile: second, encoding: .utf8), "second\n")
    }

    func testUnwritableFolderIsReportedBeforeMeasuring() throws {
        let blocker = directory + "-file"
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        XCTAssertThrowsError(try ResultsFolder(directory: blocker + "/sub").checkWritable()) { error in
            XCTAssertTrue("\(error)".contains("cannot write results"), "\(error)")
        }
    }
}
