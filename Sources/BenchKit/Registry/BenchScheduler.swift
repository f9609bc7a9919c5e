import Schedulers
@_exported import ToolRegistration

/// A scheduler to benchmark: a ``SchedulerRegistration`` (the description
/// both tools take) as BenchRunner measures it, the unit of the suite's
/// registry (``SchedulerRegistry``). This library's own schedulers are
/// registered through the same type (``SchedulerRegistry/standard``).
///
/// What it is measured by follows from its conformances, checked once here:
/// - any `ImmediateScheduler`: `observeOn.throughput` and `observeOn.latency`
///   (variant `<name>`, through `observe(on:)`'s generic path) and
///   `observeOn.subscription` (variant `<name>`);
/// - a `SerialScheduler`: the same on the serial fast path (variant
///   `<name>`), and once more forced onto the generic path (variant
///   `<name>.generic`), so the two paths show side by side;
/// - any `ImmediateScheduler`, too: `scheduler.recursion` (variant `<name>`:
///   one `scheduleRecursive` chain, each level scheduling the next);
/// - a `Scheduler`: `periodic.drift` (variant `<name>.emulated`: its
///   `schedulePeriodic`, which is the library's fixed-rate emulation unless
///   it implements it);
/// - a `PeriodicScheduler`: `periodic.drift` variants `<name>.native` (its own
///   `schedulePeriodic`) and `<name>.emulated` (`schedulePeriodicEmulated`).
///
/// Every group assumes the scheduler keeps the contract written in the
/// catalog's article "Measuring your own scheduler": it runs each action at
/// most once and eventually, a serial one in order and one at a time, a
/// periodic job's ticks never overlap. A scheduler that never runs an action
/// ends its measurement with a `BenchmarkFailure` naming the variant after
/// the registration's stall timeout
/// (``SchedulerRegistration/stallTimeout(seconds:)``, or the group's own
/// default), never a hang.
/// Every scheduler a session makes gets the registration's teardown when the
/// session is done with it.
public struct BenchScheduler: Sendable {
    /// The groups of benchmarks a scheduler can be measured by, the names
    /// ``only(_:)`` takes.
    public enum BenchmarkGroup: String, Sendable, CaseIterable {
        /// `observeOn.throughput` and `observeOn.latency`.
        case hops
        /// `observeOn.subscription`.
        case subscription
        /// `periodic.drift` (a `Scheduler` only).
        case periodic
        /// `scheduler.recursion`.
        case recursion
    }

    /// The name given at registration: the CSV's variant names derive from it.
    let name: String
    /// The benchmark groups it is measured by: every one that applies unless
    /// narrowed with ``only(_:)``.
    private(set) var groups: Set<BenchmarkGroup>
    /// How long a measurement may wait for the scheduler to run what it was
    /// given before it fails naming the variant; `nil` keeps each group's
    /// default (120 s for a hop, 10 s per subscription lifecycle, four times a
    /// periodic run's length plus 5 s, 60 s for a recursion chain).
    var stallTimeoutSeconds: Double?

    let role: VariantRole
    /// The registered scheduler's type: its conformances decide the variants.
    let schedulerType: any (ImmediateScheduler & SendableMetatype).Type
    /// Delivers on the main thread: the main queue must be serviced, and the
    /// producer must not run there.
    let deliversOnMain: Bool
    /// Runs actions on the calling thread (the trampoline): its lifecycles
    /// are not wake-up bound.
    let runsInline: Bool
    /// `observeOn.throughput` measures its hops once more after dispatch-heavy work.
    let measuredUnderDisturbance: Bool
    /// The variant names, by group.
    let names: VariantNames
    /// Makes the scheduler, fresh for a session; the label names a queue it creates, where it creates one.
    let make: @Sendable (_ label: String) -> any ImmediateScheduler
    /// The user's description, checked when registered; `nil` for this
    /// library's schedulers, whose registrations are not checked.
    private(set) var registration: SchedulerRegistration?
    /// Ends a scheduler `make` made, once its session is done with it.
    let teardown: (@Sendable (any ImmediateScheduler) -> Void)?

    var isSerial: Bool { schedulerType is any SerialScheduler.Type }
    var isScheduler: Bool { schedulerType is any Scheduler.Type }
    var isPeriodic: Bool { schedulerType is any PeriodicScheduler.Type }

    /// The variant names a registration writes.
    struct VariantNames: Sendable {
        /// The hop and subscription variant on the path `observe(on:)` picks.
        var hop: String
        /// The hop and subscription variant forced onto the generic path (serial schedulers only).
        var genericHop: String
        /// The stem of the periodic variants (`<stem>.native`, `<stem>.emulated`).
        var periodic: String
        /// The recursion variant.
        var recursion: String

        init(_ name: String) {
            hop = name
            genericHop = "\(name).generic"
            periodic = name
            recursion = name
        }
    }

    /// Measures the scheduler `registration` describes: its `make` is called
    /// afresh for every session (a repetition, a counting pass), outside the
    /// measured region, so each starts on a scheduler with nothing queued,
    /// and its teardown gets that scheduler when the session is done.
    ///
    /// The name becomes the CSV's `variant` column
    /// (``SchedulerRegistration/validate(name:)``);
    /// ``SchedulerRegistry/register(_:)`` refuses a name that breaks the rule
    /// or that another registration already writes, and a registration that
    /// fails ``SchedulerRegistration/check()``.
    public init(_ registration: SchedulerRegistration) {
        self.init(registration, role: .library, names: VariantNames(registration.name))
        self.registration = registration
    }

    /// `BenchScheduler(SchedulerRegistration(name, make: make))`: a
    /// scheduler measured under `name`, with no `isCurrent` and no teardown.
    public init<S: ImmediateScheduler & SendableMetatype>(_ name: String, make: @escaping @Sendable () -> S) {
        self.init(SchedulerRegistration(name, make: make))
    }

    /// `registration` with what only this library's schedulers and the
    /// peers set: their historical variant names and groups, whether they
    /// deliver on the main thread, run inline, or are measured once more
    /// under disturbance. It is not checked (``SchedulerRegistry/standard``
    /// is built many times per process); its name is.
    init(
        _ registration: SchedulerRegistration, role: VariantRole, names: VariantNames,
        groups: Set<BenchmarkGroup>? = nil, deliversOnMain: Bool = false, runsInline: Bool = false,
        measuredUnderDisturbance: Bool = false
    ) {
        name = registration.name
        self.role = role
        self.names = names
        schedulerType = registration.schedulerType
        self.deliversOnMain = deliversOnMain
        self.runsInline = runsInline
        self.measuredUnderDisturbance = measuredUnderDisturbance
        make = registration.makeLabelled
        self.registration = nil
        teardown = registration.teardown
        stallTimeoutSeconds = registration.stallTimeoutSeconds
        let isScheduler = registration.isScheduler
        let applicable = Set(BenchmarkGroup.allCases.filter { group in
            switch group {
            case .hops, .subscription, .recursion: true
            case .periodic: isScheduler
            }
        })
        self.groups = groups.map { $0.intersection(applicable) } ?? applicable
    }

    /// This registration measured by the benchmarks of `groups` only (those
    /// that apply to it): `.hops` (`observeOn.throughput`, `observeOn.latency`,
    /// `observeOn.busyQueue`), `.subscription` (`observeOn.subscription`),
    /// `.periodic` (`periodic.drift`), `.recursion` (`scheduler.recursion`).
    public func only(_ groups: Set<BenchmarkGroup>) -> BenchScheduler {
        var copy = self
        copy.groups = self.groups.intersection(groups)
        return copy
    }

    /// This registration with ``stallTimeoutSeconds`` set to `seconds`.
    func stallTimeout(seconds: Double) -> BenchScheduler {
        var copy = self
        copy.stallTimeoutSeconds = seconds
        return copy
    }

    func id(_ name: String) -> VariantID {
        switch role {
        case .library: .library(name)
        case .peer: VariantID(reading: "peer.\(name)")
        case .reference: VariantID(reading: "reference.\(name)")
        }
    }

    /// The hop variants: `(id, path)` for the path `observe(on:)` picks, then
    /// the generic path of a serial scheduler.
    var hopPaths: [(id: VariantID, path: ObserveOnPath)] {
        var result: [(VariantID, ObserveOnPath)] = [(id(names.hop), .automatic)]
        if isSerial && !names.genericHop.isEmpty { result.append((id(names.genericHop), .generic)) }
        return result
    }

    /// The periodic variants: `(id, emulated)`; `emulated` forces
    /// `schedulePeriodicEmulated`, otherwise the scheduler's `schedulePeriodic` runs.
    var periodicVariants: [(id: VariantID, forceEmulation: Bool)] {
        guard isScheduler, groups.contains(.periodic) else { return [] }
        if isPeriodic {
            return [(id("\(names.periodic).native"), false), (id("\(names.periodic).emulated"), true)]
        }
        return [(id("\(names.periodic).emulated"), false)]
    }

    /// The variant names this registration writes in `group` (none when
    /// it is not measured by it).
    func variantNames(in group: BenchmarkGroup) -> [String] {
        guard groups.contains(group) else { return [] }
        switch group {
        case .hops:
            let hops = hopPaths.map(\.id)
            return (hops + (measuredUnderDisturbance ? hops.map { $0.suffixed("disturbed") } : [])).map(\.name)
        case .subscription: return hopPaths.map(\.id.name)
        case .periodic: return periodicVariants.map(\.id.name)
        case .recursion: return [id(names.recursion).name]
        }
    }

    /// Hands `scheduler` (one `make` made) to the registration's teardown:
    /// its session is done with it.
    func release(_ scheduler: any ImmediateScheduler) {
        teardown?(scheduler)
    }

    /// Makes the scheduler as a `Scheduler`; only called where ``isScheduler``.
    func makeScheduler(_ label: String) throws -> any Scheduler {
        guard let scheduler = make(label) as? any Scheduler else {
            throw BenchmarkFailure("\(name): the registered scheduler is not a Scheduler")
        }
        return scheduler
    }
}
