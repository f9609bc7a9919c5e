import Foundation

/// A suite a run may have measured, as this BenchRunner writes it: every
/// series (`benchmark/variant params`) its plans write. The measuring side
/// (BenchKit) lists them; a run's kind is read by matching its series
/// against them.
package struct SuiteSignature: Sendable, Equatable {
    /// The suite's name as the index prints it (`default`, `quick`).
    let name: String
    /// `benchmark/variant params` of every plan of the suite.
    let series: Set<String>
    /// The benchmarks of the suite.
    let benchmarks: Set<String>

    /// The suite `name` whose plans write the series of `plans`
    /// (benchmark, variant, params).
    package init(name: String, plans: [(benchmark: String, variant: String, params: String)]) {
        self.name = name
        series = Set(plans.map { SuiteSignature.subject($0.benchmark, $0.variant, $0.params) })
        benchmarks = Set(plans.map(\.benchmark))
    }

    static func subject(_ benchmark: String, _ variant: String, _ params: String) -> String {
        "\(benchmark)/\(variant) \(params)"
    }
}

/// One file of the results folder as the index lists it.
package struct ResultsEntry: Sendable, Equatable {
    /// The file's name inside the folder.
    let name: String
    /// What the file is (see ``ResultsIndex`` for every kind and how it is read).
    let kind: String
    /// The revisions that wrote it (`git_rev`), joined by `, `; empty when unknown.
    let revision: String
    /// When the run started (`timestamp`, UTC); empty when unknown.
    let date: String
    /// Benchmarks in the file (0 for a file that is not a run).
    let benchmarks: Int
    /// The number of repetitions most of its series have; empty when not a run.
    let repetitions: String
    /// The repository's files that name it (documents, tests, scripts, CI), sorted.
    let citedBy: [String]
    /// Kept by `results prune` whatever cites it: a baseline CI compares
    /// against, or the calibration table compare reads.
    let isProtected: Bool
    /// For a file made from a run (a plot), the name of that run's CSV.
    let madeFrom: String?
}
