import Dispatch
import Foundation
import Schedulers

/// Counts what the schedulers of one test made and ended.
final class ThreadTracker: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [OwnThreadScheduler] = []
    private var ended = 0

    /// Schedulers made.
    var madeCount: Int { lock.withLock { made.count } }
    /// Threads started and not yet ended.
    var running: Int { lock.withLock { made.count - ended } }

    func make(name: String = "own-thread") -> OwnThreadScheduler {
        let scheduler = OwnThreadScheduler(name: name, tracker: self)
        lock.withLock { made.append(scheduler) }
        return scheduler
    }

    func threadEnded() {
        lock.withLock { ended += 1 }
    }

    /// Stops every scheduler still running (a test's clean-up).
    func stopAll() {
        for scheduler in lock.withLock({ made }) {
            scheduler.stop()
        }
    }
}

/// A serial scheduler on a thread of its own that runs until `stop()`, as a
/// user's event loop does: dropping it does not end its thread.
final class OwnThreadScheduler: SerialScheduler, @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [OwnThreadItem] = []
    private var stopping = false
    private var stopCalled = false
    private var thread: Thread?
    private let ended = DispatchSemaphore(value: 0)

    init(name: String, tracker: ThreadTracker) {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [condition, ended] in
            condition.lock()
            self.thread = Thread.current
            condition.unlock()
            started.signal()
            self.runLoop()
            // The thread keeps this closure, which keeps the scheduler: the
            // scheduler lets go of the thread once it ends, or the two
            // would keep each other alive.
            condition.lock()
            self.thread = nil
            condition.unlock()
            tracker.threadEnded()
            ended.signal()
        }
        thread.name = name
        thread.start()
        started.wait()
    }

    /// Whether the calling thread is this scheduler's own.
    var isOnItsThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread === Thread.current
    }

    /// Ends the thread (dropping what is queued) and waits for it to end.
    func stop() {
        condition.lock()
        let first = !stopCalled
        stopCalled = true
        stopping = true
        condition.signal()
        let onItsThread = thread === Thread.current
        condition.unlock()
        if first && !onItsThread {
            ended.wait()
        }
    }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleInOrder(state, action: action)
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        let item = OwnThreadItem { action(state) }
        condition.lock()
        if !stopping {
            ready.append(item)
            condition.signal()
        }
        condition.unlock()
        return item
    }

    private func runLoop() {
        while true {
            condition.lock()
            while ready.isEmpty && !stopping {
                condition.wait()
            }
            if stopping {
                let dropped = ready
                ready = []
                condition.unlock()
                _ = dropped
                return
            }
            let batch = ready
            ready = []
            condition.unlock()
            for item in batch {
                item.run()
            }
        }
    }
}

/// One action: runs at most once, never after a `dispose()` that returned before it started.
final class OwnThreadItem: Disposable, @unchecked Sendable {
    private let lock = NSLock()
    private var body: (() -> Disposable)?
    private let result = SingleAssignmentDisposable()

    init(_ body: @escaping () -> Disposable) {
        self.body = body
    }

    func run() {
        let body = lock.withLock {
            defer { self.body = nil }
            return self.body
        }
        guard let body else { return }
        result.setDisposable(body())
    }

    func dispose() {
        let dropped = lock.withLock {
            defer { body = nil }
            return body
        }
        _ = dropped
        result.dispose()
    }
}

/// Runs every action at once on the thread that schedules it.
final class InlineScheduler: ImmediateScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        action(state)
    }
}

/// Never runs what it is given.
final class NeverRunsScheduler: SerialScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        Disposables.create()
    }

    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        Disposables.create()
    }
}
