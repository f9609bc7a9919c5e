import Foundation

/// Runs a program found on `PATH` (through `/usr/bin/env`) with no input and
/// collects what it writes, for the tools that ask another program a
/// question (git's commit order, the installed plotly's path).
package enum ExternalCommand {
    /// How the program ended and what it wrote.
    package struct Outcome: Sendable {
        /// Its exit status.
        package let status: Int32
        /// Everything it wrote to standard output.
        package let output: String
        /// Everything it wrote to standard error.
        package let errors: String
    }

    /// Runs `arguments` (the program's name first) to its end.
    ///
    /// Both pipes are drained while the program runs, standard error on a
    /// thread of its own, so a program that writes much to either cannot
    /// block on a full pipe.
    ///
    /// - Returns: `nil` when `/usr/bin/env` could not be started; a program
    ///   it cannot find ends with status 127.
    package static func run(_ arguments: [String]) -> Outcome? {
        let output = Pipe()
        let errors = Pipe()
        let process = Process()
        process.standardInput = FileHandle.nullDevice
        (process.standardOutput, process.standardError) = (output, errors)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            return nil
        }
        let errorsRead = ErrorsReader(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorsRead.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorsReader: @unchecked Sendable {
    // @unchecked: `data` is written once by the reading thread before
    // `done` is signalled, and read only after `wait` has seen the signal.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
