import Foundation
import Schedulers

extension TestScheduler {
    /// This scheduler's virtual time as a `Clock`, for testing `async` code
    /// that sleeps: see `TestSchedulerClock`.
    ///
    /// Every clock of the same scheduler shares its sleepers: a clock made
    /// here for the code under test and one made for the test agree on
    /// `sleeperCount`.
    public func asClock() -> TestSchedulerClock {
        TestSchedulerClock(scheduler: self)
    }
}

/// A `Clock` on a `TestScheduler`'s virtual time: `now` is the scheduler's
/// `clock` (ticks of `resolution` seconds, as a `Swift.Duration` since tick
/// 0), and a sleeper wakes when the test advances the scheduler past its
/// deadline, never because real time passed.
///
/// ```swift
/// let scheduler = TestScheduler(initialClock: 0)
/// let clock = scheduler.asClock()
/// let task = Task { try await clock.sleep(for: .seconds(5)) }
/// try await clock.waitForSleepers(1)   // the task is asleep
/// scheduler.advanceTo(5)                // wakes it
/// try await task.value
/// ```
///
/// The contract, which makes such tests deterministic (no yielding loops,
/// no real-time waits):
/// - `sleep(until:)` registers the sleeper in the scheduler synchronously,
///   before it suspends: a virtual-time action at the first tick at or after
///   the deadline that resumes the sleeper. A deadline at or before `now`
///   returns at once.
/// - Advancing the scheduler (`advanceTo(_:)`, `start()`) runs that action
///   when it reaches the tick, on the advancing thread: every sleeper
///   registered before the advance whose deadline the advance reaches is
///   resumed before the advance returns. Its task then continues on its own
///   executor: on the scheduler's `taskExecutor`, inside the same advance, at
///   the deadline's virtual time (see `TestSchedulerTaskExecutor`);
///   elsewhere, whenever that executor runs it.
/// - A task on the scheduler's `taskExecutor` needs no waiting: it sleeps
///   inside an advance. Of any other task a test cannot see when it reaches
///   `sleep`; it waits for that with `waitForSleepers(_:)` (suspends until
///   that many sleepers are registered, woken by the registration itself)
///   or reads `sleeperCount`.
/// - Cancelling a sleeping task removes its action from the scheduler and
///   throws `CancellationError` from `sleep`.
/// - `tolerance` is ignored: virtual time has no timer slack.
public struct TestSchedulerClock: Clock, Sendable {
    public typealias Duration = Swift.Duration

    /// A point of the scheduler's virtual time.
    public struct Instant: InstantProtocol, Sendable {
        public typealias Duration = Swift.Duration

        /// The virtual time elapsed since tick 0.
        public var offset: Swift.Duration

        /// The instant `offset` after tick 0.
        public init(offset: Swift.Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Swift.Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Swift.Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    /// The scheduler whose virtual time this clock reads.
    public let scheduler: TestScheduler

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// The scheduler's current virtual time.
    public var now: Instant {
        instant(atTick: scheduler.clock)
    }

    /// One tick.
    public var minimumResolution: Swift.Duration {
        .nanoseconds(Self.nanoseconds(ofTicks: 1, resolution: scheduler.resolution))
    }

    /// The instant of tick `tick`.
    public func instant(atTick tick: TestTime) -> Instant {
        Instant(offset: .nanoseconds(Self.nanoseconds(ofTicks: tick, resolution: scheduler.resolution)))
    }

    /// The first tick whose instant is at or after `instant`.
    public func firstTick(atOrAfter deadline: Instant) -> TestTime {
        let tickNanoseconds = Double(Self.nanoseconds(ofTicks: 1, resolution: scheduler.resolution))
        let (seconds, attoseconds) = deadline.offset.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        let estimate = (nanoseconds / tickNanoseconds).rounded(.down)
        guard estimate < Double(TestTime.max - 2), estimate > Double(TestTime.min + 2) else {
            return estimate > 0 ? .max : .min
        }
        // The estimate is within a tick of the answer: settle it exactly
        // against `instant(atTick:)`, so `now` reads at or after the deadline.
        var tick = TestTime(estimate) - 1
        while instant(atTick: tick) < deadline {
            tick += 1
        }
        return tick
    }

    /// How many tasks sleep on this scheduler's virtual time now: registered,
    /// not yet woken nor cancelled.
    public var sleeperCount: Int {
        scheduler.sleepers.count
    }

    /// Suspends until at least `count` sleepers are registered on this
    /// scheduler (see `sleeperCount`); returns at once if they already are.
    ///
    /// The registration of a sleeper resumes this call; nothing polls. Use it
    /// between starting tasks that sleep and advancing the scheduler, so that
    /// the advance finds them asleep.
    ///
    /// - Throws: `CancellationError` if the waiting task is cancelled.
    public func waitForSleepers(_ count: Int) async throws {
        try await scheduler.sleepers.wait(forAtLeast: count)
    }

    /// Suspends until the scheduler's virtual time reaches `deadline` (see
    /// the type's contract).
    ///
    /// - Throws: `CancellationError` if the task is cancelled before or while
    ///   it sleeps.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        try Task.checkCancellation()
        let tick = firstTick(atOrAfter: deadline)
        if tick <= scheduler.clock {
            return
        }
        let sleeper = VirtualSleeper(registry: scheduler.sleepers)
        let scheduler = self.scheduler
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard sleeper.install(continuation) else { return }
                let action = scheduler.scheduleAbsoluteVirtual(sleeper, time: tick) { sleeper in
                    sleeper.wake()
                    return Disposables.create()
                }
                if !sleeper.arm(action) {
                    action.dispose()
                }
            }
        } onCancel: {
            sleeper.cancel()?.dispose()
        }
    }

    static func nanoseconds(ofTicks ticks: TestTime, resolution: Double) -> Int64 {
        let nanoseconds = (Double(ticks) * resolution * 1e9).rounded()
        if nanoseconds >= 9.2e18 { return .max }
        if nanoseconds <= -9.2e18 { return .min }
        return Int64(nanoseconds)
    }
}

/// One `sleep` on the virtual clock: its continuation and the scheduler
/// action that resumes it, whichever of waking and cancelling comes first.
///
/// The sleeper counts in its registry once its action is in the scheduler
/// (`arm`) until it is woken or cancelled, and both changes happen under the
/// sleeper's lock: when `waitForSleepers(_:)` returns, the actions of the
/// sleepers it counted are queued, so the next advance finds them.
final class VirtualSleeper: @unchecked Sendable {
    private enum State {
        case initial
        /// Suspended; its action is being scheduled.
        case installed(CheckedContinuation<Void, any Error>)
        /// Its action ran before `arm`: `arm` resumes it.
        case wokenBeforeArmed(CheckedContinuation<Void, any Error>)
        /// Its action is queued and it counts in the registry.
        case armed(CheckedContinuation<Void, any Error>, Disposable)
        case done
    }

    private let registry: VirtualSleeperRegistry
    private let lock = NSLock()
    private var state = State.initial

    init(registry: VirtualSleeperRegistry) {
        self.registry = registry
    }

    /// Keeps `continuation`; `false` (and the continuation resumed with
    /// `CancellationError`) if the task was cancelled first.
    func install(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        lock.lock()
        guard case .initial = state else {
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return false
        }
        state = .installed(continuation)
        lock.unlock()
        return true
    }

    /// Keeps the scheduled action and counts the sleeper in; `false` if the
    /// sleep was cancelled meanwhile (the caller disposes the action).
    func arm(_ action: Disposable) -> Bool {
        lock.lock()
        switch state {
        case .installed(let continuation):
            state = .armed(continuation, action)
            let reached = registry.add()
            lock.unlock()
            for waiter in reached {
                waiter.resume()
            }
            return true
        case .wokenBeforeArmed(let continuation):
            state = .done
            lock.unlock()
            continuation.resume()
            return true
        case .initial, .armed, .done:
            lock.unlock()
            return false
        }
    }

    /// Resumes the sleeper, if it still sleeps.
    func wake() {
        lock.lock()
        switch state {
        case .armed(let continuation, _):
            state = .done
            registry.remove()
            lock.unlock()
            continuation.resume()
        case .installed(let continuation):
            state = .wokenBeforeArmed(continuation)
            lock.unlock()
        case .initial, .wokenBeforeArmed, .done:
            lock.unlock()
        }
    }

    /// Ends the sleep with `CancellationError`; returns the scheduler action
    /// to dispose, if there is one.
    func cancel() -> Disposable? {
        lock.lock()
        switch state {
        case .initial:
            state = .done
            lock.unlock()
            return nil
        case .installed(let continuation), .wokenBeforeArmed(let continuation):
            state = .done
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return nil
        case .armed(let continuation, let action):
            state = .done
            registry.remove()
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return action
        case .done:
            lock.unlock()
            return nil
        }
    }
}

/// The sleepers registered on one `TestScheduler`'s clock, and the tasks
/// waiting for their number to reach a count.
final class VirtualSleeperRegistry: @unchecked Sendable {
    private struct Waiter {
        let count: Int
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var registered = 0
    private var waiters: [Waiter] = []
    private var nextWaiterID: UInt64 = 0
    /// Waiters cancelled before they were queued.
    private var cancelledIDs: Set<UInt64> = []

    var count: Int {
        lock.withLock { registered }
    }

    /// Counts one more sleeper; returns the waiters this satisfies, for the
    /// caller to resume outside its locks.
    func add() -> [CheckedContinuation<Void, any Error>] {
        lock.withLock {
            registered += 1
            let reached = waiters.filter { $0.count <= registered }
            waiters.removeAll { $0.count <= registered }
            return reached.map(\.continuation)
        }
    }

    func remove() {
        lock.withLock { registered -= 1 }
    }

    func wait(forAtLeast count: Int) async throws {
        try Task.checkCancellation()
        let id: UInt64 = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case reached, cancelled, queued }
                let outcome: Outcome = lock.withLock {
                    if cancelledIDs.remove(id) != nil {
                        return .cancelled
                    }
                    if registered >= count {
                        return .reached
                    }
                    waiters.append(Waiter(count: count, id: id, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .reached: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let cancelled: CheckedContinuation<Void, any Error>? = lock.withLock {
                guard let index = waiters.firstIndex(where: { $0.id == id }) else {
                    cancelledIDs.insert(id)
                    return nil
                }
                return waiters.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }
}
