import Synchronization

/// A value one actor publishes once and others wait for.
///
/// The write happens before the releasing store of the flag, every read after
/// an acquiring load of it, so no lock is needed.
final class Handoff<Value>: @unchecked Sendable {
    private let published = Atomic<Bool>(false)
    private var value: Value?

    /// Publishes `value`. Call at most once.
    func publish(_ value: Value) {
        self.value = value
        published.store(true, ordering: .releasing)
    }

    /// The value if it was published, without waiting.
    var current: Value? {
        published.load(ordering: .acquiring) ? value : nil
    }

    /// Waits (spin, yield, nap) until the value is published, then returns it.
    func wait() -> Value {
        var backoff = Backoff()
        while !published.load(ordering: .acquiring) {
            backoff.pause()
        }
        return value.unsafelyUnwrapped
    }
}
