import Dispatch
import Foundation
import Schedulers
import ToolSupport

/// The `Stress` program, for any executable: the repository's own `Stress`
/// is `StressMain.run()`, and a user's executable that stress-tests its own
/// schedulers beside this library's is
///
/// ```swift
/// import StressKit
///
/// StressMain.run(registering: [
///     StressScheduler(SchedulerRegistration("my-event-loop", isCurrent: { $0.isOnLoopThread }) { MyEventLoopScheduler() }),
/// ])
/// ```
///
/// with the same options (`--filter`, `--iterations`, `--seed`, `--list`,
/// `--csv`, `--self-check`), outcome tables and exit statuses, and the same
/// ThreadSanitizer script (`scripts/stress-tsan.sh`, with
/// `STRESS_PACKAGE_PATH` and `STRESS_PRODUCT` naming the executable).
/// Messages, usage lines and replay commands name the executable (or the
/// program an installed `ToolInvocation` names). An executable with both
/// tools is `SchedulerToolsMain.run(registering:)`.
public enum StressMain {
    /// The harness's own check: a deliberately broken disposable that a
    /// run must report (`--self-check`).
    static var selfCheck: any StressScenario {
        SingleAssignmentSetVersusDispose<BrokenSingleAssignmentDisposable<WidenedWindow>>(
            name: "self-check.broken-single-assignment",
            // Two actors: on two cores both run at once, so the broken window is hit.
            disposers: 1
        )
    }

    /// The broken variants `--self-check` measures detection on.
    static var brokenVariants: [BrokenVariant] {
        [
            BrokenVariant(
                label: "widened gap", window: "two locks, 20 µs pause",
                scenario: SingleAssignmentSetVersusDispose<BrokenSingleAssignmentDisposable<WidenedWindow>>(
                    name: "self-check.widened-gap", disposers: 1),
                explorationMustFind: true),
            BrokenVariant(
                label: "narrow gap", window: "two locks, no pause",
                scenario: SingleAssignmentSetVersusDispose<BrokenSingleAssignmentDisposable<NarrowWindow>>(
                    name: "self-check.narrow-gap", disposers: 1),
                explorationMustFind: true),
            BrokenVariant(
                label: "check-then-act", window: "one step (load, then store)",
                scenario: SingleAssignmentSetVersusDispose<CheckThenActSingleAssignmentDisposable>(
                    name: "self-check.check-then-act", disposers: 2),
                explorationMustFind: true),
        ]
    }

    /// The command over this library's scenarios and `schedulers`' (see
    /// ``ScenarioCatalog/all(registering:)``); throws ``SchedulerRegistrationError``.
    ///
    /// The command runs each scenario in a child process of this program
    /// (`--isolate`, the default), so a scenario that traps is reported and
    /// the others still run.
    static func command(registering schedulers: [StressScheduler]) throws -> StressCommand {
        var command = StressCommand(
            scenarios: try ScenarioCatalog.all(registering: schedulers),
            selfCheck: selfCheck, brokenVariants: brokenVariants,
            output: { text in FileHandle.standardOutput.write(Data((text + "\n").utf8)) })
        command.executablePath = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        command.programName = StressCommand.programName
        command.childSubcommand = ToolInvocation.current?.subcommand ?? []
        return command
    }

    /// Registers `schedulers` after this library's, parses the command line
    /// and runs; never returns. The scenarios run on a background thread
    /// while the main thread parks in `dispatchMain()`, so the main queue is
    /// drained as in an application. A refused registration (a name the
    /// scenario names cannot carry, a name taken twice, a failed
    /// ``SchedulerRegistration/check()``) ends the program with its message
    /// and exit status 2. The command line is the installed
    /// ``ToolInvocation``'s arguments; when none is installed, this
    /// process's, named after its executable.
    ///
    /// Exit status (as `--help` prints it): 0 no forbidden outcome and no
    /// leak (and after `--help` or `--list`); 1 a forbidden outcome (a hang
    /// or a crash included) or a leak, a deadlock under `--explore`, a broken
    /// disposable `--self-check` did not notice, or a `--replay` that
    /// reproduced a forbidden outcome; 2 a bad command line, a schedule that
    /// does not fit, an unwritable CSV path or a refused registration; 66
    /// ThreadSanitizer stopped a scenario's process.
    public static func run(registering schedulers: [StressScheduler] = []) -> Never {
        if ToolInvocation.current == nil {
            ToolInvocation.install(.commandLine(fallbackName: "Stress"))
        }
        let command: StressCommand
        do {
            command = try self.command(registering: schedulers)
        } catch {
            FileHandle.standardError.write(Data("\(StressCommand.programName): error: \(error)\n".utf8))
            exit(StressCommand.usageError)
        }
        let arguments = ToolInvocation.toolArguments
        let harness = Thread {
            exit(command.main(arguments))
        }
        harness.name = "stress.harness"
        harness.stackSize = 8 << 20
        harness.start()
        dispatchMain()
    }
}
