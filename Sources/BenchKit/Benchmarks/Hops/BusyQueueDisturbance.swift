import Dispatch

/// What `observeOn.busyQueue` does before each session (issue 29), outside
/// the measured region: one plain serial
/// `DispatchQueue` is kept busy: `blocks` blocks of about `blockNanoseconds`
/// of work each, enqueued far faster than they run, so a long backlog builds
/// and one worker drains it for about 175 ms; then it is waited for.
///
/// Unlike `DispatchDisturbance` (many short blocks on many queues), this is
/// what brought on a slow mode of the hops that lasts for seconds after the
/// queue has gone quiet (Performance.md, "After a busy queue"). It is
/// applied to the library's hops, the peers and the references alike, so a
/// run shows whom the state it leaves behind touches.
enum BusyQueueDisturbance {
    /// Blocks enqueued per disturbance.
    static let blocks = 250_000
    /// How long each block works, spinning on the uptime clock.
    static let blockNanoseconds: UInt64 = 700

    /// About how long one disturbance takes on an idle core: the blocks'
    /// work and half as much again for enqueuing them (for progress estimates).
    static var estimatedSeconds: Double {
        Double(blocks) * Double(blockNanoseconds) * 1.5e-9
    }

    /// Runs the disturbance and returns once its queue has drained.
    static func run() {
        let queue = DispatchQueue(label: "bench.disturbance.busy-queue")
        for _ in 0..<blocks {
            queue.async {
                let end = DispatchTime.now().uptimeNanoseconds &+ blockNanoseconds
                while DispatchTime.now().uptimeNanoseconds < end {}
            }
        }
        queue.sync {}
    }

    /// The variants measured after a busy queue: every hop of `HopCatalog.all`
    /// but `main` (whose drains wait for the main run loop, not for a
    /// worker) and the hops that take microseconds per element
    /// (`actor-executor`, `peer.actor`, `peer.asyncstream`: 2–6 µs in the
    /// runs of Performance.md, "After a busy queue"). Their floods take
    /// seconds, against which what a busy queue leaves behind (a one-time
    /// cost of tens of milliseconds) cannot show, and they would double the
    /// benchmark's time.
    static func applies(to variant: HopVariant) -> Bool {
        !excluded.contains(variant.id)
    }

    static let excluded: Set<VariantID> = [.main, .library("actor-executor"), .peer("actor"), .peer("asyncstream")]

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
