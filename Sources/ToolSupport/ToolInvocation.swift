import Foundation
import Synchronization

/// How this process was started as one of the tools: the name its messages
/// and usage lines call it by, the subcommand that selects the tool in its
/// executable, and the tool's own arguments.
///
/// The repository's `BenchRunner` and `Stress` are their own executables
/// (no subcommand). A user's executable that holds both tools
/// (`MyEventLoop bench …`, `MyEventLoop stress …`) installs an invocation
/// with its subcommand, so that every message names `MyEventLoop bench` and
/// every child process a tool starts of its own executable is started with
/// that subcommand in front of its arguments.
package struct ToolInvocation: Sendable, Equatable {
    /// What messages and usage lines call the program, e.g. `BenchRunner` or `MyEventLoop stress`.
    var programName: String
    /// The arguments in front of the tool's own that select it in its executable (`["stress"]`), or none.
    package var subcommand: [String]
    /// The tool's own arguments: the command line after the executable and ``subcommand``.
    var arguments: [String]

    /// An invocation whose messages say `programName`.
    package init(programName: String, subcommand: [String] = [], arguments: [String]) {
        self.programName = programName
        self.subcommand = subcommand
        self.arguments = arguments
    }

    /// The executable's file name as it was started (`CommandLine.arguments[0]`'s
    /// last path component), or `fallback` when there is none.
    package static func executableName(fallback: String) -> String {
        let name = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
        return name.isEmpty ? fallback : name
    }

    /// This process's command line as a tool of its own: named after its
    /// executable, no subcommand, every argument after the executable.
    package static func commandLine(fallbackName: String) -> ToolInvocation {
        ToolInvocation(
            programName: executableName(fallback: fallbackName), arguments: Array(CommandLine.arguments.dropFirst()))
    }

    /// `arguments` for a child process of this executable that runs the same
    /// tool: ``subcommand`` in front of them.
    package func childArguments(_ arguments: [String]) -> [String] {
        subcommand + arguments
    }

    private static let installed = Mutex<ToolInvocation?>(nil)

    /// The invocation ``install(_:)`` recorded, if any.
    package static var current: ToolInvocation? {
        installed.withLock { $0 }
    }

    /// Records how this process was started; a tool's entry point calls it
    /// once, before it parses its arguments.
    package static func install(_ invocation: ToolInvocation) {
        installed.withLock { $0 = invocation }
    }

    /// The program name messages use: the installed invocation's, else `fallback`.
    package static func programName(fallback: String) -> String {
        current?.programName ?? fallback
    }

    /// `arguments` for a child process of this executable running the
    /// installed tool (unchanged when none is installed, or it has no subcommand).
    package static func childArguments(_ arguments: [String]) -> [String] {
        current?.childArguments(arguments) ?? arguments
    }

    /// The tool's own arguments: the installed invocation's, else this
    /// process's command line after the executable.
    package static var toolArguments: [String] {
        current?.arguments ?? Array(CommandLine.arguments.dropFirst())
    }
}
