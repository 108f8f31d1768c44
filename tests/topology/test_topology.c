/* SPDX-License-Identifier: MIT */
/*
 * Tests of the runtime topology (include/clof/topology.h).
 *
 *   test_topology GROUP FIXTURES EXAMPLES
 *
 * FIXTURES is tests/topology/fixtures (sysfs/ and bad/ below it), EXAMPLES
 * is examples/topology.  Each GROUP checks one property; every check prints
 * what it expected on failure and the program exits 1.
 */
#define _GNU_SOURCE
#include <clof/topology.h>

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
static const char *fixtures, *examples;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static char *path(const char *fmt, ...)
{
    static char buf[4][1024];
    static int k;
    char *b = buf[k++ % 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    return b;
}

static bool same_cohort(const clof_topology_t *t, uint32_t a, uint32_t b, clof_level_kind_t k)
{
    int l = clof_topo_level_index(t, k);
    return l >= 0 && clof_topo_cohort(t, a, (uint32_t)l) == clof_topo_cohort(t, b, (uint32_t)l);
}

/* the level kinds, leaves up, as "core,cache,system" */
static const char *kinds(const clof_topology_t *t)
{
    static char b[128];
    b[0] = '\0';
    for (uint32_t l = 0; l < t->nlevels; l++) {
        strcat(b, l ? "," : "");
        strcat(b, clof_topo_level_name(t->level[l].kind));
    }
    return b;
}

static const char *counts(const clof_topology_t *t)
{
    static char b[128];
    b[0] = '\0';
    for (uint32_t l = 0; l < t->nlevels; l++)
        sprintf(b + strlen(b), "%s%u", l ? "," : "", t->level[l].ncohorts);
    return b;
}

/* every table agrees with every other, and the numbering is canonical */
static void check_invariants(const clof_topology_t *t, const char *what)
{
    CHECK(t->nlevels >= 1 && t->nlevels <= CLOF_TOPO_MAX_LEVELS, "%s: nlevels %u", what, t->nlevels);
    if (t->nlevels == 0)
        return;
    CHECK(t->level[t->nlevels - 1].kind == CLOF_LEVEL_SYSTEM, "%s: last level is system", what);
    CHECK(t->level[t->nlevels - 1].ncohorts == 1, "%s: one system cohort", what);
    uint32_t np = 0;
    for (uint32_t c = 0; c < t->ncpus; c++)
        np += t->present[c];
    CHECK(np == t->npresent, "%s: npresent %u, counted %u", what, t->npresent, np);
    for (uint32_t l = 0; l < t->nlevels; l++) {
        const clof_topo_level_t *L = &t->level[l];
        if (l + 1 < t->nlevels)
            CHECK(L->kind < t->level[l + 1].kind, "%s: level order", what);
        uint32_t sum = 0;
        for (uint32_t co = 0; co < L->ncohorts; co++) {
            sum += L->size[co];
            CHECK(L->size[co] == L->cpu_start[co + 1] - L->cpu_start[co], "%s: size/cpu_start", what);
            CHECK(L->size[co] > 0, "%s: empty cohort %u at level %u", what, co, l);
            for (uint32_t i = L->cpu_start[co]; i < L->cpu_start[co + 1]; i++) {
                uint32_t c = L->cpus[i];
                CHECK(t->present[c] && clof_topo_cohort(t, c, l) == co,
                      "%s: cpu %u listed in cohort %u of level %u", what, c, co, l);
                if (i > L->cpu_start[co])
                    CHECK(L->cpus[i - 1] < c, "%s: cpus ascending", what);
            }
            if (co > 0) {
                /* canonical: by parent, then by lowest cpu */
                bool ordered = L->parent[co - 1] < L->parent[co] ||
                               (L->parent[co - 1] == L->parent[co] &&
                                L->cpus[L->cpu_start[co - 1]] < L->cpus[L->cpu_start[co]]);
                CHECK(ordered, "%s: level %u cohort %u not in canonical order", what, l, co);
            }
        }
        CHECK(sum == t->npresent, "%s: level %u sizes add to %u", what, l, sum);
        if (l > 0) {
            const clof_topo_level_t *B = &t->level[l - 1];
            CHECK(L->child_start[L->ncohorts] == B->ncohorts, "%s: children of level %u", what, l);
            for (uint32_t co = 0; co < L->ncohorts; co++)
                for (uint32_t k = L->child_start[co]; k < L->child_start[co + 1]; k++)
                    CHECK(B->parent[k] == co, "%s: child %u of cohort %u", what, k, co);
        } else {
            CHECK(L->child_start == NULL, "%s: no children at level 0", what);
        }
    }
    for (uint32_t c = 0; c < t->ncpus; c++) {
        if (!t->present[c])
            continue;
        for (uint32_t l = 0; l + 1 < t->nlevels; l++)
            CHECK(t->level[l].parent[clof_topo_cohort(t, c, l)] == clof_topo_cohort(t, c, l + 1),
                  "%s: cpu %u: parent at level %u", what, c, l);
        CHECK(clof_topo_cohorts_of(t, c)[0] == clof_topo_cohort(t, c, 0), "%s: row", what);
    }
    /* the assignment orders are permutations of the present cpus */
    uint8_t *seen = calloc(t->ncpus, 2);
    for (uint32_t i = 0; i < t->npresent; i++) {
        CHECK(t->present[t->order_packed[i]] && !seen[t->order_packed[i]]++, "%s: packed order", what);
        CHECK(t->present[t->order_spread[i]] && !seen[t->ncpus + t->order_spread[i]]++,
              "%s: spread order", what);
    }
    free(seen);
}

/* same levels, thresholds, cohort of every cpu, core types */
static bool same_topology(const clof_topology_t *a, const clof_topology_t *b, bool thresholds)
{
    if (a->ncpus != b->ncpus || a->nlevels != b->nlevels || a->npresent != b->npresent)
        return false;
    for (uint32_t l = 0; l < a->nlevels; l++) {
        if (a->level[l].kind != b->level[l].kind || a->level[l].ncohorts != b->level[l].ncohorts)
            return false;
        if (thresholds && a->level[l].threshold != b->level[l].threshold)
            return false;
    }
    for (uint32_t c = 0; c < a->ncpus; c++) {
        if (a->present[c] != b->present[c] || a->core_type[c] != b->core_type[c])
            return false;
        for (uint32_t l = 0; l < a->nlevels; l++)
            if (clof_topo_cohort(a, c, l) != clof_topo_cohort(b, c, l))
                return false;
    }
    return true;
}

static int load_sysfs(clof_topology_t *t, const char *machine, unsigned flags)
{
    clof_topo_error_t err;
    int rc = clof_topology_from_sysfs(t, path("%s/sysfs/%s", fixtures, machine), flags, &err);
    CHECK(rc == 0, "sysfs fixture %s: %s", machine, err.msg);
    if (rc == 0)
        check_invariants(t, machine);
    return rc;
}

static bool is_zeroed(const clof_topology_t *t)
{
    static const clof_topology_t zero;
    return memcmp(t, &zero, sizeof zero) == 0;
}

/* ---- sysfs fixtures: each machine yields its expected levels ---------------- */

static void test_sysfs_vm(void)
{
    clof_topology_t t;
    if (load_sysfs(&t, "vm", 0) != 0)
        return;
    CHECK(!strcmp(kinds(&t), "system"), "vm lock levels: got %s", kinds(&t));
    CHECK(t.npresent == 2 && t.ncpus == 2, "vm: 2 cpus, got %u", t.npresent);
    CHECK(!t.warning[0], "vm: no warning, got '%s'", t.warning);
    CHECK(t.capacity[0] == 1024 && t.capacity[1] == 1024, "vm: capacity 1024");
    CHECK(!clof_topo_is_little(&t, 0) && !clof_topo_is_little(&t, 1), "vm: all big");
    clof_topology_free(&t);
    /* every level: 1 package, 1 NUMA node, 1 shared L3, 2 cores of 1 cpu */
    if (load_sysfs(&t, "vm", CLOF_TOPO_KEEP_ALL) != 0)
        return;
    CHECK(!strcmp(kinds(&t), "core,cache,numa,package,system"), "vm all levels: got %s", kinds(&t));
    CHECK(!strcmp(counts(&t), "2,1,1,1,1"), "vm cohort counts: got %s", counts(&t));
    CHECK(same_cohort(&t, 0, 1, CLOF_LEVEL_CACHE) && !same_cohort(&t, 0, 1, CLOF_LEVEL_CORE),
          "vm: cpus 0 and 1 share the L3, not a core");
    clof_topology_free(&t);
}

static void test_sysfs_epyc7352(void)
{
    clof_topology_t t;
    if (load_sysfs(&t, "epyc7352", 0) != 0)
        return;
    CHECK(!strcmp(kinds(&t), "core,cache,numa,system"), "epyc levels: got %s", kinds(&t));
    CHECK(!strcmp(counts(&t), "48,16,2,1"), "epyc counts: got %s", counts(&t));
    CHECK(same_cohort(&t, 0, 48, CLOF_LEVEL_CORE) && !same_cohort(&t, 0, 1, CLOF_LEVEL_CORE),
          "epyc: cpus 0 and 48 are one core");
    static const uint32_t g0[] = {0, 1, 2, 48, 49, 50};
    int cl = clof_topo_level_index(&t, CLOF_LEVEL_CACHE);
    uint32_t co = clof_topo_cohort(&t, 0, (uint32_t)cl);
    const clof_topo_level_t *L = &t.level[cl];
    CHECK(L->size[co] == 6 && !memcmp(&L->cpus[L->cpu_start[co]], g0, sizeof g0),
          "epyc: cache group of cpu 0 is 0,1,2,48,49,50");
    CHECK(!same_cohort(&t, 2, 3, CLOF_LEVEL_CACHE), "epyc: cpu 3 is in the next cache group");
    CHECK(same_cohort(&t, 0, 71, CLOF_LEVEL_NUMA) && !same_cohort(&t, 0, 24, CLOF_LEVEL_NUMA),
          "epyc: node 0 is 0-23,48-71");
    for (uint32_t c = 0; c < 96; c++)
        CHECK(!clof_topo_is_little(&t, c), "epyc: cpu %u big", c);
    CHECK(!t.warning[0], "epyc: no warning, got '%s'", t.warning);
    clof_topology_free(&t);
    if (load_sysfs(&t, "epyc7352", CLOF_TOPO_KEEP_ALL) != 0)
        return;
    CHECK(!strcmp(counts(&t), "48,16,2,2,1"), "epyc all counts: got %s", counts(&t));
    clof_topology_free(&t);
}

static void test_sysfs_kunpeng920(void)
{
    clof_topology_t t;
    if (load_sysfs(&t, "kunpeng920", 0) != 0)
        return;
    CHECK(!strcmp(kinds(&t), "cache,numa,package,system"), "kunpeng levels: got %s", kinds(&t));
    CHECK(!strcmp(counts(&t), "32,4,2,1"), "kunpeng counts: got %s", counts(&t));
    for (uint32_t co = 0; co < 32; co++)
        CHECK(t.level[0].size[co] == 4, "kunpeng: cache group %u has 4 cores", co);
    CHECK(same_cohort(&t, 4, 7, CLOF_LEVEL_CACHE) && !same_cohort(&t, 3, 4, CLOF_LEVEL_CACHE),
          "kunpeng: the cluster (4-7), not the L3 (0-31), is the cache group");
    CHECK(same_cohort(&t, 0, 31, CLOF_LEVEL_NUMA) && !same_cohort(&t, 31, 32, CLOF_LEVEL_NUMA),
          "kunpeng: nodes of 32");
    CHECK(same_cohort(&t, 0, 63, CLOF_LEVEL_PACKAGE) && !same_cohort(&t, 63, 64, CLOF_LEVEL_PACKAGE),
          "kunpeng: packages of 64");
    CHECK(!clof_topo_is_little(&t, 5), "kunpeng: equal capacities are all big");
    clof_topology_free(&t);
}

static void test_sysfs_alderlake(void)
{
    clof_topology_t t;
    if (load_sysfs(&t, "alderlake", 0) != 0)
        return;
    CHECK(!strcmp(kinds(&t), "core,cache,system"), "alderlake levels: got %s", kinds(&t));
    CHECK(!strcmp(counts(&t), "16,10,1"), "alderlake counts: got %s", counts(&t));
    CHECK(same_cohort(&t, 0, 1, CLOF_LEVEL_CORE) && !same_cohort(&t, 16, 17, CLOF_LEVEL_CORE),
          "alderlake: P-core threads pair up, E-cores are single");
    CHECK(same_cohort(&t, 16, 19, CLOF_LEVEL_CACHE) && !same_cohort(&t, 19, 20, CLOF_LEVEL_CACHE),
          "alderlake: E-core clusters of 4");
    CHECK(!same_cohort(&t, 1, 2, CLOF_LEVEL_CACHE), "alderlake: each P-core is its own cache group");
    for (uint32_t c = 0; c < 24; c++)
        CHECK(clof_topo_is_little(&t, c) == (c >= 16), "alderlake: cpu %u %s", c,
              c >= 16 ? "little (cpu_atom)" : "big (cpu_core)");
    clof_topology_free(&t);
}

static void test_sysfs_biglittle(void)
{
    clof_topology_t t;
    if (load_sysfs(&t, "biglittle", 0) != 0)
        return;
    CHECK(!strcmp(kinds(&t), "cache,system"), "biglittle levels: got %s", kinds(&t));
    CHECK(!strcmp(counts(&t), "2,1"), "biglittle counts: got %s", counts(&t));
    CHECK(same_cohort(&t, 0, 3, CLOF_LEVEL_CACHE) && !same_cohort(&t, 3, 4, CLOF_LEVEL_CACHE),
          "biglittle: clusters 0-3 and 4-7");
    for (uint32_t c = 0; c < 8; c++) {
        CHECK(clof_topo_is_little(&t, c) == (c < 4), "biglittle: cpu %u %s", c,
              c < 4 ? "little (capacity 446)" : "big (1024)");
        CHECK(t.capacity[c] == (c < 4 ? 446u : 1024u), "biglittle: capacity of %u", c);
    }
    CHECK(!t.warning[0], "biglittle: no NUMA directory is not worth a warning, got '%s'", t.warning);
    clof_topology_free(&t);
}

static void test_sysfs_broken(void)
{
    clof_topology_t t;
    clof_topo_error_t err;
    /* no cpu directory: an error from sysfs, a flat topology from load */
    CHECK(clof_topology_from_sysfs(&t, path("%s/sysfs/broken-empty", fixtures), 0, &err) != 0,
          "broken-empty must fail");
    CHECK(is_zeroed(&t), "broken-empty: nothing half-built");
    clof_topo_opts_t o = {NULL, NULL, path("%s/sysfs/broken-empty", fixtures),
                          CLOF_TOPO_NO_ENV | CLOF_TOPO_QUIET};
    CHECK(clof_topology_load(&t, &o, &err) == 0, "load falls back: %s", err.msg);
    CHECK(t.source == CLOF_TOPO_SRC_FLAT && t.nlevels == 1, "flat fallback, got %s with %u levels",
          clof_topo_source_name(t.source), t.nlevels);
    CHECK(strstr(t.warning, "using one flat system level") && strstr(t.warning, "no cpus"),
          "one warning that says why: '%s'", t.warning);
    check_invariants(&t, "flat");
    clof_topology_free(&t);
    o.flags |= CLOF_TOPO_NO_FLAT;
    CHECK(clof_topology_load(&t, &o, &err) != 0 && strstr(err.msg, "no cpus"),
          "NO_FLAT: the sysfs error, got '%s'", err.msg);

    /* cpus but no topology or cache files: system only, one warning naming them */
    if (load_sysfs(&t, "broken-notopology", 0) == 0) {
        CHECK(!strcmp(kinds(&t), "system") && t.npresent == 4, "notopology: system over 4 cpus, got %s",
              kinds(&t));
        CHECK(strstr(t.warning, "thread_siblings_list missing") &&
              strstr(t.warning, "shared_cpu_list missing") &&
              strstr(t.warning, "physical_package_id missing"),
              "notopology warning: '%s'", t.warning);
        clof_topology_free(&t);
    }
    /* contradicting thread siblings: no core level, the rest stays */
    if (load_sysfs(&t, "broken-inconsistent", CLOF_TOPO_KEEP_ALL) == 0) {
        CHECK(clof_topo_level_index(&t, CLOF_LEVEL_CORE) < 0, "inconsistent: no core level");
        CHECK(clof_topo_level_index(&t, CLOF_LEVEL_CACHE) >= 0, "inconsistent: cache level stays");
        CHECK(strstr(t.warning, "thread_siblings_list inconsistent") != NULL, "warning: '%s'", t.warning);
        clof_topology_free(&t);
    }
}

/* ---- examples: the shipped hierarchy files equal the fixture machines ------- */

static void test_examples(void)
{
    static const char *const pairs[][2] = {{"kunpeng920", "kunpeng920"},
                                           {"epyc7352", "epyc7352"},
                                           {"alderlake-12900k", "alderlake"},
                                           {"biglittle-4+4", "biglittle"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        clof_topology_t f, s;
        clof_topo_error_t err;
        int rc = clof_topology_load_file(&f, path("%s/%s.topo", examples, pairs[i][0]), &err);
        CHECK(rc == 0, "example %s: %s", pairs[i][0], err.msg);
        if (rc != 0)
            continue;
        check_invariants(&f, pairs[i][0]);
        CHECK(f.source == CLOF_TOPO_SRC_FILE && f.name[0], "example %s: source file with a name",
              pairs[i][0]);
        if (load_sysfs(&s, pairs[i][1], 0) == 0) {
            CHECK(same_topology(&f, &s, true), "example %s equals the %s fixture: %s vs %s",
                  pairs[i][0], pairs[i][1], counts(&f), counts(&s));
            clof_topology_free(&s);
        }
        clof_topology_free(&f);
    }
    /* the 3-level variants */
    clof_topology_t t;
    clof_topo_error_t err;
    if (clof_topology_load_file(&t, path("%s/kunpeng920-3level.topo", examples), &err) == 0) {
        CHECK(!strcmp(kinds(&t), "cache,numa,system") && !strcmp(counts(&t), "32,4,1"),
              "kunpeng 3-level: %s %s", kinds(&t), counts(&t));
        CHECK(t.level[0].threshold == 64 && t.level[1].threshold == 128, "kunpeng 3-level thresholds");
        CHECK(same_cohort(&t, 4, 7, CLOF_LEVEL_CACHE) && !same_cohort(&t, 3, 4, CLOF_LEVEL_CACHE),
              "blocks 4");
        clof_topology_free(&t);
    } else {
        CHECK(0, "kunpeng920-3level: %s", err.msg);
    }
    if (clof_topology_load_file(&t, path("%s/epyc7352-3level.topo", examples), &err) == 0) {
        CHECK(!strcmp(kinds(&t), "cache,package,system") && !strcmp(counts(&t), "16,2,1"),
              "epyc 3-level: %s %s", kinds(&t), counts(&t));
        clof_topology_free(&t);
    } else {
        CHECK(0, "epyc7352-3level: %s", err.msg);
    }
}

/* ---- bad files: every one rejected with its file:line and message --------- */

static void test_bad_files(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bad", fixtures);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d)
        return;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".topo"))
            continue;
        char file[1300];
        snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
        FILE *f = fopen(file, "r");
        char first[512] = "";
        if (!f || !fgets(first, sizeof first, f)) {
            CHECK(0, "%s: unreadable", file);
            if (f)
                fclose(f);
            continue;
        }
        fclose(f);
        first[strcspn(first, "\n")] = '\0';
        unsigned line = 0;
        int off = 0;
        CHECK(sscanf(first, "# expect: %u: %n", &line, &off) == 1 && off > 0,
              "%s: first line must be '# expect: LINE: MESSAGE'", file);
        const char *want = first + off;
        clof_topology_t t;
        memset(&t, 0x5a, sizeof t); /* garbage in: must come back zeroed */
        clof_topo_error_t err;
        int rc = clof_topology_load_file(&t, file, &err);
        CHECK(rc == -1, "%s: must be rejected", file);
        CHECK(is_zeroed(&t), "%s: the topology must be left empty, not half-read", file);
        char prefix[1400];
        snprintf(prefix, sizeof prefix, "%s:%u: ", file, line);
        CHECK(err.line == line && !strncmp(err.msg, prefix, strlen(prefix)),
              "%s: expected the error at line %u, got '%s'", file, line, err.msg);
        CHECK(strstr(err.msg, want) != NULL, "%s: expected '%s' in '%s'", file, want, err.msg);
        CHECK(!strcmp(err.file, file), "%s: err.file '%s'", file, err.file);
        n++;
    }
    closedir(d);
    CHECK(n >= 30, "expected at least 30 bad files, found %d", n);

    /* a file that does not exist: line 0, the reason */
    clof_topology_t t;
    clof_topo_error_t err;
    CHECK(clof_topology_load_file(&t, "/nonexistent/x.topo", &err) == -1 && err.line == 0 &&
              strstr(err.msg, "cannot open"),
          "missing file: '%s'", err.msg);
    /* a buffer with a NUL byte */
    static const char nul[] = "clof-topology 1\ncpus 0-3\0\nlevel system\n";
    CHECK(clof_topology_parse(&t, nul, sizeof nul - 1, "buf", &err) == -1 && err.line == 2,
          "NUL byte: '%s'", err.msg);
    /* a good buffer, comments and blank lines anywhere, CRLF line ends */
    static const char good[] = "# hi\r\n\r\nclof-topology 1   # magic\r\nname  two  words \r\n"
                               "cpus 0-3\r\nlevel cache threshold 7\r\ngroup 0-1\r\ngroup 2-3\r\n"
                               "level system threshold 9\r\nlittle 2-3\r\n";
    int rc = clof_topology_parse(&t, good, sizeof good - 1, "good", &err);
    CHECK(rc == 0, "good buffer: %s", err.msg);
    if (rc == 0) {
        CHECK(!strcmp(t.name, "two  words"), "name is the rest of the line: '%s'", t.name);
        CHECK(t.level[0].threshold == 7 && t.level[1].threshold == 9, "thresholds 7 and 9");
        CHECK(clof_topo_is_little(&t, 2) && !clof_topo_is_little(&t, 1), "core types");
        clof_topology_free(&t);
    }
}

/* ---- emulation ----------------------------------------------------------------- */

static void test_emulate(void)
{
    clof_topology_t t, f;
    clof_topo_error_t err;
    /* the Kunpeng 920 shape is the Kunpeng 920 */
    int rc = clof_topology_emulate(&t, "package:2,numa:2,cache:8,core:4", 0, &err);
    CHECK(rc == 0, "kunpeng shape: %s", err.msg);
    if (rc == 0) {
        check_invariants(&t, "kunpeng shape");
        CHECK(t.emulated && t.source == CLOF_TOPO_SRC_EMULATED, "emulated");
        CHECK(!strcmp(kinds(&t), "cache,numa,package,system") && !strcmp(counts(&t), "32,4,2,1"),
              "kunpeng shape: %s %s", kinds(&t), counts(&t));
        if (clof_topology_load_file(&f, path("%s/kunpeng920.topo", examples), &err) == 0) {
            CHECK(same_topology(&t, &f, true), "shape == examples/topology/kunpeng920.topo");
            clof_topology_free(&f);
        }
        clof_topology_free(&t);
    }
    rc = clof_topology_emulate(&t, "package:2,numa:2,cache:8,core:4", CLOF_TOPO_KEEP_ALL, &err);
    CHECK(rc == 0 && !strcmp(counts(&t), "128,32,4,2,1"), "keep all: %s", counts(&t));
    clof_topology_free(&t);
    /* EPYC with SMT, numbered depth first; numa:1 gives the paper's levels */
    rc = clof_topology_emulate(&t, "pack:2,node:1,l3:8,core:3,pu:2", 0, &err);
    CHECK(rc == 0 && !strcmp(kinds(&t), "core,cache,numa,system") && !strcmp(counts(&t), "48,16,2,1"),
          "epyc shape: %s %s (%s)", kinds(&t), counts(&t), err.msg);
    if (rc == 0) {
        CHECK(same_cohort(&t, 0, 1, CLOF_LEVEL_CORE) && same_cohort(&t, 0, 5, CLOF_LEVEL_CACHE) &&
                  !same_cohort(&t, 5, 6, CLOF_LEVEL_CACHE),
              "epyc shape numbering");
        clof_topology_free(&t);
    }
    rc = clof_topology_emulate(&t, "cache:2,core:4;little=4-7", 0, &err);
    CHECK(rc == 0 && clof_topo_is_little(&t, 4) && !clof_topo_is_little(&t, 3) && t.npresent == 8,
          "little=4-7: %s", err.msg);
    clof_topology_free(&t);
    /* a hierarchy file to emulate */
    rc = clof_topology_emulate(&t, path("%s/epyc7352.topo", examples), 0, &err);
    CHECK(rc == 0 && t.emulated && t.source == CLOF_TOPO_SRC_EMULATED &&
              !strcmp(counts(&t), "48,16,2,1"),
          "emulate a file: %s", err.msg);
    clof_topology_free(&t);

    static const char *const bad[][2] = {
        {"", "empty shape"},
        {"core:4,cache:2", "units go from the top down"},
        {"cache:2,cache:2", "units go from the top down"},
        {"cache:0", "expected a count from 1"},
        {"cache:x", "expected a count (a positive number)"},
        {"cache:", "expected a count after 'cache:'"},
        {"socket", "expected UNIT:COUNT"},
        {"cache:2,", "trailing ','"},
        {"3:4", "got a number"},
        {"foo:2", "unknown unit 'foo'"},
        {"cpu:2,core:2", "cpu:N comes last"},
        {"cache:2;little=9", "cpu 9 is beyond the 2 emulated cpus"},
        {"cache:2;big=1", "unknown option 'big=1'"},
        {"package:100,numa:100", "more than 8192 cpus"},
        {"no/such/file.topo", "cannot open"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&t, 0x5a, sizeof t);
        rc = clof_topology_emulate(&t, bad[i][0], 0, &err);
        CHECK(rc == -1 && strstr(err.msg, bad[i][1]) && is_zeroed(&t),
              "shape '%s': expected '%s', got rc %d '%s'", bad[i][0], bad[i][1], rc, err.msg);
    }
}

/* ---- write, parse, copy, prune, select ------------------------------------------- */

static void roundtrip(const clof_topology_t *t, const char *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(clof_topology_write(t, f) == 0, "%s: write", what);
    fclose(f);
    clof_topology_t u;
    clof_topo_error_t err;
    int rc = clof_topology_parse(&u, buf, len, what, &err);
    CHECK(rc == 0, "%s: the written file parses: %s", what, err.msg);
    if (rc == 0) {
        CHECK(same_topology(t, &u, true), "%s: write then parse gives the same topology", what);
        clof_topology_free(&u);
    }
    free(buf);
    /* and JSON is written */
    f = open_memstream(&buf, &len);
    CHECK(clof_topology_write_json(t, f) == 0, "%s: json", what);
    fclose(f);
    CHECK(len > 10 && buf[0] == '{' && strstr(buf, "\"levels\""), "%s: json object", what);
    free(buf);
}

static void test_roundtrip(void)
{
    static const char *const machines[] = {"vm", "epyc7352", "kunpeng920", "alderlake", "biglittle"};
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
        for (unsigned fl = 0; fl <= CLOF_TOPO_KEEP_ALL; fl += CLOF_TOPO_KEEP_ALL) {
            clof_topology_t t;
            if (load_sysfs(&t, machines[i], fl) != 0)
                continue;
            roundtrip(&t, machines[i]);
            clof_topology_t c;
            CHECK(clof_topology_copy(&c, &t) == 0, "copy");
            clof_topology_free(&t);
            check_invariants(&c, "copy");
            roundtrip(&c, "copy");
            clof_topology_free(&c);
        }
    clof_topology_t t;
    if (load_sysfs(&t, "epyc7352", CLOF_TOPO_KEEP_ALL) == 0) {
        CHECK(clof_topology_prune(&t) == 1 && !strcmp(kinds(&t), "core,cache,numa,system"),
              "prune drops package (same as numa): %s", kinds(&t));
        CHECK(clof_topology_prune(&t) == 0, "prune twice drops nothing");
        CHECK(clof_topology_select(&t, (1u << CLOF_LEVEL_CACHE)) == 0 &&
                  !strcmp(kinds(&t), "cache,system"),
              "select cache (system always kept): %s", kinds(&t));
        check_invariants(&t, "selected");
        clof_topology_free(&t);
    }
    clof_topology_free(&t); /* freeing a zeroed topology is fine */
    /* holes in the cpu ids: absent ids fold to the first present cpu's cohorts */
    clof_topo_error_t err;
    static const char holes[] = "clof-topology 1\ncpus 2-3,6-7\nlevel cache\ngroup 2-3\ngroup 6-7\n";
    if (clof_topology_parse(&t, holes, sizeof holes - 1, "holes", &err) == 0) {
        check_invariants(&t, "holes");
        CHECK(t.ncpus == 8 && t.npresent == 4, "holes: ncpus 8, npresent 4");
        CHECK(clof_topo_cohort(&t, 0, 0) == clof_topo_cohort(&t, 2, 0), "absent cpu 0 -> cpu 2's");
        CHECK(clof_topo_cohort(&t, 9, 0) == clof_topo_cohort(&t, 1, 0), "cpu 9 folds into range");
        roundtrip(&t, "holes");
        clof_topology_free(&t);
    } else {
        CHECK(0, "holes: %s", err.msg);
    }
}

static void test_cpulist(void)
{
    uint8_t set[64];
    char buf[64];
    CHECK(clof_topo_cpulist_parse("0-3,8,10-11\n", set, 64) == 7 && set[3] && set[8] && !set[9],
          "parse 0-3,8,10-11");
    clof_topo_cpulist_format(buf, sizeof buf, set, 64);
    CHECK(!strcmp(buf, "0-3,8,10-11"), "format: %s", buf);
    CHECK(clof_topo_cpulist_parse("", set, 64) == 0, "empty list");
    static const char *const bad[] = {"3-1", "a", "1,,2", "1-", "-1", "64", "1 2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(clof_topo_cpulist_parse(bad[i], set, 64) == -1, "'%s' is not a cpu list", bad[i]);
    /* truncation reports the length needed */
    memset(set, 1, 64);
    CHECK(clof_topo_cpulist_format(buf, 3, set, 64) == 4 && strlen(buf) < 3, "truncation");
    CHECK(clof_topo_level_from_name("numa") == CLOF_LEVEL_NUMA &&
              clof_topo_level_from_name("socket") == -1,
          "level names");
}

/* ---- the source order ---------------------------------------------------------- */

static void test_sources(void)
{
    clof_topology_t t;
    clof_topo_error_t err;
    const char *file = path("%s/epyc7352.topo", examples);
    char *file_copy = strdup(file);
    char *root = strdup(path("%s/sysfs/kunpeng920", fixtures));
    setenv("CLOF_TOPOLOGY", file_copy, 1);
    setenv("CLOF_EMULATE", "cache:2,core:4", 1);
    setenv("CLOF_SYSFS_ROOT", root, 1);
    CHECK(clof_topology_load(&t, NULL, &err) == 0 && t.source == CLOF_TOPO_SRC_FILE &&
              t.npresent == 96,
          "1. CLOF_TOPOLOGY first: got %s", clof_topo_source_name(t.source));
    clof_topology_free(&t);
    unsetenv("CLOF_TOPOLOGY");
    CHECK(clof_topology_load(&t, NULL, &err) == 0 && t.source == CLOF_TOPO_SRC_EMULATED &&
              t.npresent == 8,
          "2. then CLOF_EMULATE: got %s", clof_topo_source_name(t.source));
    clof_topology_free(&t);
    unsetenv("CLOF_EMULATE");
    CHECK(clof_topology_load(&t, NULL, &err) == 0 && t.source == CLOF_TOPO_SRC_SYSFS &&
              t.npresent == 128,
          "3. then sysfs at CLOF_SYSFS_ROOT: got %s %u", clof_topo_source_name(t.source), t.npresent);
    clof_topology_free(&t);
    setenv("CLOF_SYSFS_ROOT", path("%s/sysfs/broken-empty", fixtures), 1);
    clof_topo_opts_t quiet = {NULL, NULL, NULL, CLOF_TOPO_QUIET};
    CHECK(clof_topology_load(&t, &quiet, &err) == 0 && t.source == CLOF_TOPO_SRC_FLAT && t.warning[0],
          "4. then flat with a warning: got %s", clof_topo_source_name(t.source));
    clof_topology_free(&t);
    /* explicit beats environment */
    setenv("CLOF_TOPOLOGY", file_copy, 1);
    clof_topo_opts_t emu = {NULL, "numa:2,core:2", NULL, 0};
    CHECK(clof_topology_load(&t, &emu, &err) == 0 && t.source == CLOF_TOPO_SRC_EMULATED &&
              t.npresent == 4,
          "--emulate beats CLOF_TOPOLOGY: got %s", clof_topo_source_name(t.source));
    clof_topology_free(&t);
    clof_topo_opts_t noenv = {NULL, NULL, root, CLOF_TOPO_NO_ENV};
    CHECK(clof_topology_load(&t, &noenv, &err) == 0 && t.source == CLOF_TOPO_SRC_SYSFS,
          "NO_ENV ignores CLOF_TOPOLOGY");
    clof_topology_free(&t);
    /* a bad file named by the environment is an error, not a half-read topology */
    setenv("CLOF_TOPOLOGY", path("%s/bad/overlap.topo", fixtures), 1);
    memset(&t, 0x5a, sizeof t);
    CHECK(clof_topology_load(&t, NULL, &err) == -1 && is_zeroed(&t) && strstr(err.msg, "overlap.topo:"),
          "bad CLOF_TOPOLOGY: '%s'", err.msg);
    unsetenv("CLOF_TOPOLOGY");
    unsetenv("CLOF_SYSFS_ROOT");
    free(file_copy);
    free(root);
}

/* ---- current cpu and virtual cpus ---------------------------------------------------- */

typedef struct {
    uint32_t got;
    uint32_t again;
} cpu_probe_t;

static void *probe(void *arg)
{
    cpu_probe_t *p = arg;
    p->got = clof_current_cpu();
    p->again = clof_current_cpu();
    return NULL;
}

/* the vcpu of the next n new threads, one after the other */
static void new_threads(uint32_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        pthread_t th;
        cpu_probe_t p = {UINT32_MAX, UINT32_MAX};
        pthread_create(&th, NULL, probe, &p);
        pthread_join(th, NULL);
        CHECK(p.got == p.again, "a thread keeps its virtual cpu (%u then %u)", p.got, p.again);
        out[i] = p.got;
    }
}

static void test_vcpu(void)
{
    uint32_t ncfg = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
    /* explicit override, on any topology */
    CHECK(clof_topo_get_vcpu() == -1, "no virtual cpu at start");
    CHECK(clof_topo_set_vcpu(77) == 0 && clof_current_cpu() == 77, "set_vcpu(77)");
    CHECK(clof_topo_set_vcpu(CLOF_TOPO_MAX_CPUS) == -1, "out of range");
    CHECK(clof_topo_set_vcpu(-1) == 0 && clof_topo_get_vcpu() == -1, "clear");

    /* the process topology: sysfs of this machine; the real cpu */
    clof_topo_opts_t real = {NULL, NULL, path("%s/sysfs/vm", fixtures), CLOF_TOPO_NO_ENV};
    clof_topo_error_t err;
    CHECK(clof_topology_install(&real, &err) == 0, "install sysfs: %s", err.msg);
    CHECK(clof_topology()->source == CLOF_TOPO_SRC_SYSFS, "installed");
    uint32_t c = clof_current_cpu();
    CHECK(c < ncfg, "real cpu %u < %u", c, ncfg);
    CHECK(clof_topo_get_vcpu() == -1, "a real topology assigns no virtual cpu");

    /* emulated Kunpeng 920: threads get virtual cpus in registration order */
    clof_topo_opts_t emu = {NULL, "package:2,numa:2,cache:8,core:4", NULL, CLOF_TOPO_NO_ENV};
    CHECK(clof_topology_install(&emu, &err) == 0, "install emulated: %s", err.msg);
    const clof_topology_t *t = clof_topology();
    CHECK(t->emulated && t->npresent == 128, "the process topology is the emulated one");
    uint32_t v[6];
    clof_topo_set_assign(CLOF_VCPU_PACKED);
    clof_topo_assign_reset();
    new_threads(v, 6);
    for (int i = 0; i < 6; i++)
        CHECK(v[i] == (uint32_t)i, "packed: thread %d -> cpu %d, got %u", i, i, v[i]);
    /* spread: packages, then NUMA nodes, then cache groups, round robin */
    static const uint32_t spread[6] = {0, 64, 32, 96, 4, 68};
    clof_topo_set_assign(CLOF_VCPU_SPREAD);
    clof_topo_assign_reset();
    new_threads(v, 6);
    for (int i = 0; i < 6; i++)
        CHECK(v[i] == spread[i], "spread: thread %d -> cpu %u, got %u", i, spread[i], v[i]);
    /* a full round wraps around */
    CHECK(clof_topo_assign_vcpu(t, CLOF_VCPU_SPREAD, 128) == 0, "wrap around");
    /* EPYC emulated: packed fills a core's two threads first; linear goes by id */
    clof_topo_opts_t epyc = {NULL, path("%s/epyc7352.topo", examples), NULL, CLOF_TOPO_NO_ENV};
    CHECK(clof_topology_install(&epyc, &err) == 0, "install emulated file: %s", err.msg);
    t = clof_topology();
    CHECK(clof_topo_assign_vcpu(t, CLOF_VCPU_PACKED, 0) == 0 &&
              clof_topo_assign_vcpu(t, CLOF_VCPU_PACKED, 1) == 48 &&
              clof_topo_assign_vcpu(t, CLOF_VCPU_PACKED, 2) == 1,
          "packed on epyc: 0, 48, 1");
    CHECK(clof_topo_assign_vcpu(t, CLOF_VCPU_LINEAR, 1) == 1, "linear: by id");
    clof_topo_set_assign(CLOF_VCPU_PACKED);
    clof_topo_assign_reset();
    new_threads(v, 2);
    CHECK(v[0] == 0 && v[1] == 48, "threads on emulated epyc: %u %u", v[0], v[1]);
    /* this thread gets one too on its first call, and its leaf is O(1) */
    uint32_t me = clof_current_cpu();
    CHECK(me < 96 && clof_topo_get_vcpu() == (int32_t)me, "main thread vcpu %u", me);
    CHECK(clof_topo_assign_from_name("spread") == CLOF_VCPU_SPREAD &&
              clof_topo_assign_from_name("nope") == -1,
          "policy names");
    /* a failed install leaves the process topology as it was */
    clof_topo_opts_t badf = {path("%s/bad/order.topo", fixtures), NULL, NULL, CLOF_TOPO_NO_ENV};
    CHECK(clof_topology_install(&badf, &err) == -1 && clof_topology() == t,
          "failed install changes nothing");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_topology GROUP FIXTURES EXAMPLES\n");
        return 2;
    }
    fixtures = argv[2];
    examples = argv[3];
    static const struct {
        const char *name;
        void (*fn)(void);
    } groups[] = {
        {"sysfs_vm", test_sysfs_vm},
        {"sysfs_epyc7352", test_sysfs_epyc7352},
        {"sysfs_kunpeng920", test_sysfs_kunpeng920},
        {"sysfs_alderlake", test_sysfs_alderlake},
        {"sysfs_biglittle", test_sysfs_biglittle},
        {"sysfs_broken", test_sysfs_broken},
        {"examples", test_examples},
        {"bad_files", test_bad_files},
        {"emulate", test_emulate},
        {"roundtrip", test_roundtrip},
        {"cpulist", test_cpulist},
        {"sources", test_sources},
        {"vcpu", test_vcpu},
    };
    bool found = false;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!strcmp(argv[1], groups[i].name) || !strcmp(argv[1], "all")) {
            found = true;
            groups[i].fn();
        }
    if (!found) {
        fprintf(stderr, "test_topology: unknown group %s\n", argv[1]);
        return 2;
    }
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
