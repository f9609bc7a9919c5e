import Dispatch
import OpenCombine
import OpenCombineDispatch

/// `peer.opencombine`: a `PassthroughSubject` fed by the producer,
/// `receive(on:)` a serial dispatch queue, read by `sink`.
final class OpenCombineHop: HopSession {
    private let queue = DispatchQueue(label: "bench.peer.opencombine")
    private var subscription: AnyCancellable?

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let subject = PassthroughSubject<UInt64, Never>()
        subscription = subject
            .receive(on: queue.ocombine)
            .sink { value in consume(value) }
        produce { value in subject.send(value) }
        subject.send(completion: .finished)
    }

    func close() {
        subscription?.cancel()
        subscription = nil
    }

    static let variant = HopVariant(id: .peer("opencombine")) { OpenCombineHop() }
}
