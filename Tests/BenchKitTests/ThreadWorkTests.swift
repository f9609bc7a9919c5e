import BenchKit
import Foundation
import XCTest

final class ThreadWorkTests: XCTestCase {
    /// The body runs on a thread of its own, at once: two pieces of work that
    /// each wait for the other finish only if both run side by side.
    func testEachWorkRunsOnAThreadOfItsOwnAtOnce() {
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let a = ThreadWork { () -> Bool in
            first.signal()
            return second.wait(timeout: .now() + 10) == .success
        }
        let b = ThreadWork { () -> Bool in
            second.signal()
            return first.wait(timeout: .now() + 10) == .success
        }
        XCTAssertTrue(a.wait())
        XCTAssertTrue(b.wait())
    }

    func testWaitReturnsTheResultEveryTime() {
        let work = ThreadWork { 6 * 7 }
        XCTAssertEqual(work.wait(), 42)
        XCTAssertEqual(work.wait(), 42)
    }
}
