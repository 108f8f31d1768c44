/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: the simulator's machine profiles (sim/sim.c,
 * sim_profile_parse; docs/simulation.md), which `clof-bench --simulate`
 * and `clof run --simulate` read from a file a user names.
 *
 * The profile is read as if it lay in the source tree's sim/profiles/
 * (CLOF_FUZZ_PROFILE_DIR), so that its 'hierarchy FILE' finds the real
 * hierarchy files there (local.topo, ../../examples/topology/...).  Inputs
 * whose hierarchy names an absolute path or a device are skipped: the
 * fuzzer must not open the machine's files (fuzz_topology_file covers
 * the hierarchy's text).
 *
 * Checks: a rejected profile has a message "PATH:LINE: ..." or
 * "PATH: ..."; an accepted one had nothing cut (lines, cpu lists), has
 * costs in the documented ranges and a pair table over its cpus.
 */
#define _GNU_SOURCE 1
#include "sim.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "fuzz_sim_profile: check failed: %s (line %d)\n", #c, \
                    __LINE__);                                                   \
            abort();                                                             \
        }                                                                        \
    } while (0)

#ifndef CLOF_FUZZ_PROFILE_DIR
#error "CLOF_FUZZ_PROFILE_DIR: the directory of the real profiles"
#endif

/* could the 'hierarchy' word name something other than a file of the
 * source tree? (an absolute path; /dev, /proc, /sys reached by '..') */
static int unsafe(const char *s, size_t n)
{
    const char *p = s, *end = s + n;
    while ((p = memmem(p, (size_t)(end - p), "hierarchy", 9)) != NULL) {
        const char *q = p + 9;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
            q++;
        if (q < end && *q == '/')
            return 1;
        p += 9;
    }
    return memmem(s, n, "/dev", 4) || memmem(s, n, "/proc", 5) || memmem(s, n, "/sys", 4);
}

/* would the parser have had to cut something of this text?  (a line
 * longer than its buffer, a 'speed' cpu list longer than its own: both
 * were once cut silently; they must be errors) */
static int needs_cutting(const char *s, size_t n)
{
    const char *end = s + n;
    for (const char *l = s; l < end;) {
        const char *e = memchr(l, '\n', (size_t)(end - l));
        size_t len = (size_t)((e ? e : end) - l);
        if (len > 1022)
            return 1;
        const char *p = l;
        while (p < l + len && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if ((size_t)(l + len - p) > 6 && memcmp(p, "speed", 5) == 0 &&
            (p[5] == ' ' || p[5] == '\t')) {
            p += 6;
            while (p < l + len && (*p == ' ' || *p == '\t'))
                p++;
            size_t w = 0;
            while (p + w < l + len && p[w] != ' ' && p[w] != '\t' && p[w] != '\r' &&
                   p[w] != '#' && p[w] != '\0')
                w++;
            if (w > 511)
                return 1;
        }
        l = e ? e + 1 : end;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536 || unsafe((const char *)data, size))
        return 0;
    sim_profile_t p;
    char err[2048];
    const char *path = CLOF_FUZZ_PROFILE_DIR "/fuzz.profile";
    if (sim_profile_parse(&p, path, (const char *)data, size, err, sizeof err) != 0) {
        if (getenv("CLOF_FUZZ_VERBOSE"))
            fprintf(stderr, "%s\n", err);
        CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
        return 0;
    }
    CHECK(!needs_cutting((const char *)data, size));
    CHECK(p.topo.ncpus >= 1 && p.topo.ncpus <= SIM_MAX_CPUS);
    CHECK(p.hit_ns >= 0 && p.hit_ns <= 1e6 && p.memory_ns >= 0 && p.memory_ns <= 1e6);
    CHECK(p.jitter >= 0 && p.jitter <= 0.9);
    for (uint32_t a = 0; a < p.topo.ncpus; a++) {
        CHECK(p.speed[a] >= 0.01 && p.speed[a] <= 100);
        for (uint32_t b = 0; b < p.topo.ncpus; b++)
            CHECK(p.pair_ns[(size_t)a * p.topo.ncpus + b] >= 0);
    }
    sim_profile_free(&p);
    return 0;
}
