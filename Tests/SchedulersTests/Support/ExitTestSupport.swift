import Testing

/// Checks what an exit test saw: the child was stopped by a signal (a failed
/// `precondition`, `preconditionFailure`, `fatalError` or other trap; not an
/// `exit` with a failure status) and its standard error contains `message`.
///
/// Use it with the result of an exit test that observed standard error:
///
/// ```swift
/// @Test func settingTwiceStops() async {
///     let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
///         let disposable = SingleAssignmentDisposable()
///         disposable.setDisposable(Disposables.create())
///         disposable.setDisposable(Disposables.create())
///     }
///     expectStopped(result, messageContaining: "called twice")
/// }
/// ```
///
/// A `nil` result means `#expect` already recorded the wrong exit; nothing
/// more is checked then. `precondition` prints its message in the debug
/// configuration `swift test` uses; optimised builds trap without one.
func expectStopped(
    _ result: ExitTest.Result?,
    messageContaining message: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let result else { return }
    let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
    guard case .signal = result.exitStatus else {
        Issue.record(
            "expected the program to stop on a signal, but it ended with \(result.exitStatus); stderr:\n\(standardError)",
            sourceLocation: sourceLocation)
        return
    }
    #expect(
        standardError.contains(message),
        "the program stopped, but its stderr does not contain \"\(message)\":\n\(standardError)",
        sourceLocation: sourceLocation)
}
