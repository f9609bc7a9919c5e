import ArgumentParser
import Foundation
import ToolSupport

/// The `Stress` program, minus its entry point: parses the command line, runs the
/// chosen scenarios, prints their tables, writes CSV and picks the exit status.
struct StressCommand: Sendable {
    /// Exit status: no forbidden outcome and no leak.
    static let success: Int32 = 0
    /// Exit status: a forbidden outcome or a leak (or a self-check that caught nothing).
    static let failure: Int32 = 1
    /// Exit status: bad command line or unusable output path.
    static let usageError: Int32 = 2
    /// Exit status: ThreadSanitizer stopped a scenario's process (with
    /// `halt_on_error=1 exitcode=66`, as `scripts/stress-tsan.sh` sets it).
    static let sanitizerReport: Int32 = 66

    /// The scenarios `--list` and a normal run see.
    let scenarios: [any StressScenario]
    /// The scenario `--self-check` runs, which must fail.
    let selfCheck: (any StressScenario)?
    /// The broken variants `--self-check` measures (and `--replay` can name).
    let brokenVariants: [BrokenVariant]
    /// Where text goes (one call per block of lines).
    let output: @Sendable (String) -> Void
    /// The program to start for each scenario of an isolated run (`--isolate`,
    /// the default): this program's own file. `nil` runs every scenario in
    /// this process whatever the options say (a test's command).
    var executablePath: String? = nil
    /// How the program is called in messages (`Stress`, or a user's own):
    /// ``programName`` unless set.
    var programName = StressCommand.programName
    /// The arguments in front of a child's own that select this tool in its
    /// executable (`["stress"]` in an executable with both tools), or none.
    var childSubcommand: [String] = []
    /// Under `--isolate`: how much longer than `--hang-seconds` a child may
    /// show no sign of life (a change of its progress file) before the parent
    /// kills it and reports it `hung`. The child's own watchdog reports a
    /// hang after `--hang-seconds` and then prints every thread's stack
    /// through gdb, which this grace leaves time for.
    var childGraceSeconds: Double = 60

    /// What messages call the program: the installed ``ToolInvocation``'s
    /// name (the executable's, or `MyEventLoop stress`), else `Stress`.
    static var programName: String {
        ToolInvocation.programName(fallback: "Stress")
    }

    /// Creates the command.
    init(
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
    func main(_ arguments: [String]) -> Int32 {
        let options: StressOptions
        do {
            options = try StressOptions.parse(arguments)
        } catch {
            if StressOptions.exitCode(for: error) == .success {
                output(StressOptions.fullMessage(for: error))
                return Self.success
            }
            output("\(programName): error: \(StressOptions.message(for: error))\nRun '\(programName) --help' for usage.")
            return Self.usageError
        }
        return run(options)
    }

    /// The scenarios `options.filters` selects (all when there is no
    /// filter), by the rule both tools share (``NameFilter``).
    /// and those `--scenario` names exactly.
    func selected(_ options: StressOptions) -> [any StressScenario] {
        if let child = options.childScenario {
            return scenarios.filter { $0.name == child }
        }
        let names = options.scenarioNames
        guard !options.filters.isEmpty || !names.isEmpty else { return scenarios }
        return scenarios.filter { scenario in
            names.contains(scenario.name)
                || (!options.filters.isEmpty && NameFilter.any(of: options.filters, selects: scenario.name))
        }
    }

    /// Runs with parsed `options`; returns the exit status.
    func run(_ options: StressOptions) -> Int32 {
        if options.list {
            output(scenarios.map { "\($0.name)  [guarantees \($0.guarantees), \($0.actorCount) actors]\n    \($0.summary)" }
                .joined(separator: "\n"))
            return Self.success
        }
        if let replay = options.replay {
            return runReplay(replay, options)
        }
        if let path = options.childCSV {
            // The header first: its parent then knows the scenario started.
            guard write(ResultCSV.render([]), to: path, quietly: true) else { return Self.usageError }
        }
        let seed = options.seed ?? UInt64.random(in: 0...UInt64.max)
        var runner = StressRunner(limit: options.limit, seed: seed, stopAtFirstForbidden: options.stopAtFirstForbidden)
        if options.selfCheck {
            return runSelfCheck(runner, options)
        }
        if let unknown = options.scenarioNames.first(where: { name in !scenarios.contains { $0.name == name } }) {
            output("\(programName): error: --scenario: no scenario is named '\(unknown)' (it takes a whole name, "
                + "as --list prints it; --filter takes parts of names)")
            return Self.usageError
        }
        let chosen = selected(options)
        guard !chosen.isEmpty else {
            output("\(programName): error: \(options.filters.map { "'\($0)'" }.joined(separator: " or ")) selects no scenario "
                + "(a text selects a name it equals, or whole words starting a dot-separated part of it); see --list")
            return Self.usageError
        }
        if let strategy = options.explore {
            return runExploration(chosen, strategy: strategy, seed: seed, options)
        }
        if isolating(options) {
            output("\(programName): \(chosen.count) scenario(s), \(describe(options.limit)) each, seed \(seed), each in a "
                + "process of its own (replay with --seed \(seed); --no-isolate runs them in one process)\n")
            let (status, results) = runIsolated(chosen, seed: seed, options)
            if status != Self.usageError {
                output(ResultTable.summary(results))
            }
            return status
        }
        if !options.isChild {
            output("\(programName): \(chosen.count) scenario(s), \(describe(options.limit)) each, seed \(seed) (replay with --seed \(seed))\n")
        }
        let results = ResultLog()
        runner.hangSeconds = options.hangSeconds
        runner.onHang = hangHandler(after: results, options)
        runner.onProgress = progressWriter(options)
        for scenario in chosen {
            let result = runner.run(scenario)
            results.append(result)
            output(ResultTable.render(result) + replayLine(for: result, options) + "\n")
            // After every scenario, not once at the end: a scheduler that
            // traps in a later scenario does not take these results with it.
            if let path = options.resultCSVPath,
                !write(ResultCSV.render(results.all), to: path, quietly: options.isChild) {
                return Self.usageError
            }
        }
        return finish(results.all, options)
    }

    /// Whether each scenario runs in a child process of its own.
    private func isolating(_ options: StressOptions) -> Bool {
        options.isolate && !options.isChild && executablePath != nil
    }

    /// The summary (not in a child, whose parent prints it) and the exit status.
    private func finish(_ results: [ScenarioResult], _ options: StressOptions) -> Int32 {
        if !options.isChild {
            output(ResultTable.summary(results))
        }
        return results.contains { $0.verdict == .failed } ? Self.failure : Self.success
    }

    /// What a watchdog calls with a hung scenario's result: `reportHang`
    /// after the results already in `log`.
    private func hangHandler(after log: ResultLog, _ options: StressOptions) -> @Sendable (ScenarioResult) -> Void {
        let csvPath = options.resultCSVPath, isChild = options.isChild
        return { hung in
            reportHang(
                hung, after: log.all + [hung], csvPath: csvPath, isChild: isChild,
                replay: replayCommand(hung.name, seed: hung.seed, options))
        }
    }

    /// In a child of an isolated run, what writes its counts so far to its
    /// progress file (its parent's source of the counts if it dies, and of
    /// its signs of life); otherwise `nil`.
    private func progressWriter(_ options: StressOptions) -> (@Sendable (ScenarioResult) -> Void)? {
        guard let path = options.childProgressPath else { return nil }
        return { partial in
            try? ResultCSV.render([partial]).write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// Under a failed scenario's table: the command that runs it alone again
    /// with the same choices; empty for any other.
    private func replayLine(for result: ScenarioResult, _ options: StressOptions) -> String {
        guard result.verdict == .failed else { return "" }
        return "\n    run it alone again with: \(replayCommand(result.name, seed: result.seed, options))"
    }

    /// Reports a hung scenario, with every thread's stack, and ends the
    /// process: the hung threads cannot be taken back. Runs on the watchdog's thread.
    private func reportHang(
        _ hung: ScenarioResult, after results: [ScenarioResult], csvPath: String?, isChild: Bool, replay: String
    ) -> Never {
        output(ResultTable.render(hung) + "\n    run it alone again with: \(replay)")
        if let path = csvPath {
            _ = write(ResultCSV.render(results), to: path, quietly: isChild)
        }
        output("    every thread's stack at the hang (the actors' threads run StressRunner's batches; "
            + "the scheduler's threads run its queue):\n" + ThreadStacks.dump() + "\n")
        if !isChild {
            output("The hung threads cannot be taken back, so the run ends here; run with --isolate (the default) "
                + "to go on with the next scenario.")
            output(ResultTable.summary(results))
        }
        exit(Self.failure)
    }

    /// Runs each scenario in a child process (this program with
    /// `--child-scenario`), so that a trap or a sanitizer's stop is one
    /// scenario's reported outcome and the others still run.
    ///
    /// - Returns: The exit status (``sanitizerReport`` when a sanitizer
    ///   stopped a child, else ``failure`` for any failed scenario), and the
    ///   results; the caller prints the summary.
    private func runIsolated(
        _ chosen: [any StressScenario], seed: UInt64, _ options: StressOptions
    ) -> (status: Int32, results: [ScenarioResult]) {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("stress-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            output("\(programName): error: cannot make a folder for the scenarios' results in \(folder.path): "
                + "\(error.localizedDescription); run with --no-isolate")
            return (Self.usageError, [])
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        var results: [ScenarioResult] = []
        var sanitizerStopped = false
        for (index, scenario) in chosen.enumerated() {
            let csv = folder.appendingPathComponent("\(index).csv").path
            let progress = StressOptions.progressPath(forResult: csv)
            let arguments = childArguments(scenario.name, seed: seed, csv: csv, options)
            let silence = options.hangSeconds + childGraceSeconds
            var child = ChildRun.run(
                executable: executablePath ?? "", arguments: arguments, progressPath: progress, silenceSeconds: silence)
            // A child killed before it started its scenario (it writes the
            // CSV's header first) died in process start-up, not in the code
            // under test: ThreadSanitizer's hook of the spawn can fail in a
            // busy process. That is tried again, twice at most.
            for _ in 0..<2 where child.killedBySignal && !FileManager.default.fileExists(atPath: csv) {
                output("\(programName): the process for \(scenario.name) was killed by signal \(child.status) before "
                    + "it started the scenario; starting it again")
                child = ChildRun.run(
                    executable: executablePath ?? "", arguments: arguments, progressPath: progress,
                    silenceSeconds: silence)
            }
            let result: ScenarioResult
            switch child.ending(csv: csv) {
            case .result(let written):
                result = written
            case .abnormal(let ending):
                sanitizerStopped = sanitizerStopped || ending.isSanitizerStop
                let reported = (try? String(contentsOfFile: progress, encoding: .utf8))
                    .flatMap { try? ResultCSV.parse($0) }?.first
                result = ending.result(
                    for: scenario, seed: seed, replay: replayCommand(scenario.name, seed: seed, options),
                    progress: reported)
                output(ResultTable.render(result) + "\n")
            }
            results.append(result)
            if let path = options.csvPath, !write(ResultCSV.render(results), to: path) {
                return (Self.usageError, results)
            }
        }
        if sanitizerStopped {
            return (Self.sanitizerReport, results)
        }
        return (results.contains { $0.verdict == .failed } ? Self.failure : Self.success, results)
    }

    /// The child's command line: the run's options for one scenario
    /// (``StressOptions/childOptions(scenario:seed:csv:)``), after the tool's subcommand.
    private func childArguments(_ name: String, seed: UInt64, csv: String, _ options: StressOptions) -> [String] {
        childSubcommand + options.childArguments(scenario: name, seed: seed, csv: csv)
    }

    /// How to run one scenario again, alone and in one process, with the
    /// same choices (``StressOptions/replayOptions(scenario:seed:)``): that
    /// scenario's exact name, the seed, and every option that changes what
    /// runs (the limit, the watchdog's bound, stopping at the first
    /// forbidden outcome, the strategy and its parameter).
    func replayCommand(_ name: String, seed: UInt64, _ options: StressOptions) -> String {
        ([programName] + options.replayArguments(scenario: name, seed: seed)).joined(separator: " ")
    }

    private func runSelfCheck(_ runner: StressRunner, _ options: StressOptions) -> Int32 {
        guard let selfCheck else {
            output("\(programName): error: this build has no self-check scenario")
            return Self.usageError
        }
        output("\(programName) --self-check: running \(selfCheck.name) against a deliberately broken disposable; "
            + "the harness must report it (\(describe(runner.limit)), seed \(runner.seed))\n")
        let result = runner.run(selfCheck)
        output(ResultTable.render(result, brokenOnPurpose: true) + "\n")
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
            output("\(programName): error: --explore needs the library's sync points, which this build lacks. Build Stress with "
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
        if !options.isChild {
            output("\(programName) --explore \(strategy.rawValue): \(explorable.count) scenario(s), "
                + "\(describe(options.explorationLimit, unit: "schedules")) each, \(settings.strategyDescription), seed \(seed) "
                + "(replay with --seed \(seed))\n")
        }
        let code: Int32
        let results: [ScenarioResult]
        if isolating(options) {
            (code, results) = runIsolated(explorable, seed: seed, options)
            if code == Self.usageError { return code }
        } else {
            let log = ResultLog()
            settings.hangSeconds = options.hangSeconds
            settings.onHang = hangHandler(after: log, options)
            settings.onProgress = progressWriter(options)
            for scenario in explorable {
                let result = Explorer(settings).run(scenario)
                log.append(result)
                output(ResultTable.render(result) + replayLine(for: result, options) + "\n")
            }
            results = log.all
            if let path = options.resultCSVPath,
                !write(ResultCSV.render(results), to: path, quietly: options.isChild) {
                return Self.usageError
            }
            code = results.contains { $0.verdict == .failed } ? Self.failure : Self.success
        }
        guard !options.isChild else { return code }
        if !skipped.isEmpty {
            output("Not explorable (run on real threads instead):\n" + skipped.map {
                "  \($0.name): \($0.explorationBlocker ?? "")"
            }.joined(separator: "\n") + "\n")
        }
        output(ResultTable.summary(results))
        return code
    }

    private func runReplay(_ text: String, _ options: StressOptions) -> Int32 {
        let schedule: Schedule
        do {
            schedule = try Schedule(parsing: text)
        } catch {
            output("\(programName): error: --replay: \(error.description)")
            return Self.usageError
        }
        let candidates = scenarios + brokenVariants.map(\.scenario)
        guard let scenario = candidates.first(where: { $0.name == schedule.scenario }) else {
            output("\(programName): error: --replay: no scenario is named '\(schedule.scenario)'; see --list")
            return Self.usageError
        }
        if let blocker = scenario.explorationBlocker {
            output("\(programName): error: --replay: \(scenario.name) cannot run under a schedule controller: \(blocker)")
            return Self.usageError
        }
        let threads = scenario.actorCount + scenario.explorationWorkers
        guard schedule.choices.allSatisfy({ $0 < threads }) else {
            output("\(programName): error: --replay: \(scenario.name) has \(threads) threads (a to "
                + "\(Character(UnicodeScalar(UInt8(96 + threads))))); the schedule names more")
            return Self.usageError
        }
        if let build = schedule.build, build != Exploration.buildIdentity {
            output("\(programName): error: --replay: the schedule was recorded on a build with \(build), this build has "
                + "\(Exploration.buildIdentity): its sync points differ, so the replay would not follow the recorded "
                + "steps; replay it on a build with \(build)")
            return Self.usageError
        }
        let times = options.iterations ?? 1
        let replays = Self.replay(schedule, on: scenario, times: times)
        if let divergence = replays.first(where: { $0.divergence != nil })?.divergence {
            output("\(programName): error: --replay: \(divergence): the schedule does not fit this build of "
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
        output("\(programName) --replay \(schedule) (\(scenario.name), \(replays.count) replay(s)):")
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

    private func write(_ text: String, to path: String, quietly: Bool = false) -> Bool {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            if !quietly {
                output("Wrote \(path)")
            }
            return true
        } catch {
            output("\(programName): error: cannot write CSV to '\(path)': \(error.localizedDescription)")
            return false
        }
    }
}
