@testable import BenchKit
import XCTest

/// Each benchmark declares its sizes and may declare its repetitions; the
/// suite only picks the size, and `--repetitions` overrides every count.
final class SuiteConfigurationTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    /// A benchmark that counts its own repetitions and records each one's number.
    private struct Counting: NamedBenchmark {
        static let name = "test.counting"
        static var schema: BenchmarkSchema {
            BenchmarkSchema(name: name, variants: [.library("only")], metrics: [.depth])
        }
        let ownRepetitions: Int?

        func repetitions(in size: SuiteSize) -> Int { ownRepetitions ?? size.repetitions }

        func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
            [
                MeasurementPlan(
                    benchmark: Self.name, variant: .library("only"), params: "", estimatedSeconds: 0,
                    warmUp: { _ in }, measure: { _ in [MetricValue(.depth, 1)] })
            ]
        }
    }

    private func repetitionsRun(by benchmarks: [any Benchmark], configuration: SuiteConfiguration) throws -> [String: [Int]] {
        let rows = try SuiteRunner(configuration: configuration, benchmarks: benchmarks, counter: .disabled)
            .run(progress: ProgressReporter(style: .silent))
        var result: [String: [Int]] = [:]
        for row in rows { result[row.benchmark, default: []].append(row.repetition) }
        return result
    }

    func testABenchmarkRunsItsOwnRepetitionsAndTheOverrideWins() throws {
        let tiny = SuiteConfiguration.tiny(recursionProbe: nil)
        XCTAssertEqual(
            try repetitionsRun(by: [Counting(ownRepetitions: 3)], configuration: tiny), [Counting.name: [1, 2, 3]])
        XCTAssertEqual(
            try repetitionsRun(by: [Counting(ownRepetitions: nil)], configuration: tiny), [Counting.name: [1, 2]])
        var overridden = tiny
        overridden.repetitionsOverride = 4
        XCTAssertEqual(
            try repetitionsRun(by: [Counting(ownRepetitions: 3)], configuration: overridden),
            [Counting.name: [1, 2, 3, 4]])
        XCTAssertEqual(overridden.repetitions(of: Counting(ownRepetitions: 3)), 4)
        XCTAssertEqual(tiny.repetitions(of: Counting(ownRepetitions: 3)), 3)
    }

    func testSuitesDifferOnlyInSizeAndTheBenchmarksDeclareWhatThatMeans() {
        XCTAssertEqual(SuiteSize.standard.repetitions, 5)
        XCTAssertEqual(SuiteSize.quick.repetitions, 7)
        XCTAssertEqual(SuiteConfiguration.quick(recursionProbe: nil).name, "quick")
        XCTAssertEqual(SuiteConfiguration.standard(recursionProbe: nil).name, "standard")
        // Counted regions are the same in the standard and quick suites, so their counts compare.
        XCTAssertEqual(SuiteConfiguration.quick(recursionProbe: nil).countingBatch, SuiteConfiguration.defaultCountingBatch)
        XCTAssertEqual(SuiteConfiguration.standard(recursionProbe: nil).countingBatch, SuiteConfiguration.defaultCountingBatch)
        XCTAssertEqual(ObserveOnThroughputBenchmark.Configuration(.quick).elements, 100_000)
        XCTAssertEqual(TrampolineBenchmark.Configuration(.standard).recursiveDepth, 100_000_000)
        // The long drift period measures only the variants it names, and each is in the catalogue.
        let long = PeriodicDriftBenchmark.Configuration(.standard).periods.compactMap(\.variants)
        XCTAssertEqual(long.count, 1)
        for variant in long.flatMap({ $0 }) {
            XCTAssertTrue(PeriodicDriftBenchmark.schema.variants.contains(variant), variant.name)
        }
        let plans = PeriodicDriftBenchmark().plans(for: .standard(recursionProbe: nil)).filter { $0.params.contains("ticks=5000") }
        XCTAssertEqual(plans.map(\.variant), ["serial-dispatch.native", "serial-dispatch.emulated", "user-scheduler.emulated"])
    }
}
