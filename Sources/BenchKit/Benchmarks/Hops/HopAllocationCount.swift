import Foundation

/// Counts what a hop allocates per element at steady state (the counting
/// pass of `observeOn.throughput`).
///
/// On one session and one subscription: a few warm-up batches, so that ring
/// buffers, queues and worker threads have grown to the batch's size, then
/// one counted batch. Each batch is gated (`BatchGate`), so the count is
/// `batch × per-element allocations + per-batch allocations`, the same on
/// every run: divided by `batch` it is the exact per-element integer plus
/// the per-batch allocations spread over the batch (see `CSVSchema`).
enum HopAllocationCount {
    /// Warm-up batches before the counted one: an `observe(on:)` sink swaps
    /// two queues, so both must have grown.
    static let warmUpBatches = 3

    /// Time for the consumer to finish its batch (return from the drain) before a snapshot.
    static let settleMicroseconds: UInt32 = 5_000

    /// The allocations and bytes of one counted batch of `batch` elements;
    /// `nil` values when counts are unavailable.
    static func count(hop: HopVariant, batch: Int, context: MeasureContext) throws -> AllocationCounter.Delta? {
        let session = try hop.makeSession()
        defer { session.close() }
        let gate = BatchGate(batch: batch)
        let outcome = Outcome()
        let name = hop.name
        try session.pass(
            produce: { send in
                do {
                    for _ in 0..<warmUpBatches {
                        try gate.sendBatch(variant: name, send)
                    }
                    usleep(settleMicroseconds)
                    let before = context.counter.snapshot()
                    try gate.sendBatch(variant: name, send)
                    usleep(settleMicroseconds)
                    let after = context.counter.snapshot()
                    outcome.delta = AllocationCounter.delta(from: before, to: after)
                } catch {
                    outcome.failure = error
                }
            },
            consume: { gate.consume($0) })
        if let failure = outcome.failure {
            throw failure
        }
        try session.verify()
        return outcome.delta
    }

    /// What the producer found; written and read on the producing thread.
    final class Outcome: @unchecked Sendable {
        var delta: AllocationCounter.Delta?
        var failure: (any Error)?
    }
}
