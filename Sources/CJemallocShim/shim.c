#include "CJemallocShim.h"
