import Foundation
import Synchronization

/// `reference.batched-handoff`: the practical limit for a hop. The producer
/// appends to a mutex-protected buffer; one consumer thread swaps the whole
/// buffer out and drains it outside the lock, so a lock round trip and a
/// wake-up are paid per batch, not per element.
final class BatchedHandoffHop: HopSession, @unchecked Sendable {
    private struct Shared {
        var buffer: [UInt64] = []
        var finished = false
        var consumerSleeping = false
    }

    private let condition = NSCondition()
    private var shared = Shared()
    private var consumer: Thread?

    init() {
        shared.buffer.reserveCapacity(4096)
    }

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let thread = Thread { [self] in drain(consume) }
        thread.name = "bench.reference.batched-handoff"
        consumer = thread
        thread.start()
        produce { value in
            self.condition.lock()
            self.shared.buffer.append(value)
            let wake = self.shared.consumerSleeping
            self.condition.unlock()
            if wake { self.condition.signal() }
        }
    }

    private func drain(_ consume: @Sendable (UInt64) -> Void) {
        var batch: [UInt64] = []
        batch.reserveCapacity(4096)
        while true {
            condition.lock()
            while shared.buffer.isEmpty && !shared.finished {
                shared.consumerSleeping = true
                condition.wait()
                shared.consumerSleeping = false
            }
            if shared.buffer.isEmpty && shared.finished {
                condition.unlock()
                return
            }
            swap(&batch, &shared.buffer)
            condition.unlock()
            for value in batch {
                consume(value)
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    func close() {
        condition.lock()
        shared.finished = true
        condition.unlock()
        condition.broadcast()
    }

    static let variant = HopVariant(name: "reference.batched-handoff") { BatchedHandoffHop() }
}
