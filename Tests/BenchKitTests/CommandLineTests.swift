import Foundation
import XCTest

/// Bad input to the BenchRunner executable: a clear message and exit status 2.
final class CommandLineTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(BenchRunnerBinary.path == nil, "BenchRunner is not built beside the tests")
    }

    func testUnknownFilterExitsWithStatus2AndNamesIt() throws {
        let result = try BenchRunnerBinary.run(["--filter", "no.such.benchmark", "--output", NSTemporaryDirectory()])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("'no.such.benchmark'"), result.stderr)
    }

    func testUnwritableOutputFolderExitsWithStatus2() throws {
        let result = try BenchRunnerBinary.run(["--quick", "--output", "/proc/no-results-here"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("cannot write results"), result.stderr)
    }

    func testImpossibleRepetitionCountExitsWithStatus2() throws {
        let result = try BenchRunnerBinary.run(["--repetitions", "0"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--repetitions"), result.stderr)
    }

    func testImpossibleFloodCountExitsWithStatus2AndSaysTheRange() throws {
        for count in ["0", "1001"] {
            let result = try BenchRunnerBinary.run(["--floods", count, "--output", NSTemporaryDirectory()])
            XCTAssertEqual(result.status, 2, count)
            XCTAssertTrue(result.stderr.contains("--floods must be between 1 and 1000, got \(count)"), result.stderr)
        }
    }

    func testImpossibleForksExitWithStatus2AndSayWhy() throws {
        let none = try BenchRunnerBinary.run(["--forks", "0"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("--forks must be 1 or more"), none.stderr)
        let both = try BenchRunnerBinary.run(["--forks", "2", "--allocator", "both"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("--forks times under the system allocator"), both.stderr)
    }

    func testUnknownAllocatorExitsWithStatus2() throws {
        let result = try BenchRunnerBinary.run(["--allocator", "tcmalloc"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("tcmalloc"), result.stderr)
    }

    func testHelpExplainsEveryOptionAndExitsZero() throws {
        let result = try BenchRunnerBinary.run(["run", "--help"])
        XCTAssertEqual(result.status, 0)
        for option in ["--quick", "--filter", "--repetitions", "--output", "--allocator"] {
            XCTAssertTrue(result.stdout.contains(option), "\(option) missing from help")
        }
    }

    func testListNamesEveryBenchmark() throws {
        let result = try BenchRunnerBinary.run(["list"])
        XCTAssertEqual(result.status, 0)
        for name in ["observeOn.throughput", "observeOn.latency", "trampoline.recursion", "periodic.drift"] {
            XCTAssertTrue(result.stdout.contains(name), name)
        }
    }

    func testHelpSaysTimesAndCountsComeFromDifferentAllocators() throws {
        let result = try BenchRunnerBinary.run(["--help"])
        XCTAssertEqual(result.status, 0)
        let text = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        XCTAssertTrue(text.contains("system allocator"), text)
        XCTAssertTrue(text.contains("jemalloc child"), text)
        XCTAssertTrue(text.contains("distorts times"), text)
    }
}
