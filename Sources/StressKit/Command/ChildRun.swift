import Foundation
import Synchronization
import ToolSupport

/// One scenario run in a child process by an isolated run: how it ended.
struct ChildRun {
    /// The child's exit status, or the signal that killed it.
    let status: Int32
    /// Whether a signal ended the child.
    let killedBySignal: Bool
    /// Why the child could not be started, if it could not.
    let launchError: String?
    /// Set when the parent ended the child itself: how long the child had
    /// shown no sign of life (see ``run(executable:arguments:progressPath:silenceSeconds:)``).
    var silentSeconds: Double? = nil

    /// Starts `executable` with `arguments`, its standard output and error
    /// the parent's own (so its table, its stacks and a sanitizer's report
    /// appear where the parent's text does), and waits for it.
    ///
    /// The wait is bounded: every change of the file at `progressPath` (the
    /// child rewrites it after its first batch and a few times a second) is a
    /// sign of life, and a child that shows none for `silenceSeconds` is
    /// killed (`SIGKILL`) and reported as silent. The child's own watchdog
    /// normally reports a hang first; this bound catches a child whose
    /// watchdog could not (its report itself hung, or the process stopped).
    static func run(
        executable: String, arguments: [String], progressPath: String? = nil, silenceSeconds: Double? = nil
    ) -> ChildRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            return ChildRun(status: -1, killedBySignal: false, launchError: error.localizedDescription)
        }
        if let silenceSeconds {
            let bound = UInt64(silenceSeconds * 1e9)
            var lastSign = monotonicNanoseconds()
            var lastSeen: Data?
            while process.isRunning {
                usleep(50_000)
                let seen = progressPath.flatMap { FileManager.default.contents(atPath: $0) }
                if seen != lastSeen {
                    lastSeen = seen
                    lastSign = monotonicNanoseconds()
                }
                let silent = monotonicNanoseconds() &- lastSign
                if silent > bound && process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    var run = ChildRun(status: SIGKILL, killedBySignal: true, launchError: nil)
                    run.silentSeconds = Double(silent) / 1e9
                    return run
                }
            }
        }
        process.waitUntilExit()
        return ChildRun(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            launchError: nil)
    }

    /// What the child left: its result, read from `csv`, when it ended by
    /// itself (status 0 or 1) and wrote one, or when the parent ended it
    /// after it wrote one (a hang it reported, then hung printing the
    /// stacks); otherwise how it ended.
    func ending(csv: String) -> Ending {
        if let launchError {
            return .abnormal(.notStarted(launchError))
        }
        let written = (try? String(contentsOfFile: csv, encoding: .utf8)).flatMap { try? ResultCSV.parse($0) }
        if let silentSeconds {
            if let written, written.count == 1 {
                return .result(written[0])
            }
            return .abnormal(.silent(seconds: silentSeconds))
        }
        if killedBySignal {
            return .abnormal(.signal(status))
        }
        if status == StressCommand.sanitizerReport {
            return .abnormal(.sanitizer)
        }
        guard status == StressCommand.success || status == StressCommand.failure, let written, written.count == 1
        else {
            return .abnormal(.noResult(status))
        }
        return .result(written[0])
    }

    /// What an isolated scenario gave.
    enum Ending {
        /// The child ran the scenario and wrote its result (it printed the table).
        case result(ScenarioResult)
        /// The child ended without a result.
        case abnormal(AbnormalEnding)
    }
}

/// How a child ended without writing its result.
enum AbnormalEnding: Equatable {
    case signal(Int32)
    case sanitizer
    case noResult(Int32)
    case notStarted(String)
    /// The parent killed the child after it showed no sign of life this long.
    case silent(seconds: Double)

    /// ThreadSanitizer (or another sanitizer with `exitcode=66`) stopped it.
    var isSanitizerStop: Bool { self == .sanitizer }

    /// The forbidden outcome this ending is.
    var outcome: OutcomeDeclaration {
        switch self {
        case .signal(let signal) where Self.isFault(signal):
            OutcomeDeclaration(
                id: "crashed", grade: .forbidden,
                meaning: "the scenario's process was killed by signal \(signal) (\(Self.name(of: signal))): a fault "
                    + "in the scheduler, the library or the scenario; the Swift runtime's crash report with the stack, "
                    + "when it wrote one, is above")
        case .signal(let signal):
            OutcomeDeclaration(
                id: "crashed", grade: .forbidden,
                meaning: "the scenario's process was killed by signal \(signal) (\(Self.name(of: signal))), sent from "
                    + "outside it (a user, a supervisor or the out-of-memory killer): no stack was printed")
        case .silent(let seconds):
            OutcomeDeclaration(
                id: "hung", grade: .forbidden,
                meaning: "the scenario's process showed no progress for \(NumberFormat.twoDecimals(seconds)) s and its "
                    + "own watchdog reported nothing, so the run killed it (SIGKILL); no stack was printed")
        case .sanitizer:
            OutcomeDeclaration(
                id: "sanitizer-report", grade: .forbidden,
                meaning: "a sanitizer (ThreadSanitizer) reported an error and stopped the scenario's process; "
                    + "the report is printed above")
        case .noResult(let status):
            OutcomeDeclaration(
                id: "no-result", grade: .forbidden,
                meaning: "the scenario's process exited with status \(status) without writing its result")
        case .notStarted(let why):
            OutcomeDeclaration(
                id: "not-started", grade: .forbidden, meaning: "the scenario's process could not be started: \(why)")
        }
    }

    /// The scenario's result: every declared outcome with the count the
    /// child reported last (`progress`, read from its progress file), or at
    /// zero when it reported none, and this one. The reason it stopped says
    /// which: counts kept, or lost.
    func result(
        for scenario: any StressScenario, seed: UInt64, replay: String, progress: ScenarioResult? = nil
    ) -> ScenarioResult {
        var rows = scenario.declaredOutcomes.map { declared in
            ScenarioResult.Row(outcome: declared, count: progress?.count(of: declared.id) ?? 0)
        }
        rows.append(ScenarioResult.Row(outcome: outcome, count: 1))
        var result = ScenarioResult(
            name: scenario.name, guarantees: scenario.guarantees, summary: scenario.summary, seed: seed,
            iterations: progress?.iterations ?? 0, seconds: progress?.seconds ?? 0, rows: rows, leaked: 0)
        let counts: String
        switch self {
        case .notStarted:
            counts = "it ran no iteration"
        case _ where progress != nil:
            counts = "the counts are those it reported last, after \(progress?.iterations ?? 0) iteration(s); "
                + "any after that were lost"
        default:
            counts = "its counts were lost: it reported none (it ended before its first batch finished)"
        }
        result.stoppedBecause = "\(outcome.id): seed \(seed); \(counts); run it alone in one process with: \(replay)"
        return result
    }

    /// Whether `signal` is one a process raises at itself on a fault (a
    /// Swift trap, an abort, a bad access), after which the Swift runtime may
    /// print a crash report; any other came from outside.
    static func isFault(_ signal: Int32) -> Bool {
        [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE].contains(signal)
    }

    /// The usual name of a signal that ends a process.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL, a Swift trap"
        case SIGTRAP: "SIGTRAP, a Swift trap"
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(signal)"
        }
    }
}

/// The results of a run so far, read by the watchdog's thread when a
/// scenario hangs.
final class ResultLog: Sendable {
    private let results = Mutex<[ScenarioResult]>([])

    func append(_ result: ScenarioResult) {
        results.withLock { $0.append(result) }
    }

    var all: [ScenarioResult] {
        results.withLock { $0 }
    }
}
