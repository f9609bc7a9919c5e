/// What compare knows about one series once its evidence is gathered
/// (``SeriesComparison`` gathers it, ``ComparisonReport`` adds the
/// correction across the run): facts only, no verdict. ``VerdictTable``
/// maps it to one.
package struct SeriesEvidence: Sendable, Equatable {
    /// Which files have the series.
    enum Presence: Sendable, Equatable {
        case both, baseOnly, newOnly
    }

    /// How the metric's declaration (``MetricComparisonRule``) and the
    /// variant's role say the series is read.
    enum Reading: Sendable, Equatable {
        /// A single-run tail, a per-tick sample, a machine fact, a count that
        /// varies by design, or a metric the schema does not declare.
        case shownOnly
        /// An exact count (allocations, bytes, depth, type lookups, instructions).
        case exactCount
        /// A time or rate of a peer or reference: it measures the machine.
        case anchorTime
        /// A time or rate of this library's code (or a registered scheduler).
        case time
        /// A time whose level the whole process's state sets
        /// (``BenchmarkSchema/timesBoundToProcess``).
        case processBoundTime
    }

    /// How an exact count moved against its tolerance.
    enum CountChange: Sendable, Equatable {
        case withinTolerance, harmful, beneficial
    }

    var presence: Presence
    /// Both sides have at least one value.
    var hasValuesOnBothSides = true
    var reading: Reading
    /// For an exact count with values on both sides; nil otherwise.
    var countChange: CountChange?
    /// Even repetitions that do not overlap could reach alpha.
    var repetitionsCanReachAlpha = true
    /// For a series read at its usual level: both runs measured that level.
    var measuredUsualLevel = true
    /// The median moved beyond the series' threshold (raised by its
    /// resolution, if any) in the harmful direction, as measured and after
    /// the drift correction.
    var medianMovedHarmfully = false
    /// The interval of the change lies within ±the declared threshold, or
    /// every value is equal.
    var shownEqual = false
    /// The worse test's p-value, adjusted across the run, is at most alpha,
    /// and where a resolution raised the threshold the median moved beyond it.
    var confirmedWorse = false
    /// The same for the better test and a move in the good direction.
    var confirmedBetter = false
    /// Every new repetition worse than every base one beyond the threshold,
    /// p at most alpha alone, and where a resolution raised the threshold the
    /// median moved beyond it.
    var separatedWorse = false
    /// The same in the good direction.
    var separatedBetter = false

    init(presence: Presence, reading: Reading) {
        self.presence = presence
        self.reading = reading
    }
}

/// Where every verdict of `BenchRunner compare` is decided: the evidence of
/// a series goes down ``rows`` and the first row that holds gives the
/// verdict; the evidence of the whole run goes down ``exitRows`` and gives
/// the exit status. docs/Compare.md, "The verdict table", prints both
/// tables as ``markdown()`` renders them.
package enum VerdictTable {
    /// One row: what it asks of the evidence, in the words of docs/Compare.md, and its outcome.
    struct Row<Evidence, Outcome: Sendable>: Sendable {
        let asks: String
        let outcome: Outcome
        let holds: @Sendable (Evidence) -> Bool

        init(_ asks: String, _ outcome: Outcome, holds: @escaping @Sendable (Evidence) -> Bool) {
            self.asks = asks
            self.outcome = outcome
            self.holds = holds
        }
    }

    /// A series' verdict: the first row whose question its evidence answers yes.
    static let rows: [Row<SeriesEvidence, CompareVerdict>] = [
        Row("in one file only, a metric shown only", .shownOnly) { $0.presence != .both && $0.reading == .shownOnly },
        Row("in the base file only", .removed) { $0.presence == .baseOnly },
        Row("in the new file only", .added) { $0.presence == .newOnly },
        Row("a side without values", .noValues) { !$0.hasValuesOnBothSides },
        Row("a metric shown only (tail, per-tick sample, machine fact, varying count, undeclared)", .shownOnly) {
            $0.reading == .shownOnly
        },
        Row("an exact count within its tolerance", .same) { $0.countChange == .withinTolerance },
        Row("an exact count moved in the harmful direction", .worse) { $0.countChange == .harmful },
        Row("an exact count moved in the good direction", .better) { $0.countChange == .beneficial },
        Row("a time of a peer or reference", .shownOnly) { $0.reading == .anchorTime },
        Row("a time whose repetitions cannot reach alpha, or whose run missed its usual level", .tooFewRepetitions) {
            !$0.repetitionsCanReachAlpha || !$0.measuredUsualLevel
        },
        Row("a process-bound time, median moved harmfully", .movedWorse) {
            $0.reading == .processBoundTime && $0.medianMovedHarmfully
        },
        Row("a process-bound time, shown equal", .same) { $0.reading == .processBoundTime && $0.shownEqual },
        Row("a process-bound time otherwise", .notShownEqual) { $0.reading == .processBoundTime },
        Row("a time confirmed worse", .worse) { $0.confirmedWorse },
        Row("a time confirmed better", .better) { $0.confirmedBetter },
        Row("a time separated worse", .possiblyWorse) { $0.separatedWorse },
        Row("a time separated better", .possiblyBetter) { $0.separatedBetter },
        Row("a time, median moved harmfully", .movedWorse) { $0.medianMovedHarmfully },
        Row("a time shown equal", .same) { $0.shownEqual },
        Row("any other time", .notShownEqual) { _ in true },
    ]

    /// The verdict of a series with `evidence`.
    static func verdict(for evidence: SeriesEvidence) -> CompareVerdict {
        rows.first { $0.holds(evidence) }?.outcome ?? .notShownEqual
    }

    /// What compare knows about the whole run.
    struct RunEvidence: Sendable, Equatable {
        /// Both files and every option could be used.
        var inputUsable = true
        /// How many gated series are `worse`.
        var gatedWorse = 0
        /// A scale sweep's growth got worse (``GrowthComparison``), under `--gate all`.
        var gatedWorseGrowth = false
        /// How many gated series could not be judged (``CompareVerdict/isUnjudged``).
        var gatedUnjudged = 0

        init(inputUsable: Bool = true, gatedWorse: Int = 0, gatedWorseGrowth: Bool = false, gatedUnjudged: Int = 0) {
            self.inputUsable = inputUsable
            self.gatedWorse = gatedWorse
            self.gatedWorseGrowth = gatedWorseGrowth
            self.gatedUnjudged = gatedUnjudged
        }
    }

    /// The run's exit status: the first row whose question its evidence answers yes.
    static let exitRows: [Row<RunEvidence, CompareExitStatus>] = [
        Row("a file or an option could not be used: nothing compared", .unusableInput) { !$0.inputUsable },
        Row("a gated series is worse, or (gate all) a scale sweep's growth got worse", .regression) {
            $0.gatedWorse > 0 || $0.gatedWorseGrowth
        },
        Row("a gated series could not be judged (too few repetitions, worse?, moved worse?)", .notJudged) {
            $0.gatedUnjudged > 0
        },
        Row("every gated series judged, none worse", .noRegression) { _ in true },
    ]

    /// The exit status of a run with `evidence`.
    static func exitStatus(for evidence: RunEvidence) -> CompareExitStatus {
        exitRows.first { $0.holds(evidence) }?.outcome ?? .noRegression
    }

    /// Both tables as docs/Compare.md prints them.
    static func markdown() -> String {
        var text = "| row | the series' evidence | verdict |\n| ---: | --- | --- |\n"
        for (index, row) in rows.enumerated() {
            text += "| \(index + 1) | \(row.asks) | `\(row.outcome.rawValue)` |\n"
        }
        text += "\n| row | the run's evidence | exit status |\n| ---: | --- | --- |\n"
        for (index, row) in exitRows.enumerated() {
            text += "| \(index + 1) | \(row.asks) | \(row.outcome.rawValue) |\n"
        }
        return text
    }
}
