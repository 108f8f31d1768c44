/* SPDX-License-Identifier: MIT */
/*
 * libclof: discovery from sysfs (root overridable, so tests read fixtures).
 *
 *   cpus      devices/system/cpu/online (else present, else the cpuN dirs)
 *   core      cpuN/topology/thread_siblings_list (else core_cpus_list)
 *   cache     cpuN/topology/cluster_cpus_list when it groups cores that
 *             share a last-level cache (Kunpeng 920's groups of 4 cores,
 *             Alder Lake's E-core clusters), else the shared_cpu_list of the
 *             highest-level data/unified cache in cpuN/cache/index*
 *   numa      devices/system/node/nodeN/cpulist (no node directory: one node)
 *   package   cpuN/topology/physical_package_id
 *   types     devices/cpu_atom/cpus are little (Intel hybrid); else
 *             cpuN/cpu_capacity below 3/4 of the largest is little
 *
 * A level whose files are missing or contradict each other is left out, and
 * so is a level that does not nest in the levels below it; t->warning says
 * which, in one line.  No cpu directory at all is an error (the caller then
 * falls back to a flat topology).
 */
#include "topology_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAXC CLOF_TOPO_MAX_CPUS

typedef struct sctx {
    const char *root;
    uint32_t ncpus;   /* highest online cpu + 1 */
    uint8_t *online;  /* [MAXC] */
    uint8_t *set;     /* [MAXC] scratch */
    char warn[CLOF_TOPO_TEXT_MAX];
} sctx_t;

static void note(sctx_t *s, const char *what)
{
    size_t n = strlen(s->warn);
    if (n + 3 >= sizeof s->warn)
        return;
    snprintf(s->warn + n, sizeof s->warn - n, "%s%s", n ? "; " : "", what);
}

/* read ROOT/path into buf (trailing newline removed); -1 if missing */
static int readf(const sctx_t *s, char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int readf(const sctx_t *s, char *buf, size_t size, const char *fmt, ...)
{
    char rel[512], path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/%s", s->root, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return 0;
}

static char *bigbuf(void)
{
    return malloc(MAXC * 6 + 64);
}
#define BIGSZ (MAXC * 6 + 64)

/* the online cpus */
static int read_cpus(sctx_t *s, clof_topo_error_t *err)
{
    char *buf = bigbuf();
    if (!buf)
        return clof_topo_fail_(err, s->root, 0, "out of memory");
    int n = -1;
    if (readf(s, buf, BIGSZ, "devices/system/cpu/online") == 0 ||
        readf(s, buf, BIGSZ, "devices/system/cpu/present") == 0) {
        n = clof_topo_cpulist_parse(buf, s->online, MAXC);
        if (n < 0) {
            free(buf);
            return clof_topo_fail_(err, s->root, 0,
                                   "devices/system/cpu/online: not a cpu list");
        }
    } else {
        char path[1024];
        snprintf(path, sizeof path, "%s/devices/system/cpu", s->root);
        DIR *d = opendir(path);
        if (d) {
            memset(s->online, 0, MAXC);
            n = 0;
            struct dirent *e;
            while ((e = readdir(d))) {
                char *end;
                if (strncmp(e->d_name, "cpu", 3) != 0 || e->d_name[3] < '0' ||
                    e->d_name[3] > '9')
                    continue;
                unsigned long c = strtoul(e->d_name + 3, &end, 10);
                if (*end || c >= MAXC)
                    continue;
                if (!s->online[c])
                    n++;
                s->online[c] = 1;
            }
            closedir(d);
        }
    }
    free(buf);
    if (n <= 0)
        return clof_topo_fail_(err, s->root, 0, "no cpus under devices/system/cpu");
    for (uint32_t c = 0; c < MAXC; c++)
        if (s->online[c])
            s->ncpus = c + 1;
    return 0;
}

/* the path of cpu c's list for one partition */
typedef struct lpath {
    const char *fmt; /* printf format with %u for the cpu */
    const int *index; /* for caches: cache index of each cpu, or NULL */
} lpath_t;

static int read_list(sctx_t *s, const lpath_t *lp, uint32_t c, char *buf)
{
    if (lp->index)
        return readf(s, buf, BIGSZ, lp->fmt, c, lp->index[c]);
    return readf(s, buf, BIGSZ, lp->fmt, c);
}

/*
 * A partition from per-cpu lists (each cpu's list names the cpus of its
 * group).  label[c] = lowest online cpu of c's group.  Returns 1 when every
 * online cpu has a list and the lists agree, 0 when no cpu has one, -1 when
 * some are missing or they contradict each other (*what says which).
 */
static int list_partition(sctx_t *s, uint32_t *label, const lpath_t *lp,
                          const char **what)
{
    char *buf = bigbuf();
    if (!buf) {
        *what = "out of memory";
        return -1;
    }
    int have = 0, missing = 0, bad = 0;
    for (uint32_t c = 0; c < s->ncpus; c++)
        label[c] = UINT32_MAX;
    for (uint32_t c = 0; c < s->ncpus && !bad; c++) {
        if (!s->online[c])
            continue;
        if (read_list(s, lp, c, buf) != 0) {
            missing++;
            continue;
        }
        have++;
        if (clof_topo_cpulist_parse(buf, s->set, MAXC) < 0 || !s->set[c]) {
            bad = 1;
            break;
        }
        for (uint32_t m = 0; m < s->ncpus; m++)
            if (s->set[m] && s->online[m]) {
                label[c] = m; /* the group's lowest online cpu */
                break;
            }
    }
    /* second pass: every cpu's list must be exactly the cpus that carry its
     * label (cpu 0 saying {0,1} while cpu 1 says {1,2} is contradictory) */
    for (uint32_t c = 0; c < s->ncpus && !bad && have && !missing; c++) {
        if (!s->online[c])
            continue;
        if (read_list(s, lp, c, buf) != 0 || clof_topo_cpulist_parse(buf, s->set, MAXC) < 0) {
            bad = 1;
            break;
        }
        for (uint32_t m = 0; m < s->ncpus; m++)
            if (s->online[m] && (s->set[m] != 0) != (label[m] == label[c])) {
                bad = 1;
                break;
            }
    }
    free(buf);
    if (bad) {
        *what = "inconsistent";
        return -1;
    }
    if (!have) {
        *what = "missing";
        return 0;
    }
    if (missing) {
        *what = "missing for some cpus";
        return -1;
    }
    return 1;
}

static int partition_from_lists(sctx_t *s, uint32_t *label, const char *fmt,
                                const char **what)
{
    lpath_t lp = {fmt, NULL};
    return list_partition(s, label, &lp, what);
}

/* the highest-level data or unified cache of each cpu, then its
 * shared_cpu_list */
static int llc_partition(sctx_t *s, uint32_t *label, const char **what)
{
    char buf[64];
    int have = 0, missing = 0;
    int *best = malloc(s->ncpus * sizeof *best);
    if (!best) {
        *what = "out of memory";
        return -1;
    }
    for (uint32_t c = 0; c < s->ncpus; c++) {
        best[c] = -1;
        if (!s->online[c])
            continue;
        int bestlev = -1;
        for (int i = 0; i < 16; i++) {
            if (readf(s, buf, sizeof buf, "devices/system/cpu/cpu%u/cache/index%d/level", c, i) != 0)
                continue;
            int lev = atoi(buf);
            if (readf(s, buf, sizeof buf, "devices/system/cpu/cpu%u/cache/index%d/type", c, i) == 0 &&
                strcmp(buf, "Instruction") == 0)
                continue;
            if (lev > bestlev) {
                bestlev = lev;
                best[c] = i;
            }
        }
        if (best[c] < 0)
            missing++;
        else
            have++;
    }
    int rc;
    if (!have) {
        *what = "missing";
        rc = 0;
    } else if (missing) {
        *what = "missing for some cpus";
        rc = -1;
    } else {
        lpath_t lp = {"devices/system/cpu/cpu%u/cache/index%d/shared_cpu_list", best};
        rc = list_partition(s, label, &lp, what);
    }
    free(best);
    return rc;
}

static int numa_partition(sctx_t *s, uint32_t *label, const char **what)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/devices/system/node", s->root);
    DIR *d = opendir(path);
    for (uint32_t c = 0; c < s->ncpus; c++)
        label[c] = UINT32_MAX;
    if (!d) { /* a kernel without NUMA: one node, nothing to say */
        for (uint32_t c = 0; c < s->ncpus; c++)
            label[c] = 0;
        return 1;
    }
    char *buf = bigbuf();
    int nodes = 0, bad = !buf;
    struct dirent *e;
    while (!bad && (e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "node", 4) != 0 || e->d_name[4] < '0' || e->d_name[4] > '9')
            continue;
        unsigned long id = strtoul(e->d_name + 4, &end, 10);
        if (*end)
            continue;
        if (readf(s, buf, BIGSZ, "devices/system/node/node%lu/cpulist", id) != 0 ||
            clof_topo_cpulist_parse(buf, s->set, MAXC) < 0) {
            bad = 1;
            break;
        }
        nodes++;
        uint32_t lo = UINT32_MAX;
        for (uint32_t m = 0; m < s->ncpus; m++)
            if (s->set[m] && s->online[m]) {
                if (lo == UINT32_MAX)
                    lo = m;
                if (label[m] != UINT32_MAX)
                    bad = 1; /* a cpu in two nodes */
                label[m] = lo;
            }
    }
    closedir(d);
    free(buf);
    if (!bad && nodes == 0) {
        for (uint32_t c = 0; c < s->ncpus; c++)
            label[c] = 0;
        return 1;
    }
    for (uint32_t c = 0; c < s->ncpus && !bad; c++)
        if (s->online[c] && label[c] == UINT32_MAX) {
            *what = "some cpus in no node";
            return -1;
        }
    if (bad) {
        *what = "inconsistent";
        return -1;
    }
    return 1;
}

static int package_partition(sctx_t *s, uint32_t *label, const char **what)
{
    char buf[64];
    int have = 0, missing = 0;
    long *id = malloc(s->ncpus * sizeof *id);
    if (!id) {
        *what = "out of memory";
        return -1;
    }
    for (uint32_t c = 0; c < s->ncpus; c++) {
        label[c] = UINT32_MAX;
        if (!s->online[c])
            continue;
        if (readf(s, buf, sizeof buf, "devices/system/cpu/cpu%u/topology/physical_package_id", c) != 0) {
            missing++;
            continue;
        }
        char *end;
        id[c] = strtol(buf, &end, 10);
        if (end == buf || *end) {
            free(id);
            *what = "not a number";
            return -1;
        }
        have++;
        for (uint32_t m = 0; m <= c; m++)
            if (s->online[m] && label[m] != UINT32_MAX && id[m] == id[c]) {
                label[c] = label[m];
                break;
            }
        if (label[c] == UINT32_MAX)
            label[c] = c;
    }
    free(id);
    if (!have) {
        *what = "missing";
        return 0;
    }
    if (missing) {
        *what = "missing for some cpus";
        return -1;
    }
    return 1;
}

static void core_types(sctx_t *s, uint8_t *type, uint32_t *cap)
{
    char *buf = bigbuf();
    if (!buf)
        return;
    memset(type, CLOF_CORE_BIG, s->ncpus);
    memset(cap, 0, s->ncpus * sizeof *cap);
    /* capacities, whenever sysfs has them */
    uint32_t have = 0, online = 0, max = 0;
    for (uint32_t c = 0; c < s->ncpus; c++) {
        if (!s->online[c])
            continue;
        online++;
        if (readf(s, buf, 64, "devices/system/cpu/cpu%u/cpu_capacity", c) == 0) {
            cap[c] = (uint32_t)strtoul(buf, NULL, 10);
            have++;
            if (cap[c] > max)
                max = cap[c];
        }
    }
    /* Intel hybrid: the PMU lists the atom cpus */
    if (readf(s, buf, BIGSZ, "devices/cpu_atom/cpus") == 0 &&
        clof_topo_cpulist_parse(buf, s->set, MAXC) >= 0) {
        for (uint32_t c = 0; c < s->ncpus; c++)
            if (s->online[c] && s->set[c])
                type[c] = CLOF_CORE_LITTLE;
    } else if (have == online && max > 0) {
        for (uint32_t c = 0; c < s->ncpus; c++)
            if (s->online[c] && (uint64_t)cap[c] * 4 < (uint64_t)max * 3)
                type[c] = CLOF_CORE_LITTLE;
    }
    free(buf);
}

int clof_topology_from_sysfs(clof_topology_t *t, const char *root, unsigned flags,
                             clof_topo_error_t *err)
{
    memset(t, 0, sizeof *t);
    if (err)
        memset(err, 0, sizeof *err);
    sctx_t s;
    memset(&s, 0, sizeof s);
    s.root = root ? root : "/sys";
    s.online = calloc(MAXC, 1);
    s.set = calloc(MAXC, 1);
    uint32_t *lab = calloc((size_t)MAXC * 5, sizeof *lab);
    uint8_t *type = calloc(MAXC, 1);
    uint32_t *cap = calloc(MAXC, sizeof *cap);
    int rc = -1;
    if (!s.online || !s.set || !lab || !type || !cap) {
        clof_topo_fail_(err, s.root, 0, "out of memory");
        goto out;
    }
    if (read_cpus(&s, err) != 0)
        goto out;

    uint32_t *core = lab, *cluster = lab + MAXC, *llc = lab + 2 * MAXC,
             *numa = lab + 3 * MAXC, *pkg = lab + 4 * MAXC;
    const char *what = "";
    char msg[128];
    int has_core, has_cluster, has_llc, has_numa, has_pkg;

    has_core = partition_from_lists(&s, core, "devices/system/cpu/cpu%u/topology/thread_siblings_list", &what);
    if (has_core == 0)
        has_core = partition_from_lists(&s, core, "devices/system/cpu/cpu%u/topology/core_cpus_list", &what);
    if (has_core <= 0) {
        snprintf(msg, sizeof msg, "thread_siblings_list %s: no core level", what);
        note(&s, msg);
    }
    has_cluster = partition_from_lists(&s, cluster, "devices/system/cpu/cpu%u/topology/cluster_cpus_list", &what);
    if (has_cluster < 0) {
        snprintf(msg, sizeof msg, "cluster_cpus_list %s: ignored", what);
        note(&s, msg);
    }
    has_llc = llc_partition(&s, llc, &what);
    if (has_llc <= 0 && has_cluster <= 0) {
        snprintf(msg, sizeof msg, "cache/index*/shared_cpu_list %s: no cache level", what);
        note(&s, msg);
    } else if (has_llc < 0) {
        snprintf(msg, sizeof msg, "cache/index*/shared_cpu_list %s: ignored", what);
        note(&s, msg);
    }
    has_numa = numa_partition(&s, numa, &what);
    if (has_numa <= 0) {
        snprintf(msg, sizeof msg, "node*/cpulist %s: no numa level", what);
        note(&s, msg);
    }
    has_pkg = package_partition(&s, pkg, &what);
    if (has_pkg <= 0) {
        snprintf(msg, sizeof msg, "physical_package_id %s: no package level", what);
        note(&s, msg);
    }

    /* the cache level: clusters that group cores inside a last-level cache,
     * otherwise the last-level cache itself */
    const uint32_t *cache = NULL;
    bool cluster_useful = has_cluster > 0 &&
        !(has_core > 0 && clof_topo_same_partition_(s.ncpus, s.online, cluster, core));
    if (cluster_useful && has_llc > 0 &&
        clof_topo_nests_(s.ncpus, s.online, cluster, llc) &&
        !clof_topo_same_partition_(s.ncpus, s.online, cluster, llc))
        cache = cluster;
    else if (has_llc > 0)
        cache = llc;
    else if (cluster_useful)
        cache = cluster;

    /* the chain, bottom up; a level that does not contain the one below is
     * left out */
    topo_spec_t spec;
    memset(&spec, 0, sizeof spec);
    const uint32_t *cand[4] = {has_core > 0 ? core : NULL, cache,
                               has_numa > 0 ? numa : NULL, has_pkg > 0 ? pkg : NULL};
    const uint32_t *last = NULL;
    for (int k = 0; k < 4; k++) {
        if (!cand[k])
            continue;
        if (last && !clof_topo_nests_(s.ncpus, s.online, last, cand[k])) {
            snprintf(msg, sizeof msg, "%s groups split the %s groups: no %s level",
                     clof_topo_level_name((clof_level_kind_t)k),
                     clof_topo_level_name(spec.kind[spec.nlevels - 1]),
                     clof_topo_level_name((clof_level_kind_t)k));
            note(&s, msg);
            continue;
        }
        spec.kind[spec.nlevels] = (clof_level_kind_t)k;
        spec.label[spec.nlevels] = cand[k];
        spec.nlevels++;
        last = cand[k];
    }
    spec.kind[spec.nlevels] = CLOF_LEVEL_SYSTEM;
    spec.nlevels++;
    spec.ncpus = s.ncpus;
    spec.present = s.online;
    core_types(&s, type, cap);
    spec.core_type = type;
    spec.capacity = cap;
    if (clof_topo_build_(t, &spec) != 0) {
        clof_topo_fail_(err, s.root, 0, "out of memory building the topology");
        goto out;
    }
    t->source = CLOF_TOPO_SRC_SYSFS;
    clof_topo_strlcpy_(t->origin, s.root, sizeof t->origin);
    if (s.warn[0])
        /* "sysfs " + 60 + ": " + 180 + NUL fit the 256 bytes (gcc -Os
         * warns of a cut otherwise) */
        snprintf(t->warning, sizeof t->warning, "sysfs %.60s: %.180s", s.root, s.warn);
    if (!(flags & CLOF_TOPO_KEEP_ALL) && clof_topology_prune(t) < 0) {
        clof_topology_free(t);
        clof_topo_fail_(err, s.root, 0, "out of memory");
        goto out;
    }
    rc = 0;
out:
    free(s.online);
    free(s.set);
    free(lab);
    free(type);
    free(cap);
    return rc;
}
