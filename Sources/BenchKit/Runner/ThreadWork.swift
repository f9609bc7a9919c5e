import Foundation
import Synchronization

/// Work started on a thread of its own, whose result is read with
/// ``wait()``: for counting passes that only wait on child processes (the
/// callgrind children, the instruction pass beside the allocation child),
/// where Dispatch's pool would start one more only when a core is free.
package final class ThreadWork<Value: Sendable>: Sendable {
    private let result = Mutex<Value?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread at once.
    package init(_ body: @escaping @Sendable () -> Value) {
        Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            finished.signal()
        }.start()
    }

    /// Waits until `body` has returned and returns its result; may be
    /// called again, and returns the same result at once.
    package func wait() -> Value {
        finished.wait()
        finished.signal()
        guard let value = result.withLock({ $0 }) else {
            preconditionFailure("ThreadWork finished without a result")
        }
        return value
    }
}
