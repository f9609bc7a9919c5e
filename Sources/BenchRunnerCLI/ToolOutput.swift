import ArgumentParser
import Foundation

/// How a subcommand that reads result files ends: its report on standard
/// output, its diagnostics on standard error, then its exit status.
enum ToolOutput {
    /// Prints `output` and `diagnostics` (each only when not empty) and
    /// throws the exit code `status` unless it is 0.
    static func finish(output: String, diagnostics: String, status: Int32) throws {
        if !output.isEmpty {
            print(output, terminator: "")
        }
        if !diagnostics.isEmpty {
            FileHandle.standardError.write(Data(diagnostics.utf8))
        }
        if status != 0 {
            throw ExitCode(status)
        }
    }
}
