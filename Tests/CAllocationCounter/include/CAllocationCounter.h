#pragma once
// Allocation counting for tests: the test executable's malloc, calloc,
// realloc, free, memalign, aligned_alloc and posix_memalign are wrappers that
// count and forward to glibc. Tests read the counters around a workload.
// Also the real stack address, for tests that check stack depth.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when allocations are counted; 0 in a sanitizer build, whose runtime
/// owns malloc (the counters then stay at zero).
int allocation_counter_is_active(void);

/// Allocations (malloc, calloc, realloc, memalign, aligned_alloc,
/// posix_memalign calls) made by the whole process since the last reset.
uint64_t allocation_counter_read(void);

/// Allocations made by the calling thread since its last reset.
uint64_t allocation_counter_read_thread(void);

/// Non-null frees made by the whole process since the last reset.
uint64_t allocation_counter_frees(void);

/// Zeroes the process counters and the calling thread's counter.
void allocation_counter_reset(void);

/// The largest size in bytes the calling thread has requested (malloc,
/// calloc's product, realloc, the aligned allocations) since it last called
/// `allocation_counter_reset_thread_largest_request`.
uint64_t allocation_counter_thread_largest_request(void);

/// Forgets the calling thread's largest request.
void allocation_counter_reset_thread_largest_request(void);

/// An address on the calling thread's real stack, a fixed distance below the
/// caller's frame: calls made at the same stack depth get the same value, in
/// every build (a Swift local's address does not do this under
/// AddressSanitizer, which moves address-taken locals to a heap "fake stack").
uintptr_t stack_address_of_caller_frame(void);

#ifdef __cplusplus
}
#endif
