import Dispatch

/// Something a test waits for from other threads: `fulfill()` it
/// `expectedCount` times (or more), `wait(timeout:)` for that.
final class TestFulfilment: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let expectedCount: Int

    init(expectedCount: Int = 1) {
        self.expectedCount = expectedCount
    }

    func fulfill() {
        semaphore.signal()
    }

    /// Whether `fulfill()` was called `expectedCount` times within `timeout` seconds.
    func wait(timeout: Double) -> Bool {
        let deadline = DispatchTime.now() + timeout
        for _ in 0..<expectedCount where semaphore.wait(timeout: deadline) == .timedOut {
            return false
        }
        return true
    }
}
