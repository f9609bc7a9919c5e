import ArgumentParser
import BenchKit
import Foundation
import ToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `BenchRunner` command line, for any executable: the repository's own
/// `BenchRunner` is `BenchRunnerMain.run()`, and a user's executable that
/// measures its own schedulers beside this library's and the peers is
///
/// ```swift
/// import BenchKit
/// import BenchRunnerCLI
///
/// BenchRunnerMain.run(registering: [
///     BenchScheduler("my-event-loop") { MyEventLoopScheduler() },
/// ])
/// ```
///
/// with the same subcommands and options (`--quick`, `--filter`,
/// `--repetitions`, `--output`, `list`, `compare`), the same CSV schema and
/// exit statuses. The registered schedulers' variants run after the
/// standard ones in every benchmark group that applies (see ``BenchScheduler``).
/// Messages and usage lines name the executable (``programName``). An
/// executable with both tools, one registration each
/// (``SchedulerRegistration``), is `SchedulerToolsMain.run(registering:)`.
public enum BenchRunnerMain {
    /// What messages and usage lines call the program: the installed
    /// ``ToolInvocation``'s name (the executable's, or `MyEventLoop bench`),
    /// else `BenchRunner`.
    static var programName: String {
        ToolInvocation.programName(fallback: "BenchRunner")
    }

    /// Registers `schedulers` after ``SchedulerRegistry/standard``'s, then
    /// parses the command line and runs it; never returns. A refused
    /// registration (a name the CSV cannot carry, a name taken twice, a
    /// failed ``SchedulerRegistration/check()``) ends the program with its
    /// message and exit status 2.
    public static func run(registering schedulers: [BenchScheduler] = []) -> Never {
        run { registry in
            for scheduler in schedulers {
                try registry.register(scheduler)
            }
        }
    }

    /// Lets `register` add to ``SchedulerRegistry/standard`` (schedulers,
    /// peer hops), then parses the command line and runs it; never returns.
    /// The command line is the installed ``ToolInvocation``'s arguments; when
    /// none is installed, this process's, named after its executable.
    static func run(registering register: (inout SchedulerRegistry) throws -> Void) -> Never {
        if ToolInvocation.current == nil {
            ToolInvocation.install(.commandLine(fallbackName: "BenchRunner"))
        }
        var registry = SchedulerRegistry.standard
        do {
            try register(&registry)
        } catch {
            FileHandle.standardError.write(Data("\(programName): error: \(error)\n".utf8))
            exit(2)
        }
        SchedulerRegistry.activate(registry)
        exit(main(ToolInvocation.toolArguments))
    }

    // Parses and runs by hand instead of `@main` so that every misuse (an
    // unknown option, a bad value, a filter that matches nothing, an
    // unwritable folder) ends with a clear message and exit status 2, while
    // help exits 0 and a command's own `ExitCode` (compare's 1 for a
    // regression) passes through. `BenchRunner --help` also explains the
    // options of `run`, the default command.
    static func main(_ arguments: [String]) -> Int32 {
        if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
            print(BenchRunnerCommand.helpMessage())
            print("\nOPTIONS OF `run` (THE DEFAULT COMMAND):")
            let runHelp = Run.helpMessage(for: Run.self)
            if let start = runHelp.range(of: "OPTIONS:") {
                print(runHelp[start.upperBound...])
            } else {
                print(runHelp)
            }
            return 0
        }
        do {
            var command = try BenchRunnerCommand.parseAsRoot(arguments)
            try command.run()
            return 0
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            if BenchRunnerCommand.exitCode(for: error) == .success {
                BenchRunnerCommand.exit(withError: error)
            }
            let message = BenchRunnerCommand.fullMessage(for: error)
            FileHandle.standardError.write(Data("\(message)\n".utf8))
            return 2
        }
    }
}
