@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import XCTest

/// The scale sweeps' input checks, their exponent fit and compare's reading of a sweep.
final class ScaleInputTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testAnNListIsReadPlainWithUnderscoresOrAsPowersOfTen() throws {
        XCTAssertEqual(try ScaleInput.parsePoints("1000, 10_000,1e5,100"), [100, 1_000, 10_000, 100_000])
        XCTAssertEqual(try ScaleInput.parsePoints("5,5"), [5])
    }

    func testAnEmptyNListIsRefusedWithAnExample() {
        for text in ["", " ", ",", " , "] {
            XCTAssertThrowsError(try ScaleInput.parsePoints(text)) { error in
                XCTAssertTrue("\(error)".contains("at least one N, e.g. --scale-n 1000"), "\(text): \(error)")
            }
        }
        XCTAssertThrowsError(try ScaleInput.check([], against: ScaleSweeps.limits))
    }

    func testANonNumericNIsRefusedNamingIt() {
        for text in ["1000,abc", "1.5", "10x", "1e", "e6", "1e99"] {
            XCTAssertThrowsError(try ScaleInput.parsePoints(text)) { error in
                XCTAssertTrue("\(error)".contains("is not a whole number"), "\(text): \(error)")
            }
        }
        XCTAssertThrowsError(try ScaleInput.parsePoints("0,10")) { error in
            XCTAssertTrue("\(error)".contains("N must be 1 or more, got 0"), "\(error)")
        }
        XCTAssertThrowsError(try ScaleInput.parsePoints("-5")) { error in
            XCTAssertTrue("\(error)".contains("N must be 1 or more"), "\(error)")
        }
    }

    func testAnNAboveWhatMemoryAllowsIsRefusedNamingTheLimit() throws {
        // A machine of 1 GiB: half of it at 200 bytes an action is 2,684,354 actions.
        let limit = ScalePointLimit.memory(
            benchmark: "scale.virtualTime", quantity: "actions", bytesPerItem: 200, cap: 10_000_000,
            physicalMemory: 1 << 30)
        XCTAssertEqual(limit.maximum, 2_684_354)
        XCTAssertNoThrow(try ScaleInput.check([1_000, 2_684_354], against: [limit]))
        XCTAssertThrowsError(try ScaleInput.check([1_000, 3_000_000], against: [limit])) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("N=3000000 is above what scale.virtualTime allows"), message)
            XCTAssertTrue(message.contains("at most 2684354 actions"), message)
            XCTAssertTrue(message.contains("half of this machine's 1.0 GB"), message)
        }
        // Plenty of memory: the cap is the limit, said as such.
        let capped = ScalePointLimit.memory(
            benchmark: "scale.timers", quantity: "timers", bytesPerItem: 2_048, cap: 100_000, physicalMemory: 1 << 40)
        XCTAssertEqual(capped.maximum, 100_000)
        XCTAssertThrowsError(try ScaleInput.check([200_000], against: [capped])) { error in
            XCTAssertTrue("\(error)".contains("at most 100000 timers"), "\(error)")
        }
    }

    func testTheLimitsCheckedAreThoseOfTheSelectedSweeps() {
        let all = ScaleSweeps.limits(selectedBy: BenchmarkFilter([]))
        XCTAssertEqual(all.count, 6)
        XCTAssertEqual(ScaleSweeps.limits(selectedBy: BenchmarkFilter(["scale.virtualTime"])).map(\.benchmark), ["scale.virtualTime"])
        XCTAssertEqual(ScaleSweeps.limits(selectedBy: BenchmarkFilter(["scale"])).count, 6)
        // 64 producers are fine for every sweep; a million is refused by fan-in's thread limit.
        XCTAssertNoThrow(try ScaleInput.check([1, 64], against: all))
        XCTAssertThrowsError(try ScaleInput.check([1_000_000], against: all)) { error in
            XCTAssertTrue("\(error)".contains("allows: at most"), "\(error)")
        }
    }

    func testAnNListReplacesEverySweepsOwnPoints() {
        var configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        XCTAssertEqual(FanInScaleBenchmark.points(configuration), [1, 2, 4])
        configuration.scale = ScaleOptions(extent: .modest, points: [3, 30, 300])
        XCTAssertEqual(VirtualTimeScaleBenchmark.points(configuration), [3, 30, 300])
        XCTAssertEqual(TimerScaleBenchmark.points(configuration), [3, 30, 300])
        XCTAssertEqual(FanInScaleBenchmark.points(configuration), [3, 30, 300])
        configuration.size = .standard
        configuration.scale = ScaleOptions(extent: .full)
        XCTAssertEqual(VirtualTimeScaleBenchmark.points(configuration), [1_000, 10_000, 100_000, 1_000_000])
        XCTAssertEqual(TimerScaleBenchmark.points(configuration), [1, 100, 1_000, 10_000])
        XCTAssertEqual(FanInScaleBenchmark.points(configuration), [1, 2, 4, 8, 16, 32, 64])
        configuration.scale = ScaleOptions(extent: .modest)
        XCTAssertEqual(FanInScaleBenchmark.points(configuration), [1, 2, 4, 8, 16, 32, 64])
    }

    func testTheQuickSuiteSkipsTheSweeps() {
        let quick = SuiteConfiguration.quick(recursionProbe: nil)
        for benchmark in ScaleSweeps.all {
            XCTAssertTrue(benchmark.plans(for: quick).isEmpty, benchmark.schema.name)
            XCTAssertFalse(benchmark.plans(for: .standard(recursionProbe: nil)).isEmpty, benchmark.schema.name)
        }
    }
}

final class GrowthExponentTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testTheSlopeOfAPowerLawIsItsExponent() throws {
        let ns: [Double] = [10, 100, 1_000, 10_000]
        XCTAssertEqual(try XCTUnwrap(GrowthExponent.fit(ns.map { ($0, 7) })), 0, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(GrowthExponent.fit(ns.map { ($0, 3 * $0) })), 1, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(GrowthExponent.fit(ns.map { ($0, 0.5 * $0 * $0) })), 2, accuracy: 1e-12)
        // log N per operation: a small slope, smaller over larger N.
        let logSmall = try XCTUnwrap(GrowthExponent.fit([10.0, 100, 1_000].map { ($0, log2($0)) }))
        let logLarge = try XCTUnwrap(GrowthExponent.fit([10_000.0, 100_000, 1_000_000].map { ($0, log2($0)) }))
        XCTAssertGreaterThan(logSmall, logLarge)
        XCTAssertGreaterThan(logLarge, 0)
        XCTAssertLessThan(logSmall, 0.4)
    }

    func testNoSlopeWithoutTwoPositivePoints() {
        XCTAssertNil(GrowthExponent.fit([]))
        XCTAssertNil(GrowthExponent.fit([(10, 1)]))
        XCTAssertNil(GrowthExponent.fit([(10, 1), (10, 2)]))
        XCTAssertNil(GrowthExponent.fit([(10, 0), (100, 1)]))
        // No allocations at any N is constant, not unknown.
        XCTAssertEqual(GrowthExponent.fit([(10, 0), (100, 0), (1_000, 0)]), 0)
    }

    func testFanInRecordsEveryElementsLatency() throws {
        let (rate, latencies) = try FanInScaleBenchmark.library(2, 1_000)
        XCTAssertGreaterThan(rate, 0)
        XCTAssertEqual(latencies.count, 1_000)
        // Sent and delivered on one monotonic clock: whole nanoseconds, at
        // least one, far below a second (a bit pattern read as a number is
        // a subnormal near 1e-319).
        XCTAssertTrue(latencies.allSatisfy { $0 >= 1 && $0 < 1e9 }, "\(latencies.prefix(5))")
    }

    func testATrampolinePointBelowTheMinimumIsTheMedianOfEnoughRuns() throws {
        let context = MeasureContext(counter: .disabled, configuration: .tiny(recursionProbe: nil))
        let minimum = TrampolineScaleBenchmark.minimumActions
        for (n, expectedRuns) in [(1, minimum), (100, minimum / 100), (minimum, 1), (10 * minimum, 1)] {
            // Every run but one takes 3 ns an action; one takes 1,000 (a
            // preemption): the median is 3, unless the point is a single run.
            var runs = 0
            let perAction = try TrampolineScaleBenchmark.nanosecondsPerAction(n, context) { queued, _ in
                XCTAssertEqual(queued, n)
                runs += 1
                return (UInt64(queued) * (runs == 1 ? 1_000 : 3), nil)
            }
            XCTAssertEqual(runs, expectedRuns, "N = \(n)")
            XCTAssertEqual(perAction, expectedRuns == 1 ? 1_000 : 3, "N = \(n)")
        }
        // The library's own run: every queued action ran, each timed above zero.
        XCTAssertGreaterThan(try TrampolineScaleBenchmark.nanosecondsPerAction(1, context, TrampolineScaleBenchmark.library), 0)
    }

    func testASweepWritesAPointPerNAndAnExponentRow() throws {
        var recorder = SweepRecorder()
        for n in [10, 100, 1_000] {
            recorder.record(.nanosecondsPerOperation, n: n, phase: "run", Double(n))
            recorder.record(.allocationsPerOperation, n: n, phase: "run", 4)
        }
        let rows = recorder.rows(fitting: ["ns_per_op", "allocs_per_op"])
        XCTAssertEqual(rows.count, 8)
        XCTAssertEqual(rows[0].extraParams, "phase=run;n=10")
        let exponent = try XCTUnwrap(rows.first { $0.metric == .growthExponent })
        XCTAssertEqual(exponent.extraParams, "phase=run;of=ns_per_op;range=10-1000")
        XCTAssertEqual(try XCTUnwrap(exponent.value), 1, accuracy: 1e-9)
        let counted = try XCTUnwrap(rows.first { $0.metric == .countGrowthExponent })
        XCTAssertEqual(counted.extraParams, "phase=run;of=allocs_per_op;range=10-1000")
        XCTAssertEqual(try XCTUnwrap(counted.value), 0, accuracy: 1e-12)
    }
}

final class GrowthComparisonTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// A result file with one sweep of `scale.virtualTime` `ns_per_op`
    /// (phase run), three repetitions at each N of `values(n, repetition)`.
    private func file(
        _ name: String, variant: String = "historical", _ values: (Int, Int) -> Double
    ) throws -> ResultFile {
        var lines = ["benchmark,variant,params,metric,unit,repetition,value"]
        for repetition in 1...3 {
            var recorder = SweepRecorder()
            for n in [100, 1_000, 10_000, 100_000] {
                recorder.record(.nanosecondsPerOperation, n: n, phase: "run", values(n, repetition))
            }
            for value in recorder.rows(fitting: ["ns_per_op"]) {
                lines.append(
                    "scale.virtualTime,\(variant),points=4;\(value.extraParams ?? ""),\(value.metric.name),\(value.metric.unit),\(repetition),\(value.value ?? 0)"
                )
            }
        }
        return try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: name)
    }

    /// log N per action with a little noise per repetition.
    private func base(_ n: Int, _ repetition: Int) -> Double {
        100 * log2(Double(n)) * (1 + 0.01 * Double(repetition))
    }

    private func verdict(_ new: @escaping (Int, Int) -> Double) throws -> GrowthComparison.Verdict {
        let comparison = GrowthComparison(base: try file("base.csv", base), new: try file("new.csv", new), threshold: 0.05)
        XCTAssertEqual(comparison.sweeps.count, 1)
        return try XCTUnwrap(comparison.sweeps.first).verdict
    }

    func testTheSameSweepIsSame() throws {
        XCTAssertEqual(try verdict { n, r in self.base(n, 4 - r) }, .same)
    }

    func testCostGrowingAsNIsTheGrowthChanging() throws {
        // Linear per operation from 1,000 on: the queue became a list.
        let verdict = try verdict { n, r in self.base(n, r) * max(1, Double(n) / 1_000) }
        XCTAssertEqual(verdict, .growthChanged(worse: true))
    }

    func testOneSlowPointIsOnePointMovedNotTheGrowth() throws {
        let verdict = try verdict { n, r in self.base(n, r) * (n == 100_000 ? 3 : 1) }
        guard case .pointMoved(let n, let ratio) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertEqual(n, 100_000)
        XCTAssertEqual(ratio, 3, accuracy: 0.01)
        let middle = try self.verdict { n, r in self.base(n, r) * (n == 1_000 ? 2 : 1) }
        guard case .pointMoved(1_000, _) = middle else { return XCTFail("\(middle)") }
    }

    func testOnlySweepsWithAFittedExponentAreRead() throws {
        var lines = ["benchmark,variant,params,metric,unit,repetition,value"]
        for n in [10, 100, 1_000] {
            lines.append("scale.timers,peer.nio,n=\(n),skipped_ticks,ticks,1,\(n)")
        }
        let file = try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: "a.csv")
        XCTAssertTrue(GrowthComparison(base: file, new: file, threshold: 0.05).sweeps.isEmpty)
    }

    func testEveryPointSlowerByOneFactorIsTheLevelMoving() throws {
        let verdict = try verdict { n, r in self.base(n, r) * 2 }
        guard case .levelMoved(let ratio) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertEqual(ratio, 2, accuracy: 0.01)
    }

    func testACountsExponentMovingByThousandthsIsSameAndGrowingWithNIsWorse() throws {
        func run(_ exponent: Double) throws -> ResultFile {
            let lines = [
                "benchmark,variant,params,metric,unit,repetition,value",
                "scale.liveSubscriptions,fast-path,deliveries=20000;of=bytes_per_live_subscription;range=1-100000,"
                    + "allocs_growth_exponent,exponent,1,\(exponent)",
            ]
            return try ResultFile.parse(text: lines.joined(separator: "\n") + "\n", path: "\(exponent).csv")
        }
        func verdict(_ base: Double, _ new: Double) throws -> CompareVerdict? {
            try ComparisonReport(base: run(base), new: run(new), options: CompareOptions()).comparisons.first?.verdict
        }
        // 32 bytes more per live subscription, every point still constant in N.
        XCTAssertEqual(try verdict(-0.0019, -0.0017), .same)
        XCTAssertEqual(try verdict(-0.0019, -0.0019 + Metric.countGrowthExponentTolerance), .same)
        // A count that grows with N: 16 allocations per action at 10^3, 36 at 10^6.
        XCTAssertEqual(try verdict(0, 0.12), .worse)
        XCTAssertEqual(try verdict(0.12, 0), .better)
    }

    /// The exponent's chance move from its points' resolutions: the
    /// least-squares weights of N = 100 … 100,000 on log axes are ±0.130 at
    /// the ends and ±0.043 inside, so points that each move by chance within
    /// ±30 % in log (0.3) move the exponent within 0.3·√(2·0.130² + 2·0.043²)
    /// ≈ 0.058; no calibrated point, no chance move.
    func testTheExponentsChanceMoveComesFromItsPointsResolutions() {
        let points = [100, 1_000, 10_000, 100_000]
        XCTAssertEqual(
            GrowthComparison.chanceTolerance(points: points, logResolutions: [0.3, 0.3, 0.3, 0.3]), 0.058,
            accuracy: 0.001)
        XCTAssertEqual(GrowthComparison.chanceTolerance(points: points, logResolutions: [0, 0, 0, 0]), 0)
        // An end point weighs three times an inner one.
        XCTAssertEqual(
            GrowthComparison.chanceTolerance(points: points, logResolutions: [0, 0, 0, 1]) / GrowthComparison
                .chanceTolerance(points: points, logResolutions: [0, 0, 1, 0]), 3, accuracy: 0.01)
    }

    /// A last point slower by 2.5 times with the others a little slower is
    /// the growth changing against the threshold alone; where the calibration
    /// says that point moves that much between two runs of one binary (a
    /// resolution of 400 %), the exponent's move is within chance and the
    /// growth is not called worse.
    func testACalibratedNoisyPointWidensTheExponentsTolerance() throws {
        let base = try file("base.csv", base)
        let new = try file("new.csv") { n, r in self.base(n, r) * (n == 100_000 ? 2.5 : n == 10_000 ? 1.6 : 1) }
        let plain = try XCTUnwrap(GrowthComparison(base: base, new: new, threshold: 0.05).sweeps.first)
        XCTAssertEqual(plain.verdict, .growthChanged(worse: true))
        let entries = Dictionary(
            uniqueKeysWithValues: base.series.filter { $0.key.params.contains("n=") }.map { series in
                (
                    series.key,
                    ResolutionTable.Entry(
                        runs: 5, logDeviation: 0.4, resolution: 4, spread: 0.1, revision: "abc", repetitions: 3)
                )
            })
        XCTAssertEqual(entries.count, 4)
        let calibrated = try XCTUnwrap(
            GrowthComparison(
                base: base, new: new, threshold: 0.05, resolution: ResolutionTable(path: "r.csv", entries: entries)
            ).sweeps.first)
        XCTAssertNotEqual(calibrated.verdict, .growthChanged(worse: true))
        XCTAssertEqual(calibrated.tolerance, log(5) * 0.1942, accuracy: 0.01)
    }

    func testTheReportSaysWhichAndWorseGrowthFailsCompare() throws {
        let comparison = GrowthComparison(
            base: try file("base.csv", base),
            new: try file("new.csv") { n, r in self.base(n, r) * Double(n) / 100 }, threshold: 0.05)
        XCTAssertTrue(comparison.hasWorseGrowth)
        XCTAssertTrue(comparison.text().contains("the growth changed, worse"), comparison.text())
    }

    /// A peer's sweep runs code this project does not change: its growth
    /// changing is read and shown like the library's, and never fails
    /// compare (two default runs of one binary on an Intel Xeon host had
    /// `scale.timers/peer.nio`'s CPU per tick grow from N^-0.39 to N^-0.21).
    func testAPeersWorseGrowthIsShownButNeverARegression() throws {
        let grown: (Int, Int) -> Double = { n, r in self.base(n, r) * Double(n) / 100 }
        for variant in ["peer.nio", "reference.closure-array"] {
            let comparison = GrowthComparison(
                base: try file("base.csv", variant: variant, base), new: try file("new.csv", variant: variant, grown),
                threshold: 0.05)
            let sweep = try XCTUnwrap(comparison.sweeps.first)
            XCTAssertEqual(sweep.verdict, .growthChanged(worse: true), variant)
            XCTAssertFalse(comparison.hasWorseGrowth, variant)
            XCTAssertTrue(comparison.text().contains("shown and never a regression"), comparison.text())
            let report = try ComparisonReport(
                base: try file("base.csv", variant: variant, base), new: try file("new.csv", variant: variant, grown),
                options: CompareOptions())
            XCTAssertNotEqual(report.exitStatus, .regression, variant)
        }
    }
}

/// `--scale-n` and `--scale` on the BenchRunner executable: refused with the
/// reason and exit status 2 before anything runs.
final class ScaleCommandLineTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    override func setUpWithError() throws {
        try XCTSkipIf(BenchRunnerBinary.path == nil, "BenchRunner is not built beside the tests")
    }

    func testBadNListsExitWithStatus2NamingTheProblem() throws {
        let cases: [([String], String)] = [
            (["--scale-n", ""], "at least one N"),
            (["--scale-n", "100,ten"], "'ten' is not a whole number"),
            (["--filter", "scale.fanIn", "--scale-n", "1,1000"], "at most 256 producer threads"),
            (["--filter", "scale.virtualTime", "--scale-n", "1e9"], "N=1000000000 is above what scale.virtualTime allows"),
            (["--scale", "huge"], "huge"),
        ]
        for (arguments, expected) in cases {
            let result = try BenchRunnerBinary.run(arguments + ["--output", NSTemporaryDirectory()])
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
    }
}

final class TimerFleetTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// Ticks due before the last period are expected; a timer that ran them
    /// all skipped none, and a tick of one timer does not hide another's miss.
    func testSkippedTicksAreExpectedTicksThatDidNotRunPerTimer() {
        let period: UInt64 = 1_000_000_000
        let fleet = TimerFleet(count: 2, period: period, origin: 0, window: 4 * period)
        XCTAssertEqual(fleet.slots.map(\.due), [4, 3])
        XCTAssertEqual(fleet.slots.map(\.skipped), [4, 3])
        let outcome = fleet.outcome(cpuNanoseconds: 0)
        XCTAssertEqual(outcome.due, 7)
        XCTAssertEqual(outcome.skipped, 7)
        XCTAssertEqual(outcome.runs, 0)
    }
}
