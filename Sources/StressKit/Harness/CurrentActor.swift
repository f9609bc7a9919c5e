#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which actor the calling thread is running, if any.
///
/// Probes record it when disposed, so an arbiter can tell whether a resource
/// was disposed by the disposing actor, by the assigning actor, or by a
/// scheduler's thread.
enum CurrentActor {
    /// The index of the actor running on this thread, or `nil` on any other thread.
    static var index: Int? {
        let raw = Int(bitPattern: pthread_getspecific(key))
        return raw == 0 ? nil : raw - 1
    }

    static func set(_ index: Int?) {
        let raw = (index ?? -1) + 1
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: raw))
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()
}
