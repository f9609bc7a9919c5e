import Foundation
import ToolSupport

/// The smallest change of each timing series that two runs on this machine
/// can tell apart, measured from several runs of one binary
/// (`BenchRunner calibrate`), so that compare claims no more than the
/// machine allows.
///
/// Why: a series' level moves between processes as well as within one, and
/// by very different amounts per series: between idle-machine quick runs of
/// one binary, a hop's median moves by a few per cent while a 1 ms timer's
/// lateness can move by most of its value. A single threshold either raises
/// false alarms on the noisy series or hides real changes of the quiet ones.
///
/// The model, per series: the log medians of the `runs` calibration runs
/// spread with standard deviation `s` (`runs - 1` degrees of freedom),
/// taken at its upper 90 % confidence bound `s⁺` (so few runs do not make
/// the resolution look finer than it is). The log ratio of two future runs'
/// medians then has standard deviation `√2·s⁺`; the resolution is
/// `exp(z·√2·s⁺) - 1` (for a rate, the fall `1 - exp(-z·√2·s⁺)`), with `z`
/// the standard normal quantile at
/// `1 - alpha / m` for the `m` calibrated series: between two runs of one
/// binary the chance that any of the `m` medians moves beyond its
/// resolution is at most about `alpha` (Bonferroni). compare calls a
/// calibrated series worse or better only when its median moved beyond the
/// larger of its threshold and its resolution, and its repetitions' test
/// (against the threshold) confirms the change.
///
/// The resolution holds for runs made as the calibration runs were: the same
/// suite (quick or default: the repetition count changes the medians'
/// spread), the same `--forks`, a machine as quiet. One table may hold
/// several calibrations, each from the runs of one binary (one per suite,
/// say): every row records its calibration's revision and how many
/// repetitions the series had in it, a series two calibrations share has a
/// row from each, and compare takes the one whose repetitions are nearest
/// the runs it compares (the coarser on a tie) and says when they differ.
///
/// The resolution is a machine's: hosts of one kind run a series at levels
/// that differ by more than any run-to-run spread (an Intel Xeon host runs
/// the hops 2.5 times as slowly as an AMD EPYC one), and spread differently.
/// So a calibration is the runs of one binary on one CPU model (the `cpu`
/// column of a run), each row names it, and two runs of one CPU model are
/// judged by the rows of their model where the series has one
/// (``onMachine(base:new:)``); on a CPU no calibration ran on, by any row.
package struct ResolutionTable: Sendable, Equatable {
    /// The calibration of one series.
    package struct Entry: Sendable, Equatable {
        /// How many runs the spread comes from.
        let runs: Int
        /// The standard deviation of the runs' log medians.
        let logDeviation: Double
        /// The smallest change two runs can tell apart, as a fraction (0.12 = 12 %).
        package let resolution: Double
        /// How widely the repetitions spread within a calibration run: the
        /// median over the runs of ``RepetitionSpread/relativeInterquartileRange(_:)``.
        /// A run whose repetitions spread much more was made on a busier
        /// machine than the calibration's.
        let spread: Double
        /// The git revision of the calibration runs this entry comes from.
        package let revision: String
        /// The series' repetitions in those runs (their median): what tells
        /// the suite it was calibrated for (the hops take 7 in a quick run,
        /// 30 in a default one).
        package let repetitions: Int
        /// The CPU model the calibration runs ran on (their `cpu` column;
        /// empty in a table written before rows named it).
        package let cpu: String
        /// The series' level in the calibration runs: the geometric mean of
        /// their medians (for a series read at its usual level, of those at
        /// it). 0 when the table does not say.
        package let level: Double

        init(
            runs: Int, logDeviation: Double, resolution: Double, spread: Double, revision: String, repetitions: Int,
            cpu: String = "", level: Double = 0
        ) {
            self.runs = runs
            self.logDeviation = logDeviation
            self.resolution = resolution
            self.spread = spread
            self.revision = revision
            self.repetitions = repetitions
            self.cpu = cpu
            self.level = level
        }

        /// The calibration this entry comes from.
        package var calibration: CalibrationKey { CalibrationKey(revision: revision, cpu: cpu) }
    }

    /// One calibration of a table: runs of one binary on one CPU model, and
    /// how many series of the table it gave.
    package struct Calibration: Sendable, Equatable, Comparable {
        /// The git revision of its runs.
        package let revision: String
        /// The CPU model its runs ran on (empty when the table does not say).
        package let cpu: String
        /// How many runs (the most any of its series comes from).
        package let runs: Int
        /// Its series' repetitions (the median over them).
        package let repetitions: Int
        /// The table's series whose entry this calibration gave.
        package let series: Int

        package static func < (lhs: Calibration, rhs: Calibration) -> Bool {
            (lhs.revision, lhs.cpu, lhs.repetitions, lhs.runs) < (rhs.revision, rhs.cpu, rhs.repetitions, rhs.runs)
        }

        /// What tells it from another calibration.
        package var key: CalibrationKey { CalibrationKey(revision: revision, cpu: cpu) }

        /// `N runs of git R on CPU with K repetitions a series`, for messages.
        package var described: String {
            "\(runs) runs of git \(revision)\(cpu.isEmpty ? "" : " on \(cpu)") with \(repetitions) repetitions a series"
        }
    }

    /// The fewest runs a calibration accepts: with three, the upper bound of
    /// a spread is over three times its estimate.
    static let minimumRuns = 4

    /// Where `BenchRunner calibrate` writes the table and compare looks for
    /// it when not told (a path from the directory they run in).
    package static let defaultPath = "results/resolution.csv"

    /// How many times the calibration's spread a compared run's repetitions
    /// may spread (median over the calibrated series) before compare says
    /// the run was made on a busier machine than the calibration's.
    static let busierSpreadRatio = 2.0

    /// The file the table was read from or written to, for messages.
    let path: String
    /// Each calibrated series' entries, one per calibration that has it,
    /// coarsest first.
    package let calibrated: [ResultSeriesKey: [Entry]]
    /// The CPU model of the runs being compared, when both ran on one
    /// (``onMachine(base:new:)``): a series with an entry from it is judged
    /// by those entries alone.
    package private(set) var machine: String?

    /// A table of `entries`, one or more per series.
    init(path: String, calibrated: [ResultSeriesKey: [Entry]]) {
        self.path = path
        self.calibrated = calibrated.filter { !$0.value.isEmpty }.mapValues { entries in
            entries.sorted { ($0.resolution, $0.revision, $0.cpu) > ($1.resolution, $1.revision, $1.cpu) }
        }
    }

    /// This table for comparing a run on CPU model `base` with one on `new`:
    /// when both ran on one model, a series with an entry calibrated on it
    /// takes its entry from those (the level and spread of another model's
    /// runs say nothing of this one's); otherwise, or for a series no run
    /// of that model calibrated, any entry applies, as before rows named
    /// their CPU.
    package func onMachine(base: String, new: String) -> ResolutionTable {
        var table = self
        table.machine = base == new && !base.isEmpty ? base : nil
        return table
    }

    /// The entries of `key` that apply to the runs compared: those of
    /// ``machine`` when the series has one, else all of them.
    private func applicable(_ key: ResultSeriesKey) -> [Entry]? {
        guard let entries = calibrated[key] else { return nil }
        guard let machine else { return entries }
        let own = entries.filter { $0.cpu == machine }
        return own.isEmpty ? entries : own
    }

    /// How far a series read at its usual level sits from that level on
    /// the slow side across runs: when both compared runs ran on
    /// ``machine`` and its calibration there measured the series' level,
    /// the factor by which a run's `median` (of its repetitions at its own
    /// usual level, ``MetricComparisonRule/judgedValues(_:calibratedLevel:)``) is beyond it
    /// in the harmful direction, if it is beyond ``calibratedLevelLimit``;
    /// nil otherwise.
    ///
    /// Why: a run's usual level is read from its own repetitions, so a run
    /// the machine's slow level held from its first repetition to its last
    /// (every hop 2.4 times as slow) reads as a run at its usual level, and
    /// nothing in it tells the machine from a slower binary; against such a
    /// base a fast path made 40 % slower passed. The calibration runs on
    /// the same CPU model say where the level is.
    func factorBeyondCalibratedLevel(of key: ResultSeriesKey, median: Double, repetitions: Int?) -> Double? {
        guard median > 0, let level = calibratedLevel(of: key, repetitions: repetitions) else { return nil }
        let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
        let factor = rule.preference == .higherIsBetter ? level / median : median / level
        return factor > Self.calibratedLevelLimit ? factor : nil
    }

    /// The level the calibration runs on ``machine`` measured for a series
    /// read at its usual level (the geometric mean of their medians there),
    /// when both compared runs ran on it and it has an entry; nil otherwise.
    /// ``MetricComparisonRule/judgedValues(_:calibratedLevel:)`` reads a
    /// run's fast tail against it.
    func calibratedLevel(of key: ResultSeriesKey, repetitions: Int?) -> Double? {
        guard let machine else { return nil }
        let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
        guard rule.readsUsualLevel, rule.preference != .informational,
            let entry = entry(for: key, repetitions: repetitions), entry.cpu == machine, entry.level > 0
        else { return nil }
        return entry.level
    }

    /// How far beyond its calibrated level a run's median of a series read
    /// at its usual level may sit before the run is taken for one the slow
    /// level held throughout: ``BenchmarkSchema/usualLevelBand`` three
    /// times over, about 1.95. The machine's slow level is twice the usual
    /// or more (2.4 times in the run that showed it); `scale.trampoline`'s
    /// sweeps that land at 1.5 times the usual level, and a change of the
    /// code of 20 % or 40 %, stay inside.
    static let calibratedLevelLimit =
        BenchmarkSchema.usualLevelBand * BenchmarkSchema.usualLevelBand * BenchmarkSchema.usualLevelBand

    /// Whether a calibration on ``machine`` gave any entry (false when the
    /// compared runs' CPU is not one the table was calibrated on).
    package var calibratedOnMachine: Bool {
        guard let machine else { return false }
        return calibrated.values.contains { $0.contains { $0.cpu == machine } }
    }

    /// A table of one entry per series.
    init(path: String, entries: [ResultSeriesKey: Entry]) {
        self.init(path: path, calibrated: entries.mapValues { [$0] })
    }

    /// Each calibrated series' coarsest entry: what applies when the
    /// compared runs' repetitions are not known.
    package var entries: [ResultSeriesKey: Entry] {
        calibrated.compactMapValues(\.first)
    }

    /// The entry of `key` for runs with `repetitions` of it: the one whose
    /// calibration had the nearest count (on a log scale: 7 is nearer 3
    /// than 30), the coarser on a tie; the coarsest when `repetitions` is
    /// nil; nil when the series was not calibrated.
    func entry(for key: ResultSeriesKey, repetitions: Int?) -> Entry? {
        guard let entries = applicable(key) else { return nil }
        guard let repetitions, repetitions > 0 else { return entries.first }
        let distance = { (entry: Entry) in abs(log(Double(max(entry.repetitions, 1))) - log(Double(repetitions))) }
        // `entries` is coarsest first, and `min` keeps the first of equals.
        return entries.min { distance($0) < distance($1) }
    }

    /// The calibrations the entries come from, in order of revision and CPU.
    package var calibrations: [Calibration] {
        var byCalibration: [CalibrationKey: [Entry]] = [:]
        for entry in calibrated.values.joined() {
            byCalibration[CalibrationKey(revision: entry.revision, cpu: entry.cpu), default: []].append(entry)
        }
        return byCalibration.map { key, entries in
            Calibration(
                // A series read at its usual level may come from fewer of the runs.
                revision: key.revision, cpu: key.cpu, runs: entries.map(\.runs).max() ?? 0,
                repetitions: Int(Statistics.median(entries.map { Double($0.repetitions) }) ?? 0), series: entries.count)
        }.sorted()
    }

    /// What tells one calibration from another: the binary and the CPU model
    /// its runs ran on.
    package struct CalibrationKey: Hashable, Sendable, Comparable {
        package let revision: String
        package let cpu: String

        package static func < (lhs: CalibrationKey, rhs: CalibrationKey) -> Bool {
            (lhs.revision, lhs.cpu) < (rhs.revision, rhs.cpu)
        }
    }

    /// The resolution of `key` for runs with `repetitions` of it
    /// (``entry(for:repetitions:)``), or nil when it was not calibrated.
    func resolution(of key: ResultSeriesKey, repetitions: Int? = nil) -> Double? {
        entry(for: key, repetitions: repetitions)?.resolution
    }

    /// The resolution of a series whose runs' log medians spread with
    /// standard deviation `logDeviation` over `runs` runs, among `seriesCount`
    /// calibrated series (see the type's comment).
    ///
    /// A rise by the factor `f = exp(z·√2·s⁺)` is `f - 1` of the base; the
    /// same move of a rate (higher is better) is a fall by `1 - 1/f`, which
    /// `higherIsBetter` gives, so that the harmful direction gets the
    /// resolution of the log-scale move in either case.
    static func resolution(
        logDeviation: Double, runs: Int, seriesCount: Int, alpha: Double, higherIsBetter: Bool = false
    ) -> Double {
        let degrees = Double(max(runs - 1, 1))
        let upper = logDeviation * (degrees / chiSquareQuantile(0.10, degrees: degrees)).squareRoot()
        let z = HodgesLehmannInterval.standardNormalQuantile(1 - alpha / Double(max(seriesCount, 1)))
        let factor = exp(z * 2.0.squareRoot() * upper)
        return higherIsBetter ? 1 - 1 / factor : factor - 1
    }

    /// The `probability` quantile of the chi-square distribution with
    /// `degrees` degrees of freedom (Wilson-Hilferty: within a few per cent
    /// from 3 degrees on, which is what an upper bound on a spread needs).
    static func chiSquareQuantile(_ probability: Double, degrees: Double) -> Double {
        let z = HodgesLehmannInterval.standardNormalQuantile(probability)
        let spread = 2 / (9 * degrees)
        // Kept positive: the approximation fails below about one degree of freedom.
        let root = max(1 - spread + z * spread.squareRoot(), 0.01)
        return degrees * root * root * root
    }

    /// Calibrates every judged timing series found in all of `runs` of one
    /// binary (one git revision) on one CPU model; runs of several binaries
    /// or CPU models are calibrated group by group (each one suite's runs,
    /// say, or one binary's runs on two hosts), and a series two of them
    /// calibrate has an entry from each (``entry(for:repetitions:)``
    /// chooses). Exact counts and series compare only shows have no
    /// resolution. Throws when a group has fewer than ``minimumRuns`` runs,
    /// or when no series is in all the runs of one.
    package static func calibrate(runs: [ResultFile], alpha: Double = 0.05, path: String) throws(CompareInputError)
        -> ResolutionTable
    {
        var byRevision: [String: [ResultFile]] = [:]
        var groups: [CalibrationKey: [ResultFile]] = [:]
        for run in runs {
            let revision = run.revisions.sorted().joined(separator: ", ")
            byRevision[revision, default: []].append(run)
            groups[CalibrationKey(revision: revision, cpu: run.facts.cpu), default: []].append(run)
        }
        guard runs.count >= minimumRuns else {
            throw CompareInputError(
                file: path, line: nil,
                message: "calibration needs at least \(minimumRuns) runs of one binary, got \(runs.count): "
                    + "run BenchRunner (e.g. --quick) \(minimumRuns) times or more without changing the code, "
                    + "then give every CSV")
        }
        let short = byRevision.filter { $0.value.count < minimumRuns }
        guard short.isEmpty else {
            let named = short.keys.sorted().map { "git \($0 == "" ? "(none)" : $0): \(short[$0]?.count ?? 0)" }
            throw CompareInputError(
                file: path, line: nil,
                message: "calibration needs at least \(minimumRuns) runs of each binary it is given, but the runs name "
                    + "\(byRevision.count) git revisions (\(byRevision.keys.sorted().joined(separator: "; "))) and "
                    + named.joined(separator: ", ") + " run(s): runs of one binary must come from one revision, "
                    + "or the spread between them would include the code's changes; give \(minimumRuns) or more of each")
        }
        let shortOnOneCPU = groups.filter { $0.value.count < minimumRuns }
        guard shortOnOneCPU.isEmpty else {
            let named = shortOnOneCPU.keys.sorted().map {
                "git \($0.revision) on \($0.cpu.isEmpty ? "(no cpu column)" : $0.cpu): \(shortOnOneCPU[$0]?.count ?? 0)"
            }
            throw CompareInputError(
                file: path, line: nil,
                message: "calibration needs at least \(minimumRuns) runs of each binary on each CPU model it is given "
                    + "(a resolution is one machine's), but " + named.joined(separator: ", ")
                    + " run(s): give \(minimumRuns) or more runs of each binary on each CPU model, or leave that "
                    + "model's runs out")
        }
        var calibrated: [ResultSeriesKey: [Entry]] = [:]
        for group in groups.keys.sorted() {
            for (key, entry) in try calibrate(binary: groups[group] ?? [], calibration: group, alpha: alpha, path: path) {
                calibrated[key, default: []].append(entry)
            }
        }
        return ResolutionTable(path: path, calibrated: calibrated)
    }

    /// The entries of one binary's `runs` on one CPU model (at least
    /// ``minimumRuns``), each series' resolution with the Bonferroni bound
    /// over this group's calibrated series.
    private static func calibrate(
        binary runs: [ResultFile], calibration: CalibrationKey, alpha: Double, path: String
    ) throws(CompareInputError) -> [ResultSeriesKey: Entry] {
        let revision = calibration.revision
        var logMedians: [ResultSeriesKey: [Double]] = [:]
        var spreads: [ResultSeriesKey: [Double]] = [:]
        var counts: [ResultSeriesKey: [Double]] = [:]
        for run in runs {
            let missed = run.benchmarksMissingTheirUsualLevel
            for series in run.series {
                let rule = MetricComparisonRule(
                    metric: series.key.metric, benchmark: series.key.benchmark, variant: series.key.variant)
                // A run that missed a series' usual level did not measure it
                // (``ResultFile/benchmarksMissingTheirUsualLevel``): its median
                // would be the slow level's, and the spread the machine's episodes.
                guard !rule.isExact, rule.preference != .informational,
                    !MachineDrift.isAnchor(variant: series.key.variant),
                    !(rule.readsUsualLevel && missed.contains(series.key.benchmark)),
                    let median = Statistics.median(rule.judgedValues(series.values)), median > 0
                else { continue }
                logMedians[series.key, default: []].append(Foundation.log(median))
                spreads[series.key, default: []].append(RepetitionSpread.relativeInterquartileRange(series.values) ?? 0)
                counts[series.key, default: []].append(Double(series.values.count))
            }
        }
        // Every run's series, or for a series read at its usual level the
        // runs that measured it, as long as at least ``minimumRuns`` did.
        let complete = logMedians.filter { key, logs in
            let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
            return logs.count == runs.count || (rule.readsUsualLevel && logs.count >= minimumRuns)
        }
        guard !complete.isEmpty else {
            throw CompareInputError(
                file: path, line: nil,
                message: "no judged timing series with a positive median is in all \(runs.count) runs of git "
                    + "\(revision): give runs of the same suite and filter")
        }
        var entries: [ResultSeriesKey: Entry] = [:]
        for (key, everyLog) in complete {
            let rule = MetricComparisonRule(metric: key.metric, benchmark: key.benchmark, variant: key.variant)
            let logs = rule.readsUsualLevel ? Self.atTheirUsualLevel(everyLog, rule: rule) : everyLog
            guard logs.count >= minimumRuns else { continue }
            let mean = logs.reduce(0, +) / Double(logs.count)
            let variance = logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(logs.count - 1)
            let deviation = variance.squareRoot()
            entries[key] = Entry(
                runs: logs.count, logDeviation: deviation,
                resolution: resolution(
                    logDeviation: deviation, runs: logs.count, seriesCount: complete.count, alpha: alpha,
                    higherIsBetter: rule.preference == .higherIsBetter),
                spread: Statistics.median(spreads[key] ?? []) ?? 0, revision: revision,
                repetitions: Int(Statistics.median(counts[key] ?? []) ?? 0), cpu: calibration.cpu, level: exp(mean))
        }
        return entries
    }

    /// The log medians of a series read at its usual level without those of
    /// runs the machine's slow level held throughout: beyond
    /// ``calibratedLevelLimit`` of the runs' median on the slow side
    /// (``factorBeyondCalibratedLevel(of:median:repetitions:)`` applies the
    /// same limit to compared runs). Such a run reads as at its usual level
    /// by itself, and would set the spread to the machine's levels rather
    /// than the runs'.
    static func atTheirUsualLevel(_ logs: [Double], rule: MetricComparisonRule) -> [Double] {
        guard let middle = Statistics.median(logs) else { return logs }
        let limit = Foundation.log(calibratedLevelLimit)
        return logs.filter { rule.preference == .higherIsBetter ? $0 >= middle - limit : $0 <= middle + limit }
    }
}

extension ResolutionTable {
    /// The CSV columns of a resolution table, in order.
    static let columns = [
        "benchmark", "variant", "params", "allocator", "metric", "runs", "log_deviation", "resolution", "spread",
        "revision", "repetitions", "cpu", "level",
    ]

    /// Columns a table written before them may lack: a missing `cpu` reads as
    /// a calibration on an unnamed machine, which applies to any runs; a
    /// missing `level` as a level not measured.
    static let optionalColumns: Set<String> = ["cpu", "level"]

    /// The table as CSV: a header, then one row per series, sorted.
    package func csv() -> String {
        var lines = [Self.columns.joined(separator: ",")]
        let keys = calibrated.keys.sorted { $0.description < $1.description }
        for key in keys {
            for entry in (calibrated[key] ?? []).sorted(by: { ($0.revision, $0.cpu) < ($1.revision, $1.cpu) }) {
                let fields = [
                    key.benchmark, key.variant, key.params, key.allocator, key.metric, String(entry.runs),
                    String(entry.logDeviation), String(entry.resolution), String(entry.spread), entry.revision,
                    String(entry.repetitions), entry.cpu, String(entry.level),
                ]
                lines.append(fields.map(CSV.escape).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a table `BenchRunner calibrate` wrote; errors name the file and line.
    package static func load(path: String) throws(CompareInputError) -> ResolutionTable {
        try parse(
            text: CSVInput.text(
                atPath: path, missing: "no such file (write one with BenchRunner calibrate, or give --resolution none)"),
            path: path)
    }

    /// Parses a resolution table's CSV `text`; `path` names it in errors.
    static func parse(text: String, path: String) throws(CompareInputError) -> ResolutionTable {
        let table = try CSVInput.table(
            text: text, path: path, empty: "is empty: expected the header " + columns.joined(separator: ","))
        let missing = table.missingColumns(columns.filter { !optionalColumns.contains($0) })
        guard missing.isEmpty else {
            throw CompareInputError(
                file: path, line: table.header.line,
                message: "header lacks " + missing.joined(separator: ", ")
                    + " (is this a table BenchRunner calibrate wrote?)")
        }
        var calibrated: [ResultSeriesKey: [Entry]] = [:]
        for row in try CSVInput.rows(of: table, path: path) {
            guard let runs = Int(row["runs"]), runs >= minimumRuns,
                let deviation = Double(row["log_deviation"]), deviation.isFinite, deviation >= 0,
                let resolution = Double(row["resolution"]), resolution.isFinite, resolution >= 0,
                let spread = Double(row["spread"]), spread.isFinite, spread >= 0,
                let rowRepetitions = Int(row["repetitions"]), rowRepetitions > 0,
                let level = row["level"].isEmpty ? 0 : Double(row["level"]), level.isFinite, level >= 0
            else {
                throw CompareInputError(
                    file: path, line: row.line,
                    message: "runs (at least \(minimumRuns)), log_deviation, resolution, spread, level (0 or more) and "
                        + "repetitions (1 or more) must be numbers: write the table anew with BenchRunner calibrate")
            }
            let key = ResultSeriesKey(
                benchmark: row["benchmark"], variant: row["variant"], params: row["params"], metric: row["metric"],
                allocator: row["allocator"])
            calibrated[key, default: []].append(
                Entry(
                    runs: runs, logDeviation: deviation, resolution: resolution, spread: spread,
                    revision: row["revision"], repetitions: rowRepetitions, cpu: row["cpu"], level: level))
        }
        return ResolutionTable(path: path, calibrated: calibrated)
    }
}
