#include "CAllocationCounter.h"
