import BenchAnalysis
import Foundation

/// How many timing rounds each adaptively repeated benchmark took in the
/// newest earlier run of a results folder that chose its rounds the same
/// way: what the progress line plans a benchmark at before it starts.
///
/// The rule it serves: a benchmark of the default suite takes 3 to 30
/// rounds, as its series need, within its time budget, and on one machine
/// about as many rounds run after run; so the plan is the last run's count,
/// not the fewest (the `scale.*` sweeps mostly run to their budget). The
/// rounds it then takes still correct the plan as they go: a round beyond
/// it extends it, stopping short ends it. A fresh clone has the committed
/// runs of this machine class.
package enum PriorRounds {
    /// The newest files read at most: a folder of many runs costs no more.
    static let filesRead = 12

    /// Per benchmark of `benchmarks`, the rounds its timing took in the
    /// newest file of `directory` where it chose them adaptively (the file
    /// has its `budget_reached` rows): the most repetitions of its timed
    /// series. Files are `<UTC time>-<revision>.csv`, newest by name; one
    /// that cannot be read is passed over. Empty when none has them.
    package static func newest(in directory: String, benchmarks: Set<String>) -> [String: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let runs = names.filter { $0.hasSuffix(".csv") && $0.first?.isNumber == true }.sorted(by: >)
        var rounds: [String: Int] = [:]
        for name in runs.prefix(filesRead) where rounds.count < benchmarks.count {
            guard let file = try? ResultFile.load(path: (directory as NSString).appendingPathComponent(name)) else {
                continue
            }
            for (benchmark, count) in Self.rounds(in: file) where benchmarks.contains(benchmark) && rounds[benchmark] == nil {
                rounds[benchmark] = count
            }
        }
        return rounds
    }

    /// The rounds of every benchmark of `file` that has `budget_reached`
    /// rows: the most repetitions of one of its timed series (not an exact
    /// count, which has the counting pass's repetitions, nor a per-tick
    /// sample, which has many a repetition).
    static func rounds(in file: ResultFile) -> [String: Int] {
        let adaptive = Set(
            file.series.filter { $0.key.metric == CSVSchema.budgetReached.name }.map(\.key.benchmark))
        var rounds: [String: Int] = [:]
        for series in file.series where adaptive.contains(series.key.benchmark) {
            switch CSVSchema.metric(named: series.key.metric)?.kind {
            case .measured, .wakeUpBound, .singleRunTail: break
            default: continue
            }
            rounds[series.key.benchmark] = max(rounds[series.key.benchmark] ?? 0, series.values.count)
        }
        return rounds
    }
}
