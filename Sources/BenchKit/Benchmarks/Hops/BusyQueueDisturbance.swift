import Dispatch

/// What `observeOn.busyQueue` does before each session, outside the
/// measured region: one plain serial `DispatchQueue` is kept busy with
/// `blocks` blocks of about `blockNanoseconds` of work each, enqueued far
/// faster than they run, so a long backlog builds and one worker drains it
/// for about 175 ms; then it is waited for.
///
/// Each block carries what an application's queued work carries: three
/// small objects made on the producing thread (a cancel flag, a payload and
/// a two-element array) that the block reads on the queue and that die
/// there, freed on the worker thread. Together with the blocks and their
/// continuations, that is about a million small blocks allocated on one
/// thread and freed on another, the heap state a busy queue leaves behind
/// in an application (Performance.md, "After a busy queue").
///
/// Unlike `DispatchDisturbance` (many short blocks on many queues), this is
/// what brings on a slow mode of the hops that lasts for seconds after the
/// queue has gone quiet. It is applied to the library's hops, the peers and
/// the references alike, so a run shows whom the state it leaves behind
/// touches.
enum BusyQueueDisturbance {
    /// Blocks enqueued per disturbance.
    static let blocks = 250_000
    /// How long each block works, spinning on the uptime clock.
    static let blockNanoseconds: UInt64 = 700

    /// About how long one disturbance takes on an idle core: the blocks'
    /// work and as much again for making and enqueuing them and their
    /// objects (for progress estimates).
    static var estimatedSeconds: Double {
        Double(blocks) * Double(blockNanoseconds) * 2e-9
    }

    /// A block's cancel flag, made by the producer and read on the queue.
    final class CancelFlag: @unchecked Sendable {
        var isCancelled = false
    }

    /// A block's payload, made by the producer and read on the queue.
    final class Payload: @unchecked Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// What the blocks computed, so that the optimiser keeps their reads.
    /// Written by the queue's one worker at a time, read after the drain.
    final class Checksum: @unchecked Sendable {
        var total = 0
    }

    /// Runs the disturbance and returns once its queue has drained; returns
    /// the blocks' checksum.
    @discardableResult
    static func run() -> Int {
        let queue = DispatchQueue(label: "bench.disturbance.busy-queue")
        let checksum = Checksum()
        for index in 0..<blocks {
            let flag = CancelFlag()
            let payload = Payload(index)
            let pair = [index, index &+ 1]
            queue.async {
                let end = DispatchTime.now().uptimeNanoseconds &+ blockNanoseconds
                while DispatchTime.now().uptimeNanoseconds < end {}
                if !flag.isCancelled {
                    checksum.total &+= payload.value &+ pair[1]
                }
            }
        }
        return queue.sync { checksum.total }
    }

    /// The variants measured after a busy queue: every hop of `HopCatalog.all`
    /// but those that deliver on the main queue (whose drains wait for the
    /// main run loop, not for a worker) and those that take microseconds per
    /// element (`HopVariant.takesMicrosecondsPerElement`: `actor-executor`,
    /// `peer.actor`, `peer.dispatch-executor`, `peer.asyncstream`,
    /// `task-executor`, `peer.task`, a task or a continuation per element;
    /// Performance.md, "After a busy queue", has the figures). Their floods take
    /// seconds, against which what a busy queue leaves behind (a one-time
    /// cost of tens of milliseconds) cannot show, and they would double the
    /// benchmark's time.
    static func applies(to variant: HopVariant) -> Bool {
        !variant.needsMainQueue && !variant.takesMicrosecondsPerElement
    }

    /// `variant`, same name, its sessions made after a busy queue.
    static func afterBusyQueue(_ variant: HopVariant) -> HopVariant {
        HopVariant(
            id: variant.id, unavailableReason: variant.unavailableReason,
            needsMainQueue: variant.needsMainQueue
        ) {
            run()
            return try variant.makeSession()
        }
    }
}
