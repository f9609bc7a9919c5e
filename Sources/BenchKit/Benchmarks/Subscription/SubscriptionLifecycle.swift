import Dispatch
import Foundation
import Synchronization

/// One way to subscribe a one-element chain that hops to a scheduler, and to
/// end that subscription: a variant of `observeOn.subscription`.
///
/// `subscribe` must make the chain's source emit exactly one element and
/// route it through the hop to an observer that calls `token.delivered()`;
/// the observer must hold `token` (and nothing else must), so that the
/// token is freed exactly when the chain lets go of the observer.
protocol SubscriptionLifecycle: AnyObject, SendableMetatype {
    /// What ends one subscription (a disposable, a cancellable).
    associatedtype Handle
    func subscribe(_ token: LifecycleToken) -> Handle
    func dispose(_ handle: Handle)
    /// Releases the scheduler's threads and queues.
    func close()
}

/// A named lifecycle variant, created afresh for every repetition (outside the timed region).
struct SubscriptionVariant: MeasuredVariant, Sendable {
    let id: VariantID
    let unavailableReason: String?
    /// Delivers on the main thread, so the main queue must be serviced.
    let needsMainQueue: Bool
    /// On a fresh session, runs `warmUp` lifecycles, then `lifecycles` more
    /// inside `around` (see `LifecycleRunner.run`).
    let run: @Sendable (_ warmUp: Int, _ lifecycles: Int, _ around: LifecycleRunner.Around) throws -> Void

    init<Session: SubscriptionLifecycle>(
        id: VariantID, needsMainQueue: Bool = false, requireMainThread: Bool = false,
        timeoutNanoseconds: UInt64 = LifecycleRunner.defaultTimeoutNanoseconds,
        makeSession: @escaping @Sendable () -> Session
    ) {
        self.id = id
        self.unavailableReason = nil
        self.needsMainQueue = needsMainQueue
        self.run = { warmUp, lifecycles, around in
            let session = makeSession()
            defer { session.close() }
            try LifecycleRunner.run(
                session, variant: id.name, warmUp: warmUp, lifecycles: lifecycles, requireMainThread: requireMainThread,
                timeoutNanoseconds: timeoutNanoseconds, around: around)
        }
    }
}

/// The observer's handle on a lifecycle: `delivered()` when the element
/// arrives, and its `deinit` when the chain has released the observer.
/// Made before the timed region, so the harness allocates nothing inside it.
final class LifecycleToken: @unchecked Sendable {
    private let signals: LifecycleSignals

    init(signals: LifecycleSignals) {
        self.signals = signals
    }

    /// Called by the observer on the scheduler's context.
    @inline(__always)
    func delivered() {
        if signals.requireMainThread && !MainQueueDriver.isMainThread {
            signals.offMain.add(1, ordering: .relaxed)
        }
        signals.delivered.add(1, ordering: .releasing)
    }

    deinit {
        signals.released.add(1, ordering: .releasing)
    }
}

/// Counters the measuring thread polls: elements delivered and observers
/// released so far in a session.
final class LifecycleSignals: Sendable {
    let delivered = Atomic<Int>(0)
    let released = Atomic<Int>(0)
    let offMain = Atomic<Int>(0)
    let requireMainThread: Bool

    init(requireMainThread: Bool) {
        self.requireMainThread = requireMainThread
    }
}

/// Runs lifecycles one after another and defines what one is.
///
/// One lifecycle, all on the measuring thread except the delivery:
/// 1. subscribe the chain (its source emits one element at once, which the
///    hop schedules onto the target scheduler);
/// 2. wait until the observer has received the element on the scheduler;
/// 3. dispose the subscription;
/// 4. wait until the chain has released the observer (the token's `deinit`).
///
/// The waits spin on an atomic counter (yielding the core after 20 µs), so the
/// measuring thread never sleeps: the time is the chain's work plus the
/// scheduler's hand-off (often a wake-up of an idle worker), not a wake-up of
/// the harness. Lifecycles never overlap, so nothing of one is left to run
/// during the next.
enum LifecycleRunner {
    /// Wraps the lifecycles to measure: called with a closure that runs them.
    typealias Around = (_ lifecycles: () throws -> Void) throws -> Void

    /// A lifecycle that takes longer than this is a failure, not a figure.
    static let defaultTimeoutNanoseconds: UInt64 = 10_000_000_000

    static func run<Session: SubscriptionLifecycle>(
        _ session: Session, variant: String, warmUp: Int, lifecycles: Int, requireMainThread: Bool,
        timeoutNanoseconds: UInt64 = defaultTimeoutNanoseconds, around: Around
    ) throws {
        if requireMainThread && MainQueueDriver.isMainThread {
            throw BenchmarkFailure("\(variant): the subscriber runs on the main thread, so nothing would hop")
        }
        let signals = LifecycleSignals(requireMainThread: requireMainThread)
        let total = warmUp + lifecycles
        var tokens: [LifecycleToken?] = (0..<total).map { _ in LifecycleToken(signals: signals) }
        func runLifecycles(_ range: Range<Int>) throws {
            for index in range {
                try subscribeAndDispose(
                    session, index: index, tokens: &tokens, signals: signals, variant: variant, timeout: timeoutNanoseconds)
                try wait(
                    for: signals.released, toReach: index + 1, variant: variant, what: "release its observer",
                    timeout: timeoutNanoseconds)
            }
        }
        try runLifecycles(0..<warmUp)
        try around { try runLifecycles(warmUp..<total) }
        let offMain = signals.offMain.load(ordering: .acquiring)
        if offMain > 0 {
            throw BenchmarkFailure("\(variant): \(offMain) elements were delivered off the main thread")
        }
    }

    /// Steps 1-3; the token and the handle are gone when it returns.
    @inline(never)
    private static func subscribeAndDispose<Session: SubscriptionLifecycle>(
        _ session: Session, index: Int, tokens: inout [LifecycleToken?], signals: LifecycleSignals, variant: String,
        timeout: UInt64
    ) throws {
        guard let token = tokens[index] else { return }
        tokens[index] = nil
        let handle = session.subscribe(token)
        try wait(for: signals.delivered, toReach: index + 1, variant: variant, what: "deliver its element", timeout: timeout)
        session.dispose(handle)
    }

    private static func wait(
        for counter: borrowing Atomic<Int>, toReach target: Int, variant: String, what: String, timeout: UInt64
    ) throws {
        if counter.load(ordering: .acquiring) >= target { return }
        let start = MeasureContext.now()
        var spins = 0
        while counter.load(ordering: .acquiring) < target {
            spins += 1
            if spins & 255 == 0 {
                let elapsed = MeasureContext.now() - start
                if elapsed > timeout {
                    throw BenchmarkFailure(
                        "\(variant): subscription \(target) did not \(what) within \(Double(timeout) / 1e9) s")
                }
                if elapsed > 20_000 { sched_yield() }
            }
        }
    }
}
