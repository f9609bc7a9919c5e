import Synchronization

/// A lock stored inline in its owner (no allocation of its own), built on
/// `Synchronization.Mutex`.
///
/// Why a wrapper: `Mutex.withLock` takes its value `inout sending` and returns a
/// `sending` result, which rejects the non-`Sendable` payloads this library
/// must carry to stay source compatible with RxSwift 6 (caller-supplied
/// actions, states and disposables). The owners keep their state in their own
/// stored properties, touch it only inside `withLock`, and mark themselves
/// `@unchecked Sendable`.
@usableFromInline
struct Lock: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let mutex = Mutex(())

    @inlinable
    init() {}

    @inlinable
    func withLock<Result>(_ body: () -> Result) -> Result {
        nonisolated(unsafe) var result: Result? = nil
        mutex.withLock { _ in result = body() }
        return result.unsafelyUnwrapped
    }
}

/// Carries a value the compiler cannot prove `Sendable` across a thread hop.
///
/// The library's public surface is RxSwift 6's, whose actions and states are
/// not `Sendable`; the scheduler contracts (an action runs once, on the
/// scheduler, never concurrently with itself) are what make the hop safe.
@usableFromInline
struct UnsafeTransfer<Value>: @unchecked Sendable {
    @usableFromInline
    var value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
