/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: topology discovery from sysfs (src/topology_sysfs.c,
 * clof_topology_from_sysfs).  The files are the kernel's, but
 * CLOF_SYSFS_ROOT lets anyone point the library (and the preload library
 * inside someone else's process) at a tree of their own, and containers
 * and old kernels show odd trees.
 *
 * The input is a file tree, one file a line:
 *
 *   system/cpu/cpu0/topology/core_cpus_list 0-1
 *   system/node/node0/cpulist 0-3
 *   cpu_atom/cpus 4-7
 *
 * a path below ROOT/devices/ (letters, digits, '_', '-', '.'; no '..'
 * component), one space, the file's content.  The harness writes the tree
 * into a fresh temporary directory, discovers it, and removes it.
 * tests/fuzz/corpus/sysfs/ holds the fixture trees of tests/topology in
 * this form.
 *
 * Checks: a discovered topology is consistent (levels end with the system
 * level, every present cpu has a cohort at every level), and the failures
 * name the root.
 */
#define _GNU_SOURCE 1
#include <clof/topology.h>

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "fuzz_sysfs: check failed: %s (line %d)\n", #c, __LINE__); \
            abort();                                                             \
        }                                                                        \
    } while (0)

static char base[64]; /* /dev/shm (or /tmp)/clof-fuzz-sysfs.XXXXXX */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

static void cleanup(void)
{
    if (base[0])
        nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* a path below devices/ the harness may create */
static int path_ok(const char *p)
{
    if (!*p || *p == '/' || strlen(p) > 200)
        return 0;
    int depth = 0;
    for (const char *c = p; *c; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.' || *c == '/'))
            return 0;
        if (*c == '/' && (c[1] == '/' || c[1] == '\0'))
            return 0;
        depth += *c == '/';
    }
    /* no '.' or '..' component */
    for (const char *c = p; c; c = strchr(c, '/')) {
        if (*c == '/')
            c++;
        if ((c[0] == '.' && (c[1] == '/' || c[1] == '\0')) ||
            (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0')))
            return 0;
    }
    return depth <= 8;
}

/* mkdir -p of the directories of path (dir/...), then the file */
static int put(const char *root, const char *rel, const char *content)
{
    char path[512];
    snprintf(path, sizeof path, "%s/devices/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *s = '/';
            return -1;
        }
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return -1; /* a directory of that name already: skip */
    fprintf(f, "%s\n", content);
    fclose(f);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536 || memchr(data, '\0', size))
        return 0;
    if (!base[0]) {
        /* tmpfs where there is one: a disk makes each input take 0.1 s */
        snprintf(base, sizeof base, "/dev/shm/clof-fuzz-sysfs.XXXXXX");
        if (!mkdtemp(base)) {
            snprintf(base, sizeof base, "/tmp/clof-fuzz-sysfs.XXXXXX");
            CHECK(mkdtemp(base) != NULL);
        }
        atexit(cleanup);
    }
    char root[128];
    snprintf(root, sizeof root, "%s/root", base);
    CHECK(mkdir(root, 0700) == 0);

    char *text = malloc(size + 1);
    CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    int files = 0;
    for (char *line = text, *next; line && files < 4096; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        if (path_ok(line) && put(root, line, sp + 1) == 0)
            files++;
    }
    free(text);

    clof_topology_t t;
    clof_topo_error_t err;
    if (clof_topology_from_sysfs(&t, root, CLOF_TOPO_QUIET, &err) == 0) {
        CHECK(t.nlevels >= 1 && t.nlevels <= CLOF_TOPO_MAX_LEVELS);
        CHECK(t.level[t.nlevels - 1].kind == CLOF_LEVEL_SYSTEM);
        CHECK(t.npresent >= 1 && t.ncpus <= CLOF_TOPO_MAX_CPUS);
        for (uint32_t c = 0; c < t.ncpus; c++)
            if (t.present[c])
                for (uint32_t l = 0; l < t.nlevels; l++)
                    CHECK(clof_topo_cohort(&t, c, l) < t.level[l].ncohorts);
        clof_topology_free(&t);
    } else {
        CHECK(strstr(err.msg, root) != NULL);
    }
    nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
