// CJemallocShim: reads jemalloc's statistics through `mallctl`, found with
// dlsym at run time. Nothing here links to jemalloc: when the process runs on
// another allocator, `cjs_available()` is 0 and the counters read as zero.
// One reader of glibc's own statistics sits beside them (`cjs_glibc_fast_bin_bytes`).
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Cumulative allocation totals over every arena and every thread.
typedef struct {
    /// Allocation calls served (small + large), exact when the thread cache is off.
    uint64_t allocations;
    /// Bytes of those allocations, counted by size class (the usable size).
    uint64_t bytes;
} cjs_totals;

/// 1 when the process allocator is jemalloc (its `mallctl` is resolvable), else 0.
int cjs_available(void);

/// 1 when jemalloc's thread cache is enabled (counts would then lag), else 0.
int cjs_tcache_enabled(void);

/// Refreshes jemalloc's statistics (`epoch`) and reads the cumulative totals.
/// Returns 0 on success; on failure (no jemalloc, stats disabled) `out` is zeroed.
int cjs_read_totals(cjs_totals *out);

/// Refreshes jemalloc's statistics and reads the bytes currently allocated
/// (`stats.allocated`: live, by size class). Returns 0 on success; else `out` is 0.
int cjs_read_allocated(uint64_t *out);

/// The jemalloc version string, or "" when jemalloc is not the allocator.
const char *cjs_version(void);

/// Bytes in glibc's fast bins over every arena (`mallinfo2().fsmblks`): small
/// blocks freed and not yet merged, which glibc merges all at once at a later
/// request or free. 0 when the process allocator is not glibc's. Walks every
/// fast bin under its arena's lock, so read it only outside a measured region.
uint64_t cjs_glibc_fast_bin_bytes(void);

#ifdef __cplusplus
}
#endif
