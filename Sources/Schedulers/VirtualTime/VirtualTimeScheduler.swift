import Foundation

/// A scheduler whose clock moves only when told to: deterministic tests of
/// anything timed, periodic emulation included.
///
/// Work is queued by virtual due time and runs when `start()` or
/// `advanceTo(_:)` drains the queue, on the calling thread, one action at a
/// time (serial: it conforms to `SerialScheduler`). Before each action runs,
/// the clock jumps to the action's due time unless it is already later; an
/// action may move the clock on itself with `sleep(_:)`, which is how a test
/// simulates work that takes time.
///
/// Ordering: earlier due times first; actions due at the same time run in the
/// order they were scheduled.
///
/// Guarantees (Guarantees.md): 5, an action disposed before it starts never runs,
/// one disposed while running finishes and is not run again; 8, an action and
/// its state are released as soon as the action has run or been disposed.
/// Scheduling and disposing are thread-safe; running (`start`, `advanceTo`)
/// happens on whichever thread calls it.
///
/// A disposed action leaves an empty item (a tombstone) in the queue, which
/// never runs and never moves the clock: it is dropped when it reaches the
/// front, or with every other tombstone when a schedule or a run finds at
/// least half of the queue disposed.
///
/// Scheduling and running are inlinable, so that a caller in another module
/// (a test suite on `TestScheduler`) compiles them for its converter and
/// state instead of running generic code that asks the runtime for type
/// metadata at every step.
///
/// `monotonicNanoseconds` is the virtual time elapsed since `initialClock`,
/// so `schedulePeriodic` (emulated, fixed-rate) runs on virtual time and is
/// exactly reproducible.
open class VirtualTimeScheduler<Converter: VirtualTimeConverterType>:
    Scheduler, SerialScheduler, @unchecked Sendable
{
    /// A point in this scheduler's virtual time.
    public typealias VirtualTime = Converter.VirtualTimeUnit
    /// A span of this scheduler's virtual time.
    public typealias VirtualTimeInterval = Converter.VirtualTimeIntervalUnit

    @usableFromInline
    let converter: Converter
    private let initialClock: VirtualTime
    @usableFromInline
    let lock = Lock()
    /// Disposed items still in `queue` (see `VirtualSchedulerTombstones`).
    @usableFromInline
    let tombstones = VirtualSchedulerTombstones()
    // Guarded by `lock`.
    @usableFromInline
    final var currentClock: VirtualTime
    @usableFromInline
    final var running = false
    @usableFromInline
    final var nextSequence: UInt64 = 0
    @usableFromInline
    final var queue: VirtualSchedulerQueue<Converter>

    /// Creates a stopped scheduler whose clock reads `initialClock`.
    public init(initialClock: VirtualTime, converter: Converter) {
        self.converter = converter
        self.initialClock = initialClock
        self.currentClock = initialClock
        self.queue = VirtualSchedulerQueue(converter: converter)
    }

    /// The current virtual time.
    @inlinable
    public final var clock: VirtualTime {
        lock.withLock { currentClock }
    }

    /// The current virtual time as a `Date`, through the converter.
    public var now: RxTime {
        converter.convertFromVirtualTime(clock)
    }

    /// Virtual nanoseconds elapsed since `initialClock`: the clock periodic
    /// emulation keeps its due times on, so it runs on virtual time.
    open var monotonicNanoseconds: UInt64 {
        let elapsed = converter.convertFromVirtualTime(clock)
            .timeIntervalSince(converter.convertFromVirtualTime(initialClock))
        return UInt64(clampingNanoseconds: elapsed * 1e9)
    }

    /// Schedules `action` at the current virtual time (after what is already
    /// due now), as adjusted by `adjustScheduledTime(_:)`.
    @inlinable
    public final func schedule<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    /// Same as `schedule(_:action:)`: everything scheduled at one time runs in
    /// scheduling order, and nothing runs inside the call.
    @inlinable
    public final func scheduleInOrder<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    /// Schedules `action` at the current virtual time plus `dueTime`, converted
    /// to virtual units and adjusted by `adjustScheduledTime(_:)`.
    ///
    /// A negative `dueTime` counts as zero (due at the current clock);
    /// `.never` means the action never runs (nothing is queued).
    @inlinable
    public final func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let nanoseconds = dueTime.dueNanoseconds else {
            return Disposables.create()
        }
        let offset = converter.convertToVirtualTimeInterval(Double(nanoseconds) / 1e9)
        let time = converter.offsetVirtualTime(clock, offset: offset)
        return scheduleAbsoluteVirtual(state, time: adjustScheduledTime(time), action: action)
    }

    /// Schedules `action` at the current virtual time plus `dueTime` (virtual
    /// units, not adjusted).
    @inlinable
    public final func scheduleRelativeVirtual<StateType>(
        _ state: StateType,
        dueTime: VirtualTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let time = converter.offsetVirtualTime(clock, offset: dueTime)
        return scheduleAbsoluteVirtual(state, time: time, action: action)
    }

    /// Schedules `action` at virtual time `time`. A time already past runs at
    /// the next opportunity; the clock never moves backwards for it.
    ///
    /// - Returns: A disposable that removes the action from the queue if it
    ///   has not started; once it has run, disposing it disposes what the
    ///   action returned.
    @inlinable
    public final func scheduleAbsoluteVirtual<StateType>(
        _ state: StateType,
        time: VirtualTime,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let item = VirtualSchedulerAction(tombstones: tombstones, state: state, action: action)
        lock.withLock {
            let sequence = nextSequence
            nextSequence &+= 1
            compactIfMostlyDisposed()
            queue.insert(item, time: time, sequence: sequence)
        }
        return item
    }

    /// The time an action scheduled for `time` through `schedule` or
    /// `scheduleRelative` is queued at. Returns `time` unchanged; subclasses
    /// override it (`TestScheduler` adds a processing delay).
    open func adjustScheduledTime(_ time: VirtualTime) -> VirtualTime {
        time
    }

    /// Runs queued actions, in order, until the queue is empty or `stop()` is
    /// called. Returns at once if the scheduler is already running.
    ///
    /// A periodic job never empties the queue: stop it with `stop()`, by
    /// disposing it, or drive it with `advanceTo(_:)` instead.
    @inlinable
    public final func start() {
        let begins: Bool = lock.withLock {
            guard !running else { return false }
            running = true
            compactIfMostlyDisposed()
            return true
        }
        guard begins else { return }
        while let item = lock.withLock({ takeNext(notAfter: nil) }) {
            item.run()
        }
        lock.withLock { running = false }
    }

    /// Runs every action due at or before `virtualTime`, in order, then sets
    /// the clock to `virtualTime` (or leaves it later, if an action slept past
    /// it). If `stop()` is called meanwhile, returns after the running action
    /// with the clock where that action left it.
    ///
    /// - Precondition: not called while the scheduler runs (from inside an
    ///   action), and `virtualTime` is not before `clock`.
    @inlinable
    public final func advanceTo(_ virtualTime: VirtualTime) {
        lock.withLock {
            precondition(!running, "advanceTo(_:) was called while the scheduler is running")
            precondition(
                !converter.compareVirtualTime(virtualTime, currentClock).lessThan,
                "advanceTo(_:): virtualTime \(virtualTime) is before the clock \(currentClock)"
            )
            running = true
            compactIfMostlyDisposed()
        }
        while let item = lock.withLock({ takeNext(notAfter: virtualTime) }) {
            item.run()
        }
        lock.withLock {
            if running, converter.compareVirtualTime(virtualTime, currentClock).greaterThan {
                currentClock = virtualTime
            }
            running = false
        }
    }

    /// Moves the clock forward by `virtualInterval` without running anything:
    /// called from an action, it simulates an action that takes that long.
    ///
    /// - Precondition: `virtualInterval` is not negative.
    public func sleep(_ virtualInterval: VirtualTimeInterval) {
        lock.withLock {
            let sleepTo = converter.offsetVirtualTime(currentClock, offset: virtualInterval)
            precondition(
                !converter.compareVirtualTime(sleepTo, currentClock).lessThan,
                "sleep(_:): virtualInterval \(virtualInterval) is negative"
            )
            currentClock = sleepTo
        }
    }

    /// Makes `start()` or `advanceTo(_:)` return after the running action.
    public func stop() {
        lock.withLock { running = false }
    }

    /// Takes the next action due at or before `limit` out of the queue and
    /// moves the clock to its time; drops the tombstones in front of it
    /// without moving the clock. Called under `lock`.
    @inlinable
    final func takeNext(notAfter limit: VirtualTime?) -> VirtualSchedulerItem? {
        guard running else { return nil }
        while let (time, item) = queue.first {
            if item.isDisposed {
                queue.removeFirst()
                tombstones.remove(1)
                continue
            }
            if let limit, converter.compareVirtualTime(time, limit).greaterThan {
                return nil
            }
            queue.removeFirst()
            if converter.compareVirtualTime(time, currentClock).greaterThan {
                currentClock = time
            }
            return item
        }
        return nil
    }

    /// Drops every tombstone at once when at least half of the queue (of 32
    /// items or more) is disposed: one pass over the queue instead of a pop
    /// per tombstone, and the memory of a queue disposed faster than it runs
    /// back. Called under `lock`, when scheduling and when a run begins.
    @inlinable
    final func compactIfMostlyDisposed() {
        let count = queue.count
        guard count >= 32, tombstones.value >= count - count / 2 else { return }
        tombstones.remove(queue.removeDisposed())
    }

    /// How many actions are queued and not disposed. For tests of leaks and disposal.
    var queuedCount: Int {
        lock.withLock { queue.liveCount }
    }

    /// How many items the queue holds, tombstones included. For tests of compaction.
    var queuedItemCount: Int {
        lock.withLock { queue.count }
    }
}

/// A scheduler that can tell how much later than now work scheduled with a
/// zero delay runs (`TestScheduler`'s processing delay): zero-period
/// emulation needs it to be later, or the clock of a virtual-time scheduler
/// would never move, and periodic emulation starts its grid there when the
/// first tick is due at once.
protocol ZeroDelayProgress {
    /// Nanoseconds from now to when work scheduled now with a zero delay runs.
    var zeroDelayLagNanoseconds: Int64 { get }
}

extension ZeroDelayProgress {
    /// Whether work scheduled with a zero delay runs later than now.
    var zeroDelayMovesClock: Bool {
        zeroDelayLagNanoseconds > 0
    }
}

extension VirtualTimeScheduler: ZeroDelayProgress {
    var zeroDelayLagNanoseconds: Int64 {
        let now = clock
        let adjusted = adjustScheduledTime(now)
        guard converter.compareVirtualTime(adjusted, now).greaterThan else { return 0 }
        let lag = converter.convertFromVirtualTime(adjusted).timeIntervalSince(converter.convertFromVirtualTime(now))
        return Int64(clamping: UInt64(clampingNanoseconds: lag * 1e9))
    }
}

extension UInt64 {
    /// `nanoseconds` rounded, clamped to `0...UInt64.max` (NaN counts as zero).
    init(clampingNanoseconds nanoseconds: Double) {
        let rounded = nanoseconds.rounded()
        if !(rounded > 0) {
            self = 0
        } else if rounded >= 18_446_744_073_709_551_615.0 {
            self = .max
        } else {
            self = UInt64(rounded)
        }
    }
}
