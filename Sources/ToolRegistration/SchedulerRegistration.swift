import Dispatch
import Foundation
import Schedulers

/// A scheduler of your own, described once and handed to both tools:
/// BenchRunner measures it beside the library's schedulers and the peers
/// (`BenchScheduler(_:)`), Stress races dispose against its actions
/// (`StressScheduler(_:)`), and `SchedulerToolsMain.run(registering:)` runs
/// one executable with a `bench` and a `stress` subcommand over it.
///
/// ```swift
/// let eventLoop = SchedulerRegistration(
///     "event-loop", isCurrent: { $0.isOnLoopThread }, teardown: { $0.stop() }
/// ) { EventLoopScheduler() }
/// ```
///
/// What each tool does with it follows from the scheduler type's
/// conformances (`ImmediateScheduler`, `SerialScheduler`, `Scheduler`,
/// `PeriodicScheduler`). Each tool checks the registration when it is
/// registered (``check()``), so a wrong `isCurrent` is reported as the
/// registration's error, not as the scheduler's failure.
public struct SchedulerRegistration: Sendable {
    /// The name both tools write: BenchRunner's variant names and Stress's
    /// scenario names end with it. The rule is ``validate(name:)``'s.
    package let name: String
    /// How long either tool waits for the scheduler to run (or drop) what it
    /// was given before it reports the scheduler stalled, naming it; `nil`
    /// keeps each tool's default (BenchRunner: 120 s for a hop, 10 s per
    /// subscription lifecycle, 60 s for a recursion chain, four times a
    /// periodic run plus 5 s; Stress: 10 s to settle; the check: 10 s).
    package var stallTimeoutSeconds: Double?

    /// The scheduler's type: its conformances decide what each tool runs.
    package let schedulerType: any (ImmediateScheduler & SendableMetatype).Type
    /// Makes a fresh scheduler, whose queues (where it makes any) the label
    /// names: once per benchmark session, once per stress scenario, once per check.
    package let makeLabelled: @Sendable (_ label: String) -> any ImmediateScheduler
    /// Whether the calling thread runs an action of `scheduler` (a scheduler `make` made).
    package let isCurrent: (@Sendable (_ scheduler: any ImmediateScheduler) -> Bool)?
    /// Enqueues a block that the next action scheduled from the calling thread cannot overtake.
    package let gate: (@Sendable (_ scheduler: any ImmediateScheduler, _ block: @escaping @Sendable () -> Void) -> Void)?
    /// Ends a scheduler the tools are done with.
    package let teardown: (@Sendable (_ scheduler: any ImmediateScheduler) -> Void)?

    /// Describes the scheduler `make` returns, under `name`.
    ///
    /// - Parameters:
    ///   - name: letters, digits, `-` and `_`, dots between words, at most 48
    ///     characters, not starting with `peer.` or `reference.` (``validate(name:)``).
    ///   - isCurrent: whether the calling thread is running an action of the
    ///     given scheduler. Stress then also checks where subscriptions,
    ///     disposals and scheduled disposables run. Compare a thread identity
    ///     captured on the scheduler's own thread (`Thread.current` saved when
    ///     the loop starts, then `===`); a thread's name does not work on Linux.
    ///     Each tool checks it once when registering (``check()``).
    ///   - gate: only for a scheduler that is not a `SerialScheduler`, which
    ///     Stress otherwise refuses: enqueue `block` so that the next action
    ///     scheduled from the calling thread cannot start before it returns
    ///     (a barrier, or a FIFO queue that runs one action at a time).
    ///   - teardown: called once with every scheduler `make` made, when the
    ///     tool is done with it (a benchmark session, a stress scenario, the
    ///     check), after everything it was given has run or been dropped. A
    ///     scheduler that holds a thread until it is told to stop needs it,
    ///     or each repetition and scenario leaves a thread behind.
    ///   - make: makes a fresh scheduler. Called outside any measured region.
    public init<S: ImmediateScheduler & SendableMetatype>(
        _ name: String,
        isCurrent: (@Sendable (S) -> Bool)? = nil,
        gate: (@Sendable (S, _ block: @escaping @Sendable () -> Void) -> Void)? = nil,
        teardown: (@Sendable (S) -> Void)? = nil,
        make: @escaping @Sendable () -> S
    ) {
        self.init(name, isCurrent: isCurrent, gate: gate, teardown: teardown, makeLabelled: { _ in make() })
    }

    /// A registration whose factory takes a label for the queues it makes
    /// (this library's own schedulers, whose queues carry the variant's name).
    package init<S: ImmediateScheduler & SendableMetatype>(
        _ name: String,
        isCurrent: (@Sendable (S) -> Bool)? = nil,
        gate: (@Sendable (S, _ block: @escaping @Sendable () -> Void) -> Void)? = nil,
        teardown: (@Sendable (S) -> Void)? = nil,
        makeLabelled: @escaping @Sendable (_ label: String) -> S
    ) {
        self.name = name
        schedulerType = S.self
        self.makeLabelled = { label in makeLabelled(label) }
        if let isCurrent {
            self.isCurrent = { scheduler in isCurrent(Self.typed(scheduler, as: S.self)) }
        } else {
            self.isCurrent = nil
        }
        if let gate {
            self.gate = { scheduler, block in gate(Self.typed(scheduler, as: S.self), block) }
        } else {
            self.gate = nil
        }
        if let teardown {
            self.teardown = { scheduler in teardown(Self.typed(scheduler, as: S.self)) }
        } else {
            self.teardown = nil
        }
    }

    /// This registration, with both tools (and the check) waiting up to
    /// `seconds` for the scheduler to run or drop what it was given before
    /// they report it stalled, naming it, instead of each tool's default
    /// (``stallTimeoutSeconds``).
    public func stallTimeout(seconds: Double) -> SchedulerRegistration {
        var copy = self
        copy.stallTimeoutSeconds = seconds
        return copy
    }

    /// Makes a fresh scheduler, its queues labelled after the registration's name.
    package func make() -> any ImmediateScheduler {
        makeLabelled(name)
    }

    /// Whether the scheduler is a `SerialScheduler`.
    package var isSerial: Bool { schedulerType is any SerialScheduler.Type }
    /// Whether the scheduler is a `Scheduler` (it takes delays).
    package var isScheduler: Bool { schedulerType is any Scheduler.Type }
    /// Whether the scheduler is a `PeriodicScheduler`.
    package var isPeriodic: Bool { schedulerType is any PeriodicScheduler.Type }

    private static func typed<S>(_ scheduler: any ImmediateScheduler, as type: S.Type) -> S {
        guard let typed = scheduler as? S else {
            preconditionFailure("a registration's closure was given a scheduler its own make did not make")
        }
        return typed
    }
}

/// A registration refused: the message names it, says what is wrong and
/// what to change. Both tools end with exit status 2 on one.
package struct SchedulerRegistrationError: Error, CustomStringConvertible, Equatable {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension SchedulerRegistration {
    /// Checks that `name` can stand in BenchRunner's CSV `variant` column, in
    /// Stress's scenario names and in either tool's `--filter`: letters,
    /// digits, `-` and `_`, dots between words, at most 48 characters, and
    /// neither `peer` nor `reference` as its first part (those mark
    /// BenchRunner's variants a comparison does not judge). Both tools apply
    /// this one rule.
    package static func validate(name: String) throws(SchedulerRegistrationError) {
        let what = "scheduler name '\(name)'"
        let advice = "use letters, digits, '-' and '_', with dots between words, e.g. 'my-event-loop'"
        guard !name.isEmpty else { throw SchedulerRegistrationError("a scheduler name is empty: \(advice)") }
        guard name.count <= 48 else { throw SchedulerRegistrationError("\(what) is longer than 48 characters: shorten it; \(advice)") }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        }
        guard allowed else {
            throw SchedulerRegistrationError(
                "\(what) has a character the CSV's variant column, a scenario name or a --filter text cannot carry: \(advice)")
        }
        guard !name.hasPrefix("."), !name.hasSuffix("."), !name.contains("..") else {
            throw SchedulerRegistrationError("\(what) has an empty part between dots: \(advice)")
        }
        for prefix in ["peer", "reference"] where name == prefix || name.hasPrefix("\(prefix).") {
            throw SchedulerRegistrationError(
                "\(what) starts with '\(prefix)', which marks BenchRunner's variants a comparison does not judge: \(advice)")
        }
    }

    /// How long ``check()`` waits for the scheduler's action when the
    /// registration sets no ``stallTimeoutSeconds``.
    static let defaultCheckSeconds: Double = 10

    /// Checks what can be checked of the registration before anything runs:
    /// the name (``validate(name:)``), and, when it has `isCurrent`, that
    /// `isCurrent` is `false` on the calling thread and `true` inside an
    /// action the scheduler runs (waiting at most ``stallTimeoutSeconds``, or
    /// ``defaultCheckSeconds``). An action the scheduler runs on the calling
    /// thread itself is the scheduler's fault, not the registration's: the
    /// check lets it pass and the tools' runs report it. The scheduler it makes for this gets its
    /// teardown. Throws a ``SchedulerRegistrationError`` that names the
    /// registration, says what is wrong and how to fix it.
    ///
    /// Call it on a thread that is not the scheduler's own, and not on the
    /// main thread when the scheduler runs its actions on the main queue.
    package func check() throws(SchedulerRegistrationError) {
        try Self.validate(name: name)
        guard let isCurrent else { return }
        let scheduler = make()
        defer { teardown?(scheduler) }
        let box = CheckedScheduler(scheduler)
        let fix = "make isCurrent compare the calling thread with one the scheduler owns (e.g. keep Thread.current "
            + "when its thread starts and compare with ===); Thread.current.name does not tell threads apart on Linux"
        if isCurrent(scheduler) {
            throw SchedulerRegistrationError(
                "registration '\(name)': isCurrent is true on the thread that registers it, which runs no action of "
                    + "the scheduler, so it cannot tell where the scheduler's work runs: \(fix)")
        }
        let seen = SeenInside()
        let ran = DispatchSemaphore(value: 0)
        let caller = CallingThread(Thread.current)
        let scheduled = scheduler.schedule(()) { _ in
            seen.value = isCurrent(box.scheduler)
            seen.onCaller = Thread.current === caller.thread
            ran.signal()
            return Disposables.create()
        }
        let seconds = stallTimeoutSeconds ?? Self.defaultCheckSeconds
        guard ran.wait(timeout: .now() + seconds) == .success else {
            scheduled.dispose()
            throw SchedulerRegistrationError(
                "registration '\(name)': the scheduler did not run one scheduled action within "
                    + "\(Self.format(seconds)) s, so isCurrent could not be checked: does it start a thread of its own "
                    + "(and not need the main queue, which the check blocks)? A slow start takes stallTimeout(seconds:)")
        }
        // A scheduler that runs the action on the calling thread breaks its
        // own promise, which the tools report; the registration is not to blame.
        if seen.value != true && !seen.onCaller {
            throw SchedulerRegistrationError(
                "registration '\(name)': isCurrent is false inside an action the scheduler runs, so every check of "
                    + "where its work runs would fail (Stress would report the scheduler, e.g. as "
                    + "'disposed-off-scheduler', though the registration is wrong): \(fix)")
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// What the check's action saw, handed back to the checking thread (the
/// semaphore orders the write before the read).
private final class SeenInside: @unchecked Sendable {
    var value: Bool?
    var onCaller = false
}

/// The thread that runs the check, compared by identity inside the action.
private final class CallingThread: @unchecked Sendable {
    let thread: Thread
    init(_ thread: Thread) { self.thread = thread }
}

/// The checked scheduler, handed to the action it runs: the action reads it
/// on the scheduler's thread, whether or not its type says `Sendable`.
private final class CheckedScheduler: @unchecked Sendable {
    let scheduler: any ImmediateScheduler
    init(_ scheduler: any ImmediateScheduler) { self.scheduler = scheduler }
}
