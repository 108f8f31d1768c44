/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: CLOF_EMULATE, the shape of an emulated machine
 * (src/topology_emulate.c; "package:2,numa:2,cache:8,core:4;little=0-3"),
 * read through the library's own path: the value is put in the environment
 * and clof_topology_load reads it, as in a process started with it.  Also
 * CLOF_EMULATE_ASSIGN (the virtual cpu policy) and the cpu lists of
 * little= and of the sysfs files (clof_topo_cpulist_parse).
 *
 * Checks: the little cores are the little= lists; the cpu list parser
 * reads back what it formats; every virtual cpu handed out exists.
 *
 * The input: the shape, then optionally '\n' and an assignment policy.  A
 * shape with '/' or '.' is a hierarchy file's path (fuzz_topology_file
 * covers the file's text); such inputs are skipped, so that the fuzzer
 * does not open files of the machine it runs on.
 */
#define _GNU_SOURCE 1
#include <clof/topology.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "fuzz_emulate: check failed: %s (line %d)\n", #c, __LINE__); \
            abort();                                                             \
        }                                                                        \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 1);
    CHECK(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    char *assign = strchr(s, '\n');
    if (assign)
        *assign++ = '\0';
    if (strchr(s, '/') || strchr(s, '.')) {
        free(s);
        return 0;
    }

    /* the cpu list parser on the same bytes */
    static uint8_t set[CLOF_TOPO_MAX_CPUS];
    int n = clof_topo_cpulist_parse(s, set, CLOF_TOPO_MAX_CPUS);
    if (n >= 0) {
        static char buf[CLOF_TOPO_MAX_CPUS * 6]; /* any set fits */
        clof_topo_cpulist_format(buf, sizeof buf, set, CLOF_TOPO_MAX_CPUS);
        static uint8_t back[CLOF_TOPO_MAX_CPUS];
        CHECK(clof_topo_cpulist_parse(buf, back, CLOF_TOPO_MAX_CPUS) == n);
        CHECK(memcmp(set, back, sizeof set) == 0);
    }

    if (assign)
        (void)clof_topo_assign_from_name(assign);
    unsetenv("CLOF_TOPOLOGY"); /* it would come before CLOF_EMULATE */

    /* an empty CLOF_EMULATE means "not set": the machine's own topology,
     * not this harness's business */
    if (*s) {
        /* putenv of one buffer: setenv would keep every value ever set */
        static char var[4096 + 32];
        snprintf(var, sizeof var, "CLOF_EMULATE=%s", s);
        putenv(var);
        clof_topology_t t;
        clof_topo_error_t err;
        clof_topo_opts_t o = {NULL, NULL, NULL, CLOF_TOPO_QUIET | CLOF_TOPO_NO_FLAT};
        if (clof_topology_load(&t, &o, &err) == 0) {
            CHECK(t.emulated);
            CHECK(t.npresent >= 1 && t.npresent <= CLOF_TOPO_MAX_CPUS);
            CHECK(t.level[t.nlevels - 1].kind == CLOF_LEVEL_SYSTEM);
            /* the little cores are exactly the little= lists, however long
             * (a list was once cut at 255 characters of the shape) */
            static uint8_t little[CLOF_TOPO_MAX_CPUS], one[CLOF_TOPO_MAX_CPUS];
            memset(little, 0, sizeof little);
            for (const char *o = strchr(s, ';'); o; o = strchr(o + 1, ';')) {
                if (strncmp(o + 1, "little=", 7) != 0)
                    continue;
                char list[4096];
                size_t k = strcspn(o + 8, ";");
                snprintf(list, sizeof list, "%.*s", (int)k, o + 8);
                CHECK(clof_topo_cpulist_parse(list, one, CLOF_TOPO_MAX_CPUS) >= 0);
                for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
                    little[c] |= one[c];
            }
            for (uint32_t c = 0; c < t.ncpus; c++)
                CHECK((t.core_type[c] == CLOF_CORE_LITTLE) == (little[c] != 0));
            for (uint32_t k = 0; k < 2 * t.npresent; k++)
                for (int pol = CLOF_VCPU_PACKED; pol <= CLOF_VCPU_LINEAR; pol++) {
                    uint32_t v = clof_topo_assign_vcpu(&t, (clof_vcpu_assign_t)pol, k);
                    CHECK(v < t.ncpus && t.present[v]);
                }
            clof_topology_free(&t);
        } else {
            CHECK(strncmp(err.msg, "--emulate", 9) == 0);
        }
        unsetenv("CLOF_EMULATE");
    }
    free(s);
    return 0;
}
