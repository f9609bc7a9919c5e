import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The environment variable that tells a re-run test executable which
/// `assertStops` call site to execute. Its value is `"<file>:<line>"`.
let crashTestSiteVariable = "SCHEDULERS_CRASH_TEST_SITE"

extension XCTestCase {
    /// Asserts that `body` stops the program (a failed `precondition`,
    /// `preconditionFailure`, `fatalError`, a trap) with a message on
    /// standard error that contains `messageContaining`.
    ///
    /// A crash cannot be caught inside the process, so the check runs `body`
    /// in a child: the current test executable is started again
    /// (`/proc/self/exe`, falling back to `CommandLine.arguments[0]`) with the
    /// current test as its only XCTest filter (`Module.Class/testName`) and
    /// `SCHEDULERS_CRASH_TEST_SITE=<file>:<line>` in its environment. In the
    /// child the test runs again from the top; this call, recognising its own
    /// call site, runs `body` instead of starting another child, and exits
    /// normally if `body` returns. Every other `assertStops` call of the test
    /// does nothing in the child. The parent then asserts that the child was
    /// ended by a signal and that its standard error contains the message.
    ///
    /// Use it like any XCTest assertion:
    ///
    /// ```swift
    /// func testSettingTwiceStops() {
    ///     let disposable = SingleAssignmentDisposable()
    ///     disposable.setDisposable(Disposables.create())
    ///     assertStops(messageContaining: "called twice") {
    ///         disposable.setDisposable(Disposables.create())
    ///     }
    /// }
    /// ```
    ///
    /// Rules that follow from re-running the test:
    /// - Code before the call runs in the child too, so it must not depend on
    ///   earlier tests and should be cheap; code after it never runs there.
    /// - Put each `assertStops` on its own line: the line tells the child
    ///   which call to execute.
    /// - Works with `swift test` in the debug configuration, where
    ///   `precondition` prints its message; optimised builds trap without one.
    /// - The child runs with `SWIFT_BACKTRACE=enable=no`, so a crash costs a
    ///   process start, not a symbolicated backtrace. A child that neither
    ///   stops nor returns within `timeout` seconds is killed and reported.
    func assertStops(
        messageContaining message: String,
        timeout: TimeInterval = 60,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ body: () -> Void
    ) {
        let site = "\(file):\(line)"
        let environment = ProcessInfo.processInfo.environment
        if let requested = environment[crashTestSiteVariable] {
            // We are the child: run only the requested call site.
            guard requested == site else { return }
            body()
            FileHandle.standardError.write(Data("assertStops: the body returned without stopping\n".utf8))
            exit(EXIT_SUCCESS)
        }

        guard let filter = CrashTest.filterArgument(for: self) else {
            XCTFail("assertStops: cannot tell the current test's name from \(name)", file: file, line: line)
            return
        }
        let outcome: CrashTest.Outcome
        do {
            outcome = try CrashTest.runChild(filter: filter, site: site, timeout: timeout)
        } catch {
            XCTFail("assertStops: could not start the child process: \(error)", file: file, line: line)
            return
        }
        switch outcome.termination {
        case .timedOut:
            XCTFail(
                "assertStops: the child neither stopped nor returned within \(timeout) s; stderr:\n\(outcome.standardError)",
                file: file, line: line)
        case .exited(let status):
            XCTFail(
                "assertStops: expected the program to stop, but the child exited with status \(status); stderr:\n\(outcome.standardError)",
                file: file, line: line)
        case .signalled:
            XCTAssertTrue(
                outcome.standardError.contains(message),
                "assertStops: the program stopped, but its stderr does not contain \"\(message)\":\n\(outcome.standardError)",
                file: file, line: line)
        }
    }
}

/// The machinery behind `assertStops`: naming the current test and running the child.
enum CrashTest {
    enum Termination {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
    }

    struct Outcome {
        var termination: Termination
        var standardError: String
    }

    /// `Module.Class/testName`, the argument corelibs XCTest takes as a filter.
    static func filterArgument(for testCase: XCTestCase) -> String? {
        let className = String(reflecting: type(of: testCase))  // "Module.Class"
        // corelibs XCTest names a test "Class.testName"; Darwin "-[Class testName]".
        var testName = testCase.name
        if testName.hasPrefix("-[") && testName.hasSuffix("]") {
            testName = String(testName.dropFirst(2).dropLast())
            guard let space = testName.lastIndex(of: " ") else { return nil }
            testName = String(testName[testName.index(after: space)...])
        } else if let dot = testName.lastIndex(of: ".") {
            testName = String(testName[testName.index(after: dot)...])
        }
        guard !testName.isEmpty else { return nil }
        return "\(className)/\(testName)"
    }

    static var executableURL: URL {
        let procSelf = "/proc/self/exe"
        if FileManager.default.fileExists(atPath: procSelf),
            let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: procSelf)
        {
            return URL(fileURLWithPath: resolved)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// Collects what the child writes to a pipe until the child closes it.
    private final class Collector: @unchecked Sendable {
        var data = Data()
    }

    static func runChild(filter: String, site: String, timeout: TimeInterval) throws -> Outcome {
        let process = Process()
        process.executableURL = executableURL
        process.arguments = [filter]
        var environment = ProcessInfo.processInfo.environment
        environment[crashTestSiteVariable] = site
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errorPipe = Pipe()
        process.standardError = errorPipe

        let collector = Collector()
        let finishedReading = DispatchSemaphore(value: 0)
        let reader = errorPipe.fileHandleForReading
        try process.run()
        DispatchQueue.global().async {
            collector.data = reader.readDataToEndOfFile()
            finishedReading.signal()
        }

        var timedOut = false
        if finishedReading.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finishedReading.wait()
        }
        process.waitUntilExit()
        let standardError = String(decoding: collector.data, as: UTF8.self)
        if timedOut {
            return Outcome(termination: .timedOut, standardError: standardError)
        }
        switch process.terminationReason {
        case .uncaughtSignal:
            return Outcome(termination: .signalled(process.terminationStatus), standardError: standardError)
        case .exit:
            return Outcome(termination: .exited(process.terminationStatus), standardError: standardError)
        @unknown default:
            return Outcome(termination: .exited(process.terminationStatus), standardError: standardError)
        }
    }
}
