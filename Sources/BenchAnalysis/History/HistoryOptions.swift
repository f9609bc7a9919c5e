/// Settings of `BenchRunner history`.
package struct HistoryOptions: Sendable, Equatable {
    /// How the report is written.
    package enum Format: String, Sendable, CaseIterable {
        /// An aligned text table with a summary, for a terminal.
        case table
        /// One CSV row per change point, for scripts; the summary goes to standard error.
        case csv
        /// Every series' points and change points, for scripts and the report page.
        case json
    }

    /// The thresholds, the level and the exact tolerances, with `compare`'s
    /// meaning and defaults (its gate, format and resolution are not used).
    package var judgement = CompareOptions()
    /// How the report is written.
    package var format = Format.table
    /// Keep only series whose `benchmark/variant params metric [allocator]`
    /// contains one of these (all when empty).
    package var filters: [String] = []
    /// Keep only runs whose machine (``RunFacts/machine``) contains this (all when nil).
    package var machine: String?
    /// The git repository whose commit order orders the runs.
    package var repository = "."
    /// Where to write the static page (``HistoryPage``), if anywhere.
    package var htmlDirectory: String?
    /// plotly.js for the page; by default the one plotly's Python package ships.
    package var plotlyJS: String?
    /// A Stress results CSV (`Stress --csv`) whose outcome tables the page shows.
    package var stressCSV: String?

    /// The command line's defaults: compare's thresholds, level and no
    /// exact tolerance; a table; every series and machine; this folder's repository.
    package init() {}

    /// The smallest change of a timing series that counts (`--threshold`).
    var threshold: Double { judgement.threshold }
    /// The same for wake-up-bound times (`--wakeup-threshold`).
    var wakeUpThreshold: Double { judgement.wakeUpThreshold }
    /// The level of each change point's test (`--alpha`).
    var alpha: Double { judgement.alpha }
    /// How far exact counts may move (`--exact-tolerance`).
    var exactTolerances: [ExactTolerance] { judgement.exactTolerances }
}
