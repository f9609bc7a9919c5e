import Dispatch

/// Makes the batches of a hop deterministic for counting allocations. The
/// producer sends a batch's first element alone and waits until the consumer
/// holds it; it sends the rest while the consumer is held there, then waits
/// until the consumer has taken the last one.
///
/// Every batch therefore crosses the hop the same way whatever the machine's
/// load: a wake-up of the consumer with one element, then the other
/// `batch - 1` elements queued behind it (for an `observe(on:)` sink: one
/// scheduled drain taking a queue of 1, then a queue of `batch - 1`), so
/// what a batch allocates is the same from run to run:
/// `elements × per-element cost + per-batch cost`.
final class BatchGate: @unchecked Sendable {
    private let batch: Int
    /// Touched only by the consumer, whose context each hop keeps serial.
    private var consumed = 0
    private let firstArrived = DispatchSemaphore(value: 0)
    private let sent = DispatchSemaphore(value: 0)
    private let taken = DispatchSemaphore(value: 0)

    init(batch: Int) {
        precondition(batch > 0, "batch must be positive")
        self.batch = batch
    }

    /// The hop's consumer: waits for the producer at the first element of a batch.
    func consume(_ value: UInt64) {
        if consumed % batch == 0 {
            firstArrived.signal()
            sent.wait()
        }
        consumed += 1
        if consumed % batch == 0 {
            taken.signal()
        }
    }

    /// The producer: sends one batch through `send`, lets the consumer go and
    /// waits until it has consumed the whole batch.
    func sendBatch(variant: String, _ send: (UInt64) -> Void) throws {
        send(0)
        if firstArrived.wait(timeout: .now() + 60) == .timedOut {
            throw BenchmarkFailure("\(variant): the first element of a counted batch did not arrive within 60 s")
        }
        for index in 1..<batch {
            send(UInt64(index))
        }
        sent.signal()
        if taken.wait(timeout: .now() + 60) == .timedOut {
            throw BenchmarkFailure("\(variant): a counted batch was not consumed within 60 s")
        }
    }
}
