import Dispatch
import Foundation
import Schedulers
import Synchronization

/// A serial place where timers, actions and executor jobs run one at a time:
/// what the due-order and periodic progress scenarios flood and time.
struct SerialProgressTarget: ProgressScenarioTarget, Sendable {
    /// The made target, for one scenario.
    struct Made: Sendable {
        /// Runs `work` there once `seconds` have passed (a timer).
        let after: @Sendable (_ seconds: Double, _ work: @escaping @Sendable () -> Void) -> Void
        /// Runs `work` there as an action (after everything scheduled before it).
        let action: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
        /// Runs `work` there as a job of an actor whose executor it is.
        let job: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
        /// Starts periodic work every `seconds`; returns what stops it and
        /// reads the ticks it skipped (as `PeriodicDisposable` counts them).
        let periodic: @Sendable (_ seconds: Double, _ tick: @escaping @Sendable () -> Void) -> PeriodicHandle
        /// Waits until everything enqueued before the call ran; `false` after `seconds`.
        let settle: @Sendable (_ seconds: Double) -> Bool
        /// Ends what `make` made, once.
        let finish: @Sendable () -> Void
        /// Whether the calling thread runs the target's work (is isolated to
        /// its executor), or `nil` where that cannot be asked from outside.
        let isIsolated: (@Sendable () -> Bool)?
        /// The serial queue the target's timers, actions and jobs reach,
        /// where a schedule controller can run it (`explorable`); `nil` on
        /// a reference.
        var queue: DispatchQueue? = nil

        /// Ends a scenario's target: waits (up to 10 s) for what it was
        /// given, then ends it.
        func tearDown() {
            _ = settle(10)
            finish()
        }
    }

    /// A running periodic job: stops it, and reads its skipped ticks.
    struct PeriodicHandle: Sendable {
        let dispose: @Sendable () -> Void
        let skippedTicks: @Sendable () -> Int?
    }

    /// The last part of the scenarios' names.
    let name: String
    /// Whether it is the platform's own (a reference, not gated).
    var isReference = false
    /// Why it cannot run where the scenarios run, or `nil`.
    var blocker: String? = nil
    /// Whether a schedule controller can run it: its timers, actions and
    /// jobs pass the library's hand-off seam (`Made.queue` is set).
    var explorable = false
    /// Makes the target, once per scenario.
    let make: @Sendable () -> Made

    /// A `SerialDispatchQueueScheduler` and its `executor`.
    static let serialDispatch = SerialProgressTarget(name: "serial-dispatch", explorable: true) {
        // The configuration is called once, inside `init`, with the queue it made.
        let made = QueueSlot()
        let scheduler = SerialDispatchQueueScheduler(
            internalSerialQueueName: "stress.progress.serial",
            serialQueueConfiguration: { made.queue = $0 })
        let queue = made.queue
        let actor = ExecutorActor(scheduler.executor)
        return Made(
            after: { seconds, work in
                _ = scheduler.scheduleRelative((), dueTime: .nanoseconds(Int(seconds * 1e9))) { _ in
                    work()
                    return Disposables.create()
                }
            },
            action: { work in _ = scheduler.schedule(()) { _ in work(); return Disposables.create() } },
            // Explored, the task's own jobs run on the controller's workers
            // (`Exploration.taskExecutor` is `nil` on real threads).
            job: { work in Task.immediate(executorPreference: Exploration.taskExecutor) { await actor.run(work) } },
            periodic: { seconds, tick in
                let disposable = ThreadSafe(scheduler.schedulePeriodic(
                    (), startAfter: .nanoseconds(Int(seconds * 1e9)), period: .nanoseconds(Int(seconds * 1e9))
                ) { _ in tick() })
                return PeriodicHandle(
                    dispose: { disposable.value.dispose() },
                    skippedTicks: { (disposable.value as? PeriodicDisposable)?.skippedTicks })
            },
            settle: { seconds in
                let done = DispatchSemaphore(value: 0)
                _ = scheduler.schedule(()) { _ in done.signal(); return Disposables.create() }
                return done.wait(timeout: .now() + seconds) == .success
            },
            finish: {},
            isIsolated: { scheduler.executor.isIsolated },
            queue: queue)
    }

    /// A default actor (the runtime's own serial executor, on the global
    /// concurrent pool): a timer is a task that sleeps, then hops onto the
    /// actor; an action is a job, as there is no queue to schedule on.
    /// Linux's Dispatch has no `DispatchSerialQueue` to give an actor as its
    /// executor, so this is the platform's serial executor here. A
    /// reference, not gated.
    static let defaultActor = SerialProgressTarget(name: "default-actor", isReference: true) {
        let actor = DefaultActor()
        let job: @Sendable (@escaping @Sendable () -> Void) -> Void = { work in Task.immediate { await actor.run(work) } }
        return Made(
            after: { seconds, work in
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                    await actor.run(work)
                }
            },
            action: job,
            job: job,
            periodic: { seconds, tick in
                let task = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                        await actor.run(tick)
                    }
                }
                return PeriodicHandle(dispose: { task.cancel() }, skippedTicks: { nil })
            },
            settle: { seconds in
                let done = DispatchSemaphore(value: 0)
                job { done.signal() }
                return done.wait(timeout: .now() + seconds) == .success
            },
            finish: {},
            isIsolated: nil)
    }

    /// The main actor and the main queue: timers and actions are blocks on
    /// the main queue, jobs the main actor's. A reference, not gated.
    static let mainActor = SerialProgressTarget(name: "main-actor", isReference: true) {
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: 1)
        return Made(
            after: { seconds, work in DispatchQueue.main.asyncAfter(deadline: .now() + seconds, execute: work) },
            action: { work in DispatchQueue.main.async(execute: work) },
            job: { work in Task.immediate { @MainActor in work() } },
            periodic: { seconds, tick in
                let timer = ThreadSafe(DispatchSource.makeTimerSource(queue: DispatchQueue.main))
                timer.value.schedule(deadline: .now() + seconds, repeating: seconds)
                timer.value.setEventHandler(handler: tick)
                timer.value.resume()
                return PeriodicHandle(dispose: { timer.value.cancel() }, skippedTicks: { nil })
            },
            settle: { seconds in
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.main.async { done.signal() }
                return done.wait(timeout: .now() + seconds) == .success
            },
            finish: {},
            // The main queue, not the main thread: under `dispatchMain()` on
            // Linux the main thread exits and a worker drains the main queue.
            isIsolated: { DispatchQueue.getSpecific(key: mainQueueKey) == 1 })
    }
}

/// Where a scheduler's queue configuration leaves the queue it is given;
/// written once, inside the scheduler's `init`, and read after it.
private final class QueueSlot: @unchecked Sendable {
    var queue: DispatchQueue?
}

/// Marks the main queue for the main actor's isolation check.
private let mainQueueKey = DispatchSpecificKey<UInt8>()

/// A default actor: its jobs run on the runtime's own serial executor.
actor DefaultActor {
    func run(_ work: @Sendable () -> Void) {
        work()
    }
}

/// A value whose type does not say `Sendable` but whose methods the
/// scenarios call may be called from any thread: a disposable (guarantee 7)
/// and a dispatch timer source (`cancel()` is thread-safe).
private final class ThreadSafe<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// An actor whose jobs run on a serial scheduler's executor; it keeps the
/// executor, as `SerialSchedulerExecutor` requires.
actor ExecutorActor {
    let executor: SerialSchedulerExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(_ executor: SerialSchedulerExecutor) {
        self.executor = executor
    }

    func run(_ work: @Sendable () -> Void) {
        work()
    }
}

/// What a flood records about one iteration: when the work under test fell
/// due and ran, and how many flood items enqueued after it fell due ran
/// before it. Every item and the work run on the same serial target, so
/// `ran` is read in their order.
final class DueRecord: @unchecked Sendable {
    /// When the work fell due (monotonic ns), 0 until known.
    let dueAt = Atomic<UInt64>(0)
    /// Explored: whether the action under test was scheduled (it fell due).
    let actionScheduled = Atomic<Bool>(false)
    /// Whether the work ran.
    let ran = Atomic<Bool>(false)
    let ranSignal = DispatchSemaphore(value: 0)
    /// Flood items enqueued later than `dueAt` plus the margin that ran before the work.
    let overtakers = Atomic<Int>(0)
    /// Flood items enqueued, and those that ran.
    let enqueued = Atomic<Int>(0)
    let done = Atomic<Int>(0)

    func workRan() {
        ran.store(true, ordering: .releasing)
        ranSignal.signal()
    }

    /// A flood item enqueued at `enqueuedAt` runs: an overtaker if the work
    /// had fallen due more than `margin` ns before and has not run.
    func itemRan(enqueuedAt: UInt64, margin: UInt64) {
        let due = dueAt.load(ordering: .acquiring)
        itemRan(enqueuedAfterDue: due != 0 && enqueuedAt > due &+ margin)
    }

    /// A flood item runs: an overtaker if it was enqueued after the work
    /// fell due (`enqueuedAfterDue`) and the work has not run.
    func itemRan(enqueuedAfterDue: Bool) {
        if enqueuedAfterDue, !ran.load(ordering: .acquiring) {
            overtakers.wrappingAdd(1, ordering: .relaxed)
        }
        done.wrappingAdd(1, ordering: .releasing)
    }
}

/// What the progress scenarios run on: its name ends theirs.
protocol ProgressScenarioTarget {
    /// The last part of the scenarios' names.
    var name: String { get }
    /// Whether it is the platform's own (a reference, not gated).
    var isReference: Bool { get }
}

extension ProgressScenarioTarget {
    /// The name of `family`'s scenario on this target; a reference's starts
    /// with `reference.`, the mark of what is never gated.
    func scenarioName(_ family: String) -> String {
        (isReference ? "reference." : "") + "\(family).\(name)"
    }
}
