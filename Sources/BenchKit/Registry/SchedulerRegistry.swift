import Synchronization
import ToolSupport

/// What a benchmark run measures: the registered schedulers and the peers
/// beside them, in the order a run interleaves them.
///
/// ``standard`` holds this library's schedulers, the peers and the
/// references, each registered through the same calls a user's executable
/// makes. A user's executable starts from it (so the library and the peers
/// run beside the user's schedulers in one CSV) and adds its own with
/// ``register(_:)``; `BenchRunnerMain.run(registering:)` does both and runs
/// the usual command line.
package struct SchedulerRegistry: Sendable {
    /// One registration, in order.
    enum Entry: Sendable {
        case scheduler(BenchScheduler)
        /// A peer or reference of `observeOn.throughput` and `observeOn.latency`.
        case hop(HopVariant)
        /// A peer of `observeOn.subscription`.
        case subscription(SubscriptionVariant)
        /// A peer of `periodic.drift`.
        case periodic(PeriodicJob)
    }

    private(set) var entries: [Entry] = []

    /// An empty registry: no scheduler, no peer.
    init() {}

    /// The registered schedulers, in order.
    var schedulers: [BenchScheduler] {
        entries.compactMap { if case .scheduler(let scheduler) = $0 { scheduler } else { nil } }
    }

    /// The variant names registered so far in `group`.
    func variantNames(in group: BenchScheduler.BenchmarkGroup) -> Set<String> {
        var names = Set<String>()
        for entry in entries {
            switch entry {
            case .scheduler(let scheduler): names.formUnion(scheduler.variantNames(in: group))
            case .hop(let hop) where group == .hops: names.insert(hop.name)
            case .subscription(let variant) where group == .subscription: names.insert(variant.name)
            case .periodic(let job) where group == .periodic: names.insert(job.name)
            default: break
            }
        }
        return names
    }

    /// Adds `scheduler`. Throws ``SchedulerRegistrationError`` when its name
    /// would break the CSV (``SchedulerRegistration/validate(name:)``), when a
    /// variant name it writes is already written by another registration in
    /// the same benchmark group (two schedulers under one name), or when a
    /// user's registration fails ``SchedulerRegistration/check()`` (run here,
    /// on the calling thread).
    package mutating func register(_ scheduler: BenchScheduler) throws(SchedulerRegistrationError) {
        try SchedulerRegistration.validate(name: scheduler.name)
        for group in BenchScheduler.BenchmarkGroup.allCases {
            let taken = variantNames(in: group)
            let clashes = scheduler.variantNames(in: group).filter(taken.contains)
            guard clashes.isEmpty else {
                throw SchedulerRegistrationError(
                    "'\(scheduler.name)' would write variant \(clashes.map { "'\($0)'" }.joined(separator: ", ")), which "
                        + "another registration already writes: give each scheduler a name of its own "
                        + "(\(ToolInvocation.programName(fallback: "BenchRunner")) list shows the names taken)")
            }
        }
        try scheduler.registration?.check()
        entries.append(.scheduler(scheduler))
    }

    /// Adds a hop that is not a scheduler (a peer or a reference of the
    /// observeOn groups): it is measured beside the schedulers' hops.
    /// Throws when its name is taken in those groups.
    mutating func register(hop: HopVariant) throws(SchedulerRegistrationError) {
        try add(.hop(hop), name: hop.name, group: .hops)
    }

    mutating func register(subscriptionPeer variant: SubscriptionVariant) throws(SchedulerRegistrationError) {
        try add(.subscription(variant), name: variant.name, group: .subscription)
    }

    mutating func register(periodicPeer job: PeriodicJob) throws(SchedulerRegistrationError) {
        try add(.periodic(job), name: job.name, group: .periodic)
    }

    private mutating func add(_ entry: Entry, name: String, group: BenchScheduler.BenchmarkGroup) throws(SchedulerRegistrationError) {
        if variantNames(in: group).contains(name) {
            throw SchedulerRegistrationError("variant '\(name)' is registered twice: give it a name of its own")
        }
        entries.append(entry)
    }

    // MARK: - The registry a run uses

    private static let activeRegistry = Mutex<SchedulerRegistry?>(nil)

    /// The registry this process measures and whose names ``CSVSchema``
    /// lists: ``standard`` unless ``activate(_:)`` installed another.
    static var active: SchedulerRegistry {
        activeRegistry.withLock { $0 } ?? standard
    }

    /// Makes `registry` the one this process measures, and its benchmarks'
    /// schemas the catalogue ``CSVSchema`` lists (what `compare` and
    /// `report` judge a result file's rows by). Call it before anything
    /// runs or reads results: `BenchRunnerMain` does.
    package static func activate(_ registry: SchedulerRegistry) {
        activeRegistry.withLock { $0 = registry }
        CSVSchema.useCatalog { BenchmarkCatalog.all.map(\.schema) }
    }
}
