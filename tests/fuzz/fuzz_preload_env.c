/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: CLOF_LOCK and CLOF_STATS as libclof-preload.so reads them
 * inside someone else's process (src/preload/pl_config.c,
 * pl_config_parse).  The input: CLOF_LOCK's value, then optionally '\n'
 * and CLOF_STATS's.
 *
 * The harness links pl_config.c with the library's lock table
 * (pl_table.h) without the lock code: PL_TABLE_OPS gives no ops.  The
 * environment's other values (CLOF_TOPOLOGY, CLOF_EMULATE,
 * CLOF_EMULATE_ASSIGN, CLOF_ASL_*) go to libclof: fuzz_topology_file,
 * fuzz_emulate and fuzz_asl_env.
 *
 * Checks: either a lock of the table is selected and no message is made,
 * or none (glibc's locks) and, unless glibc was asked for, a message that
 * quotes the value (cut to its buffer) and lists the known locks.
 */
#define PL_TABLE_OPS(id, n) NULL
#include "pl_table.h"
#include "lockname.h"

#include <stdio.h>
#include <stdlib.h>

/* The hooks the lock code of pl_internal.h refers to (pl_core.c defines
 * them in the library).  Unused here, but a build without optimisation
 * keeps that inline code, so they must exist; libclof too is linked. */
bool pl_stats_on;
PL_TLS uint64_t pl_parks;
PL_TLS uint64_t pl_levels[PL_MAX_LEVELS];

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "fuzz_preload_env: check failed: %s (line %d)\n", #c, \
                    __LINE__);                                                   \
            abort();                                                             \
        }                                                                        \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *s = malloc(size + 1);
    CHECK(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    char *stats = strchr(s, '\n');
    if (stats)
        *stats++ = '\0';
    pl_config_t cf;
    char canon[CLOF_LOCKNAME_MAX];
    pl_config_parse(s, stats, &cf);
    CHECK(cf.value == s);
    CHECK(strlen(cf.stats_msg) < sizeof cf.stats_msg);
    CHECK(strlen(cf.lock_msg) < sizeof cf.lock_msg);
    if (cf.lock) {
        CHECK(cf.lock >= pl_lockdefs && cf.lock < pl_lockdefs + pl_nlockdefs);
        CHECK(cf.lock_msg[0] == 0);
        /* never selected by a value cut to the name buffers (the longest
         * spelling of a lock, asl:clof:hemlock_ctr-hemlock_ctr-hemlock_ctr,
         * has 50 characters) */
        CHECK(strlen(s) < 128);
    } else if (!clof_lockname_canon(s, canon, sizeof canon) || strcmp(canon, "pthread") != 0) {
        /* not glibc, pthread or none (any case) */
        CHECK(strncmp(cf.lock_msg, "clof-preload: ", 14) == 0);
        CHECK(strstr(cf.lock_msg, "CLOF_LOCK='") != NULL);
    }
    if (cf.stats_msg[0])
        CHECK(!cf.stats && strstr(cf.stats_msg, "CLOF_STATS='") != NULL);
    free(s);
    return 0;
}
