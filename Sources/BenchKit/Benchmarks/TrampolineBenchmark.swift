import BenchAnalysis
import Schedulers

/// `trampoline.recursion`: a chain of recursive schedules on
/// `CurrentThreadScheduler`, proving that the trampoline runs millions of
/// levels without growing the stack, and what each level costs. Variant
/// `current-thread`: each action calls `schedule` for the next level;
/// `current-thread.recursive`: one `scheduleRecursive` whose action calls
/// `recurse` (the form the performance target names); `reference.closure-queue`: the same chain on
/// the least a trampoline can be (``ClosureQueueReference``), at the params of each library variant.
/// For contrast, the depth at which plain recursion of a small closure runs out of an 8 MiB stack,
/// measured in a child process.
struct TrampolineBenchmark: NamedBenchmark {
    static let name = "trampoline.recursion"
    /// One `scheduleRecursive` chain instead of a `schedule` per level.
    static let recursive = VariantID.library("current-thread.recursive")
    /// Its variants (those of its catalogue) and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.currentThread, recursive, ClosureQueueReference.variant],
            metrics: [
                .perSchedule.time, .perSchedule.allocations, .perSchedule.bytes, .depth, .stackGrowthBytes,
                .plainRecursionLimit, .perSchedule.instructions,
            ] + InstructionPass.lookupMetrics)
    }

    /// What a repetition measures at each suite size.
    struct Configuration: Sendable, Equatable {
        /// Levels of the `schedule` chain (`current-thread`).
        var depth: Int
        /// Levels of the `scheduleRecursive` chain (`current-thread.recursive`).
        var recursiveDepth: Int

        /// The sizes this benchmark measures in a suite of `size`.
        init(_ size: SuiteSize) {
            switch size {
            case .standard: (depth, recursiveDepth) = (10_000_000, 100_000_000)
            case .quick: (depth, recursiveDepth) = (10_000_000, 10_000_000)
            case .tiny: (depth, recursiveDepth) = (10_000, 10_000)
            }
        }
    }

    init() {}

    /// At least as many rounds as the summary's paired ratios need (its
    /// chains against the closure queue, repetition by repetition: 6 pairs
    /// for a 95 % interval, ``PairedRatioInterval/fewestPairs(confidence:)``),
    /// otherwise the suite's.
    func adaptiveRepetitions(in size: SuiteSize, suite: AdaptiveRepetitions) -> AdaptiveRepetitions? {
        let pairs = PairedRatioInterval.fewestPairs(confidence: PairedRatioInterval.standardConfidence)
        return AdaptiveRepetitions(
            minimum: max(suite.minimum, pairs), maximum: suite.maximum, budgetSeconds: suite.budgetSeconds)
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let probe = configuration.recursionProbe
        let counted = configuration.countingBatch
        let sizes = Configuration(configuration.size)
        return [
            // The plain recursion limit is a fact of the machine: measured
            // once per repetition, by `current-thread`.
            Self.chainPlan(
                variant: .currentThread, depth: sizes.depth, counted: counted,
                secondsPerLevel: 50e-9, warmUpFraction: 10, probe: probe, run: Self.runChain,
                instructions: Self.instructionWorkload(start: Self.startChain)),
            Self.chainPlan(
                variant: Self.recursive, depth: sizes.recursiveDepth, counted: counted,
                secondsPerLevel: 15e-9, warmUpFraction: 100, probe: nil, run: Self.runRecursiveChain,
                instructions: Self.instructionWorkload(start: Self.startRecursiveChain)),
        ]
            + Self.referenceDepths(sizes).enumerated().map { index, depth in
                // One instruction series for the reference, whatever its timed depths.
                Self.chainPlan(
                    variant: ClosureQueueReference.variant, depth: depth, counted: counted,
                    secondsPerLevel: 10e-9, warmUpFraction: 100, probe: nil, run: ClosureQueueReference.runChain,
                    instructions: index == 0 ? Self.instructionWorkload(start: ClosureQueueReference.startChain) : nil)
            }
    }

    /// The depths of the library variants, each once: one reference plan per params.
    static func referenceDepths(_ sizes: Configuration) -> [Int] {
        let depths = [sizes.depth, sizes.recursiveDepth]
        return depths[0] == depths[1] ? [depths[0]] : depths
    }

    /// One variant: `run` drives a chain of `depth` levels per repetition
    /// (after a warm-up of `depth / warmUpFraction`), and, for the counts, one
    /// chain of `counted` levels after a warm-up chain on the same thread.
    /// `secondsPerLevel` only estimates the run's length for the progress
    /// line: a little above what a level costs in a default run.
    private static func chainPlan(
        variant: VariantID, depth: Int, counted: Int, secondsPerLevel: Double, warmUpFraction: Int,
        probe: PlainRecursionProbe?,
        run: @escaping @Sendable (Int, MeasureContext) -> (Chain, MeasureContext.Region),
        instructions: InstructionWorkload?
    ) -> MeasurementPlan {
        let params = formatParams(["depth": String(depth), "stack_mib": String(PlainRecursionProbe.stackBytes >> 20)])
        let warmUpDepth = max(depth / warmUpFraction, 1)
        return MeasurementPlan(
            benchmark: name, variant: variant, params: params,
            estimatedSeconds: Double(depth) * secondsPerLevel + (probe == nil ? 0 : 0.2),
            warmUpEstimatedSeconds: Double(warmUpDepth) * secondsPerLevel,
            countingEstimatedSeconds: Double(counted) * 2e-6 + 0.01,
            warmUp: { context in
                _ = run(warmUpDepth, context)
            },
            measure: { context in
                let (chain, region) = run(depth, context)
                let limit = try probe.map { try $0.measure() }
                return [
                    MetricValue(.perSchedule.time, region.nanosecondsPer(chain.count)),
                    MetricValue(.depth, Double(chain.count)),
                    MetricValue(.stackGrowthBytes, Double(chain.highestAddress - chain.lowestAddress)),
                    MetricValue(.plainRecursionLimit, limit.map(Double.init)),
                ]
            },
            countAllocations: { context in
                _ = run(counted, context)
                let (chain, region) = run(counted, context)
                return [
                    MetricValue(.perSchedule.allocations, region.allocationsPer(chain.count)),
                    MetricValue(.perSchedule.bytes, region.bytesPer(chain.count)),
                ]
            },
            countInstructions: instructions)
    }

    /// Levels of a chain whose instructions are counted, in every suite.
    static let countedLevels = 100_000

    /// The instruction count of the chains `start` begins: a warm-up chain
    /// of a tenth of the levels, then one chain of ``countedLevels`` inside
    /// the counted region.
    static func instructionWorkload(start: @escaping @Sendable (Chain) -> Void) -> InstructionWorkload {
        InstructionWorkload(metric: .perSchedule.instructions, operations: countedLevels) { counted in
            start(Chain(target: countedLevels / 10))
            let chain = Chain(target: countedLevels)
            counted { start(chain) }
            guard chain.count == countedLevels else {
                throw BenchmarkFailure("the counted chain ran \(chain.count) levels, not \(countedLevels)")
            }
        }
    }

    /// The chain's state, passed to every level as the scheduled state.
    ///
    /// Its fields are exempt from Swift's dynamic exclusivity checks: a class's
    /// stored `var` mutated from an escaping closure pays `swift_beginAccess`
    /// on every access, a cost per level that is the benchmark's own
    /// bookkeeping, not the trampoline's.
    /// Only the thread running the chain touches them.
    ///
    /// `scripts/trampoline-floor.sh` builds the lines between the two
    /// `trampoline-floor` marks into its program, which runs without the
    /// library, so that its chains run the same levels: they must use the
    /// standard library alone. (The class stays here: in a file of its own
    /// it moved the nested chain's instruction count.)
    // trampoline-floor: begin
    final class Chain {
        let target: Int
        @exclusivity(unchecked) var count = 0
        @exclusivity(unchecked) var lowestAddress = UInt.max
        @exclusivity(unchecked) var highestAddress: UInt = 0

        init(target: Int) {
            self.target = target
        }

        /// Counts a level and notes the address of a local of the caller's frame.
        @inline(__always)
        func noteFrame() {
            var marker: UInt8 = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            if address < lowestAddress { lowestAddress = address }
            if address > highestAddress { highestAddress = address }
            count += 1
        }
    }
    // trampoline-floor: end

    static func runChain(_ depth: Int, _ context: MeasureContext) -> (Chain, MeasureContext.Region) {
        let chain = Chain(target: depth)
        let (_, region) = context.region { startChain(chain) }
        return (chain, region)
    }

    /// Runs the nested `schedule` chain to `chain.target` levels.
    static func startChain(_ chain: Chain) {
        _ = CurrentThreadScheduler.instance.schedule(chain, action: currentThreadLevel)
    }

    static func runRecursiveChain(_ depth: Int, _ context: MeasureContext) -> (Chain, MeasureContext.Region) {
        let chain = Chain(target: depth)
        let (_, region) = context.region { startRecursiveChain(chain) }
        return (chain, region)
    }

    /// Runs the `scheduleRecursive` chain to `chain.target` levels.
    static func startRecursiveChain(_ chain: Chain) {
        _ = CurrentThreadScheduler.instance.scheduleRecursive(chain) { chain, recurse in
            chain.noteFrame()
            if chain.count < chain.target {
                recurse(chain)
            }
        }
    }

    #if BENCHKIT_INSTRUCTION_CANARY
    /// Test only, never in a shipped build: a few more instructions per
    /// nested level (a xor-shift and a compare, inlined),
    /// under 2 % of a level. `scripts/instruction-canary.sh` builds with
    /// `-DBENCHKIT_INSTRUCTION_CANARY` to show that the gate, which flags any
    /// instruction count that moves beyond 0.5 %, catches it.
    @inline(__always)
    static func injectedCost(_ chain: Chain) {
        // A xor-shift of the level's count: no closed form the optimiser
        // could fold, so every step stays in the count.
        if chain.count ^ (chain.count >> 7) == 0x5EED { chain.highestAddress &+= 1 }
    }
    #endif
}

/// One level of the `current-thread` chain: notes where its frame is, then
/// schedules the next level. A top-level function, as the reference's level
/// is, so that passing it as the action captures no context (a static
/// method would be curried with its type, a thunk and a reference count
/// per level that neither chain should measure).
private func currentThreadLevel(_ chain: TrampolineBenchmark.Chain) -> Disposable {
    var marker: UInt8 = 0
    let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    if address < chain.lowestAddress { chain.lowestAddress = address }
    if address > chain.highestAddress { chain.highestAddress = address }
    chain.count += 1
    #if BENCHKIT_INSTRUCTION_CANARY
    TrampolineBenchmark.injectedCost(chain)
    #endif
    if chain.count < chain.target {
        _ = CurrentThreadScheduler.instance.schedule(chain, action: currentThreadLevel)
    }
    return Disposables.create()
}
