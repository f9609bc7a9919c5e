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

    /// `20261207T142213Z-4f36735065a7`'s fast path on an Intel Xeon host:
    /// three repetitions in the fast tail (25.6-28.2 ns) and six of the
    /// level's fastest (32.3-34.7) within 1.25 times the third, a quarter,
    /// so without its host's level the run reads 33.2 ns, and as a base it
    /// made one of that host's calibration runs (`20261207T130314Z`, 38.3
    /// ns) a regression beyond the host's 10 % resolution. The calibration runs
    /// of that CPU model measured the level at 37.6 ns, beyond the third's
    /// band: a tail, so the band moves up to the fourth (32.3), and the run
    /// reads 36.2. The level never makes a run read better: one at the
    /// level, one 20 % slower with the same tail, one whose every
    /// repetition is faster, the AMD host's usual level apart from a slow
    /// one, and the tail in a run whose median is far from the level read
    /// as without it.
    func testATailBeyondTheBandOfTheCalibratedLevelIsNotTheLevel() throws {
        let tailed: [Double] = [
            35.2465, 35.1997, 37.5019, 37.7874, 38.8225, 47.4743, 32.2708, 39.7205, 42.635, 36.8529, 38.4921,
            37.2266, 28.153, 38.1745, 36.4839, 38.0144, 37.3604, 33.1666, 35.8945, 35.5615, 37.6717, 39.5651,
            39.3688, 26.9474, 25.5873, 34.5274, 34.1278, 34.0498, 34.6735, 35.3887,
        ]
        let sibling: [Double] = [
            35.7594, 42.1631, 37.1699, 39.0069, 38.5512, 38.5973, 37.9828, 37.6111, 35.4173, 36.3837, 34.0005,
            35.4609, 38.8493, 39.668, 35.3299, 37.8256, 37.3068, 34.6552, 33.1903, 33.9308, 37.4233, 34.1737, 37.133,
            34.7994, 37.5249, 39.4127, 38.6093, 37.4434, 37.8394, 37.8347,
        ]
        let calibration: [Double] = [
            35.1373, 42.7541, 37.3457, 44.2858, 38.6332, 38.0446, 37.4315, 37.0543, 41.1685, 37.5083, 37.4503,
            41.6429, 38.3273, 38.9328, 38.2036, 34.4519, 44.1341, 38.0121, 37.674, 40.1389, 40.9152, 39.2405,
            39.9629, 37.6074, 38.3592, 35.5654, 41.1347, 36.6541, 37.6045, 40.1547,
        ]
        let rule = throughputTime
        let level = 37.6
        func median(_ values: [Double], _ level: Double?) throws -> Double {
            try XCTUnwrap(Statistics.median(rule.judgedValues(values, calibratedLevel: level)))
        }
        XCTAssertEqual(rule.judgedValues(tailed).count, 9)
        XCTAssertEqual(try median(tailed, nil), 33.17, accuracy: 0.005)
        XCTAssertEqual(rule.judgedValues(tailed, calibratedLevel: level).count, 28, "within 1.25 times 32.3")
        XCTAssertEqual(try median(tailed, level), 36.19, accuracy: 0.005)
        let slower = tailed.map { $0 * 1.2 }
        let faster = sibling.map { $0 * 0.7 }
        let apart = [13.0, 13.4, 13.2, 13.6, 13.1] + (0..<25).map { 27 + Double($0 % 7) }
        // The same tail in a run whose median is 40 % below the level (a
        // binary that times the series otherwise, or a change beyond the
        // band): the level says nothing of it.
        let farFromTheLevel = tailed.map { $0 * 0.6 }
        XCTAssertEqual(rule.judgedValues(farFromTheLevel).count, 9)
        for (values, level) in [(sibling, level), (slower, level), (faster, level), (apart, 13.6), (farFromTheLevel, level)] {
            XCTAssertEqual(rule.judgedValues(values, calibratedLevel: level), rule.judgedValues(values), "\(values)")
        }
        let rate = MetricComparisonRule(metric: "elements_per_s", benchmark: "observeOn.throughput", variant: "fast-path")
        XCTAssertEqual(rate.judgedValues(tailed.map { 1e9 / $0 }, calibratedLevel: 1e9 / level).count, 28, "a rate the same way up")

        // compare takes the level of the runs' CPU model from its table.
        let key = ResultSeriesKey(
            benchmark: "observeOn.throughput", variant: "fast-path", params: "elements=100000",
            metric: "ns_per_element", allocator: "system")
        let entry = ResolutionTable.Entry(
            runs: 9, logDeviation: 0.0133, resolution: 0.102, spread: 0.08, revision: "abc", repetitions: 30,
            cpu: "Intel Xeon", level: level)
        let table = ResolutionTable(path: "resolution.csv", entries: [key: entry])
        // The generic path beside it, at the level in both runs: the
        // benchmark measured its usual level (the median share over its
        // series), as in the runs themselves.
        let generic = ResultSeriesKey(
            benchmark: "observeOn.throughput", variant: "generic", params: "elements=100000",
            metric: "ns_per_element", allocator: "system")
        func compare(on cpu: String) throws -> SeriesComparison {
            func file(_ values: [Double], _ path: String) -> ResultFile {
                ResultFile(
                    path: path,
                    series: [
                        ResultSeries(key: key, unit: "ns", values: values, firstLine: 2),
                        ResultSeries(key: generic, unit: "ns", values: sibling, firstLine: 32),
                    ], facts: RunFacts(cpu: cpu))
            }
            let report = try ComparisonReport(
                base: file(tailed, "base.csv"), new: file(calibration, "new.csv"),
                options: CompareOptions(resolution: table))
            return try XCTUnwrap(report.comparisons.first { $0.key == key })
        }
        let onItsHost = try compare(on: "Intel Xeon")
        XCTAssertEqual(onItsHost.calibratedLevel, level)
        XCTAssertFalse(onItsHost.missedItsUsualLevel)
        XCTAssertTrue(onItsHost.verdict.isJudged, "\(onItsHost.verdict)")
        XCTAssertNotEqual(onItsHost.verdict, .worse)
        XCTAssertEqual(try XCTUnwrap(onItsHost.baseMedian), 36.19, accuracy: 0.005)
        let elsewhere = try compare(on: "AMD EPYC")
        XCTAssertNil(elsewhere.calibratedLevel, "another CPU model's level says nothing of this one")
        XCTAssertEqual(elsewhere.verdict, .worse, "read from the tail, a run of one binary is a regression")
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
