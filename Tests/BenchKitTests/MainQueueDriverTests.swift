import Foundation
import XCTest

@testable import BenchKit

/// `MainQueueDriver.isMainThread`, which the main-scheduler benchmarks ask
/// once per element: the same answer as Foundation's, on and off the main thread.
final class MainQueueDriverTests: XCTestCase {
    func testIsMainThreadAgreesWithFoundationOnTheCallingThread() {
        XCTAssertEqual(MainQueueDriver.isMainThread, Thread.isMainThread)
        XCTAssertEqual(MainQueueDriver.isMainThread, Thread.isMainThread, "the same answer once the main thread is known")
    }

    func testIsMainThreadIsFalseOnOtherThreadsBeforeAndAfterTheMainThreadIsKnown() {
        XCTAssertEqual(answerOnNewThread(), false)
        _ = MainQueueDriver.isMainThread
        XCTAssertEqual(answerOnNewThread(), false)
        XCTAssertEqual(answerOnNewThread(), false)
    }

    func testIsMainThreadIsTrueOnTheMainThread() throws {
        guard Thread.isMainThread else { throw XCTSkip("the test does not run on the main thread") }
        XCTAssertTrue(MainQueueDriver.isMainThread)
        XCTAssertNotEqual(MainQueueDriver.mainThreadID.load(ordering: .acquiring), 0, "the main thread is remembered")
        XCTAssertTrue(MainQueueDriver.isMainThread)
    }

    private func answerOnNewThread() -> Bool? {
        final class Answer: @unchecked Sendable {
            var value: Bool?
        }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            answer.value = MainQueueDriver.isMainThread
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        return answer.value
    }
}
