// Reads jemalloc's cumulative counters. Every name is resolved once into a
// MIB so that a read around a measured region costs little and allocates nothing.
#define _GNU_SOURCE
#include "CJemallocShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef int (*mallctlnametomib_fn)(const char *, size_t *, size_t *);
typedef int (*mallctlbymib_fn)(const size_t *, size_t, void *, size_t *, void *, size_t);

// jemalloc's MALLCTL_ARENAS_ALL: the merged statistics of every arena.
#define ARENAS_ALL 4096
#define MAX_CLASSES 512

static mallctl_fn p_mallctl;
static mallctlnametomib_fn p_nametomib;
static mallctlbymib_fn p_bymib;
static int resolved_ok;

// One family of size classes (small bins or large extents): per class, the
// MIB of its nmalloc counter and its size in bytes.
typedef struct {
    size_t mib[MAX_CLASSES][6];
    size_t miblen[MAX_CLASSES];
    uint64_t size[MAX_CLASSES];
    unsigned count;
} size_classes;

static size_classes small_classes;
static size_classes large_classes;
static size_t epoch_mib[2];
static size_t epoch_miblen;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int mib_for(const char *name, size_t *mib, size_t *len) {
    return p_nametomib(name, mib, len);
}

// Resolves `count` classes: `size_name` and `nmalloc_name` are the names of
// class 0; the class index is MIB element 2 of the size and 4 of the counter.
static int resolve_classes(size_classes *classes, unsigned count, const char *size_name, const char *nmalloc_name) {
    for (unsigned j = 0; j < count; j++) {
        size_t size_mib[4];
        size_t size_len = 4;
        if (mib_for(size_name, size_mib, &size_len) != 0) {
            return -1;
        }
        size_mib[2] = j;
        size_t size = 0;
        size_t len = sizeof(size);
        if (p_bymib(size_mib, size_len, &size, &len, NULL, 0) != 0) {
            return -1;
        }
        classes->size[j] = size;
        classes->miblen[j] = 6;
        if (mib_for(nmalloc_name, classes->mib[j], &classes->miblen[j]) != 0) {
            return -1;
        }
        classes->mib[j][2] = ARENAS_ALL;
        classes->mib[j][4] = j;
    }
    classes->count = count;
    return 0;
}

// Adds the allocations and bytes counted so far in every class of `classes`.
static int add_counts(const size_classes *classes, uint64_t *allocations, uint64_t *bytes) {
    for (unsigned j = 0; j < classes->count; j++) {
        uint64_t n = 0;
        size_t len = sizeof(n);
        if (p_bymib(classes->mib[j], classes->miblen[j], &n, &len, NULL, 0) != 0) {
            return -1;
        }
        *allocations += n;
        *bytes += n * classes->size[j];
    }
    return 0;
}

static void resolve(void) {
    p_mallctl = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
    p_nametomib = (mallctlnametomib_fn)dlsym(RTLD_DEFAULT, "mallctlnametomib");
    p_bymib = (mallctlbymib_fn)dlsym(RTLD_DEFAULT, "mallctlbymib");
    if (!p_mallctl || !p_nametomib || !p_bymib) {
        return;
    }
    epoch_miblen = 1;
    if (mib_for("epoch", epoch_mib, &epoch_miblen) != 0) {
        return;
    }
    unsigned nbins = 0, nlextents = 0;
    size_t len = sizeof(unsigned);
    if (p_mallctl("arenas.nbins", &nbins, &len, NULL, 0) != 0) {
        return;
    }
    len = sizeof(unsigned);
    if (p_mallctl("arenas.nlextents", &nlextents, &len, NULL, 0) != 0) {
        return;
    }
    if (nbins > MAX_CLASSES || nlextents > MAX_CLASSES) {
        return;
    }
    if (resolve_classes(&small_classes, nbins, "arenas.bin.0.size", "stats.arenas.0.bins.0.nmalloc") != 0 ||
        resolve_classes(&large_classes, nlextents, "arenas.lextent.0.size", "stats.arenas.0.lextents.0.nmalloc") != 0) {
        return;
    }
    resolved_ok = 1;
}

int cjs_available(void) {
    pthread_once(&once, resolve);
    return resolved_ok;
}

int cjs_tcache_enabled(void) {
    if (!cjs_available()) {
        return 0;
    }
    bool enabled = false;
    size_t len = sizeof(enabled);
    if (p_mallctl("opt.tcache", &enabled, &len, NULL, 0) != 0) {
        return 0;
    }
    return enabled ? 1 : 0;
}

/* Makes jemalloc refresh the statistics it reports (advances its epoch):
   0 on success, -1 when jemalloc is not available or refuses. */
static int refresh_stats(void) {
    if (!cjs_available()) {
        return -1;
    }
    uint64_t epoch = 1;
    size_t len = sizeof(epoch);
    return p_bymib(epoch_mib, epoch_miblen, &epoch, &len, &epoch, sizeof(epoch)) != 0 ? -1 : 0;
}

int cjs_read_totals(cjs_totals *out) {
    memset(out, 0, sizeof(*out));
    if (refresh_stats() != 0) {
        return -1;
    }
    uint64_t allocations = 0, bytes = 0;
    if (add_counts(&small_classes, &allocations, &bytes) != 0 || add_counts(&large_classes, &allocations, &bytes) != 0) {
        return -1;
    }
    out->allocations = allocations;
    out->bytes = bytes;
    return 0;
}

int cjs_read_allocated(uint64_t *out) {
    *out = 0;
    if (refresh_stats() != 0) {
        return -1;
    }
    size_t allocated = 0;
    size_t len = sizeof(allocated);
    if (p_mallctl("stats.allocated", &allocated, &len, NULL, 0) != 0) {
        return -1;
    }
    *out = allocated;
    return 0;
}

const char *cjs_version(void) {
    if (!cjs_available()) {
        return "";
    }
    const char *version = "";
    size_t len = sizeof(version);
    if (p_mallctl("version", &version, &len, NULL, 0) != 0) {
        return "";
    }
    return version;
}

uint64_t cjs_glibc_fast_bin_bytes(void) {
#if defined(__GLIBC__)
    // Under a preloaded jemalloc this reads glibc's unused arenas: 0.
    if (cjs_available()) return 0;
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.fsmblks;
#else
    return 0;
#endif
}
