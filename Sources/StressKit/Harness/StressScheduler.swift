import Schedulers
@_exported import ToolRegistration

/// A scheduler to stress-test: a ``SchedulerRegistration`` (the description
/// both tools take) as Stress races on it; what
/// ``StressMain/run(registering:)`` takes. This library's own schedulers
/// are registrations too, made through the same ``init(_:)``.
///
/// The scenarios it gets follow from its conformances:
/// - any `ImmediateScheduler`: `dispose-vs-action.<name>` (an action racing
///   its `dispose()`), `dispose-vs-observeOn.<name>` (delivery racing
///   disposal, on the path `observe(on:)` picks) and
///   `dispose-vs-subscribeOn.<name>`;
/// - a `SerialScheduler`: also `dispose-vs-observeOn.<name>-generic-path`;
/// - a `Scheduler`: `dispose-vs-periodic.<name>` (its `schedulePeriodic`,
///   the library's emulation unless it implements it);
/// - a `PeriodicScheduler`: also `dispose-vs-periodic.<name>-emulated`.
/// - declared with ``promisingParallelism()``: also
///   `parallel-progress.<name>` (a second action starts while the first runs).
///
/// The scenarios hold an action behind a gate scheduled just before it, so
/// they need the scheduler to start actions scheduled from one thread in
/// that order, one at a time — the promise a `SerialScheduler` makes. A
/// scheduler that does not make it registers with a `gate` of its own that
/// does (the library's concurrent schedulers use a barrier); without one,
/// ``StressMain/run(registering:)`` refuses it (exit status 2).
///
/// Every scheduler a scenario makes gets the registration's teardown when
/// the scenario is done with it (after its last iteration has settled).
public struct StressScheduler: Sendable {
    /// The description it was made from, checked when registered; what the
    /// scheduler is (its name, its conformances, its gate) is read from it.
    let registration: SchedulerRegistration
    /// How long a scenario waits for the scheduler to run or drop what it
    /// was given (after each batch, and at tear-down) before it grades the
    /// batch `never-settled` and stops, naming the scheduler (10 s unless
    /// the registration's ``SchedulerRegistration/stallTimeoutSeconds`` says).
    var stallTimeoutSeconds: Double
    /// The groups of scenarios it is raced by: by conformance, or the
    /// library's choice (``library(scenarios:)``).
    private(set) var scenarios: Set<ScenarioGroup>
    /// Whether the scenarios may run under `--explore`: only the library's
    /// schedulers hand their work through the seam a controller takes over
    /// (``library(scenarios:)``).
    private(set) var explorable = false
    /// Whether the scheduler promises to run at least two actions at once
    /// (``promisingParallelism()``): it then also gets `parallel-progress.<name>`.
    private(set) var promisesParallelism = false

    /// The groups of scenarios a scheduler is raced by, by conformance.
    enum ScenarioGroup: Sendable, CaseIterable {
        case action, observeOn, observeOnGenericPath, subscribeOn, periodic, periodicEmulated
    }

    /// Races on the scheduler `registration` describes: its `make` is called
    /// once per scenario, before its first iteration, and its teardown gets
    /// that scheduler after the last. When the registration has `isCurrent`,
    /// the scenarios also check where the scheduler runs the work they give
    /// it (subscribeOn's subscription and disposal, a scheduled disposable's
    /// disposal: guarantees 4 and 7). ``StressMain/run(registering:)``
    /// refuses a registration that fails ``SchedulerRegistration/check()``
    /// (exit status 2, with the check's message).
    public init(_ registration: SchedulerRegistration) {
        self.registration = registration
        stallTimeoutSeconds = registration.stallTimeoutSeconds ?? 10
        var groups: Set<ScenarioGroup> = [.action, .observeOn, .subscribeOn]
        if registration.isSerial { groups.insert(.observeOnGenericPath) }
        if registration.isScheduler { groups.insert(.periodic) }
        if registration.isPeriodic { groups.insert(.periodicEmulated) }
        scenarios = groups
    }

    /// The name given at registration; scenario names end with it.
    var name: String {
        registration.name
    }

    /// Whether the scheduler is a `SerialScheduler` (guarantee 3 applies to it).
    var isSerial: Bool {
        registration.isSerial
    }

    /// Actions scheduled from one thread start in that order, one at a time
    /// (or a gate of the registration's own holds them).
    var holdsBehindGate: Bool {
        registration.isSerial || registration.gate != nil
    }

    /// Makes the scheduler and its harness hooks, fresh for a scenario's run.
    func make() -> SchedulerUnderTest {
        let registration = registration
        let box = SchedulerBox(registration.make())
        var currentCheck: (@Sendable () -> Bool)?
        if let isCurrent = registration.isCurrent {
            currentCheck = { isCurrent(box.scheduler) }
        }
        var ownGate: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
        if let gate = registration.gate {
            ownGate = { block in gate(box.scheduler, block) }
        }
        var teardown: (@Sendable () -> Void)?
        if let ends = registration.teardown {
            teardown = { ends(box.scheduler) }
        }
        return SchedulerUnderTest(
            name: registration.name, isSerial: registration.isSerial, scheduler: box.scheduler,
            isCurrent: currentCheck, gate: ownGate, teardown: teardown)
    }

    /// This registration, declared to run at least two actions at once
    /// (a concurrent scheduler whose width is 2 or more): it also gets
    /// `parallel-progress.<name>`, where an action that waits (up to 2 s) for
    /// an action scheduled after it started must see it start. A scheduler
    /// that holds the second action until the first ends is reported with the
    /// forbidden outcome `second-started-only-after-first-ended`.
    public func promisingParallelism() -> StressScheduler {
        var copy = self
        copy.promisesParallelism = true
        return copy
    }

    /// This registration with ``stallTimeoutSeconds`` set to `seconds`.
    func stallTimeout(seconds: Double) -> StressScheduler {
        var copy = self
        copy.stallTimeoutSeconds = seconds
        return copy
    }

    /// This registration as one of the library's own schedulers: raced by
    /// `scenarios` instead of the groups its conformances give, and
    /// explorable, because the library's schedulers hand their work through
    /// the seam a schedule controller takes over (`Exploration.handOff`, the
    /// library's sync points), which a user's threads never pass.
    func library(scenarios: Set<ScenarioGroup>) -> StressScheduler {
        var copy = self
        copy.scenarios = scenarios
        copy.explorable = true
        return copy
    }

    /// Whether the scheduler is `MainScheduler`, whose executor is the main
    /// actor's: the runtime sends that executor's jobs to the main queue itself.
    var isMainScheduler: Bool {
        registration.schedulerType is MainScheduler.Type
    }
}

/// The schedulers a `Stress` run races on, in order; refuses a name the
/// scenario names cannot carry, one registered twice, and a registration
/// that fails its check.
struct StressRegistry: Sendable {
    private(set) var schedulers: [StressScheduler] = []

    /// This library's schedulers (``ScenarioCatalog/builtinSchedulers``).
    static var builtin: StressRegistry {
        var registry = StressRegistry()
        registry.schedulers = ScenarioCatalog.builtinSchedulers
        return registry
    }

    /// Adds `scheduler`; throws ``SchedulerRegistrationError`` saying what to
    /// change: a name that breaks ``SchedulerRegistration/validate(name:)``
    /// (the rule BenchRunner applies too), a name taken, a scheduler that is
    /// neither serial nor gated, or a failed ``SchedulerRegistration/check()``
    /// (run here, on the calling thread).
    mutating func register(_ scheduler: StressScheduler) throws(SchedulerRegistrationError) {
        let name = scheduler.name
        try SchedulerRegistration.validate(name: name)
        guard !schedulers.contains(where: { $0.name == name }) else {
            throw SchedulerRegistrationError(
                "two schedulers are registered as '\(name)': give each a name of its own "
                    + "(\(StressCommand.programName) --list shows those taken)")
        }
        guard scheduler.holdsBehindGate else {
            throw SchedulerRegistrationError(
                "'\(name)' is not a SerialScheduler, so the scenarios cannot hold an action behind a gate scheduled "
                    + "before it: register it with a gate (SchedulerRegistration(_:isCurrent:gate:teardown:make:)) "
                    + "that keeps the next action from starting until the gate returns")
        }
        try scheduler.registration.check()
        schedulers.append(scheduler)
    }
}

/// Hands a registered scheduler to the harness's hooks, which call it from
/// the scenario's threads: a scheduler is shared by every thread that
/// schedules on it, whether or not its type says `Sendable`.
private final class SchedulerBox: @unchecked Sendable {
    let scheduler: any ImmediateScheduler
    init(_ scheduler: any ImmediateScheduler) { self.scheduler = scheduler }
}
