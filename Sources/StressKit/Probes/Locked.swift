import Foundation

/// A value behind an `NSLock`, for probes whose threads race on it.
///
/// Not `Synchronization.Mutex`: its lock word is handled inside the standard
/// library, which ThreadSanitizer does not instrument, so TSan would see two
/// threads' critical sections unordered and report the value as raced. An
/// `NSLock` is a pthread mutex, which TSan intercepts.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value with the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
