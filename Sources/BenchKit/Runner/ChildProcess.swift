import Foundation
import ToolSupport

/// Runs another program to completion, synchronously: the one place the
/// benchmark tools start a child process (tools such as `git` and `ldconfig`,
/// the plain-recursion probe, the allocation-counting child).
///
/// Foundation's `Process` rather than swift-subprocess: the tools are
/// synchronous command-line programs whose main thread drains the main queue,
/// and swift-subprocess offers only `async` entry points; nor can it replace
/// the process image, which ``AllocatorLauncher/reexecute(arguments:environment:)``
/// needs (`execve`).
struct ChildProcess {
    /// Where a child's standard output or error goes.
    enum Stream {
        /// Into this process's own stream.
        case inherit
        /// Nowhere.
        case discard
        /// Into ``Result/output`` (standard output only).
        case capture
    }

    /// How the child ended.
    struct Result {
        /// The exit status, or the signal number when ``endedBySignal``.
        let status: Int32
        /// Whether a signal ended the child (a crash) instead of `exit`.
        let endedBySignal: Bool
        /// Captured standard output, or empty.
        let output: Data
    }

    /// Starts `executable` with `arguments` and `environment` (this process's
    /// when `nil`) and waits for it to end. Throws only when it cannot start.
    static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        standardOutput: Stream = .inherit, standardError: Stream = .inherit
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = environment
        }
        let pipe = Pipe()
        switch standardOutput {
        case .inherit: break
        case .discard: process.standardOutput = FileHandle.nullDevice
        case .capture: process.standardOutput = pipe
        }
        switch standardError {
        case .inherit, .capture: break
        case .discard: process.standardError = FileHandle.nullDevice
        }
        try process.run()
        let output = standardOutput == .capture ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, endedBySignal: process.terminationReason == .uncaughtSignal,
            output: output)
    }
}

extension ChildProcess {
    /// Runs this BenchRunner executable again as a child that writes its
    /// rows to a file of its own (named after `tag`; `arguments` builds the
    /// child's arguments from that file's path), with the allocator guard
    /// cleared so that the child chooses its allocator itself. Returns how
    /// the child ended and the rows file's text (`nil` when it wrote none);
    /// the file is removed. Throws only when the child cannot start.
    static func runRowsChild(
        tag: String, standardOutput: Stream = .inherit, arguments: (_ rowsFile: String) -> [String]
    ) throws -> (result: Result, rows: String?) {
        let rowsPath = NSTemporaryDirectory() + ".bench-rows-\(getpid())-\(tag).csv"
        defer { try? FileManager.default.removeItem(atPath: rowsPath) }
        var environment = ProcessInfo.processInfo.environment
        environment[AllocatorLauncher.guardVariable] = nil
        let result = try run(
            AllocatorLauncher.executablePath, arguments: ToolInvocation.childArguments(arguments(rowsPath)),
            environment: environment,
            standardOutput: standardOutput)
        return (result, try? String(contentsOfFile: rowsPath, encoding: .utf8))
    }
}
