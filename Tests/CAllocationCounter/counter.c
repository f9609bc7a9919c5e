// Counts every allocation made in the test process.
//
// Linked into the test executable, these definitions of the allocator entry
// points interpose on glibc's: every malloc-family call, from Swift's runtime
// included, lands here, bumps a counter and forwards to glibc's own
// implementation (`__libc_malloc` and friends), so no dlsym bootstrap dance is
// needed. The process-wide counter is a relaxed atomic; a per-thread counter
// beside it lets a single-threaded test ignore allocations made meanwhile by
// other threads (dispatch workers finishing earlier tests).
//
// Under a sanitizer (ThreadSanitizer, AddressSanitizer) the sanitizer runtime
// owns malloc: the wrappers are left out, the counters stay at zero and
// `allocation_counter_is_active()` says so, so tests can skip.
#define _GNU_SOURCE
#include "CAllocationCounter.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ALLOCATION_COUNTER_DISABLED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ALLOCATION_COUNTER_DISABLED 1
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

static atomic_ullong allocations;
static atomic_ullong frees;
// initial-exec: the main executable's TLS is static, so reading it never allocates.
static __thread unsigned long long thread_allocations __attribute__((tls_model("initial-exec")));
static __thread unsigned long long thread_largest_request __attribute__((tls_model("initial-exec")));

#ifndef ALLOCATION_COUNTER_DISABLED
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);


static inline void count_allocation(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    thread_allocations += 1;
    if (size > thread_largest_request) {
        thread_largest_request = size;
    }
}

void *malloc(size_t size) {
    count_allocation(size);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    size_t total;
    count_allocation(__builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_allocation(size);
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL) {
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    }
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_allocation(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // posix_memalign's contract: a power of two that is a multiple of sizeof(void *).
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    count_allocation(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

#endif // ALLOCATION_COUNTER_DISABLED

int allocation_counter_is_active(void) {
#ifdef ALLOCATION_COUNTER_DISABLED
    return 0;
#else
    return 1;
#endif
}

uint64_t allocation_counter_read(void) {
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

uint64_t allocation_counter_frees(void) {
    return atomic_load_explicit(&frees, memory_order_relaxed);
}

void allocation_counter_reset(void) {
    atomic_store_explicit(&allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&frees, 0, memory_order_relaxed);
    thread_allocations = 0;
}

uint64_t allocation_counter_thread_largest_request(void) {
    return thread_largest_request;
}

void allocation_counter_reset_thread_largest_request(void) {
    thread_largest_request = 0;
}

uint64_t allocation_counter_read_thread(void) {
    return thread_allocations;
}
