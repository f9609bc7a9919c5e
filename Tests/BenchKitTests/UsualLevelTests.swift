@testable import BenchAnalysis
import BenchKit
import ToolSupport
import XCTest

/// `observeOn.throughput` is judged on the repetitions at each run's usual
/// level (`BenchmarkSchema.readsUsualLevel`): its floods run at one of two
/// levels the machine sets, and a run's share of slow repetitions is not
/// the code's.
final class UsualLevelTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    // Computed, not stored: XCTest makes the test case objects before
    // `setUp()` installs the catalogue the rule is read from.
    private var throughputTime: MetricComparisonRule {
        MetricComparisonRule(metric: "ns_per_element", benchmark: "observeOn.throughput", variant: "fast-path")
    }

    func testTheUsualLevelIsWithinAQuarterOfTheBestRepetition() {
        XCTAssertTrue(throughputTime.readsUsualLevel)
        XCTAssertEqual(throughputTime.judgedValues([30, 14, 13, 29, 16.25, 16.3, 19.5]), [14, 13, 16.25])
        XCTAssertEqual(throughputTime.judgedValues([7]), [7])
        XCTAssertEqual(throughputTime.judgedValues([]), [])
        let rate = MetricComparisonRule(metric: "elements_per_s", benchmark: "observeOn.throughput", variant: "fast-path")
        XCTAssertEqual(rate.judgedValues([1, 6, 3, 5, 4.7, 2]), [6, 5])
    }

    func testOnlyTheTimesOfABenchmarkThatDeclaresItReadTheUsualLevel() {
        let elementPath = MetricComparisonRule(metric: "ns_per_element", benchmark: "elementPath", variant: "current-thread")
        XCTAssertFalse(elementPath.readsUsualLevel)
        XCTAssertEqual(elementPath.judgedValues([30, 14, 13]), [30, 14, 13])
        let counts = MetricComparisonRule(metric: "allocs_per_element", benchmark: "observeOn.throughput", variant: "fast-path")
        XCTAssertFalse(counts.readsUsualLevel, "exact counts are read whole")
        XCTAssertEqual(counts.judgedValues([2, 1, 3]), [2, 1, 3])
        // The trampoline's sweep lands at one of two levels per repetition
        // too: its times read the usual level, its live bytes whole.
        let trampoline = MetricComparisonRule(metric: "ns_per_action", benchmark: "scale.trampoline", variant: "current-thread")
        XCTAssertTrue(trampoline.readsUsualLevel)
        XCTAssertEqual(trampoline.judgedValues([110, 170, 110, 180, 125]), [110, 110, 125])
        let bytes = MetricComparisonRule(metric: "bytes_per_queued_action", benchmark: "scale.trampoline", variant: "current-thread")
        XCTAssertFalse(bytes.readsUsualLevel)
    }

    /// Fifteen repetitions of the usual level (13.3 to 14.7 ns) and the
    /// machine's slow level (about 29 ns) in `slow` more.
    private func run(usual factor: Double, slow: Int) -> [Double] {
        let usual = (0..<(30 - slow)).map { 13.3 + Double($0 % 15) * 0.1 }.map { $0 * factor }
        return usual + (0..<slow).map { 28.5 + Double($0) * 0.2 }
    }

    private func compare(_ base: [Double], _ new: [Double]) throws -> SeriesComparison {
        let report = try ComparisonReport(
            base: file(base, path: "base.csv"), new: file(new, path: "new.csv"), options: CompareOptions())
        return try XCTUnwrap(report.comparisons.first)
    }

    private func file(_ values: [Double], path: String) throws -> ResultFile {
        var lines = ["benchmark,variant,params,metric,unit,repetition,value"]
        for (index, value) in values.enumerated() {
            lines.append("observeOn.throughput,fast-path,elements=100000,ns_per_element,ns,\(index + 1),\(value)")
        }
        return try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: path)
    }

    func testMoreSlowRepetitionsInOneRunAreNotARegression() throws {
        // All repetitions: the median moves from 14.5 to 28.6 ns, and the
        // rank test would call the machine's episode a regression.
        let comparison = try compare(run(usual: 1, slow: 3), run(usual: 1, slow: 14))
        XCTAssertEqual(comparison.verdict, .same)
        XCTAssertEqual(comparison.baseMedian ?? 0, comparison.newMedian ?? 0, accuracy: 0.3)
    }

    func testATwentyPercentSlowerUsualLevelIsWorseWhateverTheSlowShare() throws {
        let comparison = try compare(run(usual: 1, slow: 10), run(usual: 1.2, slow: 2))
        XCTAssertEqual(comparison.verdict, .worse)
        XCTAssertEqual(comparison.change ?? 0, 0.2, accuracy: 0.02)
    }

    /// An episode that took 22 of 30 repetitions (the first run made after
    /// a build, in one case): the other 8 are still the run's usual level.
    func testAnEpisodeOverMostOfARunLeavesItsUsualLevel() throws {
        let comparison = try compare(run(usual: 1, slow: 2), run(usual: 1, slow: 22))
        XCTAssertEqual(comparison.newValues?.count, 30)
        XCTAssertEqual(comparison.verdict, .same)
        XCTAssertEqual(comparison.baseMedian ?? 0, comparison.newMedian ?? 0, accuracy: 0.5)
    }

    /// Beyond three quarters of a run (23 of 30 repetitions slow), the few
    /// left are as likely the slow level's lucky edge as the usual level:
    /// the run did not measure it, and the series is not judged, even when
    /// the other run is 20 % slower (a run like this, as the base, once let
    /// such a change pass).
    func testARunThatAnEpisodeTookMoreThanThreeQuartersOfIsNotJudged() throws {
        let comparison = try compare(run(usual: 1, slow: 2), run(usual: 1, slow: 23))
        XCTAssertTrue(comparison.missedItsUsualLevel)
        XCTAssertEqual(comparison.verdict, .tooFewRepetitions)
        let report = try ComparisonReport(
            base: file(run(usual: 1, slow: 23), path: "base.csv"), new: file(run(usual: 1.2, slow: 2), path: "new.csv"),
            options: CompareOptions())
        XCTAssertEqual(report.exitStatus, .notJudged)
        let summary = CompareReportFormatter(report: report).summary()
        XCTAssertTrue(summary.contains("Not at the usual level, 1 series"), summary)
        XCTAssertTrue(summary.contains("more repetitions would not either"), summary)
    }

    /// Whether a run measured its usual level is the run's, read from all of
    /// the benchmark's series: one variant whose repetitions spread wider
    /// (as the actor executor's do; here 2.6 times from fastest to slowest) keeps few
    /// of them within the band in any run, and does not make the run miss it.
    func testOneWideVariantDoesNotMakeARunMissItsUsualLevel() throws {
        func throughputFile(wide: [Double], hopsSlow: Int) throws -> ResultFile {
            var lines = ["benchmark,variant,params,metric,unit,repetition,value"]
            for variant in ["fast-path", "generic", "concurrent"] {
                for (index, value) in run(usual: 1, slow: hopsSlow).enumerated() {
                    lines.append("observeOn.throughput,\(variant),elements=100000,ns_per_element,ns,\(index + 1),\(value)")
                }
            }
            for (index, value) in wide.enumerated() {
                lines.append("observeOn.throughput,actor-executor,elements=100000,ns_per_element,ns,\(index + 1),\(value)")
            }
            return try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: "run.csv")
        }
        let wide = (0..<30).map { 1860 + Double($0) * 100 }
        let actor = MetricComparisonRule(metric: "ns_per_element", benchmark: "observeOn.throughput", variant: "actor-executor")
        XCTAssertLessThan(actor.usualLevelShare(wide), BenchmarkSchema.usualLevelMinimumShare)
        XCTAssertEqual(try throughputFile(wide: wide, hopsSlow: 2).benchmarksMissingTheirUsualLevel, [])
        XCTAssertEqual(
            try throughputFile(wide: wide, hopsSlow: 24).benchmarksMissingTheirUsualLevel, ["observeOn.throughput"])
    }


    /// On a host whose hops run at one level with a fast tail (an Intel
    /// Xeon host: 34 to 43 ns, and now and then one repetition at 30), the
    /// band hangs from the tenth-fastest repetition, not the lucky fastest:
    /// from the fastest it kept the new run's fastest 12 of 30, and a fast
    /// path made 20 % slower read as +14 %. Nor does it make the run miss
    /// its usual level: the share is read from the twentieth-fastest (the
    /// second of 30), where from the fastest it was 13 of 30, short of a
    /// quarter only in a run whose fastest was far below the rest.
    func testOneLuckyRepetitionDoesNotNarrowTheBand() throws {
        let level = (0..<30).map { 34 + Double(($0 * 7) % 10) }
        var lucky = level
        lucky[4] = 30
        let comparison = try compare(level, lucky.map { $0 * 1.2 })
        XCTAssertEqual(try XCTUnwrap(comparison.change), 0.2, accuracy: 0.02, "the whole slowdown, not the fast few's")
        XCTAssertEqual(comparison.newValues?.count, 30)
        XCTAssertEqual(comparison.verdict, .worse)
        let rule = MetricComparisonRule(metric: "ns_per_element", benchmark: "observeOn.throughput", variant: "fast-path")
        XCTAssertEqual(rule.judgedValues(lucky).count, 27, "within 1.25 times the third-fastest (34): all but the 43s")
        XCTAssertEqual(rule.usualLevelShare(lucky), 27.0 / 30, accuracy: 1e-9, "within 1.25 times the second-fastest (34)")
        // Two lone repetitions 20-30 % below the level in thirty still make
        // the run miss it (the second-fastest is lone too); in sixty (a run
        // whose hops were timed again) the third-fastest is at the level.
        var twoLucky = level
        twoLucky[4] = 24
        twoLucky[9] = 27
        XCTAssertEqual(rule.usualLevelShare(twoLucky), 2.0 / 30, accuracy: 1e-9, "the second-fastest (27) is lone too")
        var sixty = level + level
        sixty[4] = 24
        sixty[9] = 27
        XCTAssertEqual(rule.usualLevelShare(sixty), 54.0 / 60, accuracy: 1e-9, "of 60, the third-fastest (34): all but the 43s")
        XCTAssertEqual(rule.judgedValues([30, 80, 81]), [30], "of up to ten repetitions, the band hangs from the best")
    }
    /// A tail is not a level: on the Intel Xeon host the fast path's
    /// repetitions sometimes fall 26 % below the rest, and in
    /// `20261207T125704Z-99937e87098d` three of thirty did (reps 8, 14 and
    /// 19), so the band of the third-fastest kept those and two more, the
    /// run read 27.6 ns where its eight siblings read 36.7 to 38.4, and
    /// the calibration of that host gave the fast path a resolution of
    /// 114 %. The anchor moves up to the fastest repetition whose band
    /// keeps a quarter, past faster ones that run on into it; a faster
    /// group set apart by more than the band (the AMD EPYC host's usual
    /// level, with the slow level twice it) stays the level, and such a
    /// run misses it (``MetricComparisonRule/usualLevelShare(_:)``).
    func testAFastTailOfFewerThanAQuarterIsNotTheLevelButALevelApartIs() throws {
        let run: [Double] = [
            36.6, 40.0, 37.6, 40.2, 39.2, 39.2, 35.4, 27.6, 38.6, 35.7, 39.5, 42.8, 37.5, 27.3, 36.8,
            38.3, 37.9, 38.4, 27.6, 36.5, 36.8, 32.9, 34.1, 38.7, 37.4, 36.6, 37.4, 37.6, 37.3, 34.7,
        ]
        let rule = throughputTime
        let judged = rule.judgedValues(run)
        XCTAssertEqual(judged.count, 29, "within 1.25 times the fourth-fastest (32.9): all but the 42.8")
        XCTAssertEqual(try XCTUnwrap(Statistics.median(judged)), 37.4, accuracy: 0.05)
        XCTAssertEqual(run.filter { $0 <= 27.6 * 1.25 }.count, 5, "the third-fastest's band: the tail and two more")
        let apart = [13.0, 13.4, 13.2, 13.6, 13.1] + (0..<25).map { 27 + Double($0 % 7) }
        XCTAssertEqual(rule.judgedValues(apart), [13.0, 13.4, 13.2, 13.6, 13.1], "nothing within 1.25 times 13.6")
        XCTAssertLessThan(rule.usualLevelShare(apart), BenchmarkSchema.usualLevelMinimumShare)
        let rate = MetricComparisonRule(metric: "elements_per_s", benchmark: "observeOn.throughput", variant: "fast-path")
        let rates = run.map { 1e9 / $0 }
        XCTAssertEqual(rate.judgedValues(rates).count, 29, "a rate the same way up")
    }

    /// A default run reads the share of its own rows at the usual level
    /// before it writes them (the rule compare applies to the file), and a
    /// benchmark below the minimum is timed again, its new repetitions
    /// numbered on: thirty more at the usual level leave the run judged,
    /// where the first thirty alone were not.
    func testARunReadsTheUsualLevelShareOfItsOwnRowsAndTimesAgainOnFromThem() throws {
        func rows(_ values: [Double]) -> [CSVRow] {
            ["fast-path", "generic", "concurrent"].flatMap { variant in
                values.enumerated().map { index, value in
                    CSVRow(
                        benchmark: "observeOn.throughput", variant: variant, params: "elements=100000",
                        metric: "ns_per_element", unit: "ns", repetition: index + 1, value: value)
                }
            }
        }
        let missed = rows(run(usual: 1, slow: 25))
        let share = try XCTUnwrap(ResultFile.usualLevelShares(of: missed)["observeOn.throughput"])
        XCTAssertEqual(share, 5.0 / 30, accuracy: 1e-9)
        XCTAssertLessThan(share, BenchmarkSchema.usualLevelMinimumShare)
        XCTAssertEqual(
            try XCTUnwrap(ResultFile.usualLevelShares(of: rows(run(usual: 1, slow: 2)))["observeOn.throughput"]),
            28.0 / 30, accuracy: 1e-9)
        XCTAssertNil(ResultFile.usualLevelShares(of: missed)["observeOn.latency"], "no rows, no share")

        let both = ForkedRun.merge([missed, rows(run(usual: 1, slow: 3))])
        XCTAssertEqual(both.count, 180)
        let fastPath = both.filter { $0.variant == "fast-path" }
        XCTAssertEqual(fastPath.map(\.repetition), Array(1...60), "numbered on from each series' own last repetition")
        XCTAssertGreaterThanOrEqual(
            try XCTUnwrap(ResultFile.usualLevelShares(of: both)["observeOn.throughput"]), BenchmarkSchema.usualLevelMinimumShare)

        func file(_ rows: [CSVRow]) throws -> ResultFile {
            var lines = ["benchmark,variant,params,metric,unit,repetition,value"]
            for row in rows {
                lines.append("\(row.benchmark),\(row.variant),\(row.params),\(row.metric),\(row.unit),\(row.repetition),\(row.value!)")
            }
            return try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: "run.csv")
        }
        XCTAssertEqual(try file(missed).benchmarksMissingTheirUsualLevel, ["observeOn.throughput"])
        XCTAssertEqual(try file(both).benchmarksMissingTheirUsualLevel, [])
        let report = try ComparisonReport(
            base: file(rows(run(usual: 1, slow: 2))), new: file(both), options: CompareOptions())
        XCTAssertEqual(report.exitStatus, .noRegression, CompareReportFormatter(report: report).summary())
    }
}
