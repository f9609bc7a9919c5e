import ArgumentParser
import ToolSupport

/// The command line of `Stress`, parsed by swift-argument-parser (as
/// BenchRunner's is), which also generates `--help`.
///
/// A bad value is reported with the option and what it needs; ``StressCommand``
/// turns any parse error into a message and exit status 2.
struct StressOptions: ParsableCommand {
    /// Iterations per scenario when neither `--iterations` nor `--duration` is given.
    static let defaultIterations = 20_000

    /// The name, summary and exit statuses shown by `--help`; the name is
    /// the program's (``StressCommand/programName``), read once, after the
    /// entry point installed it.
    static let configuration = CommandConfiguration(
        commandName: StressCommand.programName,
        abstract: "Hammers the racy guarantees of the Schedulers library on its schedulers and every registered one.",
        discussion: """
            Covers guarantees 2 to 8 and 10 (progress), numbered as in Sources/Schedulers/Schedulers.docc/Guarantees.md: \
            each scenario runs its actors concurrently, many times, and counts each outcome.

            --explore runs every scenario one thread at a time under a schedule controller \
            (build with --traits Exploration so the library's locks, atomics, queue hand-offs, timers \
            and clock reads are its sync points: work handed to a queue runs on the controller's workers \
            in the queue's order, a timer is virtual, fired at any step until it is cancelled, the clock \
            is virtual, moved only by a timer's fire, and the Swift Concurrency scenarios' tasks run \
            their jobs on the workers through a task executor); every forbidden outcome prints a \
            schedule that --replay reproduces. --self-check also prints how often and how fast real \
            threads and each strategy find several broken disposables.

            A scenario's set-up (its scheduler's make), every batch of iterations (and every explored \
            schedule) and its tear-down run under a watchdog: one that does not finish within --hang-seconds \
            is a forbidden 'hung' outcome, printed with every thread's stack (through gdb) and the seed. Each \
            scenario runs in a child process of its own (--isolate, the default): a scenario that traps is a \
            forbidden 'crashed' outcome with its signal and the counts it had reported, one that hangs ends \
            its own process, a child that shows no progress for --hang-seconds plus a grace is killed and \
            reported 'hung', and the next scenario still runs. Every failed scenario prints the command that \
            runs it alone again with the same choices.

            Scenarios named reference.* run the platform's own executors (the main actor, a default actor, \
            the global concurrent executor) through the same scenarios: their forbidden outcomes are \
            reported, never gated.

            EXIT STATUS: 0 no forbidden outcome and no leak; 1 a forbidden outcome (a hang or a crash \
            included) or a leak (or a deadlock under --explore; with --self-check, a broken disposable went \
            unnoticed; with --replay, the schedule reproduced a forbidden outcome); 2 bad command line, a \
            schedule that does not fit, an unwritable CSV path or a refused registration (a bad name, a name \
            taken, an isCurrent that fails its check); 66 ThreadSanitizer stopped a scenario's process (the \
            other scenarios still ran).
            """)

    /// `--list`: print the scenarios and exit.
    @ArgumentParser.Flag(help: "List the scenarios and exit.")
    var list = false

    /// `--filter`, as given (each may hold several comma-separated texts); see ``filters``.
    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp(
            "Run only scenarios whose name <text> selects (repeatable, or comma-separated).",
            discussion: NameFilter.ruleSummary, valueName: "text"))
    var filterArguments: [String] = []

    /// `--scenario`, as given: names a scenario must equal exactly (each may
    /// hold several comma-separated names); see ``scenarioNames``.
    @Option(
        name: .customLong("scenario"),
        help: ArgumentHelp(
            "Run the scenario named exactly <name> (repeatable, or comma-separated); unlike --filter, "
                + "'dispose-vs-observeOn.serial-dispatch' does not also select its -generic-path scenario.",
            valueName: "name"))
    var scenarioArguments: [String] = []

    /// `--iterations`, per scenario.
    @Option(
        help: ArgumentHelp("Iterations per scenario (default \(defaultIterations)).", valueName: "n"),
        transform: StressOptions.positiveCount)
    var iterations: Int?

    /// `--duration`, per scenario, in seconds.
    @Option(
        // Unconditional: `--duration -1` is a bad value to explain, not a missing one.
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run each scenario for this long instead (e.g. 0.5; at most \(maximumSecondsText)).", valueName: "seconds"),
        transform: StressOptions.seconds)
    var duration: Double?

    /// `--seed`; `nil` means pick one and print it.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seed of the choices of scheduler, order and delays (decimal or 0x-hex); "
                + "the same seed replays the same choices.",
            valueName: "n"),
        transform: StressOptions.seedValue)
    var seed: UInt64?

    /// `--stop-at-first-forbidden`: end each scenario at its first forbidden outcome.
    @ArgumentParser.Flag(
        help: "End each scenario at its first forbidden outcome (on real threads, after the batch that saw it).")
    var stopAtFirstForbidden = false

    /// `--csv`: where to write the results.
    @Option(name: .customLong("csv"), help: ArgumentHelp("Also write the results as CSV to <path>.", valueName: "path"))
    var csvPath: String?

    /// `--self-check`: prove the harness can fail.
    @ArgumentParser.Flag(
        help: "Run a scenario against a deliberately broken disposable; exit 0 only if the harness catches it.")
    var selfCheck = false

    /// `--explore`: run every scenario under a schedule controller instead of real threads.
    @Option(
        help: ArgumentHelp(
            "Run each scenario one thread at a time under a schedule controller, the schedules picked by "
                + "<strategy>: random, pct or exhaustive (needs a build with --traits Exploration). "
                + "--iterations counts schedules (default \(defaultSchedules)).",
            valueName: "strategy"),
        transform: StressOptions.strategy)
    var explore: ExplorationStrategyKind?

    /// `--pct-depth`: PCT's bug depth.
    @Option(
        help: ArgumentHelp(
            "PCT's bug depth d: d - 1 priority change points per schedule (1 to \(maximumPCTDepth), default \(defaultPCTDepth)).",
            valueName: "d"),
        transform: StressOptions.pctDepthValue)
    var pctDepth: Int = defaultPCTDepth

    /// `--preemptions`: exhaustive search's bound.
    @Option(
        help: ArgumentHelp(
            "Exhaustive search's most preemptions per schedule (default \(defaultPreemptions)).", valueName: "n"),
        transform: StressOptions.preemptionCount)
    var preemptions: Int = defaultPreemptions

    /// `--replay`: a schedule printed beside a forbidden outcome.
    @Option(
        help: ArgumentHelp(
            "Replay a schedule printed beside a forbidden outcome (scenario:seed:runs:build:steps); "
                + "--iterations replays it that many times.",
            valueName: "schedule"))
    var replay: String?

    /// `--detection-runs`: the self-check's runs per variant and method.
    @Option(
        help: ArgumentHelp(
            "Self-check: detection runs per broken variant and method (default \(defaultDetectionRuns)).", valueName: "n"),
        transform: StressOptions.positiveCount)
    var detectionRuns: Int = defaultDetectionRuns

    /// `--detection-seconds`: the self-check's longest detection run.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Self-check: the longest one detection run may take (default \(Int(defaultDetectionSeconds))).",
            valueName: "seconds"),
        transform: StressOptions.seconds)
    var detectionSeconds: Double = defaultDetectionSeconds

    /// `--isolate` (the default) / `--no-isolate`: each scenario in a child process.
    @ArgumentParser.Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Run each scenario in a child process of its own (the default), so that a scenario that traps, or "
                + "that ThreadSanitizer stops, is reported with its signal and the others still run; "
                + "--no-isolate runs them all in this process."))
    var isolate = true

    /// `--hang-seconds`: the watchdog's bound.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The longest one batch of iterations (or one explored schedule) may take before it is reported as "
                + "a forbidden 'hung' outcome, with every thread's stack and the seed (default \(Int(defaultHangSeconds)), "
                + "at most \(maximumSecondsText)); the scenario's set-up and tear-down are watched too, and under "
                + "--isolate the parent ends a child that shows no progress for that long plus a grace for its report.",
            valueName: "seconds"),
        transform: StressOptions.seconds)
    var hangSeconds: Double = defaultHangSeconds

    /// Set by the parent of an isolated run: the one scenario this child runs.
    @Option(help: .hidden)
    var childScenario: String?

    /// Set by the parent of an isolated run: where this child writes its result CSV.
    @Option(help: .hidden)
    var childCSV: String?

    /// Where a child of an isolated run reports its counts so far, after its
    /// first batch and then a few times a second: beside its result file.
    /// Its parent reads it when the child dies without a result, and takes
    /// its changes as the child's signs of life.
    var childProgressPath: String? { childCSV.map(Self.progressPath(forResult:)) }

    /// The progress file that goes with a child's result file.
    static func progressPath(forResult csv: String) -> String { csv + ".progress" }

    /// Whether this run is one scenario of an isolated parent's.
    var isChild: Bool { childScenario != nil }

    /// Where the results go: the parent's file for a child, else `--csv`.
    var resultCSVPath: String? { childCSV ?? csvPath }

    /// Schedules per scenario under `--explore` when neither `--iterations` nor `--duration` is given.
    static let defaultSchedules = 2_000

    /// The watchdog's bound when `--hang-seconds` is not given: three times
    /// a registration's default stall timeout, so that a scheduler that
    /// settles late is graded by its scenario, not taken for a hang.
    static let defaultHangSeconds: Double = 30

    /// PCT's bug depth when `--pct-depth` is not given.
    static let defaultPCTDepth = 3

    /// Exhaustive search's bound when `--preemptions` is not given.
    static let defaultPreemptions = 2

    /// The self-check's runs per variant and method when `--detection-runs` is not given.
    static let defaultDetectionRuns = 5

    /// The self-check's longest detection run when `--detection-seconds` is not given.
    static let defaultDetectionSeconds: Double = 2

    /// The limit per scenario under `--explore` (schedules) or `--replay` (replays).
    var explorationLimit: RunLimit {
        if let duration { return .duration(seconds: duration) }
        return .iterations(iterations ?? Self.defaultSchedules)
    }

    /// The names every `--scenario` gives, split at commas.
    var scenarioNames: [String] {
        scenarioArguments.flatMap { $0.split(separator: ",").map(String.init) }
    }

    /// The scenario-name texts of every `--filter`, split at commas.
    var filters: [String] {
        filterArguments.flatMap { $0.split(separator: ",").map(String.init) }
    }

    /// `--iterations` or `--duration`, per scenario.
    var limit: RunLimit {
        if let duration { return .duration(seconds: duration) }
        return .iterations(iterations ?? Self.defaultIterations)
    }

    /// Rejects what each option cannot say alone.
    func validate() throws {
        if !filterArguments.isEmpty && filters.isEmpty {
            throw ValidationError("--filter needs a non-empty text")
        }
        if !scenarioArguments.isEmpty && scenarioNames.isEmpty {
            throw ValidationError("--scenario needs a scenario name (see --list)")
        }
        if csvPath == "" {
            throw ValidationError("--csv needs a file path")
        }
        if iterations != nil && duration != nil {
            throw ValidationError("give either --iterations or --duration, not both")
        }
        if replay != nil && (explore != nil || selfCheck) {
            throw ValidationError("--replay runs one schedule: give it without --explore and --self-check")
        }
        if replay != nil && duration != nil {
            throw ValidationError("--replay repeats a schedule --iterations times, not for a --duration")
        }
        if explore != nil && selfCheck {
            throw ValidationError("--self-check measures every strategy itself: give it without --explore")
        }
        if (childScenario == nil) != (childCSV == nil) {
            throw ValidationError("--child-scenario and --child-csv go together (a parent run sets both)")
        }
    }

    static func positiveCount(_ text: String) throws -> Int {
        guard let count = Int(text), count > 0 else {
            throw ValidationError("needs a positive whole number")
        }
        return count
    }

    static func preemptionCount(_ text: String) throws -> Int {
        guard let count = Int(text), (0...10).contains(count) else {
            throw ValidationError("needs a whole number from 0 to 10")
        }
        return count
    }

    static func strategy(_ text: String) throws -> ExplorationStrategyKind {
        guard let kind = ExplorationStrategyKind(rawValue: text) else {
            throw ValidationError(
                "needs one of " + ExplorationStrategyKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kind
    }

    /// The longest time any option takes, in seconds (about 11.6 days): far
    /// below what the clocks' nanosecond counts hold (about 584 years), so
    /// every sum of it with the clock's reading is exact.
    static let maximumSeconds: Double = 1_000_000

    /// ``maximumSeconds`` as the messages and the help print it.
    static let maximumSecondsText = "1000000 s"

    /// The deepest PCT bug `--pct-depth` takes: more change points than a
    /// schedule's step budget has steps would never be reached.
    static let maximumPCTDepth = 100

    static func pctDepthValue(_ text: String) throws -> Int {
        guard let depth = Int(text), (1...maximumPCTDepth).contains(depth) else {
            throw ValidationError("needs a whole number from 1 to \(maximumPCTDepth)")
        }
        return depth
    }

    /// A number of seconds in (0, ``maximumSeconds``]: not zero, negative,
    /// NaN, infinite or so large that the deadlines computed from it
    /// could not be represented.
    static func seconds(_ text: String) throws -> Double {
        guard let seconds = Double(text), seconds > 0, seconds <= maximumSeconds else {
            throw ValidationError("needs a number of seconds greater than 0 and at most \(maximumSecondsText)")
        }
        return seconds
    }

    static func seedValue(_ text: String) throws -> UInt64 {
        let value =
            text.hasPrefix("0x") || text.hasPrefix("0X") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let value else {
            throw ValidationError("needs a whole number from 0 to 2^64-1 (decimal or 0x-hex)")
        }
        return value
    }
}

/// How parsed options become a command line again: the one way a child
/// process of an isolated run gets its options (``childArguments(scenario:seed:csv:)``)
/// and the one way a failed scenario's command to run it again is written
/// (``replayArguments(scenario:seed:)``).
extension StressOptions {
    /// Every option the parser knows, in the order a command line gives them
    /// (a replay command reads: the selection, the seed, the limit, the
    /// watchdog, the strategy).
    static var encoding: OptionEncoding<StressOptions> {
        OptionEncoding([
            .flag("list", \.list),
            .invertibleFlag("isolate", \.isolate, default: true),
            .repeated("filter", \.filterArguments),
            .repeated("scenario", \.scenarioArguments),
            .optional("seed", \.seed),
            .optional("iterations", \.iterations),
            .optional("duration", \.duration),
            .valued("hang-seconds", \.hangSeconds, default: defaultHangSeconds),
            .flag("stop-at-first-forbidden", \.stopAtFirstForbidden),
            .optionalChoice("explore", \.explore),
            .valued("pct-depth", \.pctDepth, default: defaultPCTDepth),
            .valued("preemptions", \.preemptions, default: defaultPreemptions),
            .optional("csv", \.csvPath),
            .flag("self-check", \.selfCheck),
            .optional("replay", \.replay),
            .valued("detection-runs", \.detectionRuns, default: defaultDetectionRuns),
            .valued("detection-seconds", \.detectionSeconds, default: defaultDetectionSeconds),
            .optional("child-scenario", \.childScenario),
            .optional("child-csv", \.childCSV),
        ])
    }

    /// The arguments that give these options to the parser: every option
    /// not at its default, in the order of ``encoding``.
    func arguments() -> [String] {
        Self.encoding.arguments(self)
    }

    /// The options of the child that runs `scenario` for an isolated run:
    /// these, with what the parent decides set: the one scenario
    /// (`--child-scenario`, in place of `--filter` and `--scenario`), the
    /// seed the parent chose (also when it was not given), and the result
    /// file (`--child-csv`, in place of `--csv`). `--list`, `--self-check`
    /// and `--replay` never isolate, so a child has none of them.
    func childOptions(scenario: String, seed: UInt64, csv: String) -> StressOptions {
        var child = self
        child.filterArguments = []
        child.scenarioArguments = []
        child.childScenario = scenario
        child.childCSV = csv
        child.seed = seed
        child.csvPath = nil
        child.list = false
        child.selfCheck = false
        child.replay = nil
        return child
    }

    /// The child's arguments (``childOptions(scenario:seed:csv:)``), before
    /// the tool's subcommand in its executable.
    func childArguments(scenario: String, seed: UInt64, csv: String) -> [String] {
        childOptions(scenario: scenario, seed: seed, csv: csv).arguments()
    }

    /// The options that run `scenario` alone again, in one process, with
    /// the same choices: `--no-isolate`, `--scenario` with its exact name
    /// (never a `--filter`, which could select more), the seed, the limit
    /// it ran under (given even when it was the default), and every other
    /// option that changes what runs as it was. What does not change what
    /// runs is left out: the CSV (the replay must not write over the run's),
    /// the self-check's parameters, and the parameter of a strategy the run
    /// did not use.
    func replayOptions(scenario: String, seed: UInt64) -> StressOptions {
        var replay = self
        replay.isolate = false
        replay.filterArguments = []
        replay.scenarioArguments = [scenario]
        replay.seed = seed
        switch explore == nil ? limit : explorationLimit {
        case .iterations(let count):
            replay.iterations = count
            replay.duration = nil
        case .duration(let seconds):
            replay.iterations = nil
            replay.duration = seconds
        }
        replay.list = false
        replay.selfCheck = false
        replay.replay = nil
        replay.csvPath = nil
        replay.childScenario = nil
        replay.childCSV = nil
        replay.detectionRuns = Self.defaultDetectionRuns
        replay.detectionSeconds = Self.defaultDetectionSeconds
        if explore != .pct { replay.pctDepth = Self.defaultPCTDepth }
        if explore != .exhaustive { replay.preemptions = Self.defaultPreemptions }
        return replay
    }

    /// The replay's arguments (``replayOptions(scenario:seed:)``), which
    /// also spell out the watchdog's bound and the strategy's parameter at
    /// their defaults, so that the command says what the run used and
    /// replays it the same if a default changes.
    func replayArguments(scenario: String, seed: UInt64) -> [String] {
        var spelledOut: Set<String> = ["hang-seconds"]
        switch explore {
        case .pct: spelledOut.insert("pct-depth")
        case .exhaustive: spelledOut.insert("preemptions")
        case .random, nil: break
        }
        return Self.encoding.arguments(replayOptions(scenario: scenario, seed: seed), spellingOut: spelledOut)
    }
}
