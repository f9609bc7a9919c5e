import Foundation
import ToolSupport

/// The statistical self-check of `compare` (`BenchRunner self-check`): the
/// simulations that show its false-alarm rate and its power, and its
/// verdicts on every ordered pair of the committed runs, each with the
/// sample size the documents' figures come from.
///
/// They are thousands of comparisons of runs of seventy to ninety series:
/// minutes in a debug build, seconds in a release one, so CI runs them
/// through the release-built `BenchRunner self-check`, and the unit tests
/// run the same checks at ``Size/smoke`` (the machinery, not the figures).
/// Every random draw comes from a fixed seed, so a check's outcome is the
/// same on every run and in either build.
package enum CompareSelfCheck {
    /// How large the samples are.
    package enum Size: Sendable {
        /// The sample sizes the documents' figures come from, which the
        /// documents are checked against.
        case full
        /// Three comparisons a simulation (and the evaluation runs' pairs
        /// alone), for a unit test of the machinery in a debug build: too few
        /// for a statistical bound, so neither the bounds nor the documents
        /// are checked, only what holds of every comparison.
        case smoke

        func comparisons(_ full: Int) -> Int { self == .full ? full : 3 }
    }

    /// One check's outcome: the lines it prints and each assertion that did not hold.
    package struct Outcome: Sendable {
        /// The check's name (`--check` selects it).
        package let name: String
        /// What it measured, as it prints it.
        package var lines: [String] = []
        /// Each assertion that did not hold, with the figures that broke it; empty: passed.
        package var failures: [String] = []

        package init(name: String) { self.name = name }

        mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { failures.append(message()) }
        }
    }

    /// The checks' names, in the order ``run(root:size:only:)`` runs them.
    package static let names = [
        "repetition-model", "same-share", "correction", "committed-spread", "usual-level", "committed-pairs",
        "default-pairs",
    ]

    /// Runs the checks named in `only` (every one if nil) on the committed
    /// runs under `root`/results, checking the documents under `root` at
    /// ``Size/full``. A committed file that is missing or malformed is a
    /// failure of the check that reads it, never a trap. Compare judges rows
    /// by the active registry's catalogue, which must hold the standard
    /// benchmarks (as `BenchRunnerMain` activates them).
    /// `processes(benchmark)` is how many processes the quick suite times
    /// a benchmark in (`Benchmark.processes(in: .quick)`), as a simulated
    /// run takes its repetitions.
    package static func run(
        root: URL, size: Size, only: Set<String>? = nil, processes: @escaping (String) -> Int
    ) -> [Outcome] {
        let checks: [(String, (inout Outcome) throws -> Void)] = [
            ("repetition-model", { try repetitionModel(root: root, size: size, processes: processes, into: &$0) }),
            ("same-share", { try sameShare(root: root, size: size, processes: processes, into: &$0) }),
            ("correction", { correction(size: size, into: &$0) }),
            ("committed-spread", { try committedSpread(root: root, size: size, into: &$0) }),
            ("usual-level", { try usualLevel(root: root, size: size, into: &$0) }),
            ("committed-pairs", { try committedPairs(root: root, size: size, into: &$0) }),
            ("default-pairs", { try defaultPairs(root: root, size: size, into: &$0) }),
        ]
        return checks.filter { only?.contains($0.0) ?? true }.map { name, check in
            var outcome = Outcome(name: name)
            do {
                try check(&outcome)
            } catch {
                outcome.failures.append("\(error)")
            }
            return outcome
        }
    }

    /// Whether `root`/`document` holds `line` as it is; a failure message otherwise.
    package static func documentFailure(root: URL, document: String, line: String) -> String? {
        guard let text = try? String(contentsOf: root.appendingPathComponent(document), encoding: .utf8) else {
            return "\(document) could not be read under \(root.path)"
        }
        return text.contains(line) ? nil : "\(document) must print the simulation's line as it is now:\n\(line)"
    }

    private static func load(_ root: URL, _ name: String) throws -> ResultFile {
        try ResultFile.load(path: root.appendingPathComponent("results/\(name).csv").path)
    }

    /// Each of `names` read once, for checks that compare every ordered pair.
    private static func loadOnce(_ root: URL, _ names: [String]) throws -> [String: ResultFile] {
        var files: [String: ResultFile] = [:]
        for name in names where files[name] == nil {
            files[name] = try load(root, name)
        }
        return files
    }

    // MARK: - The repetition model (docs/Compare.md, "The simulation")

    /// The quick runs of one binary `results/resolution.csv` comes from
    /// (docs/Compare.md, "Calibrating the resolution").
    package static let calibrationRuns = [
        "20261126T092931Z-787b90b3c765",
        "20261126T093146Z-787b90b3c765",
        "20261126T093359Z-787b90b3c765",
        "20261126T093609Z-787b90b3c765",
        "20261126T093817Z-787b90b3c765",
        "20261126T094028Z-787b90b3c765",
        "20261126T094234Z-787b90b3c765",
    ]

    /// The default-suite runs of one binary that calibrate the default
    /// suite's series in `results/resolution.csv`, beside the quick runs
    /// (docs/Compare.md, "The resolution").
    package static let defaultCalibrationRuns: [String] = [
        "20261207T030823Z-7bdbd0092655",
        "20261207T031323Z-7bdbd0092655",
        "20261207T031821Z-7bdbd0092655",
        "20261207T032329Z-7bdbd0092655",
        "20261207T032837Z-7bdbd0092655",
        "20261207T033341Z-7bdbd0092655",
        "20261207T033837Z-7bdbd0092655",
    ]

    /// Two default runs of one binary, back to back on a quiet machine,
    /// outside the calibration: the A/A pair a user makes. They were made on
    /// the Intel Xeon host, whose calibration runs
    /// (``pairHostCalibrationRuns``) came later, of a later binary whose
    /// timing is theirs; their pairs with those runs are what a user's pairs
    /// with an earlier run do there.
    package static let defaultPairRuns: [String] = [
        "20261207T071359Z-3928d02a8897",
        "20261207T071944Z-3928d02a8897",
    ]

    /// Default runs made on the calibration runs' host by a binary whose
    /// timing is the A/A pair's, back to back: what a user's pairs of runs
    /// do there, reported by the self-check's `default-pairs`.
    package static let laterDefaultRuns: [String] = [
        "20261207T053121Z-4f7462a2550f",
        "20261207T053624Z-4f7462a2550f",
        "20261207T054141Z-4f7462a2550f",
        "20261207T054647Z-4f7462a2550f",
        "20261207T055146Z-4f7462a2550f",
        "20261207T055659Z-4f7462a2550f",
        "20261207T060210Z-4f7462a2550f",
        "20261207T060704Z-4f7462a2550f",
        "20261207T061143Z-4f7462a2550f",
        "20261207T061636Z-4f7462a2550f",
        "20261207T062153Z-4f7462a2550f",
    ]

    /// The default runs made on the A/A pair's host, the pair's among them,
    /// back to back in sets of one binary (two, three, two and five runs of
    /// four binaries whose timing is the pair's): the self-check's
    /// `default-pairs` reports every ordered pair of one binary among them,
    /// judged by the calibration runs of that host made after them
    /// (``pairHostCalibrationRuns``).
    package static let pairHostRuns: [String] = [
        "20261207T063908Z-4f7462a2550f",
        "20261207T064504Z-4f7462a2550f",
        "20261207T070720Z-3928d02a8897",
        "20261207T071359Z-3928d02a8897",
        "20261207T071944Z-3928d02a8897",
        "20261207T075632Z-997fc004797b",
        "20261207T080301Z-997fc004797b",
        "20261207T100348Z-b06f0dc2ee8d",
        "20261207T101030Z-b06f0dc2ee8d",
        "20261207T101627Z-b06f0dc2ee8d",
        "20261207T102224Z-b06f0dc2ee8d",
        "20261207T102827Z-b06f0dc2ee8d",
    ]

    /// The default runs of one binary, back to back on an otherwise idle
    /// Intel Xeon host (the A/A pair's and ``pairHostRuns``' host), that
    /// calibrate the default suite's series for that CPU model in
    /// `results/resolution.csv` (docs/Compare.md, "The resolution").
    package static let pairHostCalibrationRuns: [String] = [
        "20261207T123848Z-99937e87098d",
        "20261207T124452Z-99937e87098d",
        "20261207T125104Z-99937e87098d",
        "20261207T125704Z-99937e87098d",
        "20261207T130314Z-99937e87098d",
        "20261207T130919Z-99937e87098d",
        "20261207T131518Z-99937e87098d",
        "20261207T132118Z-99937e87098d",
        "20261207T132720Z-99937e87098d",
    ]

    /// Default runs made on the Intel Xeon host after its calibration, back
    /// to back, by binaries that time as the calibration's did: two of
    /// 4f36735 an hour after it, four of d9879a1 (which reads a fast tail
    /// against the calibrated level) three hours after it, and two of
    /// 23496f8 (which takes rounds on while a benchmark misses its usual
    /// level) after those. What a
    /// user's next runs do there, among themselves (each binary's runs)
    /// and against the calibration runs, reported by the self-check's
    /// `default-pairs`, their slowed fast paths asserted never to pass.
    package static let newestDefaultRuns: [String] = [
        "20261207T141614Z-4f36735065a7",
        "20261207T142213Z-4f36735065a7",
        "20261207T155610Z-d9879a1ecbbe",
        "20261207T160210Z-d9879a1ecbbe",
        "20261207T160824Z-d9879a1ecbbe",
        "20261207T161435Z-d9879a1ecbbe",
        "20261207T163321Z-23496f8ffe90",
        "20261207T163927Z-23496f8ffe90",
    ]

    /// Every run `results/resolution.csv` comes from, as `BenchRunner
    /// calibrate` takes them: the quick runs, then the default runs of each
    /// host.
    package static var resolutionRuns: [String] { calibrationRuns + defaultCalibrationRuns + pairHostCalibrationRuns }

    /// The default runs that calibrate a host's series, of both hosts.
    static var defaultCalibrationRunsOfEveryHost: [String] { defaultCalibrationRuns + pairHostCalibrationRuns }

    /// A judged timing series: its median, and the log-scale standard
    /// deviations of its level between processes and of its repetitions
    /// within one, in the processes its benchmark declares.
    struct Model {
        let key: ResultSeriesKey
        let unit: String
        let median: Double
        let processes: Int
        let perProcess: Int
        let within: Double
        let between: Double
        /// For a series read at its usual level
        /// (``MetricComparisonRule/readsUsualLevel``): the share of
        /// repetitions the machine put in its slow level, and that level's
        /// log distance from the usual one in the harmful direction; the
        /// spreads above are then those of the usual level alone. 0 otherwise.
        var slowShare = 0.0
        var slowLog = 0.0
    }

    /// How far beyond its run's best repetition a repetition of a series
    /// read at its usual level lies to count as another level: as far as
    /// compare's band (`BenchmarkSchema.usualLevelBand`).
    private static let slowLevelCut = Foundation.log(BenchmarkSchema.usualLevelBand)

    /// Per series, from the calibration runs: each run's repetitions in
    /// `processes` consecutive chunks (a forked run's rows come process by
    /// process). Within: the pooled standard deviation of log values around
    /// their chunk's mean. Between: the variance of the chunk means less
    /// what the within-process spread explains of it (never below 0).
    static func models(_ runs: [ResultFile], processes processesOf: (String) -> Int) -> [Model] {
        var models: [Model] = []
        guard let template = runs.first else { return [] }
        for series in template.series {
            let rule = MetricComparisonRule(
                metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
            guard !rule.isExact, rule.preference != .informational,
                !series.key.variant.hasPrefix("peer."), !series.key.variant.hasPrefix("reference."),
                let median = Statistics.median(series.values), median > 0
            else { continue }
            let processes = max(processesOf(series.key.benchmark), 1)
            let harmful = rule.preference == .higherIsBetter ? -1.0 : 1.0
            var chunkMeans: [Double] = []
            var squares = 0.0
            var degrees = 0
            var perProcess = 0
            var slowLogs: [Double] = []
            var repetitions = 0
            for run in runs {
                guard let values = run.series.first(where: { $0.key == series.key })?.values,
                    values.count >= processes, values.allSatisfy({ $0 > 0 }),
                    let usual = Statistics.median(rule.judgedValues(values)),
                    let best = rule.preference == .higherIsBetter ? values.max() : values.min()
                else { continue }
                let size = values.count / processes
                perProcess = size
                repetitions += values.count
                for chunk in 0..<processes {
                    var logs: [Double] = []
                    for value in values[(chunk * size)..<((chunk + 1) * size)] {
                        if rule.readsUsualLevel && harmful * Foundation.log(value / best) > slowLevelCut {
                            slowLogs.append(harmful * Foundation.log(value / usual))
                        } else {
                            logs.append(Foundation.log(value))
                        }
                    }
                    guard !logs.isEmpty else { continue }
                    let mean = logs.reduce(0, +) / Double(logs.count)
                    chunkMeans.append(mean)
                    squares += logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
                    degrees += logs.count - 1
                }
            }
            guard degrees > 0, chunkMeans.count >= 2, perProcess > 0 else { continue }
            let within = (squares / Double(degrees)).squareRoot()
            let grand = chunkMeans.reduce(0, +) / Double(chunkMeans.count)
            let spread = chunkMeans.reduce(0) { $0 + ($1 - grand) * ($1 - grand) } / Double(chunkMeans.count - 1)
            let between = max(0, spread - within * within / Double(perProcess)).squareRoot()
            var model = Model(
                key: series.key, unit: series.unit, median: median, processes: processes, perProcess: perProcess,
                within: within, between: between)
            if !slowLogs.isEmpty, repetitions > 0 {
                model.slowShare = Double(slowLogs.count) / Double(repetitions)
                model.slowLog = harmful * (Statistics.median(slowLogs) ?? 0)
            }
            models.append(model)
        }
        return models
    }

    /// How a simulated run takes its repetitions: as the quick suite does,
    /// or a design it could have (the question "what would show more series
    /// equal?").
    struct Design {
        /// Repetitions of every series timed in the run's own process; nil:
        /// the suite's.
        var repetitions: Int?
        /// Whether a process's level moves its repetitions (as measured);
        /// false: as if no series moved between processes.
        var processLevels = true

        static let suite = Design()
    }

    /// A simulated run of one binary, every series times `factor(key)`.
    static func simulatedRun(
        _ models: [Model], index: Int, using generator: inout SeededGenerator, design: Design = .suite,
        factor: (ResultSeriesKey) -> Double = { _ in 1 }
    ) -> ResultFile {
        let series = models.map { model in
            var values: [Double] = []
            let perProcess = model.processes == 1 ? design.repetitions ?? model.perProcess : model.perProcess
            for _ in 0..<model.processes {
                let level = design.processLevels ? model.between * generator.nextGaussian() : 0
                for _ in 0..<perProcess {
                    let slow =
                        model.slowShare > 0 && Double.random(in: 0..<1, using: &generator) < model.slowShare
                        ? model.slowLog : 0
                    values.append(
                        model.median * factor(model.key) * exp(level + slow + model.within * generator.nextGaussian()))
                }
            }
            return ResultSeries(key: model.key, unit: model.unit, values: values, firstLine: 2)
        }
        return ResultFile(path: "simulated-\(index).csv", series: series, revisions: ["simulated"])
    }

    static func isFastPathThroughput(_ key: ResultSeriesKey) -> Bool {
        key.benchmark == "observeOn.throughput" && key.variant == "fast-path"
    }

    /// What the simulation prints (and the documents repeat).
    struct Simulation {
        var passes = 0
        var notJudged = 0
        var falseRegressions = 0
        var same = 0
        var judged = 0
        var slowerWorse = 0
        let comparisons: Int

        var line: String {
            let share = Double(same) / Double(max(judged, 1)) * 100
            return "A/A: exit 0 in \(passes) of \(comparisons), exit 3 in \(notJudged), exit 1 in \(falseRegressions); "
                + "same \(String(format: "%.0f", share)) % of the judged timing series; "
                + "a 20 % slower fast path: worse (exit 1) in \(slowerWorse) of \(comparisons)"
        }
    }

    /// A resolution table calibrated from `calibrationRuns` simulated runs
    /// (as `BenchRunner calibrate` does it), then `comparisons` A/A pairs
    /// compared with it, and as many whose fast path is 20 % slower.
    static func simulate(
        _ models: [Model], calibrationRuns: Int, comparisons: Int, seed: UInt64, design: Design = .suite,
        withSlowerFastPath: Bool = true
    ) throws -> Simulation {
        var generator = SeededGenerator(seed: seed)
        let calibration = (0..<calibrationRuns).map {
            simulatedRun(models, index: $0, using: &generator, design: design)
        }
        let table = try ResolutionTable.calibrate(runs: calibration, path: "simulated-resolution.csv")
        let options = CompareOptions(resolution: table)
        var outcome = Simulation(comparisons: comparisons)
        for index in 0..<comparisons {
            let base = simulatedRun(models, index: 2 * index, using: &generator, design: design)
            let new = simulatedRun(models, index: 2 * index + 1, using: &generator, design: design)
            let report = try ComparisonReport(base: base, new: new, options: options)
            switch report.exitStatus {
            case .noRegression: outcome.passes += 1
            case .notJudged: outcome.notJudged += 1
            default: outcome.falseRegressions += 1
            }
            outcome.same += report.count(of: .same)
            outcome.judged += report.testedCount
            guard withSlowerFastPath else { continue }
            let slower = simulatedRun(models, index: 2 * index + 1, using: &generator, design: design) { key in
                guard isFastPathThroughput(key) else { return 1 }
                let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
                return rule.preference == .higherIsBetter ? 1 / 1.2 : 1.2
            }
            let judged = try ComparisonReport(base: base, new: slower, options: options)
            if judged.exitStatus == .regression
                && judged.comparisons.filter({ isFastPathThroughput($0.key) }).allSatisfy({ $0.verdict == .worse })
            {
                outcome.slowerWorse += 1
            }
        }
        return outcome
    }

    /// 600 simulated A/A pairs of quick runs (and as many with a 20 %
    /// slower fast path) with the calibration runs' spreads: runs of one
    /// binary fail to pass (exit 1 or 3) in at most alpha of them (the
    /// resolution's Bonferroni bound, with its upper confidence bound on
    /// each spread); docs/AtAGlance.md and docs/Compare.md print its line.
    static func repetitionModel(
        root: URL, size: Size, processes: (String) -> Int, into outcome: inout Outcome
    ) throws {
        let runs = try calibrationRuns.map { try load(root, $0) }
        let models = models(runs, processes: processes)
        outcome.expect(models.count > 60, "the calibration runs give \(models.count) judged timing series, not over 60")
        let comparisons = size.comparisons(600)
        let simulation = try simulate(models, calibrationRuns: runs.count, comparisons: comparisons, seed: 24)
        outcome.lines.append(simulation.line)
        for model in models where isFastPathThroughput(model.key) {
            outcome.lines.append(
                "fast path \(model.key.metric): within a process \(String(format: "%.1f", model.within * 100)) %, "
                    + "between processes \(String(format: "%.1f", model.between * 100)) % (log-scale standard deviations), "
                    + "\(model.processes) processes of \(model.perProcess); "
                    + "slow level in \(String(format: "%.0f", model.slowShare * 100)) % of the repetitions, "
                    + "\(String(format: "%.2f", exp(abs(model.slowLog)))) times slower")
        }
        guard size == .full else { return }
        outcome.expect(
            simulation.falseRegressions + simulation.notJudged <= comparisons / 20,
            "runs of one binary failed to pass in more than alpha (5 %) of the comparisons: \(simulation.line)")
        for document in ["docs/AtAGlance.md", "docs/Compare.md"] {
            if let failure = documentFailure(root: root, document: document, line: simulation.line) {
                outcome.failures.append(failure)
            }
        }
    }

    /// Why most timing series of an A/A pair are `~`, not `same`, on this
    /// machine: `same` needs the interval of the change within ±threshold,
    /// and the simulation with the calibration runs' spreads shows how far
    /// more repetitions, or processes that never differ, would take it.
    static func sameShare(
        root: URL, size: Size, processes: (String) -> Int, into outcome: inout Outcome
    ) throws {
        let runs = try calibrationRuns.map { try load(root, $0) }
        let models = models(runs, processes: processes)
        let comparisons = size.comparisons(100)
        func share(_ design: Design) throws -> Int {
            let simulation = try simulate(
                models, calibrationRuns: runs.count, comparisons: comparisons, seed: 28, design: design,
                withSlowerFastPath: false)
            return Int((Double(simulation.same) / Double(max(simulation.judged, 1)) * 100).rounded())
        }
        let suite = try share(.suite)
        let noProcessLevels = try share(Design(processLevels: false))
        let thirty = try share(Design(repetitions: 30, processLevels: false))
        let line =
            "same in A/A pairs, with the calibration runs' spreads: \(suite) % of the judged timing series as the "
            + "quick suite measures them; \(noProcessLevels) % if no process differed from another; \(thirty) % "
            + "with 30 repetitions a series as well"
        outcome.lines.append(line)
        guard size == .full else { return }
        // Taking a source of noise away, or adding repetitions, can only
        // narrow the intervals.
        outcome.expect(suite < noProcessLevels, "without process levels the same share must grow: \(line)")
        outcome.expect(noProcessLevels < thirty, "with 30 repetitions the same share must grow: \(line)")
        if let failure = documentFailure(root: root, document: "docs/Compare.md", line: line) {
            outcome.failures.append(failure)
        }
    }

    // MARK: - The correction for many series (docs/Compare.md, "False alarms")

    /// A run of `count` unchanged series with 1 % noise, every value `shift` times.
    package static func noisyRun(
        count: Int, repetitions: Int, using generator: inout SeededGenerator, shift: Double = 1
    ) -> [ResultSeries] {
        (0..<count).map { index in
            let values = (0..<repetitions).map { _ in 100 * shift * (1 + 0.01 * generator.nextGaussian()) }
            return ResultSeries(
                key: ResultSeriesKey(
                    benchmark: "elementPath", variant: "v\(index)", params: "", metric: "ns_per_element",
                    allocator: "system"),
                unit: "ns", values: values, firstLine: 2 + index)
        }
    }

    /// The worst case of "not worse by more than the threshold": all 90
    /// series exactly 5 % slower. Tested one by one at 0.05, some series in
    /// almost every run look worse; across the run, at most alpha of the
    /// runs may claim any regression.
    static func correction(size: Size, into outcome: inout Outcome) {
        var generator = SeededGenerator(seed: 34)
        let runs = size.comparisons(400)
        var runsWithAClaim = 0
        var runsWithAnUncorrectedClaim = 0
        for _ in 0..<runs {
            let base = noisyRun(count: 90, repetitions: 7, using: &generator)
            let new = noisyRun(count: 90, repetitions: 7, using: &generator, shift: 1.05)
            guard
                let report = try? ComparisonReport(
                    base: ResultFile(path: "base.csv", series: base), new: ResultFile(path: "new.csv", series: new),
                    options: CompareOptions())
            else {
                outcome.failures.append("compare refused two simulated runs of ninety series")
                return
            }
            if report.exitStatus == .regression {
                runsWithAClaim += 1
            }
            if report.comparisons.contains(where: { ($0.worseTest?.pValue ?? 1) <= 0.05 }) {
                runsWithAnUncorrectedClaim += 1
            }
        }
        outcome.lines.append(
            "Worst case of the null: a claim in \(runsWithAClaim) of \(runs) runs, uncorrected in \(runsWithAnUncorrectedClaim)")
        guard size == .full else { return }
        outcome.expect(runsWithAClaim <= runs / 20, "false alarms in \(runsWithAClaim) of \(runs) runs")
        outcome.expect(
            runsWithAnUncorrectedClaim > runs * 9 / 10,
            "uncorrected claims in only \(runsWithAnUncorrectedClaim) of \(runs) runs: the case is not the worst one")
    }

    // MARK: - A default run's spread (docs/Compare.md, "The resolution")

    /// A simulated run: every judged or anchor series of `template` with
    /// its own repetition count, values drawn around its median with the
    /// spread `spread[key]`, or drawn from `counts[key]` for integer counts,
    /// each value passed through `adjust`; exact counts copied; informational
    /// series left out. `repetitions` replaces each series' own count.
    package static func simulatedRun(
        like template: ResultFile, spread: [ResultSeriesKey: Double], counts: [ResultSeriesKey: [Double]],
        repetitions: Int? = nil, using generator: inout SeededGenerator,
        adjust: (ResultSeriesKey, Double) -> Double = { $1 }
    ) -> ResultFile {
        var series: [ResultSeries] = []
        for original in template.series {
            let rule = MetricComparisonRule(
                metric: original.key.metric, benchmark: original.key.benchmark, variant: original.key.variant)
            guard rule.preference != .informational, let median = Statistics.median(original.values) else {
                continue
            }
            if rule.isExact {
                series.append(original)
                continue
            }
            let count = repetitions ?? original.values.count
            let values: [Double]
            if let observed = counts[original.key] {
                // A count (skipped ticks: mostly 0, now and then a few): drawn
                // from the values the runs saw, ties and all.
                values = (0..<count).map { _ in adjust(original.key, observed.randomElement(using: &generator) ?? 0) }
            } else {
                let deviation = spread[original.key] ?? 0
                values = (0..<count).map { _ in adjust(original.key, median + deviation * generator.nextGaussian()) }
            }
            series.append(ResultSeries(key: original.key, unit: original.unit, values: values, firstLine: original.firstLine))
        }
        return ResultFile(path: template.path, series: series)
    }

    /// The standard deviation of the repetitions within one run, per series,
    /// pooled over `runs` (each run's own mean taken out).
    package static func withinRunSpread(_ runs: [ResultFile]) -> [ResultSeriesKey: Double] {
        var sums: [ResultSeriesKey: (squares: Double, degrees: Int)] = [:]
        for run in runs {
            for series in run.series where series.values.count >= 2 {
                let mean = series.values.reduce(0, +) / Double(series.values.count)
                let squares = series.values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
                let previous = sums[series.key] ?? (0, 0)
                sums[series.key] = (previous.squares + squares, previous.degrees + series.values.count - 1)
            }
        }
        return sums.mapValues { ($0.squares / Double($0.degrees)).squareRoot() }
    }

    /// Every value of each integer-valued timing series (skipped ticks) in `runs`.
    package static func observedCounts(_ runs: [ResultFile]) -> [ResultSeriesKey: [Double]] {
        var counts: [ResultSeriesKey: [Double]] = [:]
        for run in runs {
            for series in run.series where !series.values.isEmpty {
                let rule = MetricComparisonRule(
                    metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
                guard !rule.isExact, series.key.metric == "skipped_ticks" else { continue }
                counts[series.key, default: []] += series.values
            }
        }
        return counts
    }

    /// Two default runs of one revision (baafc877e541): the spread of their
    /// repetitions, per series. 1,000 simulated A/A comparisons of a run
    /// like them (same series, same repetition counts, normal noise with
    /// that spread, the same median on both sides) end in a regression at
    /// most alpha of the time. Exit 3 (a series whose every repetition looks
    /// worse beyond the threshold, not confirmed) asks for a rerun, not a
    /// false alarm; it comes mostly from the machine-drift factor the noisy
    /// anchors carry into CPU-bound series, and is printed, not bounded.
    static func committedSpread(root: URL, size: Size, into outcome: inout Outcome) throws {
        let first = try load(root, "20261121T112142Z-baafc877e541")
        let second = try load(root, "20261121T112544Z-baafc877e541")
        let spread = withinRunSpread([first, second])
        let counts = observedCounts([first, second])
        var generator = SeededGenerator(seed: 35)
        let comparisons = size.comparisons(1000)
        var falseAlarms = 0
        var notJudged = 0
        var same = 0
        var tested = 0
        for _ in 0..<comparisons {
            let base = simulatedRun(like: first, spread: spread, counts: counts, using: &generator)
            let new = simulatedRun(like: first, spread: spread, counts: counts, using: &generator)
            let report = try ComparisonReport(base: base, new: new, options: CompareOptions())
            switch report.exitStatus {
            case .regression: falseAlarms += 1
            case .notJudged: notJudged += 1
            default: break
            }
            same += report.count(of: .same)
            tested = report.testedCount
        }
        outcome.lines.append(
            "A/A calibration: \(falseAlarms) false alarms, \(notJudged) exit 3, "
                + "\(Double(same) / Double(comparisons)) same per comparison, \(tested) tested series")
        outcome.expect(
            tested > 60,
            "\(tested) tested series: the committed run has about seventy judged timing series "
                + "(tick lateness p99 is a tail, not judged)")
        guard size == .full else { return }
        outcome.expect(falseAlarms <= comparisons / 20, "false alarms: \(falseAlarms) of \(comparisons)")
        outcome.expect(same > 0, "no series was ever the same: sameness must be shown where the spread allows it")
    }

    // MARK: - The committed runs, pair by pair (docs/Compare.md, "The resolution")

    /// The evaluation runs: three quick runs of the binary the committed
    /// resolution table was calibrated on, made right after the calibration runs.
    package static let evaluationRuns = [
        "20261126T094443Z-787b90b3c765",
        "20261126T094653Z-787b90b3c765",
        "20261126T094902Z-787b90b3c765",
    ]

    /// Three quick runs of a later binary (465d6cc), made back to back: in
    /// the last two an episode of the machine's slower levels took most of
    /// `observeOn.throughput` (the hops kept 2 to 7 of 30 repetitions at
    /// their fastest level, against 13 to 29 in the first).
    package static let laterRuns = [
        "20261126T114642Z-465d6cc74278",
        "20261126T114829Z-465d6cc74278",
        "20261126T115021Z-465d6cc74278",
    ]

    /// Three quick runs of a4ef090, made back to back after those: all
    /// three measured the usual level (the hops kept 7 to 23 of 30).
    package static let latestRuns = [
        "20261126T121224Z-a4ef09040221",
        "20261126T121409Z-a4ef09040221",
        "20261126T121558Z-a4ef09040221",
    ]

    /// The fast path's judged throughput series, on the system allocator.
    package static func isSystemFastPathThroughput(_ key: ResultSeriesKey) -> Bool {
        isFastPathThroughput(key) && key.allocator == "system"
    }

    /// `run` with the fast path's flood times `factor` times longer (its
    /// rates `factor` times lower), as `scripts/derived-slowdown.sh` makes it.
    package static func slowed(_ run: ResultFile, by factor: Double) -> ResultFile {
        let series = run.series.map { series -> ResultSeries in
            guard isSystemFastPathThroughput(series.key) else { return series }
            let rule = MetricComparisonRule(
                metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
            guard !rule.isExact, rule.preference != .informational else { return series }
            let scale = rule.preference == .higherIsBetter ? 1 / factor : factor
            return ResultSeries(
                key: series.key, unit: series.unit, values: series.values.map { $0 * scale }, firstLine: series.firstLine)
        }
        return ResultFile(
            path: run.path + " (fast path x\(factor))", series: series, revisions: run.revisions, facts: run.facts)
    }

    /// The committed resolution table, as compare reads it by default.
    package static func committedOptions(root: URL) throws -> CompareOptions {
        CompareOptions(resolution: try ResolutionTable.load(path: root.appendingPathComponent(ResolutionTable.defaultPath).path))
    }

    /// Runs that missed the usual level are named, and a fast path 20 %
    /// slower is worse in every ordered pair of the six runs where both
    /// runs measured the usual level, and unjudged (exit 3) where one did
    /// not: it never passes. (One of the slow runs as the base let it pass,
    /// `~`, before runs were checked for their level.)
    static func usualLevel(root: URL, size: Size, into outcome: inout Outcome) throws {
        let options = try committedOptions(root: root)
        let files = try loadOnce(root, evaluationRuns + laterRuns)
        for name in evaluationRuns + [laterRuns[0]] {
            let missed = files[name]!.benchmarksMissingTheirUsualLevel
            outcome.expect(missed.isEmpty, "\(name) missed the usual level of \(missed.sorted())")
        }
        for name in laterRuns.dropFirst() {
            let missed = files[name]!.benchmarksMissingTheirUsualLevel
            outcome.expect(missed == ["observeOn.throughput"], "\(name) missed \(missed.sorted()), not observeOn.throughput alone")
        }
        let runs = size == .full ? evaluationRuns + laterRuns : [evaluationRuns[0], laterRuns[1]]
        var pairs = 0
        for base in runs {
            for new in runs where new != base {
                let report = try ComparisonReport(base: files[base]!, new: slowed(files[new]!, by: 1.2), options: options)
                let missed = laterRuns.dropFirst().contains(base) || laterRuns.dropFirst().contains(new)
                let expected: CompareExitStatus = missed ? .notJudged : .regression
                outcome.expect(
                    report.exitStatus == expected, "\(base) against \(new) x1.2: \(report.exitStatus), not \(expected)")
                pairs += 1
            }
        }
        outcome.lines.append("a 20 % slower fast path never passes: \(pairs) ordered pairs of \(runs.count) committed runs")
    }

    /// The default suite as a user compares its runs, pair by pair on one
    /// host (a pair across hosts measures the machines, not the code: an AMD
    /// EPYC host of this kind runs the hops 2.5 times as fast as an Intel
    /// Xeon one). The A/A pair (two default runs of one binary outside the
    /// calibration) both ways, and its pairs with the calibration runs of
    /// its host: in each, a fast path made 20 % or 40 % slower in the second
    /// run never passes (exit 0), asserted; how often the 20 % is confirmed
    /// a regression (exit 1, not 3) is reported, as are the unchanged
    /// pairs' exit statuses. At full size, the later default runs
    /// (``laterDefaultRuns``, another binary whose timing is the pair's) in
    /// every ordered pair among themselves: reported, not asserted, for what
    /// a user's pairs of runs do on the calibration runs' host, including a
    /// run an episode of the machine's slow level took whole (which no
    /// reading of one run can tell from a slower binary; the bases a slowed
    /// fast path passed against are named). Not against the calibration
    /// runs: their binary timed the trampoline otherwise. The
    /// resolution bounds false alarms only as far as the calibration runs
    /// saw every level a process takes (docs/Compare.md, "The resolution").
    /// At full size also every ordered pair of one binary among the pair's
    /// host's runs (``pairHostRuns``): reported, for what a user's pairs do
    /// on that host; and the newest runs (``newestDefaultRuns``) among
    /// themselves and with the calibration runs of their host, both ways:
    /// reported, their slowed fast paths asserted never to pass.
    /// The smoke size checks the A/A pair alone.
    static func defaultPairs(root: URL, size: Size, into outcome: inout Outcome) throws {
        let options = try committedOptions(root: root)
        let later = size == .full ? laterDefaultRuns : []
        let names = Array(
            Set(
                defaultPairRuns + later
                    + (size == .full ? defaultCalibrationRunsOfEveryHost + pairHostRuns + newestDefaultRuns : [])))
        let files = try loadOnce(root, names)
        func sameHost(_ base: String, _ new: String) -> Bool { files[base]!.facts.cpu == files[new]!.facts.cpu }
        struct Tally {
            var pairs = 0
            var exits: [CompareExitStatus: Int] = [:]
            var falseRegressions: [String: Int] = [:]
            var slowerCaught = 0
            var slowerPassed = 0
            var dropPassed = 0
            var summary: String {
                let statuses = [CompareExitStatus.noRegression, .notJudged, .regression].map {
                    "exit \($0.rawValue) in \(exits[$0] ?? 0)"
                }
                var worst = ""
                if let most = falseRegressions.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) {
                    worst = " (the most from \(most.key): \(most.value))"
                }
                return "\(pairs) ordered pairs: \(statuses.joined(separator: ", "))\(worst); a 20 % slower fast path "
                    + "a regression in \(slowerCaught), a pass in \(slowerPassed); a 40 % drop a pass in \(dropPassed)"
            }
        }
        func judge(_ base: String, _ new: String, into tally: inout Tally, asserted: Bool) throws -> String {
            let same = try ComparisonReport(base: files[base]!, new: files[new]!, options: options)
            let timing = same.comparisons.filter { $0.isRegression && !$0.rule.isExact }
            for comparison in timing { tally.falseRegressions["\(comparison.key)", default: 0] += 1 }
            tally.exits[same.exitStatus, default: 0] += 1
            tally.pairs += 1
            let slower = try ComparisonReport(base: files[base]!, new: slowed(files[new]!, by: 1.2), options: options)
            let drop = try ComparisonReport(base: files[base]!, new: slowed(files[new]!, by: 1 / 0.6), options: options)
            tally.slowerCaught += slower.exitStatus == .regression ? 1 : 0
            tally.slowerPassed += slower.exitStatus == .noRegression ? 1 : 0
            tally.dropPassed += drop.exitStatus == .noRegression ? 1 : 0
            if asserted {
                outcome.expect(slower.exitStatus != .noRegression, "\(base) against \(new) x1.2: passed")
                outcome.expect(drop.exitStatus != .noRegression, "\(base) against \(new), a 40 % drop: passed")
            }
            let named = timing.map { "\($0.key)" } + same.comparisons.filter { $0.isRegression && $0.rule.isExact }
                .map { "\($0.key)" }
            return "exit \(same.exitStatus.rawValue)" + (named.isEmpty ? "" : " (\(named.joined(separator: ", ")))")
        }
        var aa: [String] = []
        var pair = Tally()
        var crossPair = Tally()
        for base in defaultPairRuns {
            for new in defaultPairRuns where new != base {
                aa.append(try judge(base, new, into: &pair, asserted: true))
            }
        }
        // Each of `runs` with each calibration run of its host, both ways
        // round, a slowed fast path asserted never to pass.
        func withCalibrationRuns(_ runs: [String], into tally: inout Tally) throws {
            for calibration in defaultCalibrationRunsOfEveryHost {
                for run in runs where sameHost(calibration, run) {
                    _ = try judge(calibration, run, into: &tally, asserted: true)
                    _ = try judge(run, calibration, into: &tally, asserted: true)
                }
            }
        }
        if size == .full {
            try withCalibrationRuns(defaultPairRuns, into: &crossPair)
        }
        var line =
            "default runs: the A/A pair \(aa.joined(separator: " and ")); a 20 % slower fast path a regression in "
            + "\(pair.slowerCaught) of \(pair.pairs), and it and a 40 % drop never a pass"
        if size == .full {
            line += crossPair.pairs == 0
                ? "; no calibration run on its host (\(files[defaultPairRuns[0]]!.facts.cpu))"
                : "; with the calibration runs of its host, \(crossPair.summary)"
        }
        outcome.lines.append(line)
        // Every ordered pair of `runs` that one binary made on one host,
        // reported, with the bases a slowed fast path passed against.
        func amongThemselves(_ runs: [String], asserted: Bool = false) throws -> String {
            var among = Tally()
            var slowerPassedAgainst: [String: Int] = [:]
            for base in runs {
                for new in runs where new != base && files[base]!.revisions == files[new]!.revisions && sameHost(base, new) {
                    let before = among.slowerPassed
                    _ = try judge(base, new, into: &among, asserted: asserted)
                    if among.slowerPassed > before { slowerPassedAgainst[base, default: 0] += 1 }
                }
            }
            let bases = slowerPassedAgainst.keys.sorted().map { "\($0) as the base in \(slowerPassedAgainst[$0]!)" }
            return among.summary + (bases.isEmpty ? "" : " (\(bases.joined(separator: ", ")))")
        }
        var laterLine = ""
        if !later.isEmpty {
            laterLine = "later default runs (\(later.count), \(files[later[0]]!.facts.cpu)), among themselves: "
                + (try amongThemselves(later))
            outcome.lines.append(laterLine)
        }
        // The pair's host: its runs of one binary, the A/A pair's included.
        var pairHostLine = ""
        if size == .full {
            pairHostLine = "default runs of one binary on the pair's host (\(pairHostRuns.count) runs of "
                + "\(Set(pairHostRuns.map { files[$0]!.revisions }).count) binaries, \(files[pairHostRuns[0]]!.facts.cpu)), "
                + "among themselves: " + (try amongThemselves(pairHostRuns))
            outcome.lines.append(pairHostLine)
        }
        // The newest runs: among themselves and with the calibration runs
        // of their host, both ways round; a slowed fast path never passes.
        var newestLine = ""
        if size == .full, let first = newestDefaultRuns.first {
            var withCalibration = Tally()
            try withCalibrationRuns(newestDefaultRuns, into: &withCalibration)
            // How many runs of each binary, in the order the list names them.
            var binaries: [(revision: String, runs: Int)] = []
            for run in newestDefaultRuns {
                let revision = files[run]!.revisions.sorted().joined(separator: ", ")
                if let index = binaries.firstIndex(where: { $0.revision == revision }) {
                    binaries[index].runs += 1
                } else {
                    binaries.append((revision, 1))
                }
            }
            newestLine = "newest default runs (\(binaries.map { "\($0.runs) of git \($0.revision)" }.joined(separator: ", ")), "
                + "\(files[first]!.facts.cpu)): among themselves, \(try amongThemselves(newestDefaultRuns, asserted: true)); "
                + "with the calibration runs of their host, \(withCalibration.summary)"
            outcome.lines.append(newestLine)
        }
        guard size == .full else { return }
        for text in [line, laterLine, pairHostLine, newestLine] where !text.isEmpty {
            if let failure = documentFailure(root: root, document: "docs/Compare.md", line: text) {
                outcome.failures.append(failure)
            }
        }
    }

    /// Every ordered pair of the seven runs that measured the usual level,
    /// across three binaries that share the hops' code: no pair is a
    /// regression, at most alpha (5 %) of them leave a series unjudged (exit
    /// 3; one does: the current-thread subscription's lifecycle time, whose
    /// repetitions spread by 48 % in one run), and a fast path made 20 %
    /// slower in the second run is worse in every pair.
    static func committedPairs(root: URL, size: Size, into outcome: inout Outcome) throws {
        let options = try committedOptions(root: root)
        let runs = size == .full ? evaluationRuns + [laterRuns[0]] + latestRuns : evaluationRuns
        let files = try loadOnce(root, runs)
        var pairs = 0
        var unjudged = 0
        for base in runs {
            for new in runs where new != base {
                let same = try ComparisonReport(base: files[base]!, new: files[new]!, options: options)
                outcome.expect(same.exitStatus != .regression, "\(base) against \(new): a regression")
                unjudged += same.exitStatus == .notJudged ? 1 : 0
                let slowed = try ComparisonReport(base: files[base]!, new: slowed(files[new]!, by: 1.2), options: options)
                outcome.expect(slowed.exitStatus == .regression, "\(base) against \(new) x1.2: \(slowed.exitStatus), not a regression")
                pairs += 1
            }
        }
        outcome.lines.append(
            "committed runs that measured the usual level: \(pairs) ordered pairs, \(unjudged) left a series unjudged, "
                + "a 20 % slower fast path a regression in every one")
        outcome.expect(pairs == runs.count * (runs.count - 1), "\(pairs) pairs of \(runs.count) runs")
        outcome.expect(unjudged <= pairs / 20, "\(unjudged) of \(pairs) A/A pairs did not pass")
    }
}
