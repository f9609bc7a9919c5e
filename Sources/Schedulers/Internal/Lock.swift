#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
///
/// ThreadSanitizer cannot see `Mutex` on Linux (its futex fast path lives in
/// the uninstrumented standard library), so in a `-sanitize=thread` build
/// every access guarded by a `Lock` would be reported as a race. The lock
/// therefore tells ThreadSanitizer itself: when the process runs with the
/// sanitizer, `__tsan_acquire` / `__tsan_release` are called on the mutex's
/// storage after locking and before unlocking. Without the sanitizer this
/// costs one check of a global.
@usableFromInline
struct Lock: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let mutex = Mutex(())

    @inlinable
    init() {}

    @inlinable
    func withLock<Result>(_ body: () -> Result) -> Result {
        // The result crosses `Mutex.withLock`'s `sending` boundary in an
        // `@unchecked Sendable` box: no captured variable, which an
        // unoptimised build would allocate on the heap at every call.
        guard let sanitizer = threadSanitizerHooks else {
            return mutex.withLock { _ in UnsafeTransfer(body()) }.value
        }
        // The mutex's own address names it to ThreadSanitizer; reading it
        // through a borrow is not a Swift access the sanitizer checks.
        return withUnsafePointer(to: mutex) { address in
            let name = UnsafeMutableRawPointer(mutating: address)
            return mutex.withLock { _ in
                sanitizer.acquire(name)
                defer { sanitizer.release(name) }
                return UnsafeTransfer(body())
            }.value
        }
    }
}

/// ThreadSanitizer's annotation entry points, found at run time: present only
/// in a process built with `-sanitize=thread`.
@usableFromInline
struct ThreadSanitizerHooks: Sendable {
    @usableFromInline
    typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    @usableFromInline
    let acquire: Annotation
    @usableFromInline
    let release: Annotation

    static func lookUp() -> ThreadSanitizerHooks? {
        // RTLD_DEFAULT: search every object loaded into the process.
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)
        guard let acquire = dlsym(everywhere, "__tsan_acquire"),
            let release = dlsym(everywhere, "__tsan_release")
        else { return nil }
        return ThreadSanitizerHooks(
            acquire: unsafeBitCast(acquire, to: Annotation.self),
            release: unsafeBitCast(release, to: Annotation.self)
        )
    }
}

/// `nil` unless the process runs under ThreadSanitizer.
@usableFromInline
let threadSanitizerHooks = ThreadSanitizerHooks.lookUp()

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
