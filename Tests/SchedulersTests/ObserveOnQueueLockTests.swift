import Dispatch
import Foundation
@testable import Schedulers
import XCTest

/// `ObserveOnQueueLock`: the lock of an `observe(on:)` queue excludes
/// concurrent holders, also when they contend (the spin-then-yield path).
final class ObserveOnQueueLockTests: XCTestCase {
    func testLockExcludesConcurrentHoldersUnderContention() {
        let lock = LockHolder()
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

    func testAWaiterOutlastingALongHoldGetsTheLockAfterTheHolderReleasesIt() {
        // The holder keeps the lock far longer than spinning and yielding
        // last, so the waiter reaches its sleeping path; it must still enter
        // only after the release and see what the holder wrote.
        let lock = LockHolder()
        let counter = PlainCounter()
        let holding = DispatchSemaphore(value: 0)
        let waiterDone = DispatchSemaphore(value: 0)
        lock.lock()
        Thread.detachNewThread {
            holding.signal()
            lock.lock()
            counter.value += 1
            lock.unlock()
            waiterDone.signal()
        }
        holding.wait()
        Thread.sleep(forTimeInterval: 0.05)
        counter.value = 10
        lock.unlock()
        XCTAssertEqual(waiterDone.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(lock.withLock { counter.value }, 11)
    }

    func testWithLockReturnsTheBodysResultAndReleasesTheLock() {
        let lock = LockHolder()
        XCTAssertEqual(lock.withLock { 42 }, 42)
        // Would spin forever if the first call had kept the lock.
        XCTAssertEqual(lock.withLock { 7 }, 7)
    }
}

/// A shared home for a lock, which is a value without copies: the lock's
/// methods are called through it from every thread.
private final class LockHolder: Sendable {
    private let held = ObserveOnQueueLock()

    func lock() { held.lock() }
    func unlock() { held.unlock() }
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try held.withLock(body)
    }
}

/// An integer with no synchronisation of its own.
private final class PlainCounter: @unchecked Sendable {
    var value = 0
}
