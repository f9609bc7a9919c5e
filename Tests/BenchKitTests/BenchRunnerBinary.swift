import Foundation

/// The BenchRunner executable built beside the test bundle, when `swift build`
/// has built it (it has after a plain `swift test` of the whole package).
enum BenchRunnerBinary {
    static var path: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The test binary may sit inside `<name>.xctest/` or directly in the build folder.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("BenchRunner").path
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// Runs the binary with `arguments`; returns status and standard error.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String, stdout: String) {
        guard let path else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errorData, as: UTF8.self), String(decoding: outputData, as: UTF8.self))
    }
}
