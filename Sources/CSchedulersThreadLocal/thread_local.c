#include "CSchedulersThreadLocal.h"

// The one definition of the slot the header declares: zero (NULL) in every
// new thread.
_Thread_local void *_Nullable csched_trampoline_slot = 0;
