@testable import BenchAnalysis
@testable import BenchKit
import Foundation
import XCTest

final class InstructionPassTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        StandardCatalog.install()
    }

    private func series(_ variant: String, _ value: Double, metric: String = "instructions_per_schedule")
        -> FixtureSeries
    {
        FixtureSeries(
            benchmark: "trampoline.recursion", variant: variant, params: "operations=100000", metric: metric,
            unit: "instructions", allocator: "callgrind", values: [value])
    }

    // MARK: - compare judges instruction counts as counts

    func testInstructionCountsWithinHalfAPercentAreSameAndBeyondAreWorseOrBetter() throws {
        let fixture = try CompareFixture()
        let options = CompareOptions(gate: .exact)
        for (new, expected) in [
            (736.0, CompareVerdict.same), (739.6, .same), (732.4, .same), (740.0, .worse), (750.7, .worse),
            (731.0, .better),
        ] {
            let outcome = try fixture.compare(base: [series("current-thread", 736)], new: [series("current-thread", new)], options: options)
            XCTAssertEqual(outcome.report?.comparisons.first?.verdict, expected, "736 -> \(new)")
            XCTAssertEqual(outcome.status, expected == .worse ? .regression : .noRegression, "736 -> \(new)")
        }
    }

    func testTwoPercentMoreOnTheNestedChainFailsTheGateAndNamesTheSeries() throws {
        let fixture = try CompareFixture()
        let base = [series("current-thread", 736.0012), series("current-thread.recursive", 38.0004)]
        let new = [series("current-thread", 736.0012 * 1.02), series("current-thread.recursive", 38.0004)]
        let outcome = try fixture.compare(base: base, new: new, options: CompareOptions(gate: .exact))
        XCTAssertEqual(outcome.status, .regression)
        let worse = try XCTUnwrap(outcome.report?.comparisons.filter { $0.verdict == .worse })
        XCTAssertEqual(worse.map(\.key.variant), ["current-thread"])
        XCTAssertTrue(outcome.output.contains("current-thread"), outcome.output)
    }

    func testAnAAPairIsSameInEverySeries() throws {
        let fixture = try CompareFixture()
        let base = [
            series("current-thread", 736.0012), series("current-thread.recursive", 38.0004),
            FixtureSeries(
                benchmark: "observeOn.subscription", variant: "current-thread", params: "operations=1000",
                metric: "instructions_per_lifecycle", unit: "instructions", allocator: "callgrind", values: [14_010.5]),
        ]
        var new = base
        new[2].values = [14_010.9]
        let outcome = try fixture.compare(base: base, new: new, options: CompareOptions(gate: .exact))
        XCTAssertEqual(outcome.status, .noRegression)
        XCTAssertEqual(outcome.report?.comparisons.map(\.verdict), [.same, .same, .same])
        XCTAssertTrue(outcome.output.contains("a change within 0.5% of the base count is same"), outcome.output)
        // observeOn.subscription is counted in whole allocations, but no allocation series is compared here.
        XCTAssertFalse(outcome.output.contains("Counted in whole allocations"), outcome.output)
    }

    func testTheToleranceIsRelativeToTheBaseCount() {
        let rule = MetricComparisonRule(metric: "instructions_per_schedule", benchmark: "trampoline.recursion")
        XCTAssertEqual(rule.kind, .instructions)
        XCTAssertTrue(rule.isExact)
        XCTAssertEqual(
            EvidenceSteps.exactTolerance(
                metric: "instructions_per_schedule", kind: .instructions, baseMedian: 10_000, newMedian: 10_100,
                options: CompareOptions()),
            50, accuracy: 1e-9)
    }

    // MARK: - the pass's plumbing

    func testProfilesArePairedWithTheManifestInOrder() throws {
        let manifest = [
            CSVRow(benchmark: "b", variant: "x", params: "operations=10", metric: "instructions_per_schedule",
                   unit: "instructions", repetition: 1, value: 10),
            CSVRow(benchmark: "b", variant: "y", params: "operations=4", metric: "instructions_per_schedule",
                   unit: "instructions", repetition: 1, value: 4),
        ]
        let profiles = [
            1: CallgrindProfile(total: 7_365, lookupInstructions: 1_000, lookups: 20),
            2: CallgrindProfile(total: 152, lookupInstructions: 0, lookups: 0),
            3: CallgrindProfile(total: 0, lookupInstructions: 0, lookups: 0),
        ]
        let rows = try InstructionPass.pair(manifest: manifest, profiles: profiles)
        XCTAssertEqual(rows.map(\.variant), ["x", "x", "x", "y", "y", "y"])
        XCTAssertEqual(
            rows.map(\.metric),
            ["instructions_per_schedule", "type_lookups_per_operation", "lookup_instructions_per_operation"]
                + ["instructions_per_schedule", "type_lookups_per_operation", "lookup_instructions_per_operation"])
        XCTAssertEqual(rows.map(\.value), [636.5, 2, 100, 38, 0, 0])
        XCTAssertEqual(rows.map(\.unit), ["instructions", "lookups", "instructions", "instructions", "lookups", "instructions"])
        XCTAssertEqual(Set(rows.map(\.allocator)), ["callgrind"])
        XCTAssertThrowsError(try InstructionPass.pair(manifest: manifest, profiles: [1: profiles[1]!])) { error in
            XCTAssertTrue("\(error)".contains("b/y"), "\(error)")
        }
    }

    func testProfileTotalsAndNamesAreRead() {
        XCTAssertEqual(CallgrindProfile.parse("version: 1\nevents: Ir\nsummary: 73600120\n")?.total, 73_600_120)
        XCTAssertEqual(CallgrindProfile.parse("events: Ir\ntotals: 42\n")?.total, 42)
        XCTAssertNil(CallgrindProfile.parse("events: Ir\n"))
        XCTAssertEqual(InstructionPass.profileNumber("callgrind.out.3"), 3)
        XCTAssertNil(InstructionPass.profileNumber("callgrind.out"))
        XCTAssertNil(InstructionPass.profileNumber("manifest.csv"))
    }

    // MARK: - type lookups are counted by number, apart from the code's own instructions

    /// A profile as callgrind writes it: names compressed to ids after their
    /// first use, a lookup calling another lookup, and a lookup called from
    /// two functions of the code.
    private let profileWithLookups = """
        # callgrind format
        version: 1
        positions: line
        events: Ir
        summary: 10000

        fn=(1) $s8BenchKit24InstructionCountedRegionO7measureyyyyXEFZ
        0 6
        cfn=(2) $s10Schedulers20VirtualTimeSchedulerC5startyyF
        calls=1 0
        0 9994

        fn=(2)
        0 4000
        cfn=(3) $sSqMa
        calls=30 0
        0 3000
        cfn=(4) $s10Schedulers20VirtualSchedulerItemCMa
        calls=10 0
        +2 1500
        cfn=(5) $s10Schedulers14TrampolineItemC3runyyF
        calls=5 0
        0 1494

        fn=(3)
        0 1000
        cfn=(6) _swift_getGenericMetadata(swift::MetadataRequest, void const* const*, swift::TargetTypeContextDescriptor<swift::InProcess> const*)
        calls=30 0
        0 2000

        fn=(5)
        0 1294
        cfn=(7) swift_getTupleTypeMetadata2
        calls=4 0
        0 200
        """

    func testLookupsCalledFromTheCodeAreCountedOnceWithTheirInclusiveCost() throws {
        let profile = try XCTUnwrap(CallgrindProfile.parse(profileWithLookups))
        XCTAssertEqual(profile.total, 10_000)
        // $sSqMa (3,000, which includes its own call of the runtime), the
        // item's accessor (1,500) and the tuple (200); not the runtime call
        // inside $sSqMa again.
        XCTAssertEqual(profile.lookupInstructions, 4_700)
        XCTAssertEqual(profile.lookups, 44)
        XCTAssertEqual(profile.ownInstructions, 5_300)
    }

    func testTypeLookupsAreTheRuntimesCachesAndMetadataAccessors() {
        for name in [
            "$sSqMa", "$sSaMa", "$s10Schedulers20VirtualSchedulerItemCMa", "swift_getGenericMetadata",
            "_swift_getGenericMetadata(swift::MetadataRequest, void const* const*)", "swift_getTupleTypeMetadata2",
            "swift_getWitnessTable", "swift_conformsToProtocol2", "__swift_instantiateConcreteTypeFromMangledName",
        ] {
            XCTAssertTrue(CallgrindProfile.isTypeLookup(name), name)
        }
        for name in [
            "swift_retain", "swift_beginAccess", "malloc", "$s10Schedulers20VirtualTimeSchedulerC5startyyF",
            "$sSlsE7isEmptySbvg", "swift::MetadataCacheKey::operator==(swift::MetadataCacheKey const&) const",
        ] {
            XCTAssertFalse(CallgrindProfile.isTypeLookup(name), name)
        }
    }

    func testTheChildGetsTheSuiteOptionsAndNotTheParentsOwn() {
        var parent = RunOptions()
        parent.quick = true
        parent.filters = ["trampoline"]
        parent.instructions = .only
        parent.allocator = .both
        parent.forks = 3
        XCTAssertEqual(
            InstructionPass.childArguments(parent, manifest: "/tmp/m.csv", runID: "r1"),
            ["run", "--quick", "--filter", "trampoline", "--output", "results", "--instruction-child", "--rows-file",
             "/tmp/m.csv", "--run-id", "r1"])
    }

    /// The child's arguments have one length whether the run named the
    /// default output folder or not (their length moves some counts), and
    /// CI's command (`--instructions only --output DIR`) gives the child
    /// the words it always did, in that order.
    func testTheChildsArgumentsDoNotDependOnWhetherTheDefaultFolderWasNamed() {
        var named = RunOptions()
        named.instructions = .only
        named.output = "results"
        var unnamed = RunOptions()
        unnamed.instructions = .only
        XCTAssertEqual(
            InstructionPass.childArguments(named, manifest: "/tmp/m.csv", runID: "r1"),
            InstructionPass.childArguments(unnamed, manifest: "/tmp/m.csv", runID: "r1"))
        var ci = RunOptions()
        ci.instructions = .only
        ci.output = "/tmp/tmp.0123456789"
        XCTAssertEqual(
            InstructionPass.childArguments(ci, manifest: "/tmp/m.csv", runID: "r1"),
            ["run", "--output", "/tmp/tmp.0123456789", "--instruction-child", "--rows-file", "/tmp/m.csv", "--run-id", "r1"])
    }

    func testTheChildCountsOnTheSystemAllocatorInAFixedEnvironment() {
        XCTAssertEqual(
            InstructionPass.childEnvironment, ["PATH": "/usr/local/bin:/usr/bin:/bin", "SWIFT_DETERMINISTIC_HASHING": "1"])
        XCTAssertNil(InstructionPass.childEnvironment["LD_PRELOAD"], "the child never preloads jemalloc")
    }

    /// Outside valgrind the child runs every workload (at its counted size)
    /// and lists them; each enters the counted region once, or it throws.
    func testTheChildRunsEveryCountedWorkloadOnceAndListsIt() throws {
        let plans = try SuiteRunner(configuration: .tiny(recursionProbe: nil), counter: .disabled).selectedPlans()
        let counted = InstructionPass.counted(plans)
        XCTAssertEqual(
            counted.map(\.identifier),
            [
                "observeOn.throughput/actor-executor",
                "observeOn.subscription/current-thread", "trampoline.recursion/current-thread",
                "trampoline.recursion/current-thread.recursive", "trampoline.recursion/reference.closure-queue",
                "elementPath/current-thread", "virtualTime.scheduling/historical",
            ])
        let path = NSTemporaryDirectory() + "instruction-manifest-\(UUID().uuidString).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let environment = RunEnvironment(
            runID: "test", timestamp: "t", gitRevision: "g", host: "h", cpu: "c", cores: 2, swiftVersion: "6",
            allocator: "callgrind")
        try InstructionPass.runChild(plans: plans, manifestPath: path, environment: environment)
        let rows = try AllocationChild.rows(fromCSV: String(contentsOfFile: path, encoding: .utf8))
        XCTAssertEqual(rows.map { "\($0.benchmark)/\($0.variant)" }, counted.map(\.identifier))
        XCTAssertEqual(rows.map(\.value), [10_000, 1_000, 100_000, 100_000, 100_000, 100_000, 10_000])
        for row in rows {
            XCTAssertEqual(CSVSchema.metric(row.metric, in: row.benchmark)?.kind, .instructions, row.metric)
            XCTAssertEqual(row.params, "operations=\(Int(row.value ?? 0))")
        }
    }

    /// `--toggle-collect` flips collection at every function it matches, so
    /// the pattern must match the counted region's function and nothing else
    /// in the binary that counts: BenchRunner, built beside the tests. (The
    /// test bundle itself is no witness: under AddressSanitizer it holds a
    /// specialised copy of `measure` that BenchRunner does not.)
    func testTheRegionPatternMatchesOneFunctionOfTheBinary() throws {
        guard let nm = InstructionPass.tool("nm") else { throw XCTSkip("nm is not installed") }
        let binary = try XCTUnwrap(BenchRunnerBinary.path, "BenchRunner is built with the tests (swift build --build-tests)")
        let result = try ChildProcess.run(nm, arguments: ["--defined-only", binary], standardOutput: .capture, standardError: .discard)
        XCTAssertEqual(result.status, 0)
        let matching = InstructionPass.regionSymbols(inSymbolTable: String(decoding: result.output, as: UTF8.self))
        XCTAssertEqual(matching.count, 1, "\(matching)")
    }

    func testASecondFunctionMatchingThePatternIsFound() {
        let table = """
            0000000000165ef0 T $s8BenchKit24InstructionCountedRegionO7measureyyyyXEFZ
            0000000000165a80 t $s8BenchKit24InstructionCountedRegionO7measureyyyyXEFZTf4nd_n
            0000000000165ee0 T $s8BenchKit24InstructionCountedRegionO13symbolPatternSSvau
            00000000005fe6f0 D $s8BenchKit24InstructionCountedRegionO7measureData
            """
        XCTAssertEqual(InstructionPass.regionSymbols(inSymbolTable: table).count, 2)
    }
}
