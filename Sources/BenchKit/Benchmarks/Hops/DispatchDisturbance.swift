import Dispatch

/// The `*.disturbed` variants of `observeOn.throughput`: before each
/// repetition (outside the measured region) the process runs dispatch-heavy
/// work, as an app embedding the library does between two bursts of
/// elements: many short blocks on the global concurrent queues and on a
/// crowd of short-lived serial queues, so that libdispatch's worker pool has
/// grown, parked and scattered its threads when the hop starts.
///
/// The work is waited for: when the measured region starts, nothing of it
/// runs any more; what remains is the state it left (idle worker threads,
/// warm and cold caches), which is what the library must cope with.
enum DispatchDisturbance {
    /// Blocks enqueued on the global concurrent queues per disturbance.
    static let globalBlocks = 20_000
    /// Short-lived serial queues per disturbance, each given `blocksPerSerialQueue` blocks.
    static let serialQueues = 200
    static let blocksPerSerialQueue = 20

    /// Runs the disturbance and returns once all of it has finished.
    static func run() {
        let group = DispatchGroup()
        let sink = Checksum()
        let qualities: [DispatchQoS.QoSClass] = [.userInitiated, .default, .utility]
        for index in 0..<globalBlocks {
            DispatchQueue.global(qos: qualities[index % qualities.count]).async(group: group) {
                sink.add(index)
            }
        }
        for queueIndex in 0..<serialQueues {
            let queue = DispatchQueue(label: "bench.disturbance.\(queueIndex)")
            for block in 0..<blocksPerSerialQueue {
                queue.async(group: group) {
                    sink.add(block)
                }
            }
        }
        group.wait()
    }

    /// Gives the blocks something to do that the optimiser cannot remove.
    final class Checksum: @unchecked Sendable {
        private let lock = DispatchSemaphore(value: 1)
        private var total = 0

        func add(_ value: Int) {
            lock.wait()
            total &+= value
            lock.signal()
        }
    }

    /// `variant` under the name `<name>.disturbed`, its sessions made after a disturbance.
    static func disturbed(_ variant: HopVariant) -> HopVariant {
        HopVariant(
            id: variant.id.suffixed("disturbed"), unavailableReason: variant.unavailableReason,
            needsMainQueue: variant.needsMainQueue, stallTimeoutSeconds: variant.stallTimeoutSeconds
        ) {
            run()
            return try variant.makeSession()
        }
    }
}
