import NIOCore
import NIOPosix

/// `peer.nio`: a one-thread SwiftNIO event loop, one `execute` per element.
final class NIOHop: HopSession {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let loop = group.next()
        produce { value in
            loop.execute { consume(value) }
        }
    }

    func close() {
        try? group.syncShutdownGracefully()
    }

    static let variant = HopVariant(id: .peer("nio")) { NIOHop() }
}
