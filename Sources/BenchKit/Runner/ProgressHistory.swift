import Foundation

/// What each stage of the recent runs of a suite cost against its plan (a
/// benchmark's warm-ups, its timed rounds, its counting pass: real seconds
/// over planned ones), so that the next run's time left takes each stage at
/// its own ratio from the start, as CTest orders and times tests from the
/// costs of its last run.
///
/// The rule it serves: a stage is taken at its own ratio, never at another
/// stage's. The plans' estimates are rough in different directions (a hop's
/// flood is planned at 1.5 µs an element and takes 20 ns; a timer's ticks
/// take what they take), so the ratio of the stages measured so far says
/// little of a stage to come, while a stage's own ratio moves little from
/// run to run (less as an average: each run moves a stage's record halfway
/// to its own ratio, on a log scale, so one run whose adaptive benchmark took
/// more rounds than usual moves it half as far). Without a history, a stage not yet measured borrows that
/// ratio, and the time left says "(guess)".
///
/// Kept in the results folder beside the runs (`results/progress-<suite>.json`),
/// as ``PriorRounds`` reads the rounds of the newest run there: a fresh
/// clone's first run takes each stage at the ratio of the run committed with
/// the repository, made on a machine of the kind the README names, and a
/// faster or slower machine's own pace scales those ratios once its first
/// stages are measured (``ProgressReporter/remainingByStage(of:now:inner:)``).
/// Each top-level run rewrites the file with the stages it measured
/// (``updated(with:)``). A file
/// that is missing or cannot be read is no history (the run guesses, and
/// says so); one that cannot be written is skipped.
package struct ProgressHistory: Sendable, Equatable, Codable {
    /// Per stage (`benchmark|phase`), real seconds over planned seconds.
    var ratios: [String: Double]
    /// The seconds the instruction-count pass took after the timing, in a
    /// run without a counting child (with one, the two passes run side by
    /// side and the counting stages' ratios hold them): no stage's plan
    /// holds it, so the next such run adds it to its time left. nil when
    /// no such run recorded it.
    package var instructionSeconds: Double?

    /// No stage recorded.
    package init() {
        ratios = [:]
    }

    init(ratios: [ProgressReporter.Stage: Double]) {
        self.ratios = Dictionary(
            ratios.filter { $0.value.isFinite && $0.value > 0 }.map { (Self.key($0.key), $0.value) },
            uniquingKeysWith: { first, _ in first })
    }

    /// The ratio recorded for `stage`, if any.
    func ratio(of stage: ProgressReporter.Stage) -> Double? {
        ratios[Self.key(stage)]
    }

    /// This history with the stages `newer` measured moved halfway to
    /// `newer`'s ratios, on a log scale (the geometric mean of the two: an
    /// average over runs that weighs the newest most); a stage this history
    /// has no record of takes `newer`'s ratio, and one `newer` did not
    /// measure keeps its own (a filtered run keeps the others').
    package func updated(with newer: ProgressHistory) -> ProgressHistory {
        var merged = self
        merged.ratios.merge(newer.ratios) { old, new in (old * new).squareRoot() }
        if let new = newer.instructionSeconds {
            merged.instructionSeconds = instructionSeconds.map { ($0 * new).squareRoot() } ?? new
        }
        return merged
    }

    static func key(_ stage: ProgressReporter.Stage) -> String {
        "\(stage.benchmark)|\(stage.phase.rawValue)"
    }

    /// Where the history of `suite` is kept: `progress-<suite>.json` in the
    /// results folder `directory`.
    package static func path(suite: String, in directory: String) -> String {
        (directory as NSString).appendingPathComponent("progress-\(suite).json")
    }

    /// The history at `path`; nil when there is none or it cannot be read.
    package static func load(path: String) -> ProgressHistory? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(ProgressHistory.self, from: data)
    }

    /// Writes the history to `path`; false when it cannot be written (the
    /// next run then guesses as this one would have).
    @discardableResult
    package func save(path: String) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(self) else { return false }
        return FileManager.default.createFile(atPath: path, contents: data)
    }
}
