import Dispatch

/// What a hop's consumer received, for tests of the hops: appended to only
/// by the hop's serial consuming context until `done` is signalled, read by
/// the test after that.
final class ReceivedValues: @unchecked Sendable {
    private(set) var values: [UInt64] = []
    /// Elements consumed where the hop did not promise to consume them (a
    /// test that checks the consuming context counts them here).
    var offScheduler = 0
    let expected: Int
    /// Signalled once `expected` values have arrived.
    let done = DispatchSemaphore(value: 0)

    init(expected: Int) {
        self.expected = expected
        values.reserveCapacity(expected)
    }

    func take(_ value: UInt64) {
        values.append(value)
        if values.count == expected { done.signal() }
    }
}
