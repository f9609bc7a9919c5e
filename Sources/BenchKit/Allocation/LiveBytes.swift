import CJemallocShim

extension AllocationCounter {
    /// The bytes allocated and not yet freed in the whole process now
    /// (jemalloc's `stats.allocated`, by size class), or `nil` when counts
    /// are unavailable. The difference of two readings around building N
    /// objects that stay alive, divided by N, is the memory each one holds.
    func liveBytes() -> UInt64? {
        guard isExact else { return nil }
        var allocated: UInt64 = 0
        guard cjs_read_allocated(&allocated) == 0 else { return nil }
        return allocated
    }
}
