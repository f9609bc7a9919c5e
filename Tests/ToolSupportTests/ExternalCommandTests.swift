import ToolSupport
import XCTest

final class ExternalCommandTests: XCTestCase {
    func testStatusOutputAndErrorsAreKeptApart() throws {
        let outcome = try XCTUnwrap(ExternalCommand.run(["sh", "-c", "echo out; echo err >&2; exit 3"]))
        XCTAssertEqual(outcome.status, 3)
        XCTAssertEqual(outcome.output, "out\n")
        XCTAssertEqual(outcome.errors, "err\n")
    }

    /// More than a pipe holds on standard error, then standard output: read
    /// one pipe after the other, the program would block on the first.
    func testAProgramThatWritesMuchToStandardErrorEnds() throws {
        let outcome = try XCTUnwrap(ExternalCommand.run(["sh", "-c", "head -c 300000 /dev/zero >&2; echo done"]))
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.output, "done\n")
        XCTAssertEqual(outcome.errors.utf8.count, 300_000)
    }

    func testAProgramThatIsNotInstalledEndsWith127() throws {
        let outcome = try XCTUnwrap(ExternalCommand.run(["no-such-program-for-this-test"]))
        XCTAssertEqual(outcome.status, 127)
    }
}
