import CJemallocShim

/// Counts allocations across all threads through jemalloc's `mallctl` statistics.
///
/// The counts are exact when jemalloc's thread cache is off (the allocator
/// launcher sets `MALLOC_CONF=tcache:false`): every allocation then passes
/// through the arena counters that `snapshot()` reads. Bytes are counted by
/// size class, that is the usable size jemalloc handed out.
package struct AllocationCounter: Sendable {
    /// Cumulative totals at one moment.
    struct Snapshot: Sendable, Equatable {
        var allocations: UInt64
        var bytes: UInt64
    }

    /// Allocations and bytes between two snapshots.
    struct Delta: Sendable, Equatable {
        var allocations: UInt64
        var bytes: UInt64
    }

    /// Whether counts can be taken in this process, and if not, why.
    enum Availability: Sendable, Equatable {
        case exact
        case unavailable(reason: String)
    }

    let availability: Availability

    /// Probes the process allocator.
    init() {
        if cjs_available() == 0 {
            availability = .unavailable(reason: "the process allocator is not jemalloc")
        } else if cjs_tcache_enabled() != 0 {
            availability = .unavailable(
                reason: "jemalloc's thread cache is on, so its counters lag; run with MALLOC_CONF=tcache:false")
        } else {
            availability = .exact
        }
    }

    /// A counter that never counts (for `--allocator system`).
    package static let disabled = AllocationCounter(availability: .unavailable(reason: "the allocator is system"))

    /// A counter that never counts, for the reason given (shown once by the run).
    static func unavailable(reason: String) -> AllocationCounter {
        AllocationCounter(availability: .unavailable(reason: reason))
    }

    init(availability: Availability) {
        self.availability = availability
    }

    var isExact: Bool { availability == .exact }

    /// jemalloc's version string, empty when it is not the allocator.
    static var jemallocVersion: String {
        String(cString: cjs_version())
    }

    /// The cumulative totals now, or `nil` when counts are unavailable.
    func snapshot() -> Snapshot? {
        guard isExact else { return nil }
        var totals = cjs_totals()
        guard cjs_read_totals(&totals) == 0 else { return nil }
        return Snapshot(allocations: totals.allocations, bytes: totals.bytes)
    }

    /// What happened between `start` and `end`.
    static func delta(from start: Snapshot?, to end: Snapshot?) -> Delta? {
        guard let start, let end, end.allocations >= start.allocations, end.bytes >= start.bytes else {
            return nil
        }
        return Delta(allocations: end.allocations - start.allocations, bytes: end.bytes - start.bytes)
    }
}
