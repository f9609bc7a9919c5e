import ArgumentParser
import BenchAnalysis
import BenchKit
import Foundation

/// `BenchRunner self-check`: compare's statistics checked on the committed
/// runs (``CompareSelfCheck``), at the sample sizes the documents' figures
/// come from. Parsing and printing only.
struct SelfCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "self-check",
        abstract: "Check compare's statistics: simulated comparisons and every ordered pair of the committed runs.",
        discussion: """
            Runs compare on thousands of simulated pairs of runs with the spreads of the committed runs \
            (false alarms of runs of one binary at most alpha, a fast path 20 % slower caught, the \
            correction for many series) and on every ordered pair of the committed evaluation runs, \
            each also with its fast path slowed, and checks that docs/Compare.md and docs/AtAGlance.md \
            print the simulations' lines as they are now (docs/Compare.md, "The simulation"). Every \
            draw has a fixed seed, so the outcome is the same on every run. Seconds in a release build \
            (swift run -c release BenchRunner self-check), minutes in a debug one; CI runs it. Run it \
            from the repository's root, or name the root. Exit status: 0 every check held; 1 one did \
            not (each failed assertion is printed); 2 bad input (an unknown check).
            """)

    @Option(help: ArgumentHelp("The repository's root.", valueName: "directory"))
    var root = "."

    @Option(
        name: .customLong("check"),
        help: ArgumentHelp(
            "Run only this check (repeatable): \(CompareSelfCheck.names.joined(separator: ", ")).", valueName: "name"))
    var checks: [String] = []

    func validate() throws {
        let rootURL = URL(fileURLWithPath: root)
        for needed in ["results/resolution.csv", "docs/Compare.md"]
        where !FileManager.default.fileExists(atPath: rootURL.appendingPathComponent(needed).path) {
            throw ValidationError(
                "\(rootURL.appendingPathComponent(needed).path) is missing: self-check reads the repository's "
                    + "committed runs and documents; run it from the repository's root, or name it with --root")
        }
        for name in checks where !CompareSelfCheck.names.contains(name) {
            throw ValidationError(
                "unknown check '\(name)'; the checks are \(CompareSelfCheck.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let started = ContinuousClock.now
        let outcomes = CompareSelfCheck.run(
            root: URL(fileURLWithPath: root), size: .full, only: checks.isEmpty ? nil : Set(checks),
            processes: CompareSelfCheck.quickProcesses)
        var failed = 0
        for outcome in outcomes {
            print("[\(outcome.failures.isEmpty ? "OK" : "FAILED")] \(outcome.name)")
            for line in outcome.lines { print("    \(line)") }
            for failure in outcome.failures { print("    FAILED: \(failure)") }
            failed += outcome.failures.isEmpty ? 0 : 1
        }
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        print("self-check: \(outcomes.count - failed) of \(outcomes.count) checks held (\(Int(seconds)) s).")
        if failed > 0 { throw ExitCode(1) }
    }
}

extension CompareSelfCheck {
    /// How many processes the quick suite times each benchmark in, from the
    /// active registry's catalogue (``Benchmark/processes(in:)``).
    static func quickProcesses(_ benchmark: String) -> Int {
        BenchmarkCatalog.all.first { $0.schema.name == benchmark }?.processes(in: .quick) ?? 1
    }
}
