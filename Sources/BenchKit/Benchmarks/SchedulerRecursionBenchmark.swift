import Dispatch
import Schedulers

/// `scheduler.recursion`: a chain of `depth` levels through
/// `scheduleRecursive` on a registered scheduler, each level scheduling the
/// next from inside the running action — how a scheduler copes with work
/// that reschedules itself (a retry loop, a generator). `ns_per_schedule` is
/// the chain's time divided by its levels, from the first schedule to the
/// last level run on the scheduler; the counts come from a counted chain of
/// `countingBatch` levels after a warm-up chain on a fresh scheduler.
///
/// Only registrations that ask for the group write it
/// (``BenchScheduler/BenchmarkGroup/recursion``); this library's schedulers are
/// measured by `trampoline.recursion` instead, so the standard run has no
/// such rows and the benchmark is listed only when a registration has it.
struct SchedulerRecursionBenchmark: NamedBenchmark {
    static let name = "scheduler.recursion"
    /// Its variants (the registered schedulers with the group) and metrics.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: schedulers(.active).map { $0.id($0.names.recursion) },
            metrics: [.perSchedule.time, .perSchedule.allocations, .perSchedule.bytes])
    }

    /// The registered schedulers measured by this group.
    static func schedulers(_ registry: SchedulerRegistry) -> [BenchScheduler] {
        registry.schedulers.filter { $0.groups.contains(.recursion) }
    }

    /// What a repetition measures at each suite size.
    struct Configuration: Sendable, Equatable {
        /// Levels of one chain.
        var depth: Int

        /// The sizes this benchmark measures in a suite of `size`.
        init(_ size: SuiteSize) {
            switch size {
            case .standard: depth = 100_000
            case .quick: depth = 20_000
            case .tiny: depth = 100
            }
        }
    }

    let schedulers: [BenchScheduler]

    /// The schedulers of the active registry (``SchedulerRegistry/active``).
    init() {
        self.init(registry: .active)
    }

    /// The schedulers of `registry`.
    init(registry: SchedulerRegistry) {
        schedulers = Self.schedulers(registry)
    }

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let depth = Configuration(configuration.size).depth
        let counted = configuration.countingBatch
        let params = formatParams(["depth": String(depth)])
        return schedulers.map { scheduler in
            let id = scheduler.id(scheduler.names.recursion)
            let timeout = scheduler.stallTimeoutSeconds ?? 60
            return MeasurementPlan(
                benchmark: Self.name, variant: id, params: params, estimatedSeconds: Double(depth) * 2e-6 + 0.01,
                warmUpEstimatedSeconds: Double(depth / 10) * 2e-6 + 0.01, needsMainQueue: scheduler.deliversOnMain,
                countingEstimatedSeconds: Double(counted * 2) * 3e-6 + 0.01,
                warmUp: { context in
                    let target = scheduler.make("bench.recursion.\(id.name)")
                    defer { scheduler.release(target) }
                    _ = try Self.chain(on: target, depth: max(depth / 10, 1), timeout: timeout, variant: id.name, context: context)
                },
                measure: { context in
                    let target = scheduler.make("bench.recursion.\(id.name)")
                    defer { scheduler.release(target) }
                    let region = try Self.chain(on: target, depth: depth, timeout: timeout, variant: id.name, context: context)
                    return [MetricValue(.perSchedule.time, region.nanosecondsPer(depth))]
                },
                countAllocations: { context in
                    let target = scheduler.make("bench.recursion.\(id.name)")
                    defer { scheduler.release(target) }
                    _ = try Self.chain(on: target, depth: counted, timeout: timeout, variant: id.name, context: context)
                    let region = try Self.chain(on: target, depth: counted, timeout: timeout, variant: id.name, context: context)
                    return [
                        MetricValue(.perSchedule.allocations, region.allocationsPer(counted)),
                        MetricValue(.perSchedule.bytes, region.bytesPer(counted)),
                    ]
                })
        }
    }

    /// The chain's state: only the level running touches `count`, and levels
    /// run one after another (each is scheduled by the one before).
    final class Chain: @unchecked Sendable {
        let target: Int
        var count = 0
        let done = DispatchSemaphore(value: 0)

        init(target: Int) {
            self.target = target
        }
    }

    /// Runs one chain of `depth` levels on `scheduler` and measures it, from
    /// the first schedule until the last level has run.
    static func chain(
        on scheduler: any ImmediateScheduler, depth: Int, timeout: Double, variant: String, context: MeasureContext
    ) throws -> MeasureContext.Region {
        let chain = Chain(target: depth)
        var subscription: Disposable?
        let (finished, region) = context.region { () -> Bool in
            subscription = scheduler.scheduleRecursive(chain) { chain, recurse in
                chain.count += 1
                if chain.count < chain.target {
                    recurse(chain)
                } else {
                    chain.done.signal()
                }
            }
            return chain.done.wait(timeout: .now() + timeout) == .success
        }
        subscription?.dispose()
        guard finished else {
            throw BenchmarkFailure(
                "\(variant): a scheduleRecursive chain of \(depth) levels did not finish within \(Int(timeout)) s: "
                    + "does its scheduler run every action it is given?")
        }
        return region
    }
}
