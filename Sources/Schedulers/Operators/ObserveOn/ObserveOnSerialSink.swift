import Dispatch

/// The serial fast path of `observe(on:)`.
///
/// Used when the scheduler conforms to `SerialScheduler`: the drain is
/// enqueued with `scheduleInOrder`, which never runs inline and runs actions
/// one at a time in order, so there is no bookkeeping of the scheduled action
/// (a drain that runs after disposal discards the queue and returns). Steady
/// state allocates nothing per element: the queue keeps its capacity, and
/// elements stay unboxed.
///
/// On a `SerialDispatchQueueScheduler` (not the main scheduler, which counts
/// its pending work) a drain allocates nothing in this library either:
/// instead of `scheduleInOrder`, which makes an item, a closure and a block
/// per call, the sink enqueues one block, made at subscription, with `async`.
/// (libdispatch on Linux still callocs one continuation per `async`: one
/// allocation per batch, never per element.) Each
/// enqueued drain holds a reference to the sink (retained when enqueued,
/// released when it has run), so the sink outlives its queued drains without
/// the block owning the sink, which owns the block.
///
/// What this path saves over the generic one: per batch, no scheduled item,
/// closure or block per drain on a dispatch queue, no disposable kept for
/// the scheduled action. And, on such a dispatch queue (other than the main
/// queue), once a drain has delivered `elementsBeforePolling` elements (a
/// flowing stream), it polls the state machine up to
/// `pollsBeforeIdleOnDispatchQueues` times, yielding the thread now and
/// then, before it gives the consumer role up, and delivers what arrives
/// meanwhile itself: a new batch otherwise costs upstream a dispatch `async`
/// and a worker thread's wake-up (microseconds, a kernel call). The generic
/// path cannot poll: its drain may run inline on upstream's thread (on
/// `CurrentThreadScheduler`, say), where waiting for upstream blocks
/// upstream itself. A drain that has delivered fewer elements does not
/// poll: polling after every short drain kept each short subscription's
/// sink (and the serial queue) busy for the poll, 2 to 4 times the time of
/// `observeOn.subscription`.
final class ObserveOnSerialSink<Observer: ObserverType>: ObserveOnSink<Observer>, ReusableDrainTarget, @unchecked Sendable {
    private let scheduler: any SerialScheduler
    private let drainAction: (ObserveOnSerialSink<Observer>) -> Disposable = { sink in
        sink.drain()
        return Disposables.create()
    }
    /// How many times a drain on a serial dispatch queue polls for a new
    /// event before it goes idle, yielding its thread every 64 polls: a few
    /// microseconds on an idle machine; on a busy one the yields let
    /// upstream (or anyone) have the core instead.
    static var pollsBeforeIdleOnDispatchQueues: Int { 256 }

    /// The queue of a dispatch scheduler that takes reusable blocks.
    private let drainQueue: DispatchQueue?
    /// The reusable drain, set once in `init` when `drainQueue` is set.
    private var drainBlock: (@Sendable @convention(block) () -> Void)?

    init(scheduler: any SerialScheduler, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        let drainQueue = (scheduler as? SerialDispatchQueueScheduler)?.queueForReusableBlocks
        self.drainQueue = drainQueue
        super.init(
            observer: observer, cancel: cancel,
            pollsBeforeIdle: drainQueue == nil || drainQueue === DispatchQueue.main
                ? 0 : Self.pollsBeforeIdleOnDispatchQueues)
        if drainQueue != nil {
            drainBlock = ReusableDrainBlock.make(running: self)
        }
    }

    func drainAndRelease() {
        drain()
        Unmanaged.passUnretained(self).release()
    }

    override func scheduleDrain() {
        if let drainQueue, let drainBlock {
            // Released by the block once the drain has run.
            _ = Unmanaged.passUnretained(self).retain()
            if !SyncPoint.controllerTook(drainBlock, for: drainQueue) {
                drainQueue.async(execute: drainBlock)
            }
        } else {
            _ = scheduler.scheduleInOrder(self, action: drainAction)
        }
    }
}
