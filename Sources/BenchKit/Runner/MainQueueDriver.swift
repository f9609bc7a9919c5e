import Foundation
import Schedulers
import Synchronization

/// Keeps the main thread running the main queue while a suite runs elsewhere,
/// but only while a measurement needs it.
///
/// On Linux nothing drains the main dispatch queue unless the main thread
/// runs the main run loop (`dispatchMain()` would end the main thread and let
/// worker threads drain the queue, which proves nothing about main-thread
/// delivery). The suite therefore runs on a worker thread while the main
/// thread waits. A plan that hops to `MainScheduler` asks for the main queue
/// (`MainQueueDriver.servicingMainQueue`); only then does the main thread run
/// the main run loop (`MainScheduler.runMainQueue`). Idle, it sleeps, so its
/// run loop neither competes for a core nor allocates inside other plans'
/// measured regions (allocation counts cover every thread).
package enum MainQueueDriver {
    /// How many measurements currently need the main queue serviced.
    static let demand = Atomic<Int>(0)
    static let wakeUp = DispatchSemaphore(value: 0)

    /// Runs `work` on a new thread while the calling thread (the main thread)
    /// services the main queue whenever `work` asks for it; returns what
    /// `work` returned or rethrows.
    package static func runWhileDrainingMainQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        // Called on the main thread: remember it before any plan asks.
        _ = isMainThread
        let outcome = WorkOutcome<T>()
        let worker = Thread {
            let result = Result { try work() }
            outcome.lock.withLock { outcome.result = result }
            wakeUp.signal()
            // Wake the run loop too, in case the main thread is in it.
            DispatchQueue.main.async {}
        }
        worker.name = "bench.suite"
        worker.stackSize = 16 << 20
        worker.start()
        while true {
            if let result = outcome.lock.withLock({ outcome.result }) {
                return try result.get()
            }
            if demand.load(ordering: .acquiring) > 0 {
                MainScheduler.runMainQueue(until: Date(timeIntervalSinceNow: 1)) {
                    demand.load(ordering: .acquiring) > 0 && outcome.lock.withLock { outcome.result == nil }
                }
            } else {
                _ = wakeUp.wait(timeout: .now() + .milliseconds(100))
            }
        }
    }

    /// Runs `body` with the main thread servicing the main queue (when the
    /// suite runs under `runWhileDrainingMainQueue`).
    static func servicingMainQueue<T>(_ body: () throws -> T) rethrows -> T {
        demand.add(1, ordering: .acquiringAndReleasing)
        wakeUp.signal()
        defer { demand.subtract(1, ordering: .acquiringAndReleasing) }
        return try body()
    }

    /// `true` on the process's main thread.
    ///
    /// Cheap enough to check per element. Foundation's `Thread.isMainThread`
    /// makes two system calls on Linux (`gettid` and `getpid`), each call
    /// costing more than a whole `observe(on:)` hop; asked once per element,
    /// it would bound the `main` variant of `observeOn.throughput` by its own
    /// cost rather than the hop's. So Foundation is asked
    /// only until the main thread has been seen once; from then on this
    /// compares `pthread_self()` with the main thread's handle.
    static var isMainThread: Bool {
        let current = currentThreadID
        let known = mainThreadID.load(ordering: .acquiring)
        if known != 0 {
            return known == current
        }
        guard Thread.isMainThread else { return false }
        mainThreadID.store(current, ordering: .releasing)
        return true
    }

    /// The main thread's `pthread_self()` as a number, 0 until the main thread has been seen.
    static let mainThreadID = Atomic<UInt>(0)

    static var currentThreadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}

/// The result of work running on another thread, read under a lock.
final class WorkOutcome<T>: @unchecked Sendable {
    let lock = NSLock()
    var result: Result<T, any Error>?
}
