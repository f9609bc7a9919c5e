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
