import ArgumentParser
import Foundation

/// The `Stress` program, minus its entry point: parses the command line, runs the
/// chosen scenarios, prints their tables, writes CSV and picks the exit status.
public struct StressCommand: Sendable {
    /// Exit status: no forbidden outcome and no leak.
    public static let success: Int32 = 0
    /// Exit status: a forbidden outcome or a leak (or a self-check that caught nothing).
    public static let failure: Int32 = 1
    /// Exit status: bad command line or unusable output path.
    public static let usageError: Int32 = 2

    /// The scenarios `--list` and a normal run see.
    public let scenarios: [any StressScenario]
    /// The scenario `--self-check` runs, which must fail.
    public let selfCheck: (any StressScenario)?
    /// Where text goes (one call per block of lines).
    public let output: @Sendable (String) -> Void

    /// Creates the command.
    public init(
        scenarios: [any StressScenario],
        selfCheck: (any StressScenario)? = nil,
        output: @escaping @Sendable (String) -> Void
    ) {
        self.scenarios = scenarios
        self.selfCheck = selfCheck
        self.output = output
    }

    /// Parses `arguments` and runs; returns the exit status. `--help` prints
    /// the generated help and returns 0; any bad argument prints what is wrong
    /// and returns ``usageError``.
    public func main(_ arguments: [String]) -> Int32 {
        let options: StressOptions
        do {
            options = try StressOptions.parse(arguments)
        } catch {
            if StressOptions.exitCode(for: error) == .success {
                output(StressOptions.fullMessage(for: error))
                return Self.success
            }
            output("Stress: error: \(StressOptions.message(for: error))\nRun 'Stress --help' for usage.")
            return Self.usageError
        }
        return run(options)
    }

    /// The scenarios `options.filters` selects (all when there is no filter).
    public func selected(_ options: StressOptions) -> [any StressScenario] {
        guard !options.filters.isEmpty else { return scenarios }
        return scenarios.filter { scenario in
            options.filters.contains { scenario.name.contains($0) }
        }
    }

    /// Runs with parsed `options`; returns the exit status.
    public func run(_ options: StressOptions) -> Int32 {
        if options.list {
            output(scenarios.map { "\($0.name)  [guarantees \($0.guarantees), \($0.actorCount) actors]\n    \($0.summary)" }
                .joined(separator: "\n"))
            return Self.success
        }
        let seed = options.seed ?? UInt64.random(in: 0...UInt64.max)
        let runner = StressRunner(limit: options.limit, seed: seed)
        if options.selfCheck {
            return runSelfCheck(runner, options)
        }
        let chosen = selected(options)
        guard !chosen.isEmpty else {
            output("Stress: error: no scenario name contains \(options.filters.map { "'\($0)'" }.joined(separator: " or ")); see --list")
            return Self.usageError
        }
        output("Stress: \(chosen.count) scenario(s), \(describe(options.limit)) each, seed \(seed) (replay with --seed \(seed))\n")
        var results: [ScenarioResult] = []
        for scenario in chosen {
            let result = runner.run(scenario)
            results.append(result)
            output(ResultTable.render(result) + "\n")
        }
        output(ResultTable.summary(results))
        if let path = options.csvPath, !write(ResultCSV.render(results), to: path) {
            return Self.usageError
        }
        return results.contains { $0.verdict == .failed } ? Self.failure : Self.success
    }

    private func runSelfCheck(_ runner: StressRunner, _ options: StressOptions) -> Int32 {
        guard let selfCheck else {
            output("Stress: error: this build has no self-check scenario")
            return Self.usageError
        }
        output("Stress --self-check: running \(selfCheck.name) against a deliberately broken disposable; "
            + "the harness must report it (\(describe(runner.limit)), seed \(runner.seed))\n")
        let result = runner.run(selfCheck)
        output(ResultTable.render(result) + "\n")
        if let path = options.csvPath, !write(ResultCSV.render([result]), to: path) {
            return Self.usageError
        }
        if result.verdict == .failed {
            output("Self-check passed: the harness caught the broken disposable "
                + "(\(result.forbiddenCount) forbidden outcome(s), \(result.leaked) leaked instance(s)).")
            return Self.success
        }
        output("Self-check FAILED: the broken disposable went unnoticed; the harness cannot be trusted.")
        return Self.failure
    }

    private func describe(_ limit: RunLimit) -> String {
        switch limit {
        case .iterations(let count): "\(count) iterations"
        case .duration(let seconds): "\(seconds) s"
        }
    }

    private func write(_ text: String, to path: String) -> Bool {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            output("Wrote \(path)")
            return true
        } catch {
            output("Stress: error: cannot write CSV to '\(path)': \(error.localizedDescription)")
            return false
        }
    }
}
