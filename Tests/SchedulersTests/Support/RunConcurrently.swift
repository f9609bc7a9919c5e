import Dispatch
import Schedulers

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

/// Disposes `disposable` on another thread and returns once that is done:
/// how a test shows that disposing from a thread other than the one running
/// the scheduler is safe, without racing the rest of the test.
func disposeOnAnotherThreadAndWait(_ disposable: Disposable) {
    let other = UncheckedBox(disposable)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        other.value.dispose()
        done.signal()
    }
    done.wait()
}
