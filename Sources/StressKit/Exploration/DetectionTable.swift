import ToolSupport

/// A deliberately broken subject, run by a scenario, for the self-check's measurements.
struct BrokenVariant: Sendable {
    /// The row's label.
    let label: String
    /// How wide its bug's window is (one phrase).
    let window: String
    /// The scenario that runs it; it must be explorable.
    let scenario: any StressScenario
    /// Whether every exploration strategy must find it in every run (the
    /// self-check fails otherwise).
    let explorationMustFind: Bool

    /// Creates a variant.
    init(label: String, window: String, scenario: any StressScenario, explorationMustFind: Bool) {
        self.label = label
        self.window = window
        self.scenario = scenario
        self.explorationMustFind = explorationMustFind
    }
}

/// How the self-check looks for a broken variant's forbidden outcome.
enum DetectionMethod: String, CaseIterable, Sendable {
    /// Real threads racing freely (`StressRunner`).
    case realThreads = "real threads"
    /// Exploration with seeded random choices.
    case random
    /// Exploration with PCT.
    case pct
    /// Exhaustive exploration within the preemption bound.
    case exhaustive

    var strategy: ExplorationStrategyKind? {
        switch self {
        case .realThreads: nil
        case .random: .random
        case .pct: .pct
        case .exhaustive: .exhaustive
        }
    }
}

/// How often and how fast one method found one variant's bug.
struct Detection: Sendable, Equatable {
    /// Runs that found a forbidden outcome.
    let found: Int
    /// Runs made.
    let runs: Int
    /// Median seconds to the first forbidden outcome, over the runs that found one.
    let medianSeconds: Double?

    /// `found/runs, median s`.
    var text: String {
        let rate = "\(found)/\(runs)"
        guard let medianSeconds else { return rate + ", never" }
        return rate + ", " + Self.seconds(medianSeconds)
    }

    private static func seconds(_ value: Double) -> String {
        value < 0.01 ? "\(NumberFormat.twoDecimals(value * 1_000)) ms" : "\(NumberFormat.twoDecimals(value)) s"
    }
}

/// The self-check's measurements: for each broken variant, the detection
/// rate and median time to detection under real threads and under each
/// exploration strategy, each run bounded by `budgetSeconds`.
struct DetectionTable: Sendable {
    /// Runs per variant and method.
    let runs: Int
    /// The most seconds one run may take.
    let budgetSeconds: Double
    /// The seed of the first run (run `i` uses `seed + i`).
    let seed: UInt64
    /// PCT's bug depth in every PCT run.
    var pctDepth = 3
    /// Exhaustive search's preemption bound.
    var preemptionBound = 2

    /// Measures `method` on `variant`.
    func measure(_ variant: BrokenVariant, _ method: DetectionMethod) -> Detection {
        var times: [Double] = []
        for run in 0..<runs {
            if let seconds = timeToDetection(variant.scenario, method, seed: seed &+ UInt64(run)) {
                times.append(seconds)
            }
        }
        return Detection(found: times.count, runs: runs, medianSeconds: times.isEmpty ? nil : Statistics.median(times))
    }

    private func timeToDetection<Scenario: StressScenario>(
        _ scenario: Scenario, _ method: DetectionMethod, seed: UInt64
    ) -> Double? {
        guard let strategy = method.strategy else {
            let runner = StressRunner(
                limit: .duration(seconds: budgetSeconds), seed: seed, leakGraceSeconds: 1, stopAtFirstForbidden: true)
            let result = runner.run(scenario)
            return result.forbiddenCount > 0 ? result.seconds : nil
        }
        var settings = ExplorationSettings(strategy: strategy, seed: seed, limit: .duration(seconds: budgetSeconds))
        settings.pctDepth = pctDepth
        settings.preemptionBound = preemptionBound
        settings.stopAtFirstFailure = true
        settings.shrink = false
        settings.leakGraceSeconds = 1
        let result = Explorer(settings).run(scenario)
        guard result.forbiddenCount > 0 else { return nil }
        return result.exploration?.secondsToFirstFailure
    }

    /// Measures every method on every variant; returns the table's lines and
    /// whether every variant that exploration must find was found in every run.
    func render(_ variants: [BrokenVariant], progress: (String) -> Void = { _ in }) -> (text: String, passed: Bool) {
        var passed = true
        var rows: [[String]] = []
        for variant in variants {
            var row = [variant.label, variant.window]
            for method in DetectionMethod.allCases {
                progress("  measuring \(variant.label) under \(method.rawValue)")
                let detection = measure(variant, method)
                row.append(detection.text)
                if variant.explorationMustFind && method.strategy != nil && detection.found < detection.runs {
                    passed = false
                }
            }
            rows.append(row)
        }
        let table = TextTable(
            columns: [TextTable.Column("variant"), TextTable.Column("window")]
                + DetectionMethod.allCases.map { TextTable.Column($0.rawValue, alignment: .right) },
            indent: "    ")
        var lines = [
            "Detection (found/runs, median time to the first forbidden outcome; each run at most "
                + "\(NumberFormat.twoDecimals(budgetSeconds)) s; pct depth \(pctDepth), exhaustive at most "
                + "\(preemptionBound) preemptions; seeds \(seed)...):",
        ]
        lines += table.lines(rows)
        for variant in variants {
            if let schedule = shrunkFailingSchedule(variant.scenario) {
                lines.append("    \(variant.label): \(StressCommand.programName) --replay '\(schedule)'")
            }
        }
        return (lines.joined(separator: "\n"), passed)
    }

    /// A shrunk schedule that makes `scenario` fail, from PCT (nil if none was found in the budget).
    private func shrunkFailingSchedule<Scenario: StressScenario>(_ scenario: Scenario) -> Schedule? {
        var settings = ExplorationSettings(strategy: .pct, seed: seed, limit: .duration(seconds: budgetSeconds))
        settings.pctDepth = pctDepth
        settings.stopAtFirstFailure = true
        settings.leakGraceSeconds = 1
        return Explorer(settings).run(scenario).exploration?.failingSchedule
    }
}
