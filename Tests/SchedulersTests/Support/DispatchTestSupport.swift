import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

/// Thread-safe recorder for the dispatch scheduler tests: events in order,
/// how many actions run at once, and the most that ever did.
///
/// Uses `NSLock` rather than `Mutex`: ThreadSanitizer sees pthread mutexes
/// but not `Mutex`'s futex path, so a `Mutex` here would be reported as a race.
final class DispatchProbe: @unchecked Sendable {
    private let mutex = ProbeLock(State())

    private struct State {
        var events: [String] = []
        var running = 0
        var maxRunning = 0
        var count = 0
    }

    func record(_ event: String) {
        mutex.withLock { $0.events.append(event) }
    }

    var events: [String] {
        mutex.withLock { $0.events }
    }

    /// Counts one more action running; returns how many run now.
    @discardableResult
    func enter() -> Int {
        mutex.withLock { state in
            state.running += 1
            state.count += 1
            state.maxRunning = max(state.maxRunning, state.running)
            return state.running
        }
    }

    func leave() {
        mutex.withLock { $0.running -= 1 }
    }

    /// The most actions that ever ran at once.
    var maxRunning: Int {
        mutex.withLock { $0.maxRunning }
    }

    /// How many actions entered.
    var count: Int {
        mutex.withLock { $0.count }
    }
}

/// An `NSLock`-guarded value with `Mutex`'s `withLock` shape.
private final class ProbeLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// An object whose lifetime a test watches through a weak reference.
final class DispatchTracked: @unchecked Sendable {
    let value: Int

    init(_ value: Int = 0) {
        self.value = value
    }
}

/// Waits, polling, until `condition` holds or `timeout` seconds pass.
/// Returns whether it held. Polling also services the main queue when called
/// on the main thread, so main-queue work can make the condition true.
func dispatchEventually(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline {
            return false
        }
        if Thread.isMainThread {
            MainScheduler.runMainQueue(until: Date().addingTimeInterval(0.002))
        } else {
            usleep(1_000)
        }
    }
    return true
}

/// Waits until everything scheduled on the serial `scheduler` so far has
/// run, by scheduling a marker behind it (FIFO) and waiting for it.
func dispatchDrain(_ scheduler: SerialScheduler) {
    let marker = DispatchSemaphore(value: 0)
    _ = scheduler.scheduleInOrder(()) { _ in
        marker.signal()
        return Disposables.create()
    }
    if marker.wait(timeout: .now() + 10) == .timedOut {
        XCTFail("the scheduler did not drain within 10 s")
    }
}
