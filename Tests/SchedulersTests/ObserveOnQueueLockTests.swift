import Dispatch
@testable import Schedulers
import XCTest

/// `ObserveOnQueueLock`: the lock of an `observe(on:)` queue excludes
/// concurrent holders, also when they contend (the spin-then-yield path).
final class ObserveOnQueueLockTests: XCTestCase {
    func testLockExcludesConcurrentHoldersUnderContention() {
        let lock = ObserveOnQueueLock()
        // A plain, unsynchronised counter: only the lock keeps increments
        // from being lost (and ThreadSanitizer builds would report a race).
        let counter = PlainCounter()
        let threads = 4
        let incrementsPerThread = 50_000
        runConcurrently(iterations: threads) { _ in
            for _ in 0..<incrementsPerThread {
                lock.lock()
                counter.value += 1
                lock.unlock()
            }
        }
        XCTAssertEqual(counter.value, threads * incrementsPerThread)
    }

    func testWithLockReturnsTheBodysResultAndReleasesTheLock() {
        let lock = ObserveOnQueueLock()
        XCTAssertEqual(lock.withLock { 42 }, 42)
        // Would spin forever if the first call had kept the lock.
        XCTAssertEqual(lock.withLock { 7 }, 7)
    }
}

/// An integer with no synchronisation of its own.
private final class PlainCounter: @unchecked Sendable {
    var value = 0
}
