import Synchronization

/// Counts the live sinks and subscription disposers, so tests can check that
/// nothing leaks after disposal or completion (guarantee 8 in Guarantees.md).
///
/// Compiled into debug builds only; release builds pay nothing.
enum LiveInstances {
    #if DEBUG
    /// Sinks (one per operator per subscription) alive now.
    static let sinks = Atomic<Int>(0)
    /// `SinkDisposer`s alive now.
    static let disposers = Atomic<Int>(0)
    #endif

    @inline(__always)
    static func sinkCreated() {
        #if DEBUG
        sinks.add(1, ordering: .relaxed)
        #endif
    }

    @inline(__always)
    static func sinkFreed() {
        #if DEBUG
        sinks.subtract(1, ordering: .relaxed)
        #endif
    }

    @inline(__always)
    static func disposerCreated() {
        #if DEBUG
        disposers.add(1, ordering: .relaxed)
        #endif
    }

    @inline(__always)
    static func disposerFreed() {
        #if DEBUG
        disposers.subtract(1, ordering: .relaxed)
        #endif
    }
}
