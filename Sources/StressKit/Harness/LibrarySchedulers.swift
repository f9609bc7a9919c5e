import Dispatch
import Foundation
import Schedulers

/// This library's schedulers as Stress races on them, each described by a
/// ``SchedulerRegistration`` as a user's scheduler is, and each made afresh
/// per scenario on queues of its own (the main queue for the main
/// schedulers). ``ScenarioCatalog/builtinSchedulers`` hands them to
/// ``StressScheduler/init(_:)`` and adds what only the library's schedulers
/// have (``StressScheduler/library(scenarios:)``).
///
/// Their `isCurrent` and gates go through the seam a schedule controller
/// takes over: a gate is `Exploration.handOff` (the queue's own `async`, or
/// `addOperation`, on a thread no controller runs), and on a controlled
/// thread `isCurrent` is whether the thread is one of the controller's
/// hand-off workers, which run every block a scenario hands to its scheduler.
enum LibrarySchedulers {
    /// A `SerialDispatchQueueScheduler` on a queue of its own.
    static let serialDispatch = SchedulerRegistration("serial-dispatch", isCurrent: { _ in onMarkedQueue() }) {
        let target = DispatchQueue(label: "stress.serial.target", attributes: [.concurrent])
        target.setSpecific(key: marker, value: 1)
        return SerialDispatchQueueScheduler(queue: target, internalSerialQueueName: "stress.serial")
    }

    /// A `ConcurrentDispatchQueueScheduler` on a concurrent queue of its own;
    /// its gate is a barrier on that queue.
    static let concurrentDispatch = SchedulerRegistration(
        "concurrent-dispatch", isCurrent: { _ in onMarkedQueue() },
        gate: { scheduler, block in Exploration.handOff(to: scheduler.queue, barrier: true, block) }
    ) {
        let concurrent = DispatchQueue(label: "stress.concurrent", attributes: [.concurrent])
        concurrent.setSpecific(key: marker, value: 1)
        let scheduler = ConcurrentDispatchQueueScheduler(queue: concurrent)
        Exploration.declareConcurrent(concurrent)
        return scheduler
    }

    /// An `OperationQueueScheduler` on an operation queue of its own that
    /// runs one operation at a time, so that its gate (an operation) stays in
    /// front of the next action.
    static let operationQueue = SchedulerRegistration(
        "operation-queue",
        isCurrent: { (scheduler: OperationQueueScheduler) in
            runsWork { OperationQueue.current === scheduler.operationQueue }
        },
        gate: { scheduler, block in Exploration.handOff(to: scheduler.operationQueue, block) }
    ) {
        let operations = OperationQueue()
        operations.name = "stress.operations"
        operations.maxConcurrentOperationCount = 1
        return OperationQueueScheduler(operationQueue: operations)
    }

    /// `MainScheduler.instance`.
    static let main = onMainQueue("main") { MainScheduler.instance }

    /// `ConcurrentMainScheduler.instance`.
    static let concurrentMain = onMainQueue("concurrent-main") { ConcurrentMainScheduler.instance }

    /// A scheduler that runs its work on the main queue: its gate is a block
    /// on the main queue (a serial queue, so no barrier is needed), handed
    /// through the seam.
    private static func onMainQueue<S: Scheduler & SendableMetatype>(
        _ name: String, _ instance: @escaping @Sendable () -> S
    ) -> SchedulerRegistration {
        SchedulerRegistration(
            name, isCurrent: { _ in onMarkedQueue() },
            gate: { _, block in Exploration.handOff(to: DispatchQueue.main, block) }
        ) {
            DispatchQueue.main.setSpecific(key: marker, value: 1)
            return instance()
        }
    }

    /// Marks the queues the dispatch and main schedulers run their work on.
    private static let marker = DispatchSpecificKey<UInt8>()

    private static func onMarkedQueue() -> Bool {
        runsWork { DispatchQueue.getSpecific(key: marker) == 1 }
    }

    /// Whether the calling thread runs a library scheduler's work: under a
    /// schedule controller, whether it is a hand-off worker; otherwise what
    /// `onQueue` says.
    private static func runsWork(_ onQueue: () -> Bool) -> Bool {
        if Exploration.isControlledThread {
            return Exploration.isHandOffWorker
        }
        return onQueue()
    }
}
