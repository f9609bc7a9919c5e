import Dispatch

/// Runs `body(0..<iterations)` on the dispatch worker threads at once, as
/// `DispatchQueue.concurrentPerform` does, without asking the body to be
/// `@Sendable`: the tests share non-`Sendable` disposables across threads on
/// purpose, since that is exactly what guarantee 7 promises to survive.
func runConcurrently(iterations: Int, _ body: (Int) -> Void) {
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedBox(body)
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            shared.value(index)
        }
    }
}
