@testable import BenchAnalysis
@testable import BenchKit
import XCTest

final class CSVSchemaTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    func testBenchmarkNamesAreTheStableInterface() {
        XCTAssertEqual(
            CSVSchema.benchmarks.map(\.name),
            [
                "observeOn.throughput", "observeOn.latency", "observeOn.subscription", "asyncSequence.throughput",
                "trampoline.recursion", "elementPath", "virtualTime.scheduling", "periodic.drift",
                "scale.timers", "scale.virtualTime", "scale.fanIn", "scale.fanOut", "scale.trampoline",
                "scale.liveSubscriptions", "observeOn.busyQueue",
            ])
    }

    func testSubscriptionHasEveryLibrarySchedulerAndTheOpenCombinePeer() throws {
        let schema = try XCTUnwrap(CSVSchema.benchmark(named: "observeOn.subscription"))
        XCTAssertEqual(
            schema.variants.map(\.name),
            ["fast-path", "generic", "concurrent", "operation-queue", "main", "current-thread", "peer.opencombine"])
        XCTAssertEqual(
            schema.metrics.map(\.name),
            ["ns_per_lifecycle", "allocs_per_lifecycle", "bytes_per_lifecycle", "instructions_per_lifecycle"]
                + ["type_lookups_per_operation", "lookup_instructions_per_operation"])
        XCTAssertEqual(
            schema.metrics.map(\.direction),
            [.lowerIsBetter, .lowerIsBetter, .lowerIsBetter, .lowerIsBetter, .lowerIsBetter, .informational])
        XCTAssertEqual(
            schema.metrics.map(\.kind), [.measured, .allocations, .allocatedBytes, .instructions, .exactCount, .informational])
        // The hops are wake-up-bound; the inline current-thread chain is not.
        XCTAssertTrue(CSVSchema.isWakeUpBound(metric: "ns_per_lifecycle", variant: "fast-path", in: schema.name))
        XCTAssertFalse(CSVSchema.isWakeUpBound(metric: "ns_per_lifecycle", variant: "current-thread", in: schema.name))
        XCTAssertFalse(CSVSchema.isWakeUpBound(metric: "allocs_per_lifecycle", variant: "fast-path", in: schema.name))
    }

    func testEveryBenchmarkOfTheCatalogFindsItsSchemaEntry() {
        for benchmark in BenchmarkCatalog.all {
            XCTAssertFalse(benchmark.schema.metrics.isEmpty, benchmark.schema.name)
            XCTAssertNotNil(CSVSchema.benchmark(named: benchmark.schema.name), benchmark.schema.name)
        }
        XCTAssertEqual(BenchmarkCatalog.all.map(\.schema.name), CSVSchema.benchmarks.map(\.name))
    }

    func testThroughputHasEveryVariantAndMetricOfTheIssue() throws {
        let schema = try XCTUnwrap(CSVSchema.benchmark(named: "observeOn.throughput"))
        XCTAssertEqual(
            Set(schema.variants.map(\.name)),
            [
                "fast-path", "generic", "concurrent", "operation-queue", "main", "actor-executor",
                "peer.dispatch-async", "peer.opencombine", "peer.asyncstream", "peer.actor", "peer.dispatch-executor",
                "peer.nio", "reference.batched-handoff", "reference.spsc-ring", "fast-path.disturbed", "generic.disturbed",
                "task-executor", "peer.task",
            ])
        XCTAssertEqual(
            schema.metrics.map(\.name),
            [
                "elements_per_s", "ns_per_element", "allocs_per_element", "bytes_per_element",
                // `actor-executor`'s enqueuing side, counted under callgrind.
                "instructions_per_element", "type_lookups_per_operation", "lookup_instructions_per_operation",
            ])
    }

    func testBusyQueueMeasuresTheQuickThroughputHopsUnderTheirOwnNamesAndRunsLast() throws {
        let schema = try XCTUnwrap(CSVSchema.benchmark(named: "observeOn.busyQueue"))
        let throughput = try XCTUnwrap(CSVSchema.benchmark(named: "observeOn.throughput"))
        let measured = throughput.variants.filter {
            ![
                "main", "actor-executor", "peer.actor", "peer.dispatch-executor", "peer.asyncstream", "task-executor",
                "peer.task",
            ].contains($0.name)
                && !$0.name.hasSuffix(".disturbed")
        }
        XCTAssertEqual(schema.variants, measured)
        XCTAssertEqual(
            schema.variants.map(\.name),
            [
                "fast-path", "generic", "concurrent", "operation-queue", "peer.dispatch-async", "peer.opencombine",
                "peer.nio", "reference.batched-handoff", "reference.spsc-ring",
            ])
        XCTAssertEqual(
            schema.metrics.map(\.name),
            ["elements_per_s", "ns_per_element", "allocs_per_element", "bytes_per_element"] + [
                "quiet_cpu_ns_per_element", "busy_queue_cpu_ns_per_element", "busy_queue_cpu_ratio", "worst_busy_queue_cpu_ratio",
                "worst_quiet_cpu_ratio",
            ])
        XCTAssertEqual(schema.metric(named: "worst_busy_queue_cpu_ratio")?.kind, .singleRunTail, "the worst of one run's floods")
        XCTAssertEqual(CSVSchema.benchmarks.last?.name, "observeOn.busyQueue", "the state it leaves would slow whatever ran after it")
    }

    func testBusyQueueFloodSeriesHasThirtyFloodsAPathInTheFirstRepetitionOfEachVariant() throws {
        let quick = ObserveOnBusyQueueBenchmark().plans(for: .quick(recursionProbe: nil)).filter { $0.params.contains("floods=") }
        XCTAssertEqual(quick.map(\.variant), try XCTUnwrap(CSVSchema.benchmark(named: "observeOn.busyQueue")).variants.map(\.name))
        for plan in quick {
            XCTAssertTrue(plan.params.contains("floods=30"), plan.params)
            XCTAssertEqual(plan.timedRepetitions(of: 7), 1, "one repetition holds all the floods")
        }
    }

    /// `--floods`: the count the series' params name, and what its repetition
    /// runs and reports (a median and a worst of that many floods a kind).
    func testFloodsSetsTheFloodSeriesCountAndItsPlannedTime() throws {
        var configuration = SuiteConfiguration.quick(recursionProbe: nil)
        let thirty = ObserveOnBusyQueueBenchmark().plans(for: configuration).filter { $0.params.contains("floods=") }
        configuration.floodsOverride = 3
        let three = ObserveOnBusyQueueBenchmark().plans(for: configuration).filter { $0.params.contains("floods=") }
        XCTAssertEqual(three.map(\.variant), thirty.map(\.variant))
        for (plan, full) in zip(three, thirty) {
            XCTAssertTrue(plan.params.contains("floods=3"), plan.params)
            XCTAssertFalse(plan.params.contains("floods=30"), plan.params)
            XCTAssertEqual(plan.estimatedSeconds * 10, full.estimatedSeconds, accuracy: full.estimatedSeconds * 1e-9)
            XCTAssertEqual(plan.timedRepetitions(of: 7), 1, "one repetition holds all the floods")
        }
        let other = ObserveOnBusyQueueBenchmark().plans(for: configuration).filter { !$0.params.contains("floods=") }
        XCTAssertEqual(
            other.map(\.params), ObserveOnBusyQueueBenchmark().plans(for: .quick(recursionProbe: nil)).filter {
                !$0.params.contains("floods=")
            }.map(\.params), "the count moves the flood series alone")
    }

    func testAllocationMetricsAreExactCountsAndLowerIsBetter() {
        for benchmark in CSVSchema.benchmarks {
            for metric in benchmark.metrics where metric.name.hasPrefix("allocs_") || metric.name.hasPrefix("bytes_per") {
                XCTAssertTrue(metric.isExactCount, "\(benchmark.name).\(metric.name)")
                XCTAssertEqual(metric.direction, .lowerIsBetter)
            }
        }
        XCTAssertEqual(CSVSchema.metric("elements_per_s", in: "observeOn.throughput")?.direction, .higherIsBetter)
        XCTAssertEqual(CSVSchema.metric("elements_per_s", in: "observeOn.throughput")?.isExactCount, false)
    }

    func testDriftAndLatencyAndTrampolineMetricsAreNamedAsTheIssueSays() {
        let drift = CSVSchema.benchmark(named: "periodic.drift")?.metrics.map(\.name) ?? []
        for name in ["lateness_p50_us", "lateness_p99_us", "lateness_max_us", "final_drift_us", "skipped_ticks"] {
            XCTAssertTrue(drift.contains(name), name)
        }
        let trampoline = CSVSchema.benchmark(named: "trampoline.recursion")?.metrics.map(\.name) ?? []
        for name in ["ns_per_schedule", "allocs_per_schedule", "depth", "stack_growth_bytes", "plain_recursion_limit"] {
            XCTAssertTrue(trampoline.contains(name), name)
        }
        let latency = CSVSchema.benchmark(named: "observeOn.latency")?.metrics.map(\.name) ?? []
        XCTAssertEqual(latency, ["latency_p50_ns", "latency_p99_ns", "latency_p999_ns", "latency_max_ns"])
    }

    func testEveryPlanUsesAVariantAndMetricsDeclaredInTheSchema() {
        let configuration = SuiteConfiguration.tiny(recursionProbe: nil)
        for benchmark in BenchmarkCatalog.all {
            let schema = benchmark.schema
            XCTAssertNotNil(CSVSchema.benchmark(named: schema.name))
            for plan in benchmark.plans(for: configuration) {
                XCTAssertEqual(plan.benchmark, schema.name)
                XCTAssertTrue(schema.variants.contains(plan.variantID), "\(plan.identifier) missing from the schema")
            }
        }
    }

    func testEveryMetricHasAUnit() {
        for benchmark in CSVSchema.benchmarks {
            for metric in benchmark.metrics {
                XCTAssertFalse(metric.unit.isEmpty, "\(benchmark.name).\(metric.name)")
            }
        }
    }

    func testAVariantsRoleIsAFieldThatItsCSVNameReadsBackTo() {
        XCTAssertEqual(VariantID.peer("nio").name, "peer.nio")
        XCTAssertEqual(VariantID.peer("nio").role, .peer)
        XCTAssertEqual(VariantID.reference("spsc-ring").name, "reference.spsc-ring")
        XCTAssertEqual(VariantID.reference("spsc-ring").role, .reference)
        XCTAssertEqual(VariantID.fastPath.suffixed("disturbed"), .library("fast-path.disturbed"))
        XCTAssertEqual(VariantID(reading: "peer.opencombine"), .peer("opencombine"))
        XCTAssertEqual(VariantID(reading: "reference.closure-queue"), .reference("closure-queue"))
        XCTAssertEqual(VariantID(reading: "user-scheduler.emulated"), .library("user-scheduler.emulated"))
        // Every variant a run writes reads back from its name to the same role,
        // so an old file's rows are classified as the run that wrote them did.
        for schema in CSVSchema.benchmarks {
            for variant in schema.variants {
                XCTAssertEqual(VariantID(reading: variant.name), variant, "\(schema.name)/\(variant)")
            }
            XCTAssertEqual(Set(schema.variants).count, schema.variants.count, "\(schema.name) repeats a variant")
        }
    }

    func testEveryMetricIsNamedOnceWithOneMeaning() {
        var seen: [String: Metric] = [:]
        for metric in CSVSchema.benchmarks.flatMap(\.metrics) {
            if let earlier = seen[metric.name] { XCTAssertEqual(earlier, metric, metric.name) }
            seen[metric.name] = metric
            XCTAssertEqual(
                metric.isAllocationCount, metric.name.hasPrefix("allocs_") || metric.name.hasPrefix("bytes_per_"),
                metric.name)
        }
    }
}
