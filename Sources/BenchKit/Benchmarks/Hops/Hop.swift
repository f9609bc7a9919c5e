import Dispatch
import ToolSupport

/// Pushes values from the producing thread into some execution context.
/// The variants of `observeOn.throughput` and `observeOn.latency` are hops:
/// this library's `observe(on:)` on each scheduler, and each peer.
package protocol HopSession: AnyObject {
    /// Calls `produce` on the calling thread; every value it sends reaches
    /// `consume` on the hop's context, in order. Returns once `produce` has
    /// returned (not necessarily once everything was consumed).
    func pass(produce: @escaping (_ send: (UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws
    /// Throws when the pass broke the variant's promise (for example a main
    /// hop that delivered off the main thread). Called after the last value.
    func verify() throws
    /// Releases threads and queues.
    func close()
}

extension HopSession {
    func verify() throws {}
}

/// A named way to hop, created afresh for every repetition (outside the measured region).
package struct HopVariant: MeasuredVariant, Sendable {
    package let id: VariantID
    /// Set when this build or machine cannot run the variant.
    package let unavailableReason: String?
    /// Delivers on the main thread, so the main queue must be serviced.
    package let needsMainQueue: Bool
    let makeSession: @Sendable () throws -> any HopSession
    /// How long a pass may wait for its last value before it fails naming
    /// the variant (a scheduler that never runs its actions).
    var stallTimeoutSeconds: Double
    /// What the instruction pass counts for the variant's throughput plan:
    /// a part of its hop that is CPU work on one thread; `nil` for most
    /// hops, whose work is spread over threads.
    var instructions: InstructionWorkload?
    /// Whether an element's hop takes microseconds (a task or a
    /// continuation per element), which keeps the variant out of
    /// `observeOn.busyQueue` (``BusyQueueDisturbance/applies(to:)``).
    private(set) var takesMicrosecondsPerElement = false

    init(
        id: VariantID, unavailableReason: String? = nil, needsMainQueue: Bool = false,
        stallTimeoutSeconds: Double = 120,
        makeSession: @escaping @Sendable () throws -> any HopSession
    ) {
        self.id = id
        self.stallTimeoutSeconds = stallTimeoutSeconds
        self.unavailableReason = unavailableReason
        self.needsMainQueue = needsMainQueue
        self.makeSession = makeSession
    }

    /// This variant, marked as taking microseconds per element.
    func takingMicrosecondsPerElement() -> HopVariant {
        var variant = self
        variant.takesMicrosecondsPerElement = true
        return variant
    }

    /// A variant that cannot run here, and why.
    static func unavailable(_ id: VariantID, reason: String) -> HopVariant {
        HopVariant(id: id, unavailableReason: reason) { throw BenchmarkFailure("\(id.name): \(reason)") }
    }
}

/// Counts consumed values and wakes the producer once the last one arrived.
/// Runs its handler only on the consuming context, which each hop keeps serial.
final class CompletionLatch: @unchecked Sendable {
    private let expected: Int
    private var received = 0
    private let done = DispatchSemaphore(value: 0)
    private let handler: @Sendable (UInt64) -> Void

    init(expected: Int, handler: @escaping @Sendable (UInt64) -> Void) {
        self.expected = expected
        self.handler = handler
    }

    @inline(__always)
    func consume(_ value: UInt64) {
        handler(value)
        received += 1
        if received == expected {
            done.signal()
        }
    }

    /// Waits for the last value; fails after `timeoutSeconds` rather than hang.
    func wait(timeoutSeconds: Double, variant: String) throws {
        if done.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            throw BenchmarkFailure(
                "\(variant): values were not all delivered within \(NumberFormat.plain(timeoutSeconds)) s: "
                    + "does its scheduler run every action it is given?")
        }
    }
}

extension HopVariant {
    /// Sends the values 0 to `elements` - 1 through `session` from the
    /// calling thread and returns after the last was consumed: one flood.
    func flood(session: any HopSession, elements: Int) throws {
        try deliver(
            session: session, count: elements,
            produce: { send in
                for index in 0..<elements {
                    send(UInt64(truncatingIfNeeded: index))
                }
            },
            consume: { _ in })
    }

    /// Sends `count` values produced by `produce` and returns after the last was consumed.
    func deliver(
        session: any HopSession, count: Int, produce: @escaping (_ send: (UInt64) -> Void) -> Void,
        consume: @escaping @Sendable (UInt64) -> Void
    ) throws {
        let latch = CompletionLatch(expected: count, handler: consume)
        try session.pass(produce: produce, consume: { latch.consume($0) })
        try latch.wait(timeoutSeconds: stallTimeoutSeconds, variant: name)
        try session.verify()
    }
}
