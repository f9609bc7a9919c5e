/// Where a run's allocation counts come from.
///
/// Counting exactly needs jemalloc with its thread cache off, which slows
/// every allocation down and so distorts times (most for peers that allocate
/// per element). The default run therefore times under the system allocator
/// and counts in a separate jemalloc process (`elsewhere` here, `only` there).
package enum AllocationPass: Sendable, Equatable {
    /// Time here; another process counts, so write no allocation rows.
    case elsewhere
    /// Time here; counts cannot be taken, so write the allocation metrics with empty values.
    case unavailable
    /// Time here, then count here (needs an exact counter): `--allocator jemalloc`.
    case here
    /// Only count, with no timing repetitions: the counting child of a default run.
    case only
}
