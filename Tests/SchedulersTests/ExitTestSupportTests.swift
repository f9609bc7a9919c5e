import Schedulers
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Proves that the exit tests the suites use, with `expectStopped`, see a
/// stop and its message, and that each exit test runs only its own body.
@Suite struct ExitTestSupportTests {
    @Test func preconditionFailureStopsAndItsMessageReachesTheParent() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            preconditionFailure("the message from the child")
        }
        expectStopped(result, messageContaining: "the message from the child")
    }

    @Test func eachExitTestRunsOnlyItsOwnBody() async {
        let first = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            preconditionFailure("first body")
        }
        expectStopped(first, messageContaining: "first body")
        let second = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            preconditionFailure("second body")
        }
        expectStopped(second, messageContaining: "second body")
        let firstText = String(decoding: first?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!firstText.contains("second body"), "the first child ran the second body too:\n\(firstText)")
    }

    @Test func bodyThatReturnsExitsWithSuccess() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            _ = Disposables.create()
        }
        #expect(result?.exitStatus == .exitCode(0))
    }

    @Test func stopWithoutTheMessageIsReported() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            preconditionFailure("what the child says")
        }
        withKnownIssue("expectStopped reports a stop whose stderr lacks the message") {
            expectStopped(result, messageContaining: "what the child never says")
        }
    }

    @Test func exitWithAFailureStatusIsNotAStop() async {
        let result = await #expect(processExitsWith: .exitCode(3), observing: [\.standardErrorContent]) {
            exit(3)
        }
        withKnownIssue("expectStopped reports an exit that no signal caused") {
            expectStopped(result, messageContaining: "")
        }
    }
}
