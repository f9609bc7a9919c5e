import Foundation
import Schedulers

/// Virtual time in `TestScheduler`: a whole number of ticks.
public typealias TestTime = Int

/// The virtual-time scheduler of tests, as RxSwift's RxTest has it: time is a
/// tick count (`TestTime`), each tick `resolution` seconds long.
///
/// Everything runs on the thread that calls `start()` or `advanceTo(_:)`, in
/// due-time order, equal times in scheduling order; an action simulates
/// taking time with `sleep(_:)`. Periodic work (`schedulePeriodic`, emulated
/// at a fixed rate on the virtual clock) is deterministic: the same test
/// gives the same tick times on every run. Keeps guarantees 5, 6 in Guarantees.md
/// and 8 as `VirtualTimeScheduler` does.
///
/// With `simulateProcessingDelay` (the default), work scheduled for the
/// current tick or earlier through `schedule` or `scheduleRelative` runs one
/// tick later, as each hop would cost time on a real scheduler.
/// `scheduleAt` and `scheduleAbsoluteVirtual` are never adjusted.
///
/// Async code runs on virtual time deterministically on `taskExecutor`:
/// a task created with `Task(executorPreference: scheduler.taskExecutor)`
/// runs only inside `start()`/`advanceTo(_:)`, its jobs being actions at the
/// current virtual time, and a sleep on `asClock()` wakes at its deadline,
/// so `advanceTo(t)` runs everything that falls due up to `t`, including
/// what the woken tasks do next, before it returns. Outside this guarantee:
/// code isolated to an actor with its own executor (or the main actor),
/// tasks without the preference (the global executor), and work that hops to
/// a real queue, thread or clock; the advance does not wait for any of it
/// (see `TestSchedulerTaskExecutor`).
public final class TestScheduler: VirtualTimeScheduler<TestSchedulerVirtualTimeConverter>,
    @unchecked Sendable
{
    /// The conventional times of a test: create the sequence at 100,
    /// subscribe at 200, dispose at 1000.
    public enum Defaults {
        /// When the sequence under test is created.
        public static let created: TestTime = 100
        /// When the sequence under test is subscribed to.
        public static let subscribed: TestTime = 200
        /// When the subscription is disposed.
        public static let disposed: TestTime = 1000
    }

    private let simulateProcessingDelay: Bool
    private let initialTestTime: TestTime
    /// Seconds per tick.
    public let resolution: Double
    /// The sleepers of `asClock()` (TestSchedulerClock.swift).
    let sleepers = VirtualSleeperRegistry()
    /// `taskExecutor`'s storage (TestSchedulerTaskExecutor.swift).
    let taskExecutorStorage = TestSchedulerTaskExecutorStorage()

    /// Creates a stopped scheduler at `initialClock`.
    ///
    /// - Parameters:
    ///   - initialClock: The clock's first reading.
    ///   - resolution: Seconds per tick.
    ///   - simulateProcessingDelay: Whether work due now or in the past runs one tick later.
    public init(initialClock: TestTime, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        self.simulateProcessingDelay = simulateProcessingDelay
        self.initialTestTime = initialClock
        self.resolution = resolution
        super.init(
            initialClock: initialClock,
            converter: TestSchedulerVirtualTimeConverter(resolution: resolution)
        )
    }

    /// Runs `action` when the clock reaches `time` (exactly `time`, never adjusted).
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) {
        _ = scheduleAbsoluteVirtual((), time: time) { _ in
            action()
            return Disposables.create()
        }
    }

    /// Virtual nanoseconds since `initialClock`, computed from the tick count
    /// in one step so that periodic emulation lands exactly on ticks.
    public override var monotonicNanoseconds: UInt64 {
        let ticks = clock.subtractingReportingOverflow(initialTestTime)
        guard !ticks.overflow, ticks.partialValue > 0 else { return 0 }
        let nanoseconds = (Double(ticks.partialValue) * resolution * 1e9).rounded()
        return nanoseconds >= 18_446_744_073_709_551_615.0 ? .max : UInt64(nanoseconds)
    }

    /// Work due now or earlier runs at the next tick when
    /// `simulateProcessingDelay` is set, else at the current tick.
    public override func adjustScheduledTime(_ time: VirtualTime) -> VirtualTime {
        let now = clock
        guard time <= now else { return time }
        return simulateProcessingDelay ? now + 1 : now
    }
}
