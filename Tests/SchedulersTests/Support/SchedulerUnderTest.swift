import Dispatch
import Foundation
import Schedulers
import Testing

/// The real schedulers a guarantee is checked on, one case each: the argument
/// of the parameterised tests that used to be one copy per scheduler.
///
/// The main schedulers are not among them: their tests drive the main queue
/// from the main thread (`MainScheduler.runMainQueue`) and check that work
/// runs there, and Swift Testing runs test functions off the main thread;
/// those tests stay in XCTest.
enum SchedulerKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case serialDispatchQueue
    case concurrentDispatchQueue
    case operationQueue

    var testDescription: String { rawValue }

    /// A new scheduler of this kind on a queue of its own named `label`.
    func make(label: String) -> SchedulerUnderTest {
        SchedulerUnderTest(kind: self, label: label)
    }
}

/// A scheduler made for one test, with its queue: the test can hold the queue
/// (nothing queued starts), release it, ask whether code runs on it, and wait
/// until it is idle.
final class SchedulerUnderTest: @unchecked Sendable {
    let scheduler: SchedulerType
    private let holdQueue: () -> Void
    private let releaseQueue: () -> Void
    private let runsOnQueue: () -> Bool
    private let waitForIdle: () -> Bool

    fileprivate init(kind: SchedulerKind, label: String) {
        switch kind {
        case .serialDispatchQueue:
            // A queue the user passes in, as the target of the scheduler's own
            // serial queue: holding it holds the scheduler's queue too.
            let key = DispatchSpecificKey<String>()
            let queue = DispatchQueue(label: label)
            queue.setSpecific(key: key, value: label)
            let serial = SerialDispatchQueueScheduler(queue: queue, internalSerialQueueName: "\(label).serial")
            scheduler = serial
            holdQueue = { queue.suspend() }
            releaseQueue = { queue.resume() }
            runsOnQueue = { DispatchQueue.getSpecific(key: key) == label }
            waitForIdle = {
                // FIFO: a marker behind everything scheduled so far.
                let marker = DispatchSemaphore(value: 0)
                _ = serial.scheduleInOrder(()) { _ in
                    marker.signal()
                    return Disposables.create()
                }
                return marker.wait(timeout: .now() + 10) == .success
            }
        case .concurrentDispatchQueue:
            let key = DispatchSpecificKey<String>()
            let queue = DispatchQueue(label: label, attributes: .concurrent)
            queue.setSpecific(key: key, value: label)
            scheduler = ConcurrentDispatchQueueScheduler(queue: queue)
            holdQueue = { queue.suspend() }
            releaseQueue = { queue.resume() }
            runsOnQueue = { DispatchQueue.getSpecific(key: key) == label }
            waitForIdle = {
                // A barrier starts once everything submitted before it has finished.
                queue.sync(flags: .barrier) {}
                return true
            }
        case .operationQueue:
            let queue = OperationQueue()
            queue.name = label
            queue.maxConcurrentOperationCount = 2
            scheduler = OperationQueueScheduler(operationQueue: queue)
            holdQueue = { queue.isSuspended = true }
            releaseQueue = { queue.isSuspended = false }
            runsOnQueue = { OperationQueue.current === queue }
            waitForIdle = {
                queue.waitUntilAllOperationsAreFinished()
                return true
            }
        }
    }

    /// Stops the queue from starting anything until `release()`.
    func hold() { holdQueue() }

    /// Lets the queue start work again.
    func release() { releaseQueue() }

    /// Whether the caller runs on the scheduler's queue.
    var isCurrent: Bool { runsOnQueue() }

    /// Waits until everything the scheduler was given so far, and not
    /// delayed, has finished; false if that took more than 10 s.
    func waitUntilIdle() -> Bool { waitForIdle() }
}
