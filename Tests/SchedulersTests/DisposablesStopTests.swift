import Schedulers
import Testing

/// Disposable misuse that stops the program, as exit tests.
@Suite struct DisposablesStopTests {
    @Test func singleAssignmentSetTwiceStopsWithMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let single = SingleAssignmentDisposable()
            single.setDisposable(Disposables.create())
            single.setDisposable(Disposables.create())
        }
        expectStopped(result, messageContaining: "setDisposable(_:) was called twice")
    }
}
