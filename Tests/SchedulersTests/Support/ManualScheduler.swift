import Foundation
import Schedulers

/// A test-only scheduler whose clock moves only when a test says so.
///
/// `schedule` and `scheduleRelative` queue the action; nothing runs until the
/// test calls `runDue()`, `advance(by:)` or `runAll()`. Actions with the same
/// due time run in the order they were scheduled. The handle returned for an
/// action skips it when disposed before it runs and disposes what it returned
/// when disposed after (guarantee 5 in Guarantees.md). Actions run on the thread
/// that drives the scheduler, never concurrently. Periodic work comes from
/// the library's emulation (`Scheduler.schedulePeriodic`'s default).
final class ManualScheduler: Scheduler, @unchecked Sendable {
    private final class Item {
        let due: Int64
        let sequence: UInt64
        var work: (() -> Disposable)?
        let handle = SingleAssignmentDisposable()

        init(due: Int64, sequence: UInt64, work: @escaping () -> Disposable) {
            self.due = due
            self.sequence = sequence
            self.work = work
        }
    }

    private let lock = NSLock()
    private var clock: Int64 = 0
    private var items: [Item] = []
    private var nextSequence: UInt64 = 0
    private var runningActions = 0
    private var ranActions = 0

    init() {}

    /// Virtual time as a date: nanoseconds since 1970.
    var now: RxTime {
        Date(timeIntervalSince1970: Double(nanoseconds) / 1e9)
    }

    var monotonicNanoseconds: UInt64 {
        UInt64(nanoseconds)
    }

    /// The virtual clock in nanoseconds since the scheduler was created.
    var nanoseconds: Int64 {
        lock.withLock { clock }
    }

    /// Whether an action of this scheduler is running right now.
    var isRunningAction: Bool {
        lock.withLock { runningActions > 0 }
    }

    /// Actions queued and not yet run or skipped (disposed ones included).
    var queuedCount: Int {
        lock.withLock { items.count }
    }

    /// How many actions have run so far (skipped ones not counted).
    var ranCount: Int {
        lock.withLock { ranActions }
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        enqueue(afterNanoseconds: 0) { action(state) }
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let delay = dueTime.testNanoseconds else {
            // `.never`: never runs, so nothing is kept.
            return Disposables.create()
        }
        return enqueue(afterNanoseconds: max(0, delay)) { action(state) }
    }

    private func enqueue(afterNanoseconds delay: Int64, work: @escaping () -> Disposable) -> Disposable {
        lock.withLock {
            let (due, overflow) = clock.addingReportingOverflow(delay)
            let item = Item(due: overflow ? .max : due, sequence: nextSequence, work: work)
            nextSequence += 1
            let index = items.firstIndex { $0.due > item.due } ?? items.endIndex
            items.insert(item, at: index)
            return item.handle
        }
    }

    /// Runs every action due at the current time, including ones they schedule for now.
    func runDue() {
        while runNext(upTo: nanoseconds) {}
    }

    /// Moves the clock forward by `interval`, running each action when its due time is reached.
    func advance(by interval: RxTimeInterval) {
        let target = nanoseconds + (interval.testNanoseconds ?? 0)
        while runNext(upTo: target) {}
        lock.withLock { clock = max(clock, target) }
    }

    /// Runs until nothing is queued, moving the clock to each due time; stops
    /// after `limit` actions so a runaway recursion cannot hang a test.
    @discardableResult
    func runAll(limit: Int = 100_000) -> Int {
        var ran = 0
        while ran < limit, runNext(upTo: .max) {
            ran += 1
        }
        return ran
    }

    /// Runs the earliest item due at or before `limit`; false when there is none.
    private func runNext(upTo limit: Int64) -> Bool {
        let next: Item? = lock.withLock {
            guard let first = items.first, first.due <= limit else { return nil }
            items.removeFirst()
            clock = max(clock, first.due)
            return first
        }
        guard let next else { return false }
        let work = next.work
        next.work = nil
        guard !next.handle.isDisposed, let work else { return true }
        lock.withLock {
            runningActions += 1
            ranActions += 1
        }
        let result = work()
        lock.withLock { runningActions -= 1 }
        next.handle.setDisposable(result)
        return true
    }
}

extension DispatchTimeInterval {
    /// Nanoseconds for test arithmetic; `nil` for `.never`.
    var testNanoseconds: Int64? {
        switch self {
        case .seconds(let value): return Int64(value) * 1_000_000_000
        case .milliseconds(let value): return Int64(value) * 1_000_000
        case .microseconds(let value): return Int64(value) * 1_000
        case .nanoseconds(let value): return Int64(value)
        case .never: return nil
        @unknown default: return nil
        }
    }
}
