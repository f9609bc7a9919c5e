import SchedulerTools
import ToolSupport
import XCTest

/// One executable with both tools: the first argument picks the tool, the
/// rest is the tool's; messages name `<program> bench` or `<program> stress`.
final class SchedulerToolsMainTests: XCTestCase {
    func testTheFirstArgumentPicksTheToolAndTheInvocationNamesIt() {
        XCTAssertEqual(
            SchedulerToolsMain.route(["bench", "--quick", "--filter", "event-loop"], program: "MyEventLoop"),
            .bench(ToolInvocation(
                programName: "MyEventLoop bench", subcommand: ["bench"], arguments: ["--quick", "--filter", "event-loop"])))
        XCTAssertEqual(
            SchedulerToolsMain.route(["stress", "--list"], program: "MyEventLoop"),
            .stress(ToolInvocation(programName: "MyEventLoop stress", subcommand: ["stress"], arguments: ["--list"])))
    }

    func testAChildProcessRunsTheSameToolOfTheSameExecutable() {
        let invocation = ToolInvocation(programName: "MyEventLoop stress", subcommand: ["stress"], arguments: [])
        XCTAssertEqual(
            invocation.childArguments(["--child-scenario", "x"]), ["stress", "--child-scenario", "x"])
        XCTAssertEqual(ToolInvocation(programName: "Stress", arguments: []).childArguments(["--list"]), ["--list"])
    }

    func testNoToolOrAnUnknownOneIsAUsageErrorAndHelpListsEveryExitStatus() {
        guard case .error(let none) = SchedulerToolsMain.route([], program: "MyEventLoop") else {
            return XCTFail("no subcommand was not an error")
        }
        XCTAssertTrue(none.contains("MyEventLoop: error: name a tool: bench or stress"), none)
        guard case .error(let unknown) = SchedulerToolsMain.route(["--quick"], program: "MyEventLoop") else {
            return XCTFail("--quick without a tool was not an error")
        }
        XCTAssertTrue(unknown.contains("'--quick' is not a tool of this program"), unknown)
        guard case .help(let help) = SchedulerToolsMain.route(["--help"], program: "MyEventLoop") else {
            return XCTFail("--help was not help")
        }
        XCTAssertTrue(help.contains("USAGE: MyEventLoop bench"), help)
        XCTAssertFalse(help.contains("BenchRunner ["), help)
        for status in ["0 success", "1 a measurement failed", "2 bad input", "3 compare could", "66 ThreadSanitizer",
            "0 no forbidden outcome", "1 a forbidden outcome"]
        {
            XCTAssertTrue(help.contains(status), "help lacks '\(status)'")
        }
    }
}
