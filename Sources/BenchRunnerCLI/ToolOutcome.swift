import ArgumentParser
import Foundation

/// How a command whose work is a tool of BenchAnalysis ends: its output on
/// standard output, its diagnostics on standard error, its status as the
/// process's exit status (0 returns normally).
enum ToolOutcome {
    static func finish(output: String, diagnostics: String, status: Int32) throws {
        print(output, terminator: "")
        if !diagnostics.isEmpty {
            FileHandle.standardError.write(Data(diagnostics.utf8))
        }
        if status != 0 {
            throw ExitCode(status)
        }
    }
}
