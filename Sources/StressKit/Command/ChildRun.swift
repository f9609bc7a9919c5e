import Foundation
import Synchronization

/// One scenario run in a child process by an isolated run: how it ended.
struct ChildRun {
    /// The child's exit status, or the signal that killed it.
    let status: Int32
    /// Whether a signal ended the child.
    let killedBySignal: Bool
    /// Why the child could not be started, if it could not.
    let launchError: String?

    /// Starts `executable` with `arguments`, its standard output and error
    /// the parent's own (so its table, its stacks and a sanitizer's report
    /// appear where the parent's text does), and waits for it.
    static func run(executable: String, arguments: [String]) -> ChildRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            return ChildRun(status: -1, killedBySignal: false, launchError: error.localizedDescription)
        }
        process.waitUntilExit()
        return ChildRun(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            launchError: nil)
    }

    /// What the child left: its result, read from `csv`, when it ended by
    /// itself (status 0 or 1) and wrote one; otherwise how it ended.
    func ending(csv: String) -> Ending {
        if let launchError {
            return .abnormal(.notStarted(launchError))
        }
        if killedBySignal {
            return .abnormal(.signal(status))
        }
        if status == StressCommand.sanitizerReport {
            return .abnormal(.sanitizer)
        }
        guard status == StressCommand.success || status == StressCommand.failure,
            let text = try? String(contentsOfFile: csv, encoding: .utf8),
            let results = try? ResultCSV.parse(text), results.count == 1
        else {
            return .abnormal(.noResult(status))
        }
        return .result(results[0])
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

    /// ThreadSanitizer (or another sanitizer with `exitcode=66`) stopped it.
    var isSanitizerStop: Bool { self == .sanitizer }

    /// The forbidden outcome this ending is.
    var outcome: OutcomeDeclaration {
        switch self {
        case .signal(let signal):
            OutcomeDeclaration(
                id: "crashed", grade: .forbidden,
                meaning: "the scenario's process was killed by signal \(signal) (\(Self.name(of: signal))): a trap "
                    + "in the scheduler, the library or the scenario; the stack is printed above")
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

    /// The scenario's result: every declared outcome at zero, and this one.
    func result(for scenario: any StressScenario, seed: UInt64, replay: String) -> ScenarioResult {
        var rows = scenario.declaredOutcomes.map { ScenarioResult.Row(outcome: $0, count: 0) }
        rows.append(ScenarioResult.Row(outcome: outcome, count: 1))
        var result = ScenarioResult(
            name: scenario.name, guarantees: scenario.guarantees, summary: scenario.summary, seed: seed,
            iterations: 0, seconds: 0, rows: rows, leaked: 0)
        result.stoppedBecause = "\(outcome.id): seed \(seed); run it alone in one process with: \(replay)"
        return result
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
