@_exported import BenchKit
@_exported import BenchRunnerCLI
import Foundation
@_exported import StressKit
@_exported import ToolRegistration
import ToolSupport

/// Both tools in one executable, over schedulers described once:
///
/// ```swift
/// import SchedulerTools
///
/// let eventLoop = SchedulerRegistration(
///     "event-loop", isCurrent: { $0.isOnLoopThread }, teardown: { $0.stop() }
/// ) { EventLoopScheduler() }
/// SchedulerToolsMain.run(registering: [eventLoop])
/// ```
///
/// `<program> bench …` is BenchRunner's command line (`--quick`, `--filter`,
/// `list`, `compare`, …) with the registrations measured beside the
/// library's schedulers and the peers; `<program> stress …` is Stress's
/// (`--filter`, `--iterations`, `--seed`, `--list`, …) with the
/// registrations raced on beside the library's schedulers. Every message,
/// usage line and replay command names `<program> bench` or
/// `<program> stress`, and the child processes either tool starts run the
/// same subcommand of the same executable.
public enum SchedulerToolsMain {
    /// The subcommand that runs BenchRunner.
    static let benchSubcommand = "bench"
    /// The subcommand that runs Stress.
    static let stressSubcommand = "stress"

    /// Exit status: success (and `--help`).
    static let success: Int32 = 0
    /// Exit status: no subcommand, or one this program does not have.
    static let usageError: Int32 = 2

    /// Registers `registrations` with the tool the first argument names
    /// (each tool checks them, ``SchedulerRegistration/check()``), then runs
    /// that tool with the rest of the command line; never returns.
    ///
    /// - Parameters:
    ///   - registrations: what both tools take.
    ///   - bench: registrations only BenchRunner takes, after `registrations`
    ///     (e.g. one narrowed with ``BenchScheduler/only(_:)``).
    ///   - stress: registrations only Stress takes, after `registrations`.
    public static func run(
        registering registrations: [SchedulerRegistration], bench: [BenchScheduler] = [],
        stress: [StressScheduler] = []
    ) -> Never {
        let program = ToolInvocation.executableName(fallback: "SchedulerTools")
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch route(arguments, program: program) {
        case .bench(let invocation):
            ToolInvocation.install(invocation)
            BenchRunnerMain.run(registering: registrations.map(BenchScheduler.init) + bench)
        case .stress(let invocation):
            ToolInvocation.install(invocation)
            StressMain.run(registering: registrations.map(StressScheduler.init) + stress)
        case .help(let text):
            print(text)
            exit(success)
        case .error(let text):
            FileHandle.standardError.write(Data((text + "\n").utf8))
            exit(usageError)
        }
    }

    /// What a command line asks for.
    package enum Route: Equatable, Sendable {
        /// BenchRunner, with this invocation installed.
        case bench(ToolInvocation)
        /// Stress, with this invocation installed.
        case stress(ToolInvocation)
        /// The program's own help: print it, exit 0.
        case help(String)
        /// A bad command line: print the message, exit 2.
        case error(String)
    }

    /// Routes `arguments` (the command line after the executable) of the
    /// executable called `program`.
    package static func route(_ arguments: [String], program: String) -> Route {
        guard let first = arguments.first else {
            return .error("\(program): error: name a tool: \(benchSubcommand) or \(stressSubcommand)\n\n"
                + help(program: program))
        }
        let rest = Array(arguments.dropFirst())
        switch first {
        case benchSubcommand:
            return .bench(ToolInvocation(
                programName: "\(program) \(benchSubcommand)", subcommand: [benchSubcommand], arguments: rest))
        case stressSubcommand:
            return .stress(ToolInvocation(
                programName: "\(program) \(stressSubcommand)", subcommand: [stressSubcommand], arguments: rest))
        case "--help", "-h", "help":
            return .help(help(program: program))
        default:
            return .error("\(program): error: '\(first)' is not a tool of this program: give \(benchSubcommand) "
                + "or \(stressSubcommand) first (\(program) --help)")
        }
    }

    /// The program's own help: its two subcommands and every exit status.
    static func help(program: String) -> String {
        """
        USAGE: \(program) \(benchSubcommand) [<options>] [<subcommand>]
               \(program) \(stressSubcommand) [<options>]

        Measures and stress-tests the schedulers this program registers, beside the Schedulers library's own.

        SUBCOMMANDS:
          \(benchSubcommand)    BenchRunner: benchmarks beside the library's schedulers and the peers, one CSV per
                   run (\(program) \(benchSubcommand) --help; `\(program) \(benchSubcommand) --quick` is a short run)
          \(stressSubcommand)   Stress: dispose races on every scheduler, an outcome table per scenario
                   (\(program) \(stressSubcommand) --help)

        --filter takes the same names in both: \(NameFilter.ruleSummary)

        EXIT STATUS:
          \(program) \(benchSubcommand): 0 success; 1 a measurement failed (the other rows are written), compare
            found a regression, or report --check found a stale region; 2 bad input (an unknown option or value,
            a file that cannot be read, a --filter that matches nothing, a refused registration); 3 compare could
            not judge a gated series.
          \(program) \(stressSubcommand): 0 no forbidden outcome and no leak; 1 a forbidden outcome (a hang or a
            crash included) or a leak; 2 bad command line, an unwritable CSV path or a refused registration;
            66 ThreadSanitizer stopped a scenario's process.
          \(program) alone, or with an unknown subcommand: 2.
        A refused registration (a bad name, a name taken, an isCurrent that fails its check) is reported with the
        registration's name and what to change.
        """
    }
}
