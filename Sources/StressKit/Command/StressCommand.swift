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
    /// The broken variants `--self-check` measures (and `--replay` can name).
    public let brokenVariants: [BrokenVariant]
    /// Where text goes (one call per block of lines).
    public let output: @Sendable (String) -> Void

    /// Creates the command.
    public init(
        scenarios: [any StressScenario],
        selfCheck: (any StressScenario)? = nil,
        brokenVariants: [BrokenVariant] = [],
        output: @escaping @Sendable (String) -> Void
    ) {
        self.scenarios = scenarios
        self.selfCheck = selfCheck
        self.brokenVariants = brokenVariants
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
        if let replay = options.replay {
            return runReplay(replay, options)
        }
        let seed = options.seed ?? UInt64.random(in: 0...UInt64.max)
        let runner = StressRunner(limit: options.limit, seed: seed, stopAtFirstForbidden: options.stopAtFirstForbidden)
        if options.selfCheck {
            return runSelfCheck(runner, options)
        }
        let chosen = selected(options)
        guard !chosen.isEmpty else {
            output("Stress: error: no scenario name contains \(options.filters.map { "'\($0)'" }.joined(separator: " or ")); see --list")
            return Self.usageError
        }
        if let strategy = options.explore {
            return runExploration(chosen, strategy: strategy, seed: seed, options)
        }
        output("Stress: \(chosen.count) scenario(s), \(describe(options.limit)) each, seed \(seed) (replay with --seed \(seed))\n")
        var results: [ScenarioResult] = []
        for scenario in chosen {
            let result = runner.run(scenario)
            results.append(result)
            output(ResultTable.render(result) + "\n")
            // After every scenario, not once at the end: a scheduler that
            // traps in a later scenario does not take these results with it.
            if let path = options.csvPath, !write(ResultCSV.render(results), to: path) {
                return Self.usageError
            }
        }
        output(ResultTable.summary(results))
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
        guard result.verdict == .failed else {
            output("Self-check FAILED: the broken disposable went unnoticed; the harness cannot be trusted.")
            return Self.failure
        }
        output("Self-check passed: the harness caught the broken disposable "
            + "(\(result.forbiddenCount) forbidden outcome(s), \(result.leaked) leaked instance(s)).\n")
        guard !brokenVariants.isEmpty else { return Self.success }
        let table = DetectionTable(
            runs: options.detectionRuns, budgetSeconds: options.detectionSeconds, seed: runner.seed,
            pctDepth: options.pctDepth, preemptionBound: options.preemptions)
        let (text, passed) = table.render(brokenVariants)
        output(text + "\n")
        if !Exploration.libraryIsInstrumented {
            output("(The broken variants pass the harness's own sync points, so exploration works in any build.)")
        }
        let required = brokenVariants.filter(\.explorationMustFind).map(\.label)
        if passed {
            output("Self-check passed: every exploration strategy found \(required.joined(separator: ", ")) in every run.")
            return Self.success
        }
        output("Self-check FAILED: an exploration strategy missed \(required.joined(separator: ", ")) in some run "
            + "(see the table); exploration cannot be trusted.")
        return Self.failure
    }

    private func runExploration(
        _ chosen: [any StressScenario], strategy: ExplorationStrategyKind, seed: UInt64, _ options: StressOptions
    ) -> Int32 {
        guard Exploration.libraryIsInstrumented else {
            output("Stress: error: --explore needs the library's sync points, which this build lacks. Build Stress with "
                + "'swift build -c release --traits Exploration --scratch-path .build-explore --product Stress' "
                + "and run that binary.")
            return Self.usageError
        }
        let explorable = chosen.filter { $0.explorationBlocker == nil }
        let skipped = chosen.filter { $0.explorationBlocker != nil }
        var settings = ExplorationSettings(strategy: strategy, seed: seed, limit: options.explorationLimit)
        settings.pctDepth = options.pctDepth
        settings.preemptionBound = options.preemptions
        settings.stopAtFirstFailure = options.stopAtFirstForbidden
        output("Stress --explore \(strategy.rawValue): \(explorable.count) scenario(s), \(describe(options.explorationLimit, unit: "schedules")) "
            + "each, \(settings.strategyDescription), seed \(seed) (replay with --seed \(seed))\n")
        var results: [ScenarioResult] = []
        for scenario in explorable {
            let result = Explorer(settings).run(scenario)
            results.append(result)
            output(ResultTable.render(result) + "\n")
        }
        if !skipped.isEmpty {
            output("Not explorable (run on real threads instead):\n" + skipped.map {
                "  \($0.name): \($0.explorationBlocker ?? "")"
            }.joined(separator: "\n") + "\n")
        }
        output(ResultTable.summary(results))
        if let path = options.csvPath, !write(ResultCSV.render(results), to: path) {
            return Self.usageError
        }
        return results.contains { $0.verdict == .failed } ? Self.failure : Self.success
    }

    private func runReplay(_ text: String, _ options: StressOptions) -> Int32 {
        let schedule: Schedule
        do {
            schedule = try Schedule(parsing: text)
        } catch {
            output("Stress: error: --replay: \(error.description)")
            return Self.usageError
        }
        let candidates = scenarios + brokenVariants.map(\.scenario)
        guard let scenario = candidates.first(where: { $0.name == schedule.scenario }) else {
            output("Stress: error: --replay: no scenario is named '\(schedule.scenario)'; see --list")
            return Self.usageError
        }
        if let blocker = scenario.explorationBlocker {
            output("Stress: error: --replay: \(scenario.name) cannot run under a schedule controller: \(blocker)")
            return Self.usageError
        }
        let threads = scenario.actorCount + scenario.explorationWorkers
        guard schedule.choices.allSatisfy({ $0 < threads }) else {
            output("Stress: error: --replay: \(scenario.name) has \(threads) threads (a to "
                + "\(Character(UnicodeScalar(UInt8(96 + threads))))); the schedule names more")
            return Self.usageError
        }
        if let build = schedule.build, build != Exploration.buildIdentity {
            output("Stress: error: --replay: the schedule was recorded on a build with \(build), this build has "
                + "\(Exploration.buildIdentity): its sync points differ, so the replay would not follow the recorded "
                + "steps; replay it on a build with \(build)")
            return Self.usageError
        }
        let times = options.iterations ?? 1
        let replays = Self.replay(schedule, on: scenario, times: times)
        if let divergence = replays.first(where: { $0.divergence != nil })?.divergence {
            output("Stress: error: --replay: \(divergence): the schedule does not fit this build of "
                + "\(scenario.name), so its outcome is no verdict")
            return Self.usageError
        }
        var tally: [(OutcomeDeclaration, Int)] = []
        for replay in replays {
            if let index = tally.firstIndex(where: { $0.0 == replay.outcome }) {
                tally[index].1 += 1
            } else {
                tally.append((replay.outcome, 1))
            }
        }
        output("Stress --replay \(schedule) (\(scenario.name), \(replays.count) replay(s)):")
        if schedule.runnable == nil {
            output("    note: this schedule is in the older text, which records neither the build nor the runnable "
                + "threads of each step: the replay could not check that it followed the recorded schedule "
                + "(record it again for a checked replay)")
        }
        for (outcome, count) in tally {
            output("    \(count) x \(outcome.id) [\(outcome.grade.label)] \(outcome.meaning)")
        }
        if !Exploration.libraryIsInstrumented && !scenario.name.hasPrefix("self-check.") {
            output("    note: this build's library has no sync points (build with --traits Exploration)")
        }
        return tally.contains { $0.0.grade == .forbidden } ? Self.failure : Self.success
    }

    private static func replay<Scenario: StressScenario>(
        _ schedule: Schedule, on scenario: Scenario, times: Int
    ) -> [ReplayResult] {
        Explorer.replay(schedule, on: scenario, times: times)
    }

    private func describe(_ limit: RunLimit, unit: String = "iterations") -> String {
        switch limit {
        case .iterations(let count): "\(count) \(unit)"
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
