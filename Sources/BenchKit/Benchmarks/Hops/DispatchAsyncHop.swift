import Dispatch

/// `peer.dispatch-async`: one `DispatchQueue.async` per element on a serial
/// queue, the cost RxSwift's Schedulers guide gives for the serial fast path.
final class DispatchAsyncHop: HopSession {
    private let queue = DispatchQueue(label: "bench.peer.dispatch-async")

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let queue = self.queue
        produce { value in
            queue.async { consume(value) }
        }
    }

    func close() {}

    static let variant = HopVariant(id: .peer("dispatch-async")) { DispatchAsyncHop() }
}
