import Dispatch
import Foundation
import Schedulers

/// A scheduler set up for a stress scenario (a builtin one of a ``Kind``, or
/// one registered as a ``StressScheduler``), with what the harness needs
/// beside it: a way to put a gate in front of the next action, a way to
/// wait until everything enqueued so far has run, and a way to tell whether
/// the calling thread is running on it.
public final class SchedulerUnderTest: @unchecked Sendable {
    /// The kinds the scenarios run on.
    public enum Kind: String, CaseIterable, Sendable {
        case serialDispatch = "serial-dispatch"
        case concurrentDispatch = "concurrent-dispatch"
        case operationQueue = "operation-queue"
        case main = "main"
        case mainAsync = "main-async"
        case concurrentMain = "concurrent-main"

        /// Whether the scheduler is a `SerialScheduler` (guarantee 3 applies to it).
        public var isSerial: Bool {
            switch self {
            case .serialDispatch, .main, .mainAsync: true
            case .concurrentDispatch, .operationQueue, .concurrentMain: false
            }
        }
    }

    /// How long ``settle(seconds:)`` waits by default (a registration's
    /// ``StressScheduler/stallTimeoutSeconds``).
    public internal(set) var settleSeconds: Double = 10
    /// Which builtin scheduler this is; `nil` for a registered one.
    public let kind: Kind?
    /// The name scenario names end with.
    public let name: String
    /// Whether the scheduler is a `SerialScheduler` (guarantee 3 applies to it).
    public let isSerial: Bool
    /// The scheduler.
    public let scheduler: any ImmediateScheduler
    /// The scheduler as a `Scheduler`, if it is one (the periodic scenarios need it).
    public let timed: (any Scheduler)?
    private let queue: DispatchQueue?
    private let operationQueue: OperationQueue?
    /// A registered scheduler's own answer to ``isCurrent``.
    private let isCurrentCheck: (@Sendable () -> Bool)?
    /// A registered scheduler's own gate (see ``enqueueGate(_:)``).
    private let gate: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    /// A registered scheduler's teardown, until ``finish()`` calls it.
    private let teardown: Locked<(@Sendable () -> Void)?>

    /// A registered scheduler: `gate`, when given, enqueues a block that
    /// the next action scheduled from the calling thread cannot overtake;
    /// otherwise `schedule` is (a serial scheduler's promise).
    init(
        name: String, isSerial: Bool, scheduler: any ImmediateScheduler, isCurrent: (@Sendable () -> Bool)?,
        gate: (@Sendable (@escaping @Sendable () -> Void) -> Void)?, teardown: (@Sendable () -> Void)? = nil
    ) {
        self.teardown = Locked(teardown)
        kind = nil
        self.name = name
        self.isSerial = isSerial
        self.scheduler = scheduler
        timed = scheduler as? any Scheduler
        queue = nil
        operationQueue = nil
        isCurrentCheck = isCurrent
        self.gate = gate
    }
    private static let marker = DispatchSpecificKey<UInt8>()

    /// Creates the scheduler of `kind` on queues of its own (the main queue for the main schedulers).
    public init(_ kind: Kind) {
        self.kind = kind
        name = kind.rawValue
        isSerial = kind.isSerial
        isCurrentCheck = nil
        gate = nil
        teardown = Locked(nil)
        let scheduler: any Scheduler
        switch kind {
        case .serialDispatch:
            let target = DispatchQueue(label: "stress.serial.target", attributes: [.concurrent])
            target.setSpecific(key: Self.marker, value: 1)
            queue = nil
            operationQueue = nil
            scheduler = SerialDispatchQueueScheduler(queue: target, internalSerialQueueName: "stress.serial")
        case .concurrentDispatch:
            let concurrent = DispatchQueue(label: "stress.concurrent", attributes: [.concurrent])
            concurrent.setSpecific(key: Self.marker, value: 1)
            queue = concurrent
            operationQueue = nil
            scheduler = ConcurrentDispatchQueueScheduler(queue: concurrent)
            Exploration.declareConcurrent(concurrent)
        case .operationQueue:
            let operations = OperationQueue()
            operations.name = "stress.operations"
            // One at a time: the gate must stay in front of the action (FIFO).
            operations.maxConcurrentOperationCount = 1
            queue = nil
            operationQueue = operations
            scheduler = OperationQueueScheduler(operationQueue: operations)
        case .main, .mainAsync, .concurrentMain:
            DispatchQueue.main.setSpecific(key: Self.marker, value: 1)
            queue = DispatchQueue.main
            operationQueue = nil
            scheduler = switch kind {
            case .main: MainScheduler.instance
            case .mainAsync: MainScheduler.asyncInstance
            default: ConcurrentMainScheduler.instance
            }
        }
        self.scheduler = scheduler
        timed = scheduler
    }

    /// Whether the calling thread runs work of this scheduler.
    /// A registered scheduler without its own check answers `true`: the
    /// scenarios then do not check where its actions run.
    public var isCurrent: Bool {
        if kind == nil {
            return isCurrentCheck?() ?? true
        }
        if Exploration.isControlledThread {
            // Under a schedule controller every hand-off of a scenario goes
            // to its scheduler: a hand-off worker runs the scheduler's work.
            return Exploration.isHandOffWorker
        }
        if let operationQueue {
            return OperationQueue.current === operationQueue
        }
        return DispatchQueue.getSpecific(key: Self.marker) == 1
    }

    /// Enqueues `gate` so that the next action scheduled on this scheduler
    /// from the calling thread cannot start before `gate` returns.
    public func enqueueGate(_ gate: @escaping @Sendable () -> Void) {
        if let own = self.gate {
            own(gate)
        } else if let operationQueue {
            Exploration.handOff(to: operationQueue, gate)
        } else if let queue, kind == .concurrentDispatch {
            Exploration.handOff(to: queue, barrier: true, gate)
        } else if let queue {
            Exploration.handOff(to: queue, gate)
        } else {
            _ = scheduler.schedule(()) { _ in
                gate()
                return Disposables.create()
            }
        }
    }

    /// Hands a registered scheduler to its registration's teardown, once;
    /// the scenario is done with it. Nothing for a builtin scheduler.
    public func finish() {
        let ends = teardown.withLock { ends in
            defer { ends = nil }
            return ends
        }
        ends?()
    }

    /// Waits until everything enqueued before the call has run or been
    /// dropped. Returns `false` if that took longer than `seconds`.
    public func settle(seconds: Double? = nil) -> Bool {
        let seconds = seconds ?? settleSeconds
        let done = DispatchSemaphore(value: 0)
        enqueueGate { done.signal() }
        return done.wait(timeout: .now() + seconds) == .success
    }
}
