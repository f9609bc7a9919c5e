import Schedulers
import XCTest

/// Proves that `assertStops` sees a stop, its message, and a call that does not stop.
final class CrashTestTests: XCTestCase {
    func testDoubleSetDisposableStopsWithMessage() {
        let disposable = SingleAssignmentDisposable()
        disposable.setDisposable(Disposables.create())
        assertStops(messageContaining: "setDisposable(_:) was called twice") {
            disposable.setDisposable(Disposables.create())
        }
    }

    func testPreconditionFailureMessageReachesParent() {
        assertStops(messageContaining: "the message from the child") {
            preconditionFailure("the message from the child")
        }
    }

    func testOnlyTheRequestedCallSiteRunsInTheChild() {
        assertStops(messageContaining: "first site") {
            preconditionFailure("first site")
        }
        assertStops(messageContaining: "second site") {
            preconditionFailure("second site")
        }
    }

    func testFilterArgumentNamesModuleClassAndTest() {
        XCTAssertEqual(
            CrashTest.filterArgument(for: self),
            "SchedulersTests.CrashTestTests/testFilterArgumentNamesModuleClassAndTest")
    }

    func testBodyThatReturnsIsReportedAsExit() throws {
        // Run the child by hand: `assertStops` would (rightly) fail this test.
        guard ProcessInfo.processInfo.environment[crashTestSiteVariable] == nil else {
            // In the child: this test's own site, reached by the parent below.
            exit(EXIT_SUCCESS)
        }
        let filter = try XCTUnwrap(CrashTest.filterArgument(for: self))
        let outcome = try CrashTest.runChild(filter: filter, site: "not-a-site", timeout: 60)
        guard case .exited(let status) = outcome.termination else {
            return XCTFail("expected a normal exit, got \(outcome.termination)")
        }
        XCTAssertEqual(status, EXIT_SUCCESS)
    }
}
