// CSchedulersThreadLocal: one thread-local pointer for the Schedulers
// library, read with a load instead of a call; and the processor's spin-wait
// hint, which Swift does not expose.
//
// Swift has no thread-local storage of its own. `pthread_getspecific` is a
// call into libc on every `CurrentThreadScheduler.schedule`; a C11
// `_Thread_local` variable is read in place (once the linker has relaxed the
// access, as it does for an executable: one load relative to the thread
// pointer). The functions are `static inline` so that Swift code, including
// the library's inlinable `schedule`, compiles them into its own body.
//
// The library keeps its pthread key too, but only for what this cannot do:
// to have its destructor release the thread's trampoline when the thread
// exits (see `Trampoline.makeCurrent` in Trampoline/Trampoline.swift).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// The calling thread's trampoline object (an unmanaged Swift reference,
/// owned by the thread's pthread key), or NULL before the thread's first use.
/// Never read or written directly: use the functions below.
extern _Thread_local void *_Nullable csched_trampoline_slot;

/// The calling thread's trampoline, or NULL if it has none yet.
static inline __attribute__((always_inline)) void *_Nullable csched_current_trampoline(void) {
    return csched_trampoline_slot;
}

/// Records `trampoline` as the calling thread's trampoline (NULL: none).
static inline __attribute__((always_inline)) void csched_set_current_trampoline(void *_Nullable trampoline) {
    csched_trampoline_slot = trampoline;
}

/// Tells the processor the calling thread is spinning on a lock (x86's
/// `pause`, Arm's `yield`), so that it stops issuing reads of the lock ahead
/// of time and lends its core to a sibling hardware thread. Has no other
/// effect; on other processors it does nothing.
static inline __attribute__((always_inline)) void csched_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

#ifdef __cplusplus
}
#endif
