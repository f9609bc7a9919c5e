// Where the calling thread's stack is, for tests that check a chain of calls
// runs at constant stack depth.
//
// A Swift test cannot take this from a local: under AddressSanitizer a local
// whose address is taken lives on a heap-allocated "fake stack" (stack
// use-after-return detection), so its address says nothing about the real
// stack. This function's own frame address is always on the real stack.
#include "CAllocationCounter.h"

__attribute__((noinline))
uintptr_t stack_address_of_caller_frame(void) {
    return (uintptr_t)__builtin_frame_address(0);
}
