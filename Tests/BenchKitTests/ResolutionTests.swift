@testable import BenchAnalysis
import BenchKit
import Foundation
import XCTest

/// `BenchRunner calibrate` and compare's use of its table: each timing
/// series is judged against the larger of its threshold and the smallest
/// change two runs of one binary tell apart on the machine.
final class ResolutionTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private static let hop = ResultSeriesKey(
        benchmark: "observeOn.throughput", variant: "fast-path", params: "elements=100000", metric: "ns_per_element",
        allocator: "system")
    private static let timer = ResultSeriesKey(
        benchmark: "periodic.drift", variant: "serial-dispatch.emulated", params: "period_ms=1;ticks=150",
        metric: "lateness_p50_us", allocator: "system")
    private static let count = ResultSeriesKey(
        benchmark: "observeOn.throughput", variant: "fast-path", params: "elements=100000",
        metric: "allocs_per_element", allocator: "jemalloc")
    private static let peer = ResultSeriesKey(
        benchmark: "observeOn.throughput", variant: "peer.dispatch-async", params: "elements=100000",
        metric: "ns_per_element", allocator: "system")

    /// A run whose every series' repetitions sit at `level` times the series' base.
    private static func run(_ index: Int, hop: Double, timer: Double, revision: String = "abc", cpu: String = "")
        -> ResultFile
    {
        func series(_ key: ResultSeriesKey, _ unit: String, _ center: Double) -> ResultSeries {
            ResultSeries(key: key, unit: unit, values: [center * 0.99, center, center * 1.01], firstLine: 2)
        }
        return ResultFile(
            path: "run\(index).csv",
            series: [
                series(Self.hop, "ns", 14 * Foundation.exp(hop)), series(Self.timer, "us", 50 * Foundation.exp(timer)),
                series(Self.count, "allocations", 0.001), series(Self.peer, "ns", 400 * Foundation.exp(hop)),
            ], revisions: [revision], facts: RunFacts(cpu: cpu))
    }

    /// Runs at the given log levels of the hop and the timer.
    private static func runs(hopLevels: [Double], timerLevels: [Double]) -> [ResultFile] {
        zip(hopLevels, timerLevels).enumerated().map { run($0.offset, hop: $0.element.0, timer: $0.element.1) }
    }

    func testCalibrationMeasuresEachJudgedTimingSeriesSpreadAcrossRunsAndLeavesCountsAndPeersOut() throws {
        let hopLevels = [-0.02, 0.02, -0.02, 0.02, -0.02, 0.02]
        let timerLevels = [-0.3, 0.3, -0.3, 0.3, -0.3, 0.3]
        let table = try ResolutionTable.calibrate(
            runs: Self.runs(hopLevels: hopLevels, timerLevels: timerLevels), path: "out.csv")
        XCTAssertEqual(Set(table.entries.keys), [Self.hop, Self.timer], "counts and peers have no resolution")
        XCTAssertEqual(
            table.calibrations, [ResolutionTable.Calibration(revision: "abc", cpu: "", runs: 6, repetitions: 3, series: 2)])
        let hop = try XCTUnwrap(table.entries[Self.hop])
        // Six levels at ±0.02: sample standard deviation 0.02·√(6/5).
        XCTAssertEqual(hop.logDeviation, 0.02 * (6.0 / 5).squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(hop.runs, 6)
        XCTAssertEqual(
            hop.resolution,
            ResolutionTable.resolution(logDeviation: hop.logDeviation, runs: 6, seriesCount: 2, alpha: 0.05),
            accuracy: 1e-12)
        // The noisier series gets the coarser resolution.
        let timer = try XCTUnwrap(table.entries[Self.timer])
        XCTAssertGreaterThan(timer.resolution, hop.resolution * 10)
    }

    func testTheResolutionGrowsWithTheSpreadAndTheSeriesCountAndShrinksWithMoreRuns() {
        let base = ResolutionTable.resolution(logDeviation: 0.03, runs: 10, seriesCount: 80, alpha: 0.05)
        XCTAssertGreaterThan(
            ResolutionTable.resolution(logDeviation: 0.06, runs: 10, seriesCount: 80, alpha: 0.05), base)
        XCTAssertGreaterThan(
            ResolutionTable.resolution(logDeviation: 0.03, runs: 10, seriesCount: 800, alpha: 0.05), base)
        XCTAssertLessThan(ResolutionTable.resolution(logDeviation: 0.03, runs: 30, seriesCount: 80, alpha: 0.05), base)
        XCTAssertEqual(ResolutionTable.resolution(logDeviation: 0, runs: 10, seriesCount: 80, alpha: 0.05), 0)
        // A rate's resolution is the same log-scale move, downwards: 1/1.223 of the base is a fall of 18.2 %.
        XCTAssertEqual(
            ResolutionTable.resolution(logDeviation: 0.03, runs: 10, seriesCount: 80, alpha: 0.05, higherIsBetter: true),
            1 - 1 / (1 + base), accuracy: 1e-12)
        // With a spread of 3 % from 10 runs among 80 series: z(1 - 0.05/80)
        // = 3.23, the upper 90 % bound of the spread 1.47 times the estimate
        // (9 degrees of freedom: the chi-square 10 % quantile is 4.17), so
        // exp(3.23·√2·0.03·1.47) - 1 ≈ 22.3 %.
        XCTAssertEqual(base, 0.223, accuracy: 0.005)
    }

    func testCalibrationRefusesTooFewRunsAndRunsOfDifferentBinaries() {
        let three = Self.runs(hopLevels: [0, 0.01, 0.02], timerLevels: [0, 0.1, 0.2])
        XCTAssertThrowsError(try ResolutionTable.calibrate(runs: three, path: "out.csv")) { error in
            XCTAssertTrue("\(error)".contains("at least 4 runs of one binary, got 3"), "\(error)")
        }
        var mixed = Self.runs(hopLevels: [0, 0.01, 0.02, 0.03], timerLevels: [0, 0.1, 0.2, 0.3])
        mixed[3] = Self.run(3, hop: 0, timer: 0, revision: "def")
        XCTAssertThrowsError(try ResolutionTable.calibrate(runs: mixed, path: "out.csv")) { error in
            XCTAssertTrue("\(error)".contains("must come from one revision"), "\(error)")
            XCTAssertTrue("\(error)".contains("git abc: 3, git def: 1"), "\(error)")
        }
    }

    /// Two binaries' runs (one suite's and another's, say) make one table,
    /// each binary's spread measured among its own runs: the code's change
    /// between them is no part of either spread, and a series both calibrate
    /// has an entry from each, the coarser first.
    func testRunsOfTwoBinariesAreCalibratedBinaryByBinaryAndASharedSeriesKeepsBoth() throws {
        let quiet = (0..<4).map { Self.run($0, hop: [-0.01, 0.01, -0.01, 0.01][$0], timer: 0.1 * Double($0 % 2)) }
        // The other binary is 50 % slower throughout (a change of the code,
        // not spread), and its hop spreads five times as widely.
        let slower = (0..<5).map {
            Self.run(10 + $0, hop: Foundation.log(1.5) + [-0.05, 0.05, -0.05, 0.05, 0][$0], timer: 0, revision: "def")
        }
        let table = try ResolutionTable.calibrate(runs: quiet + slower, path: "out.csv")
        let alone = try ResolutionTable.calibrate(runs: quiet, path: "out.csv")
        let other = try ResolutionTable.calibrate(runs: slower, path: "out.csv")
        XCTAssertEqual(
            table.calibrated[Self.hop], [other.entries[Self.hop], alone.entries[Self.hop]].compactMap { $0 },
            "both binaries' hop entries, the wider binary's (coarser) first")
        let hop = try XCTUnwrap(table.entries[Self.hop])
        XCTAssertEqual(hop.revision, "def")
        XCTAssertLessThan(hop.resolution, 0.5, "the 50 % between the binaries is not read as spread")
        XCTAssertEqual(table.entries[Self.timer], alone.entries[Self.timer], "the first binary's timer spreads more")
        XCTAssertEqual(
            table.calibrations,
            [
                ResolutionTable.Calibration(revision: "abc", cpu: "", runs: 4, repetitions: 3, series: 2),
                ResolutionTable.Calibration(revision: "def", cpu: "", runs: 5, repetitions: 3, series: 2),
            ])
        XCTAssertEqual(try ResolutionTable.parse(text: table.csv(), path: "out.csv"), table)
    }

    /// One binary's runs on two CPU models: each model's spread is measured
    /// among its own runs (the 2.5 times between the hosts is no part of
    /// either), the rows name their model, and two runs of one model are
    /// judged by that model's row, whichever is coarser; runs of a model no
    /// calibration ran on, or of two models, by any row, and the summary
    /// says when no calibration ran on the runs' model.
    func testRunsOnTwoCPUModelsAreCalibratedModelByModelAndRunsOfOneModelTakeItsRows() throws {
        let fast = (0..<4).map {
            Self.run($0, hop: [-0.01, 0.01, -0.01, 0.01][$0], timer: 0.1 * Double($0 % 2), cpu: "AMD EPYC")
        }
        let slow = (0..<5).map {
            Self.run(10 + $0, hop: Foundation.log(2.5) + [-0.06, 0.06, -0.06, 0.06, 0][$0], timer: 0, cpu: "Intel Xeon")
        }
        let table = try ResolutionTable.calibrate(runs: fast + slow, path: "out.csv")
        let amd = try ResolutionTable.calibrate(runs: fast, path: "out.csv")
        let intel = try ResolutionTable.calibrate(runs: slow, path: "out.csv")
        XCTAssertEqual(
            table.calibrations,
            [
                ResolutionTable.Calibration(revision: "abc", cpu: "AMD EPYC", runs: 4, repetitions: 3, series: 2),
                ResolutionTable.Calibration(revision: "abc", cpu: "Intel Xeon", runs: 5, repetitions: 3, series: 2),
            ])
        let amdHop = try XCTUnwrap(amd.entries[Self.hop])
        let intelHop = try XCTUnwrap(intel.entries[Self.hop])
        XCTAssertLessThan(amdHop.resolution, intelHop.resolution)
        XCTAssertLessThan(intelHop.resolution, 0.5, "the 2.5 times between the hosts is not read as spread")
        XCTAssertEqual(table.calibrated[Self.hop], [intelHop, amdHop], "both models' entries, the coarser first")

        let onAMD = table.onMachine(base: "AMD EPYC", new: "AMD EPYC")
        XCTAssertEqual(onAMD.resolution(of: Self.hop, repetitions: 3), amdHop.resolution, "its own model's, though finer")
        XCTAssertTrue(onAMD.calibratedOnMachine)
        XCTAssertEqual(
            table.onMachine(base: "Intel Xeon", new: "Intel Xeon").resolution(of: Self.hop, repetitions: 3),
            intelHop.resolution)
        for (base, new) in [("AMD EPYC", "Intel Xeon"), ("ARM", "ARM"), ("", "")] {
            let other = table.onMachine(base: base, new: new)
            XCTAssertEqual(other.resolution(of: Self.hop, repetitions: 3), intelHop.resolution, "\(base)/\(new): any row, the coarser")
            XCTAssertFalse(other.calibratedOnMachine)
        }
        XCTAssertEqual(try ResolutionTable.parse(text: table.csv(), path: "out.csv"), table, "the cpu column reads back")

        // compare narrows the table to the runs' model by itself, and says
        // when the runs' model has no calibration.
        // +12 %: beyond the AMD host's resolution, within the Intel host's.
        XCTAssertLessThan(amdHop.resolution, 0.12)
        XCTAssertGreaterThan(intelHop.resolution, 0.12)
        let onAMDRuns = try Self.compareHop(base: 14, new: 14 * 1.12, cpu: "AMD EPYC", table: table)
        XCTAssertEqual(onAMDRuns.comparisons[0].verdict, .worse)
        let summary = CompareReportFormatter(report: onAMDRuns).summary()
        XCTAssertTrue(summary.contains("from 4 runs of git abc on AMD EPYC with 3 repetitions a series"), summary)
        XCTAssertFalse(summary.contains("which no calibration ran on"), summary)
        let onARM = try Self.compareHop(base: 14, new: 14 * 1.12, cpu: "ARM", table: table)
        XCTAssertEqual(onARM.comparisons[0].verdict, .notShownEqual, "the coarser row's resolution holds it")
        let armSummary = CompareReportFormatter(report: onARM).summary()
        XCTAssertTrue(armSummary.contains("both runs ran on ARM, which no calibration ran on"), armSummary)

        // A table written before rows named their model (and level) reads as
        // calibrated on an unnamed machine: any runs take its rows, and no note.
        let legacy = table.csv().split(separator: "\n").map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).dropLast(2).joined(separator: ",")
        }.joined(separator: "\n")
        let read = try ResolutionTable.parse(text: legacy, path: "old.csv")
        XCTAssertEqual(Set(read.calibrations.map(\.cpu)), [""])
        XCTAssertEqual(read.onMachine(base: "AMD EPYC", new: "AMD EPYC").resolution(of: Self.hop), intelHop.resolution)

        // Fewer than four runs on one model: refused, naming it.
        XCTAssertThrowsError(try ResolutionTable.calibrate(runs: fast + slow.prefix(2), path: "out.csv")) { error in
            XCTAssertTrue("\(error)".contains("git abc on Intel Xeon: 2"), "\(error)")
        }
    }

    /// A run the machine's slow level held throughout reads as at its own
    /// usual level; the level the calibration runs of its CPU model measured
    /// tells it. calibrate leaves such a run out of a series' spread, and
    /// compare leaves a series unjudged (not at the usual level) when a run
    /// of that CPU model sits beyond the band twice over: so a fast path
    /// 40 % slower than a slow-throughout base no longer passes, while a
    /// 20 % slower one against a base at the level is still worse. Runs of
    /// a CPU model the table was not calibrated on are judged as before.
    func testARunTheSlowLevelHeldThroughoutIsToldByItsCPUModelsCalibratedLevel() throws {
        let offsets = [-0.02, 0.02, -0.01, 0.01, 0]
        let calibration = offsets.enumerated().map { Self.run($0.offset, hop: $0.element, timer: 0, cpu: "Intel Xeon") }
            + [Self.run(9, hop: Foundation.log(2.4), timer: 0, cpu: "Intel Xeon")]
        let table = try ResolutionTable.calibrate(runs: calibration, path: "out.csv")
        let hop = try XCTUnwrap(table.entries[Self.hop])
        XCTAssertEqual(hop.runs, 5, "the run at 2.4 times is left out of the hop's spread")
        XCTAssertEqual(hop.level, 14, accuracy: 0.01, "the geometric mean of the five runs' medians")
        XCTAssertLessThan(hop.resolution, 0.2)
        XCTAssertEqual(table.entries[Self.timer]?.runs, 6, "a series not read at its usual level keeps every run")
        XCTAssertEqual(try ResolutionTable.parse(text: table.csv(), path: "out.csv"), table, "the level reads back")

        func compare(_ base: Double, _ new: Double, cpu: String = "Intel Xeon") throws -> ComparisonReport {
            try Self.compareHop(base: base, new: new, cpu: cpu, table: table)
        }
        // A base the slow level held (2.4 times), a fast path 40 % slower
        // than the level: 24 % faster than that base.
        let slowBase = try compare(14 * 2.4, 14 * 1.4)
        XCTAssertTrue(slowBase.comparisons[0].missedItsUsualLevel)
        XCTAssertEqual(try XCTUnwrap(slowBase.comparisons[0].factorBeyondCalibratedLevel), 2.4, accuracy: 0.01)
        XCTAssertEqual(slowBase.exitStatus, .notJudged)
        let summary = CompareReportFormatter(report: slowBase).summary()
        XCTAssertTrue(
            summary.contains("Not at the usual level, 1 series (off the calibrated level): a run's median sits 2.4 times "
                + "beyond the level the calibration runs on Intel Xeon measured"), summary)
        // 20 % slower than a base at the level: worse, as without a level.
        let slower = try compare(14, 14 * 1.2)
        XCTAssertNil(slower.comparisons[0].factorBeyondCalibratedLevel)
        XCTAssertEqual(slower.comparisons[0].verdict, .worse)
        XCTAssertEqual(slower.exitStatus, .regression)
        // Faster than the level is never off it.
        XCTAssertNil(try compare(14 * 0.5, 14 * 0.5).comparisons[0].factorBeyondCalibratedLevel)
        // Another CPU model: no level applies, the slow base is judged as the runs say.
        let elsewhere = try compare(14 * 2.4, 14 * 1.4, cpu: "AMD EPYC")
        XCTAssertFalse(elsewhere.comparisons[0].missedItsUsualLevel)
        XCTAssertEqual(elsewhere.exitStatus, .noRegression)
    }

    /// A series the quick runs (7 repetitions) and the default runs (30)
    /// both calibrate: compare takes the entry of the suite the compared runs
    /// look like by their repetitions, nearest on a log scale, and the
    /// coarser when it cannot tell.
    func testTheEntryWhoseCalibrationHadAsManyRepetitionsApplies() {
        func entry(_ repetitions: Int, _ resolution: Double) -> ResolutionTable.Entry {
            ResolutionTable.Entry(
                runs: 7, logDeviation: resolution / 10, resolution: resolution, spread: 0.1, revision: "r\(repetitions)",
                repetitions: repetitions)
        }
        let table = ResolutionTable(path: "r.csv", calibrated: [Self.hop: [entry(7, 0.09), entry(30, 0.14)]])
        XCTAssertEqual(table.resolution(of: Self.hop, repetitions: 7), 0.09)
        XCTAssertEqual(table.resolution(of: Self.hop, repetitions: 6), 0.09)
        XCTAssertEqual(table.resolution(of: Self.hop, repetitions: 30), 0.14)
        XCTAssertEqual(table.resolution(of: Self.hop, repetitions: 20), 0.14, "20 is nearer 30 than 7 on a log scale")
        XCTAssertEqual(table.resolution(of: Self.hop, repetitions: nil), 0.14, "unknown: the coarser")
        XCTAssertNil(table.resolution(of: Self.timer, repetitions: 7))
        let tie = ResolutionTable(path: "r.csv", calibrated: [Self.hop: [entry(7, 0.09), entry(7, 0.2)]])
        XCTAssertEqual(tie.resolution(of: Self.hop, repetitions: 7), 0.2, "a tie: the coarser")
    }

    func testATableReadsBackAsItWasWrittenAndMalformedTablesNameTheirLine() throws {
        let table = try ResolutionTable.calibrate(
            runs: Self.runs(hopLevels: [-0.02, 0.02, -0.01, 0.01], timerLevels: [-0.3, 0.3, -0.2, 0.2]),
            path: "resolution.csv")
        let read = try ResolutionTable.parse(text: table.csv(), path: "resolution.csv")
        XCTAssertEqual(read, table)

        XCTAssertThrowsError(try ResolutionTable.parse(text: "benchmark,variant\nx,y\n", path: "r.csv")) { error in
            XCTAssertEqual((error as? CompareInputError)?.line, 1)
            XCTAssertTrue("\(error)".contains("header lacks"), "\(error)")
        }
        let broken = table.csv() + "a,b,c,system,ns_per_element,two,0.1,0.2,0.01,abc,3,,0\n"
        XCTAssertThrowsError(try ResolutionTable.parse(text: broken, path: "r.csv")) { error in
            XCTAssertEqual((error as? CompareInputError)?.line, 4)
            XCTAssertTrue("\(error)".contains("BenchRunner calibrate"), "\(error)")
        }
        XCTAssertThrowsError(try ResolutionTable.load(path: "/nonexistent/resolution.csv")) { error in
            XCTAssertTrue("\(error)".contains("--resolution none"), "\(error)")
        }
    }

    /// Seven repetitions a side of the hop at `base` and `new` ns, a little
    /// spread, both runs on CPU model `cpu`.
    private static func hopFiles(base: Double, new: Double, cpu: String = "") -> (ResultFile, ResultFile) {
        let spread = [0.985, 0.99, 0.995, 1.0, 1.005, 1.01, 1.015]
        func file(_ center: Double, _ name: String) -> ResultFile {
            ResultFile(
                path: name, series: [ResultSeries(key: Self.hop, unit: "ns", values: spread.map { $0 * center }, firstLine: 2)],
                facts: RunFacts(cpu: cpu))
        }
        return (file(base, "base.csv"), file(new, "new.csv"))
    }

    /// compare of the hop at `base` and `new` ns on CPU model `cpu` (``hopFiles(base:new:cpu:)``) with `table`.
    private static func compareHop(base: Double, new: Double, cpu: String, table: ResolutionTable) throws
        -> ComparisonReport
    {
        let (baseFile, newFile) = hopFiles(base: base, new: new, cpu: cpu)
        return try ComparisonReport(base: baseFile, new: newFile, options: CompareOptions(resolution: table))
    }

    private static func table(resolution: Double) -> ResolutionTable {
        ResolutionTable(
            path: "resolution.csv",
            entries: [
                hop: .init(
                    runs: 10, logDeviation: 0.03, resolution: resolution, spread: 0.015, revision: "abc", repetitions: 7)
            ])
    }

    func testAMoveWithinTheResolutionIsNotAFalseAlarmWhileOneBeyondItIsStillWorse() throws {
        // 14 → 16.8 ns (+20 %): beyond the 5 % threshold, every repetition worse.
        let (base, new) = Self.hopFiles(base: 14, new: 16.8)
        let plain = try ComparisonReport(base: base, new: new, options: CompareOptions())
        XCTAssertEqual(plain.comparisons[0].verdict, .worse)
        XCTAssertEqual(plain.comparisons[0].threshold, 0.05)

        // Where two runs of one binary move this series by up to 30 %, +20 %
        // is within what the machine does by itself: no regression, but not
        // same either (~), and the summary lists it.
        let coarse = try ComparisonReport(base: base, new: new, options: CompareOptions(resolution: Self.table(resolution: 0.30)))
        XCTAssertEqual(coarse.comparisons[0].threshold, 0.30)
        XCTAssertEqual(coarse.comparisons[0].verdict, .notShownEqual)
        XCTAssertTrue(coarse.comparisons[0].movedWithinResolution)
        XCTAssertEqual(coarse.exitStatus, .noRegression)
        let summary = CompareReportFormatter(report: coarse).summary()
        XCTAssertTrue(summary.contains("but within the resolution"), summary)
        XCTAssertTrue(summary.contains("observeOn.throughput/fast-path elements=100000 ns_per_element [system]: +20.0%, resolution +-30%"), summary)

        // An unchanged series within the declared threshold is still same.
        let (twin, again) = Self.hopFiles(base: 14, new: 14.05)
        let unchanged = try ComparisonReport(base: twin, new: again, options: CompareOptions(resolution: Self.table(resolution: 0.30)))
        XCTAssertEqual(unchanged.comparisons[0].verdict, .same)

        // Resolution 12 %: +20 % with every repetition beyond +12 % is worse.
        let fine = try ComparisonReport(base: base, new: new, options: CompareOptions(resolution: Self.table(resolution: 0.12)))
        XCTAssertEqual(fine.comparisons[0].threshold, 0.12)
        XCTAssertEqual(fine.comparisons[0].verdict, .worse)
        XCTAssertEqual(fine.exitStatus, .regression)

        // A resolution finer than the threshold never lowers it.
        let finer = try ComparisonReport(base: base, new: new, options: CompareOptions(resolution: Self.table(resolution: 0.01)))
        XCTAssertEqual(finer.comparisons[0].threshold, 0.05)
    }

    func testTheSummaryNamesTheTableTheRaisedThresholdsAndASuiteUnlikeTheCalibrations() throws {
        let (base, new) = Self.hopFiles(base: 14, new: 14.1)
        let report = try ComparisonReport(base: base, new: new, options: CompareOptions(resolution: Self.table(resolution: 0.2)))
        let formatter = CompareReportFormatter(report: report)
        let summary = formatter.summary()
        XCTAssertTrue(summary.contains("Resolution: resolution.csv, from 10 runs of git abc"), summary)
        XCTAssertTrue(summary.contains("1 tested series calibrated, 1 of them with a threshold raised by it"), summary)
        XCTAssertFalse(summary.contains("calibrate anew"), "7 repetitions as calibrated: \(summary)")
        XCTAssertTrue(formatter.table().contains("+-20%"), formatter.table())

        let other = ResolutionTable(
            path: "resolution.csv",
            entries: [
                Self.hop: .init(
                    runs: 10, logDeviation: 0.03, resolution: 0.2, spread: 0.015, revision: "abc", repetitions: 15)
            ])
        let unlike = CompareReportFormatter(
            report: try ComparisonReport(base: base, new: new, options: CompareOptions(resolution: other))
        ).summary()
        XCTAssertTrue(unlike.contains("these runs have 7 repetitions a series, the calibration runs of their series 15"), unlike)
        XCTAssertFalse(summary.contains("busier machine"), "spread 1.5 % as calibrated: \(summary)")
    }

    func testARunWhoseRepetitionsSpreadFarMoreThanTheCalibrationsIsSaidToComeFromABusierMachine() throws {
        let (base, _) = Self.hopFiles(base: 14, new: 14)
        let wide = ResultFile(
            path: "new.csv",
            series: [
                ResultSeries(
                    key: Self.hop, unit: "ns", values: [11, 12, 13, 14, 15, 16, 17].map { $0 * 1.0 }, firstLine: 2)
            ])
        let summary = CompareReportFormatter(
            report: try ComparisonReport(base: base, new: wide, options: CompareOptions(resolution: Self.table(resolution: 0.2)))
        ).summary()
        XCTAssertTrue(summary.contains("the new run's repetitions spread"), summary)
        XCTAssertTrue(summary.contains("busier machine"), summary)
        XCTAssertFalse(summary.contains("the base run's repetitions spread"), summary)
    }
}
