import Foundation
import Schedulers

/// A test-only scheduler whose clock moves only when a test says so, and
/// which, unlike `TestScheduler`, keeps a disposed action queued until the
/// clock reaches it and then skips it, as dispatch queues do. Tests of what a
/// disposed action keeps alive in the meantime need that; everything else on
/// virtual time uses `TestScheduler`, which takes a disposed action out of
/// its queue at once.
///
/// `schedule` and `scheduleRelative` queue the action; nothing runs until the
/// test calls `runAll()`. Actions with the same due time run in the order
/// they were scheduled. The handle returned for an action skips it when
/// disposed before it runs and disposes what it returned when disposed after
/// (guarantee 5 in Guarantees.md). Actions run on the thread that drives the
/// scheduler, never concurrently. Periodic work comes from the library's
/// emulation (`Scheduler.schedulePeriodic`'s default).
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

    init() {}

    /// Virtual time as a date: nanoseconds since 1970.
    var now: RxTime {
        Date(timeIntervalSince1970: Double(nanoseconds) / 1e9)
    }

    var monotonicNanoseconds: UInt64 {
        UInt64(nanoseconds)
    }

    /// The virtual clock in nanoseconds since the scheduler was created.
    private var nanoseconds: Int64 {
        lock.withLock { clock }
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
        next.handle.setDisposable(work())
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
