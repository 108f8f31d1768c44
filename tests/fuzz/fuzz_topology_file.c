/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: the hierarchy file (src/topology_file.c,
 * clof_topology_parse; docs/topology.md "The hierarchy file").  CLOF_TOPOLOGY,
 * `clof topology --file`, simulator profiles and CLOF_EMULATE=PATH all read
 * one.
 *
 * Checks beyond "no crash": a rejected file leaves a message that names the
 * file and a line; an accepted one is a consistent topology that survives
 * the library's other operations (prune, copy, write, write_json) and
 * reads back, as written, to the same machine.
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
            fprintf(stderr, "fuzz_topology_file: check failed: %s (line %d)\n", #c, \
                    __LINE__);                                                   \
            abort();                                                             \
        }                                                                        \
    } while (0)

static void check_topology(const clof_topology_t *t)
{
    CHECK(t->nlevels >= 1 && t->nlevels <= CLOF_TOPO_MAX_LEVELS);
    CHECK(t->ncpus >= 1 && t->ncpus <= CLOF_TOPO_MAX_CPUS);
    CHECK(t->level[t->nlevels - 1].kind == CLOF_LEVEL_SYSTEM);
    CHECK(t->level[t->nlevels - 1].ncohorts == 1);
    for (uint32_t c = 0; c < t->ncpus; c++) {
        if (!t->present[c])
            continue;
        for (uint32_t l = 0; l < t->nlevels; l++)
            CHECK(clof_topo_cohort(t, c, l) < t->level[l].ncohorts);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clof_topology_t t;
    clof_topo_error_t err;
    if (clof_topology_parse(&t, (const char *)data, size, "fuzz.topo", &err) != 0) {
        /* a message "fuzz.topo:LINE: ..." */
        CHECK(strncmp(err.msg, "fuzz.topo:", 10) == 0);
        CHECK(strlen(err.msg) > 10);
        return 0;
    }
    check_topology(&t);

    /* written and read back: the same machine */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK(clof_topology_write(&t, f) == 0);
    fclose(f);
    clof_topology_t back;
    if (clof_topology_parse(&back, text, len, "written.topo", &err) != 0) {
        fprintf(stderr, "written file does not read back: %s\n--\n%s--\n", err.msg, text);
        abort();
    }
    CHECK(back.ncpus == t.ncpus && back.nlevels == t.nlevels && back.npresent == t.npresent);
    for (uint32_t l = 0; l < t.nlevels; l++) {
        CHECK(back.level[l].kind == t.level[l].kind);
        CHECK(back.level[l].ncohorts == t.level[l].ncohorts);
    }
    clof_topology_free(&back);
    free(text);

    f = fopen("/dev/null", "w");
    CHECK(f != NULL);
    CHECK(clof_topology_write_json(&t, f) == 0);
    fclose(f);

    clof_topology_t copy;
    CHECK(clof_topology_copy(&copy, &t) == 0);
    CHECK(clof_topology_prune(&copy) >= 0);
    check_topology(&copy);
    clof_topology_free(&copy);
    clof_topology_free(&t);
    return 0;
}
