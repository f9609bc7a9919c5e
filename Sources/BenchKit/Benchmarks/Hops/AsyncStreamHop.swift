/// `peer.asyncstream`: an unbounded `AsyncStream` fed by the producer and
/// read by one task on the cooperative pool.
final class AsyncStreamHop: HopSession {
    private var reader: Task<Void, Never>?

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let (stream, continuation) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .unbounded)
        reader = Task.detached {
            for await value in stream {
                consume(value)
            }
        }
        produce { value in continuation.yield(value) }
        continuation.finish()
    }

    func close() {
        reader?.cancel()
        reader = nil
    }

    static let variant = HopVariant(id: .peer("asyncstream")) { AsyncStreamHop() }.takingMicrosecondsPerElement()
}
