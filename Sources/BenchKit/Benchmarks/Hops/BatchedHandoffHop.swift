import Foundation
import Synchronization

/// `reference.batched-handoff`: the practical limit for a hop. The producer
/// appends to a mutex-protected buffer; one consumer thread swaps the whole
/// buffer out and drains it outside the lock, so a lock round trip and a
/// wake-up are paid per batch, not per element.
///
/// The shared state sits behind a pointer, not in a stored `var`: a class's
/// stored `var` reached from an escaping closure pays Swift's dynamic
/// exclusivity check (`swift_beginAccess`) on every access, about a third of
/// the instructions per element, which would make this "limit" beatable.
final class BatchedHandoffHop: HopSession, @unchecked Sendable {
    private struct Shared {
        var buffer: [UInt64] = []
        var finished = false
        var consumerSleeping = false
    }

    private let condition = NSCondition()
    private let shared: UnsafeMutablePointer<Shared>
    private var consumer: Thread?

    init() {
        shared = UnsafeMutablePointer<Shared>.allocate(capacity: 1)
        shared.initialize(to: Shared())
        shared.pointee.buffer.reserveCapacity(4096)
    }

    deinit {
        shared.deinitialize(count: 1)
        shared.deallocate()
    }

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let thread = Thread { [self] in drain(consume) }
        thread.name = "bench.reference.batched-handoff"
        consumer = thread
        thread.start()
        produce { value in
            self.condition.lock()
            self.shared.pointee.buffer.append(value)
            let wake = self.shared.pointee.consumerSleeping
            self.condition.unlock()
            if wake { self.condition.signal() }
        }
    }

    private func drain(_ consume: @Sendable (UInt64) -> Void) {
        var batch: [UInt64] = []
        batch.reserveCapacity(4096)
        while true {
            condition.lock()
            while shared.pointee.buffer.isEmpty && !shared.pointee.finished {
                shared.pointee.consumerSleeping = true
                condition.wait()
                shared.pointee.consumerSleeping = false
            }
            if shared.pointee.buffer.isEmpty && shared.pointee.finished {
                condition.unlock()
                return
            }
            swap(&batch, &shared.pointee.buffer)
            condition.unlock()
            for value in batch {
                consume(value)
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    func close() {
        condition.lock()
        shared.pointee.finished = true
        condition.unlock()
        condition.broadcast()
        // The thread's closure holds this hop: dropping the thread here breaks
        // that cycle, so the hop is freed once the thread has drained and ended.
        consumer = nil
    }

    static let variant = HopVariant(id: .reference("batched-handoff")) { BatchedHandoffHop() }
}
