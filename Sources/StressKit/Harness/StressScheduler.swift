import Schedulers

/// A scheduler to stress-test, under a name of your choosing: what
/// ``ScenarioCatalog/all(registering:)`` and `StressMain.run(registering:)`
/// take. This library's own schedulers are registered the same way
/// (``ScenarioCatalog/builtinSchedulers``).
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
///
/// The scenarios hold an action behind a gate scheduled just before it, so
/// they need the scheduler to start actions scheduled from one thread in
/// that order, one at a time — the promise a `SerialScheduler` makes. A
/// scheduler that does not make it registers with a `gate` of its own that
/// does (the library's concurrent schedulers use a barrier); without one,
/// ``StressRegistry/register(_:)`` refuses it.
public struct StressScheduler: Sendable {
    /// The name given at registration; scenario names end with it.
    public let name: String
    /// How long a scenario waits for the scheduler to run or drop what it
    /// was given (after each batch, and at tear-down) before it grades the
    /// batch `never-settled` and stops, naming the scheduler (10 s).
    public var settleTimeoutSeconds: Double = 10
    let isSerial: Bool
    let isScheduler: Bool
    let isPeriodic: Bool
    /// Actions scheduled from one thread start in that order, one at a time
    /// (or a gate of the registration's own holds them).
    let holdsBehindGate: Bool
    /// Makes the scheduler and its harness hooks, fresh for a scenario's run.
    let make: @Sendable () -> SchedulerUnderTest
    /// The library's scenarios choose which of them run on a builtin scheduler.
    var scenarios: Set<ScenarioFamily>
    /// Whether the scenarios may run under `--explore`: only the library's
    /// schedulers hand their work through the seam a controller takes over.
    let explorable: Bool
    /// Which builtin scheduler this is; `nil` for a user's registration.
    let kind: SchedulerUnderTest.Kind?

    /// The scenario families.
    enum ScenarioFamily: Sendable, CaseIterable {
        case action, observeOn, observeOnGenericPath, subscribeOn, periodic, periodicEmulated
    }

    /// Registers the scheduler `make` returns under `name`; `make` is called
    /// once per scenario, before its first iteration.
    ///
    /// - Parameters:
    ///   - name: letters, digits, `-`, `_` and `.` (it ends the scenario
    ///     names `--filter` matches), at most 48 characters.
    ///   - isCurrent: whether the calling thread is running an action of
    ///     this scheduler; when given, the subscribeOn scenario also checks
    ///     that the subscription and its disposal ran on the scheduler
    ///     (guarantee 4). A single-thread loop compares the current thread
    ///     with its own.
    ///   - gate: for a scheduler that is not a `SerialScheduler`: enqueues
    ///     the block so that the next action scheduled from the calling
    ///     thread cannot start before the block returns (a barrier, or a
    ///     FIFO queue that runs one action at a time). A `SerialScheduler`
    ///     needs none: its `schedule` is used, on the promise that it starts
    ///     actions in order, one at a time.
    public init<S: ImmediateScheduler & SendableMetatype>(
        _ name: String, isCurrent: (@Sendable (S) -> Bool)? = nil,
        gate: (@Sendable (S, _ block: @escaping @Sendable () -> Void) -> Void)? = nil,
        make: @escaping @Sendable () -> S
    ) {
        self.name = name
        isSerial = S.self is any SerialScheduler.Type
        isScheduler = S.self is any Scheduler.Type
        isPeriodic = S.self is any PeriodicScheduler.Type
        holdsBehindGate = isSerial || gate != nil
        explorable = false
        kind = nil
        var families: Set<ScenarioFamily> = [.action, .observeOn, .subscribeOn]
        if S.self is any SerialScheduler.Type { families.insert(.observeOnGenericPath) }
        if S.self is any Scheduler.Type { families.insert(.periodic) }
        if S.self is any PeriodicScheduler.Type { families.insert(.periodicEmulated) }
        scenarios = families
        let serial = isSerial
        self.make = {
            let box = SchedulerBox(make())
            var currentCheck: (@Sendable () -> Bool)?
            if let isCurrent {
                currentCheck = { isCurrent(box.scheduler) }
            }
            var ownGate: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
            if let gate {
                ownGate = { block in gate(box.scheduler, block) }
            }
            return SchedulerUnderTest(
                name: name, isSerial: serial, scheduler: box.scheduler, isCurrent: currentCheck, gate: ownGate)
        }
    }

    /// This registration with ``settleTimeoutSeconds`` set to `seconds`.
    public func settleTimeout(seconds: Double) -> StressScheduler {
        var copy = self
        copy.settleTimeoutSeconds = seconds
        return copy
    }

    /// A builtin scheduler of `kind`.
    init(_ kind: SchedulerUnderTest.Kind, scenarios: Set<ScenarioFamily>) {
        name = kind.rawValue
        isSerial = kind.isSerial
        isScheduler = true
        isPeriodic = true
        holdsBehindGate = true
        explorable = true
        self.kind = kind
        self.scenarios = scenarios
        make = { SchedulerUnderTest(kind) }
    }
}

/// The schedulers a `Stress` run races on, in order; refuses a name the
/// scenario names cannot carry or one registered twice.
public struct StressRegistry: Sendable {
    public private(set) var schedulers: [StressScheduler] = []

    /// An empty registry.
    public init() {}

    /// This library's schedulers (``ScenarioCatalog/builtinSchedulers``).
    public static var builtin: StressRegistry {
        var registry = StressRegistry()
        registry.schedulers = ScenarioCatalog.builtinSchedulers
        return registry
    }

    /// Adds `scheduler`; throws ``StressRegistrationError`` saying what to change.
    public mutating func register(_ scheduler: StressScheduler) throws {
        let name = scheduler.name
        let advice = "use letters, digits, '-', '_' and '.', e.g. 'my-event-loop'"
        guard !name.isEmpty, name.count <= 48 else {
            throw StressRegistrationError("scheduler name '\(name)' must have 1 to 48 characters: \(advice)")
        }
        guard name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }) else {
            throw StressRegistrationError(
                "scheduler name '\(name)' has a character a scenario name (and the CSV, and --filter) cannot carry: \(advice)")
        }
        guard !schedulers.contains(where: { $0.name == name }) else {
            throw StressRegistrationError(
                "two schedulers are registered as '\(name)': give each a name of its own (Stress --list shows those taken)")
        }
        guard scheduler.holdsBehindGate else {
            throw StressRegistrationError(
                "'\(name)' is not a SerialScheduler, so the scenarios cannot hold an action behind a gate scheduled "
                    + "before it: register it with a gate (StressScheduler(_:isCurrent:gate:make:)) that keeps the next "
                    + "action from starting until the gate returns")
        }
        schedulers.append(scheduler)
    }
}

/// A registration refused: the message says what to change.
public struct StressRegistrationError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Hands a registered scheduler to the harness's hooks, which call it from
/// the scenario's threads: a scheduler is shared by every thread that
/// schedules on it, whether or not its type says `Sendable`.
private final class SchedulerBox<S>: @unchecked Sendable {
    let scheduler: S
    init(_ scheduler: S) { self.scheduler = scheduler }
}
