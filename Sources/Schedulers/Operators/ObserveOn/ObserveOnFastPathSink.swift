import Dispatch

/// The fast path of `observe(on:)` (`fast-path` in BenchRunner's results).
///
/// Used when the scheduler conforms to `SerialScheduler`: the drain is
/// enqueued with `scheduleInOrder`, which never runs inline and runs actions
/// one at a time in order, so the sink needs no re-entrancy handling and no
/// bookkeeping of the scheduled action (a drain that runs after disposal finds
/// the sink disposed and only returns). Steady state allocates nothing per
/// element: the queue is a buffer that keeps its capacity, and elements
/// stay unboxed.
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
final class ObserveOnFastPathSink<Observer: ObserverType>: ObserveOnSink<Observer>, ReusableDrainTarget, @unchecked Sendable {
    private let scheduler: any SerialScheduler
    private let drainAction: (ObserveOnFastPathSink<Observer>) -> Disposable = { sink in
        sink.drain()
        return Disposables.create()
    }
    /// The scheduler, when it is a dispatch scheduler that takes reusable blocks.
    private let reusableBlockScheduler: SerialDispatchQueueScheduler?
    /// The reusable drain, set once in `init` when `reusableBlockScheduler` is set.
    private var drainBlock: (@Sendable @convention(block) () -> Void)?

    init(scheduler: any SerialScheduler, observer: Observer, cancel: Cancelable) {
        self.scheduler = scheduler
        reusableBlockScheduler = (scheduler as? SerialDispatchQueueScheduler).flatMap { $0.takesReusableBlocks ? $0 : nil }
        super.init(observer: observer, cancel: cancel)
        if reusableBlockScheduler != nil {
            drainBlock = ReusableDrainBlock.make(running: self)
        }
    }

    func drainAndRelease() {
        drain()
        ReusableDrainBlock.releaseAfterDrain(self)
    }

    override func scheduleDrain() {
        if let reusableBlockScheduler, let drainBlock {
            // Released by the block once the drain has run.
            ReusableDrainBlock.retainForDrain(self)
            reusableBlockScheduler.enqueueReusable(drainBlock)
        } else {
            _ = scheduler.scheduleInOrder(self, action: drainAction)
        }
    }
}
