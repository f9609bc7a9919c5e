import Foundation
import Schedulers

/// Keeps the main thread running the main queue while a suite runs elsewhere.
///
/// On Linux nothing drains the main dispatch queue unless the main thread
/// runs the main run loop (`dispatchMain()` would end the main thread and let
/// worker threads drain the queue, which proves nothing about main-thread
/// delivery). Benchmarks that hop to `MainScheduler` therefore run the suite
/// on a worker thread while the main thread spins `RunLoop.main`.
public enum MainQueueDriver {
    /// Runs `work` on a new thread while the calling thread (the main thread)
    /// runs the main run loop, and returns what `work` returned or rethrows.
    public static func runWhileDrainingMainQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = WorkOutcome<T>()
        let worker = Thread {
            let result = Result { try work() }
            outcome.lock.withLock { outcome.result = result }
            // Wake the run loop so the main thread notices at once.
            DispatchQueue.main.async {}
        }
        worker.name = "bench.suite"
        worker.stackSize = 16 << 20
        worker.start()
        while true {
            if let result = outcome.lock.withLock({ outcome.result }) {
                return try result.get()
            }
            MainScheduler.runMainQueue(until: Date(timeIntervalSinceNow: 1)) {
                outcome.lock.withLock { outcome.result == nil }
            }
        }
    }

    /// `true` on the process's main thread.
    public static var isMainThread: Bool {
        Thread.isMainThread
    }
}

/// The result of work running on another thread, read under a lock.
final class WorkOutcome<T>: @unchecked Sendable {
    let lock = NSLock()
    var result: Result<T, any Error>?
}
