import Foundation
import Schedulers
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A user's own serial scheduler: one thread of its own runs the actions, in
/// the order scheduled. Knows nothing of executors.
private final class OwnThreadScheduler: SerialScheduler, @unchecked Sendable {
    private let condition = NSCondition()
    private var actions: [() -> Void] = []
    private var stopped = false
    private var runningThread: pthread_t?

    init() {
        // The thread keeps the scheduler until it has run out of work after `stop()`.
        let thread = Thread { self.run() }
        thread.start()
    }

    /// Whether the caller is this scheduler's thread.
    var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return runningThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private func run() {
        condition.lock()
        runningThread = pthread_self()
        condition.unlock()
        while true {
            condition.lock()
            while actions.isEmpty && !stopped { condition.wait() }
            if actions.isEmpty { condition.unlock(); return }
            let action = actions.removeFirst()
            condition.unlock()
            action()
        }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        condition.lock()
        actions.append { _ = action(state) }
        condition.signal()
        condition.unlock()
        return Disposables.create()
    }
}

private actor OwnThreadCounter {
    let scheduler: OwnThreadScheduler
    private var count = 0
    private(set) var offThread = 0
    private(set) var notIsolated = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        scheduler.executor.asUnownedSerialExecutor()
    }

    init(scheduler: OwnThreadScheduler) {
        self.scheduler = scheduler
    }

    func increment() {
        if !scheduler.isCurrentThread { offThread += 1 }
        if !scheduler.executor.isIsolated { notIsolated += 1 }
        let read = count
        count = read + 1
    }

    var value: Int { count }
}

final class UserSerialSchedulerExecutorTests: XCTestCase {
    func testAnActorOnAUsersSerialSchedulerRunsOnItsThreadOnly() async {
        let scheduler = OwnThreadScheduler()
        defer { scheduler.stop() }
        XCTAssertTrue(scheduler.executor === scheduler.executor, "the same executor on every call")
        let counter = OwnThreadCounter(scheduler: scheduler)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<250 { await counter.increment() }
                }
            }
        }
        let value = await counter.value
        let offThread = await counter.offThread
        let notIsolated = await counter.notIsolated
        XCTAssertEqual(value, 2_000)
        XCTAssertEqual(offThread, 0)
        XCTAssertEqual(notIsolated, 0)
        XCTAssertFalse(scheduler.executor.isIsolated, "outside the executor's jobs")
    }

    func testTheExecutorDoesNotKeepTheSchedulerAlive() {
        weak var weakScheduler: OwnThreadScheduler?
        do {
            let scheduler = OwnThreadScheduler()
            weakScheduler = scheduler
            _ = scheduler.executor
            scheduler.stop()
        }
        // The thread holds the scheduler until it has seen the stop.
        let deadline = Date().addingTimeInterval(10)
        while weakScheduler != nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        XCTAssertNil(weakScheduler)
    }
}
