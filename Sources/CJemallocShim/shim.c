// Reads jemalloc's cumulative counters. Every name is resolved once into a
// MIB so that a read around a measured region costs little and allocates nothing.
#define _GNU_SOURCE
#include "CJemallocShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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

// Per size class: MIB of its nmalloc counter and its size in bytes.
static size_t small_mib[MAX_CLASSES][6];
static size_t small_miblen[MAX_CLASSES];
static uint64_t small_size[MAX_CLASSES];
static unsigned small_count;
static size_t large_mib[MAX_CLASSES][6];
static size_t large_miblen[MAX_CLASSES];
static uint64_t large_size[MAX_CLASSES];
static unsigned large_count;
static size_t epoch_mib[2];
static size_t epoch_miblen;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int mib_for(const char *name, size_t *mib, size_t *len) {
    return p_nametomib(name, mib, len);
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
    for (unsigned j = 0; j < nbins; j++) {
        size_t size_mib[4];
        size_t size_len = 4;
        if (mib_for("arenas.bin.0.size", size_mib, &size_len) != 0) {
            return;
        }
        size_mib[2] = j;
        size_t size = 0;
        len = sizeof(size);
        if (p_bymib(size_mib, size_len, &size, &len, NULL, 0) != 0) {
            return;
        }
        small_size[j] = size;
        small_miblen[j] = 6;
        if (mib_for("stats.arenas.0.bins.0.nmalloc", small_mib[j], &small_miblen[j]) != 0) {
            return;
        }
        small_mib[j][2] = ARENAS_ALL;
        small_mib[j][4] = j;
    }
    for (unsigned j = 0; j < nlextents; j++) {
        size_t size_mib[4];
        size_t size_len = 4;
        if (mib_for("arenas.lextent.0.size", size_mib, &size_len) != 0) {
            return;
        }
        size_mib[2] = j;
        size_t size = 0;
        len = sizeof(size);
        if (p_bymib(size_mib, size_len, &size, &len, NULL, 0) != 0) {
            return;
        }
        large_size[j] = size;
        large_miblen[j] = 6;
        if (mib_for("stats.arenas.0.lextents.0.nmalloc", large_mib[j], &large_miblen[j]) != 0) {
            return;
        }
        large_mib[j][2] = ARENAS_ALL;
        large_mib[j][4] = j;
    }
    small_count = nbins;
    large_count = nlextents;
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

int cjs_read_totals(cjs_totals *out) {
    memset(out, 0, sizeof(*out));
    if (!cjs_available()) {
        return -1;
    }
    uint64_t epoch = 1;
    size_t len = sizeof(epoch);
    if (p_bymib(epoch_mib, epoch_miblen, &epoch, &len, &epoch, sizeof(epoch)) != 0) {
        return -1;
    }
    uint64_t allocations = 0, bytes = 0;
    for (unsigned j = 0; j < small_count; j++) {
        uint64_t n = 0;
        len = sizeof(n);
        if (p_bymib(small_mib[j], small_miblen[j], &n, &len, NULL, 0) != 0) {
            return -1;
        }
        allocations += n;
        bytes += n * small_size[j];
    }
    for (unsigned j = 0; j < large_count; j++) {
        uint64_t n = 0;
        len = sizeof(n);
        if (p_bymib(large_mib[j], large_miblen[j], &n, &len, NULL, 0) != 0) {
            return -1;
        }
        allocations += n;
        bytes += n * large_size[j];
    }
    out->allocations = allocations;
    out->bytes = bytes;
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
