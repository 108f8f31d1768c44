/* SPDX-License-Identifier: MIT */
/*
 * libclof: the topology builder -- the one place a clof_topology_t is made.
 * Every source (topology_file.c, topology_sysfs.c, topology_emulate.c) reads
 * its input into a topo_spec_t and ends here (clof_topo_build_); pruning,
 * level selection and the flat topology rebuild through it too.  It calls
 * no source and nothing of topology.c (no call circle): topology.c calls the
 * sources, the sources call this file.  See include/clof/topology.h.
 */
#include "topology_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- small helpers -------------------------------------------------------- */

void clof_topo_strlcpy_(char *dst, const char *src, size_t size)
{
    if (size == 0)
        return;
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int clof_topo_fail_(clof_topo_error_t *err, const char *file, unsigned line,
                    const char *fmt, ...)
{
    if (!err)
        return -1;
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    clof_topo_strlcpy_(err->file, file ? file : "", sizeof err->file);
    err->line = line;
    if (line)
        snprintf(err->msg, sizeof err->msg, "%.180s:%u: %.300s", err->file, line, what);
    else if (file && *file)
        snprintf(err->msg, sizeof err->msg, "%.180s: %.300s", err->file, what);
    else
        snprintf(err->msg, sizeof err->msg, "%s", what);
    return -1;
}

uint32_t clof_topo_configured_cpus_(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n < 1)
        n = 1;
    if (n > CLOF_TOPO_MAX_CPUS)
        n = CLOF_TOPO_MAX_CPUS;
    return (uint32_t)n;
}

static const char *const level_names[CLOF_TOPO_MAX_LEVELS] = {
    "core", "cache", "numa", "package", "system"};

const char *clof_topo_level_name(clof_level_kind_t kind)
{
    if ((unsigned)kind < CLOF_TOPO_MAX_LEVELS)
        return level_names[kind];
    return "?";
}

int clof_topo_level_from_name(const char *name)
{
    for (int k = 0; k < CLOF_TOPO_MAX_LEVELS; k++)
        if (strcmp(name, level_names[k]) == 0)
            return k;
    return -1;
}

const char *clof_topo_source_name(clof_topo_source_t s)
{
    switch (s) {
    case CLOF_TOPO_SRC_FILE: return "file";
    case CLOF_TOPO_SRC_EMULATED: return "emulated";
    case CLOF_TOPO_SRC_SYSFS: return "sysfs";
    case CLOF_TOPO_SRC_FLAT: return "flat";
    default: return "none";
    }
}

const char *clof_topo_core_type_name(clof_core_type_t c)
{
    return c == CLOF_CORE_LITTLE ? "little" : "big";
}

/* ---- cpu lists ------------------------------------------------------------ */

static int parse_uint(const char **p, uint32_t *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > 0xffffffffu)
            return -1;
        s++;
    }
    *p = s;
    *out = (uint32_t)v;
    return 0;
}

int clof_topo_cpulist_parse(const char *s, uint8_t *set, uint32_t max)
{
    memset(set, 0, max);
    int count = 0;
    const char *p = s;
    /* sysfs lists end with a newline; an empty list is valid there */
    if (*p == '\0' || *p == '\n')
        return 0;
    for (;;) {
        uint32_t a, b;
        if (parse_uint(&p, &a) != 0)
            return -1;
        b = a;
        if (*p == '-') {
            p++;
            if (parse_uint(&p, &b) != 0 || b < a)
                return -1;
        }
        if (b >= max)
            return -1;
        for (uint32_t c = a; c <= b; c++) {
            if (!set[c])
                count++;
            set[c] = 1;
        }
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\0' || *p == '\n')
            return count;
        return -1;
    }
}

size_t clof_topo_cpulist_format(char *buf, size_t size, const uint8_t *set,
                                uint32_t n)
{
    size_t len = 0;
    char tmp[32];
    if (size)
        buf[0] = '\0';
    for (uint32_t c = 0; c < n;) {
        if (!set[c]) {
            c++;
            continue;
        }
        uint32_t e = c;
        while (e + 1 < n && set[e + 1])
            e++;
        int k;
        if (e == c)
            k = snprintf(tmp, sizeof tmp, "%s%u", len ? "," : "", c);
        else
            k = snprintf(tmp, sizeof tmp, "%s%u-%u", len ? "," : "", c, e);
        if (len + (size_t)k < size)
            memcpy(buf + len, tmp, (size_t)k + 1);
        else if (size)
            buf[size - 1] = '\0';
        len += (size_t)k;
        c = e + 1;
    }
    return len;
}

/* ---- partitions --------------------------------------------------------------- */

bool clof_topo_nests_(uint32_t ncpus, const uint8_t *present,
                      const uint32_t *lo, const uint32_t *hi)
{
    if (!hi)
        return true;
    if (!lo) { /* the system cohort nests only in a single cohort */
        int64_t first = -1;
        for (uint32_t c = 0; c < ncpus; c++) {
            if (!present[c])
                continue;
            if (first < 0)
                first = hi[c];
            else if (hi[c] != (uint32_t)first)
                return false;
        }
        return true;
    }
    uint32_t *map = malloc((size_t)ncpus * sizeof *map);
    if (!map)
        return false;
    for (uint32_t c = 0; c < ncpus; c++)
        map[c] = UINT32_MAX;
    bool ok = true;
    for (uint32_t c = 0; c < ncpus && ok; c++) {
        if (!present[c])
            continue;
        if (map[lo[c]] == UINT32_MAX)
            map[lo[c]] = hi[c];
        else if (map[lo[c]] != hi[c])
            ok = false;
    }
    free(map);
    return ok;
}

bool clof_topo_same_partition_(uint32_t ncpus, const uint8_t *present,
                               const uint32_t *a, const uint32_t *b)
{
    return clof_topo_nests_(ncpus, present, a, b) &&
           clof_topo_nests_(ncpus, present, b, a);
}

/* ---- the builder ------------------------------------------------------------ */

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

/* interleave the cpu sequences of the children of (l, c) round robin */
static uint32_t spread_fill(const clof_topology_t *t, uint32_t l, uint32_t c,
                            uint32_t *out, uint32_t *tmp)
{
    const clof_topo_level_t *L = &t->level[l];
    if (l == 0) {
        uint32_t n = L->cpu_start[c + 1] - L->cpu_start[c];
        memcpy(out, &L->cpus[L->cpu_start[c]], n * sizeof *out);
        return n;
    }
    uint32_t first = L->child_start[c], last = L->child_start[c + 1];
    uint32_t nch = last - first;
    /* each child's own spread order, one after the other in tmp */
    uint32_t *off = malloc((size_t)(nch + 1) * 2 * sizeof *off);
    if (!off)
        return 0;
    uint32_t *pos = off + nch + 1;
    uint32_t total = 0;
    for (uint32_t i = 0; i < nch; i++) {
        off[i] = total;
        total += spread_fill(t, l - 1, first + i, tmp + total, out);
    }
    off[nch] = total;
    for (uint32_t i = 0; i < nch; i++)
        pos[i] = off[i];
    uint32_t k = 0;
    while (k < total) {
        for (uint32_t i = 0; i < nch; i++)
            if (pos[i] < off[i + 1])
                out[k++] = tmp[pos[i]++];
    }
    /* tmp was used as scratch by the children; keep out, restore nothing */
    free(off);
    return total;
}

int clof_topo_build_(clof_topology_t *t, const topo_spec_t *s)
{
    memset(t, 0, sizeof *t);
    uint32_t n = s->ncpus, nl = s->nlevels;
    if (n == 0 || n > CLOF_TOPO_MAX_CPUS || nl == 0 ||
        nl > CLOF_TOPO_MAX_LEVELS || s->kind[nl - 1] != CLOF_LEVEL_SYSTEM)
        return -1;
    for (uint32_t l = 0; l + 1 < nl; l++) {
        if (s->kind[l] >= s->kind[l + 1] || !s->label[l])
            return -1;
        for (uint32_t c = 0; c < n; c++)
            if (s->present[c] && s->label[l][c] >= n)
                return -1;
        if (!clof_topo_nests_(n, s->present, s->label[l],
                              l + 2 < nl ? s->label[l + 1] : NULL))
            return -1;
    }
    uint32_t np = 0, first_present = UINT32_MAX;
    for (uint32_t c = 0; c < n; c++)
        if (s->present[c]) {
            if (first_present == UINT32_MAX)
                first_present = c;
            np++;
        }
    if (np == 0)
        return -1;

    /* count cohorts per level */
    uint32_t *seen = calloc(n, sizeof *seen);
    if (!seen)
        return -1;
    uint32_t nco[CLOF_TOPO_MAX_LEVELS];
    for (uint32_t l = 0; l < nl; l++) {
        if (l == nl - 1) {
            nco[l] = 1;
            continue;
        }
        memset(seen, 0, n * sizeof *seen);
        nco[l] = 0;
        for (uint32_t c = 0; c < n; c++)
            if (s->present[c] && !seen[s->label[l][c]]++)
                nco[l]++;
    }

    /* one allocation */
    size_t sz = 0;
    sz += ALIGN8((size_t)n * CLOF_TOPO_STRIDE * sizeof(uint32_t)); /* cohort */
    sz += ALIGN8(n) * 2;                                            /* present, core_type */
    sz += ALIGN8((size_t)n * sizeof(uint32_t));                     /* capacity */
    sz += ALIGN8((size_t)np * sizeof(uint32_t)) * 2;                /* orders */
    for (uint32_t l = 0; l < nl; l++) {
        sz += ALIGN8((size_t)nco[l] * sizeof(uint32_t)) * 2;       /* parent, size */
        sz += ALIGN8((size_t)(nco[l] + 1) * sizeof(uint32_t)) * 2; /* cpu_start, child_start */
        sz += ALIGN8((size_t)np * sizeof(uint32_t));               /* cpus */
    }
    char *mem = calloc(1, sz);
    uint32_t *raw2canon = malloc((size_t)n * sizeof *raw2canon);
    uint32_t *tmp = malloc((size_t)(n + 1) * 2 * sizeof *tmp);
    if (!mem || !raw2canon || !tmp) {
        free(mem), free(raw2canon), free(tmp), free(seen);
        return -1;
    }
    char *p = mem;
#define CARVE(ptr, bytes)                                                      \
    do {                                                                       \
        (ptr) = (void *)p;                                                     \
        p += ALIGN8(bytes);                                                    \
    } while (0)
    CARVE(t->cohort, (size_t)n * CLOF_TOPO_STRIDE * sizeof(uint32_t));
    CARVE(t->present, n);
    CARVE(t->core_type, n);
    CARVE(t->capacity, (size_t)n * sizeof(uint32_t));
    CARVE(t->order_packed, (size_t)np * sizeof(uint32_t));
    CARVE(t->order_spread, (size_t)np * sizeof(uint32_t));
    for (uint32_t l = 0; l < nl; l++) {
        clof_topo_level_t *L = &t->level[l];
        CARVE(L->parent, (size_t)nco[l] * sizeof(uint32_t));
        CARVE(L->size, (size_t)nco[l] * sizeof(uint32_t));
        CARVE(L->cpu_start, (size_t)(nco[l] + 1) * sizeof(uint32_t));
        CARVE(L->child_start, (size_t)(nco[l] + 1) * sizeof(uint32_t));
        CARVE(L->cpus, (size_t)np * sizeof(uint32_t));
        L->kind = s->kind[l];
        L->ncohorts = nco[l];
        L->threshold = s->threshold[l] ? s->threshold[l] : CLOF_TOPO_DEFAULT_THRESHOLD;
    }
#undef CARVE
    t->mem_ = mem;
    t->ncpus = n;
    t->npresent = np;
    t->nlevels = nl;
    memcpy(t->present, s->present, n);

    /* canonical numbering, top down: by (parent cohort, lowest cpu) */
    for (uint32_t c = 0; c < n; c++)
        t->cohort[(size_t)c * CLOF_TOPO_STRIDE + (nl - 1)] = 0;
    t->level[nl - 1].parent[0] = 0;
    for (int l = (int)nl - 2; l >= 0; l--) {
        const uint32_t *lab = s->label[l];
        uint32_t nparent = nco[l + 1];
        /* raw labels in order of their lowest cpu, bucketed by parent:
         * counting sort keeps the lowest-cpu order inside a parent */
        uint32_t *cnt = tmp; /* [nparent + 1] */
        memset(cnt, 0, (size_t)(nparent + 1) * sizeof *cnt);
        for (uint32_t c = 0; c < n; c++)
            raw2canon[c] = UINT32_MAX;
        for (uint32_t c = 0; c < n; c++) {
            if (!s->present[c] || raw2canon[lab[c]] != UINT32_MAX)
                continue;
            raw2canon[lab[c]] = 0; /* mark seen */
            cnt[t->cohort[(size_t)c * CLOF_TOPO_STRIDE + l + 1] + 1]++;
        }
        for (uint32_t i = 0; i < nparent; i++)
            cnt[i + 1] += cnt[i];
        for (uint32_t c = 0; c < n; c++)
            raw2canon[c] = UINT32_MAX;
        for (uint32_t c = 0; c < n; c++) {
            if (!s->present[c] || raw2canon[lab[c]] != UINT32_MAX)
                continue;
            uint32_t par = t->cohort[(size_t)c * CLOF_TOPO_STRIDE + l + 1];
            uint32_t idx = cnt[par]++;
            raw2canon[lab[c]] = idx;
            t->level[l].parent[idx] = par;
        }
        for (uint32_t c = 0; c < n; c++)
            if (s->present[c])
                t->cohort[(size_t)c * CLOF_TOPO_STRIDE + l] = raw2canon[lab[c]];
    }
    /* absent cpu ids: the cohorts of the lowest present cpu */
    for (uint32_t c = 0; c < n; c++)
        if (!s->present[c])
            memcpy(&t->cohort[(size_t)c * CLOF_TOPO_STRIDE],
                   &t->cohort[(size_t)first_present * CLOF_TOPO_STRIDE],
                   CLOF_TOPO_STRIDE * sizeof(uint32_t));

    /* sizes, cpu lists, children */
    for (uint32_t l = 0; l < nl; l++) {
        clof_topo_level_t *L = &t->level[l];
        for (uint32_t c = 0; c < n; c++)
            if (s->present[c])
                L->size[t->cohort[(size_t)c * CLOF_TOPO_STRIDE + l]]++;
        L->cpu_start[0] = 0;
        for (uint32_t i = 0; i < L->ncohorts; i++)
            L->cpu_start[i + 1] = L->cpu_start[i] + L->size[i];
        uint32_t *fill = tmp;
        memcpy(fill, L->cpu_start, (size_t)L->ncohorts * sizeof *fill);
        for (uint32_t c = 0; c < n; c++)
            if (s->present[c])
                L->cpus[fill[t->cohort[(size_t)c * CLOF_TOPO_STRIDE + l]]++] = c;
        if (l == 0) {
            L->child_start = NULL;
            continue;
        }
        /* children at l-1 are sorted by parent: child_start by counting */
        const clof_topo_level_t *B = &t->level[l - 1];
        memset(L->child_start, 0, (size_t)(L->ncohorts + 1) * sizeof(uint32_t));
        for (uint32_t i = 0; i < B->ncohorts; i++)
            L->child_start[B->parent[i] + 1]++;
        for (uint32_t i = 0; i < L->ncohorts; i++)
            L->child_start[i + 1] += L->child_start[i];
    }

    /* core types, capacity */
    for (uint32_t c = 0; c < n; c++) {
        t->core_type[c] = s->core_type ? s->core_type[c] : CLOF_CORE_BIG;
        t->capacity[c] = s->capacity ? s->capacity[c] : 0;
    }

    /* assignment orders: the level-0 cohorts in index order are the
     * depth-first order of the tree */
    memcpy(t->order_packed, t->level[0].cpus, (size_t)np * sizeof(uint32_t));
    {
        uint32_t *scratch = malloc((size_t)np * 2 * sizeof *scratch);
        if (!scratch) {
            free(raw2canon), free(tmp), free(seen);
            clof_topology_free(t);
            return -1;
        }
        uint32_t got = spread_fill(t, nl - 1, 0, t->order_spread, scratch);
        free(scratch);
        if (got != np) {
            free(raw2canon), free(tmp), free(seen);
            clof_topology_free(t);
            return -1;
        }
    }
    free(raw2canon);
    free(tmp);
    free(seen);
    return 0;
}

void clof_topology_free(clof_topology_t *t)
{
    if (!t)
        return;
    free(t->mem_);
    memset(t, 0, sizeof *t);
}

/* a spec that rebuilds t with the levels whose bit is set in keep */
static int rebuild(clof_topology_t *t, unsigned keep_levels_bits)
{
    topo_spec_t s;
    memset(&s, 0, sizeof s);
    uint32_t n = t->ncpus;
    uint32_t *labels = malloc((size_t)n * CLOF_TOPO_MAX_LEVELS * sizeof *labels);
    if (!labels)
        return -1;
    s.ncpus = n;
    s.present = t->present;
    s.core_type = t->core_type;
    s.capacity = t->capacity;
    for (uint32_t l = 0; l < t->nlevels; l++) {
        if (!(keep_levels_bits & (1u << l)) && l != t->nlevels - 1)
            continue;
        uint32_t k = s.nlevels++;
        s.kind[k] = t->level[l].kind;
        s.threshold[k] = t->level[l].threshold;
        if (l == t->nlevels - 1) {
            s.label[k] = NULL;
            continue;
        }
        uint32_t *lab = labels + (size_t)k * n;
        for (uint32_t c = 0; c < n; c++)
            lab[c] = t->cohort[(size_t)c * CLOF_TOPO_STRIDE + l];
        s.label[k] = lab;
    }
    clof_topology_t nt;
    int rc = clof_topo_build_(&nt, &s);
    free(labels);
    if (rc != 0)
        return -1;
    nt.source = t->source;
    nt.emulated = t->emulated;
    memcpy(nt.origin, t->origin, sizeof nt.origin);
    memcpy(nt.name, t->name, sizeof nt.name);
    memcpy(nt.warning, t->warning, sizeof nt.warning);
    clof_topology_free(t);
    *t = nt;
    return 0;
}

int clof_topology_copy(clof_topology_t *dst, const clof_topology_t *src)
{
    clof_topology_t tmp = *src; /* shallow; rebuild allocates fresh tables */
    tmp.mem_ = NULL;            /* so that rebuild's free is a no-op on src */
    if (src->nlevels == 0) {
        memset(dst, 0, sizeof *dst);
        return 0;
    }
    /* rebuild frees tmp.mem_ (NULL) and builds new tables from src's */
    if (rebuild(&tmp, ~0u) != 0) {
        memset(dst, 0, sizeof *dst);
        return -1;
    }
    *dst = tmp;
    return 0;
}

int clof_topology_prune(clof_topology_t *t)
{
    if (t->nlevels <= 1)
        return 0;
    /* bottom up: drop a level of single cpus, a level with the system's one
     * cohort, and a level with the same cohorts as the kept level below it
     * (nested partitions with equal cohort counts are equal) -- so a
     * machine with one NUMA node per package keeps numa, as the paper does */
    unsigned keep = 1u << (t->nlevels - 1);
    int below = -1; /* nearest kept level below */
    int dropped = 0;
    for (uint32_t l = 0; l + 1 < t->nlevels; l++) {
        uint32_t n = t->level[l].ncohorts;
        if (n == t->npresent || n == 1 ||
            (below >= 0 && n == t->level[below].ncohorts)) {
            dropped++;
            continue;
        }
        keep |= 1u << l;
        below = (int)l;
    }
    if (dropped && rebuild(t, keep) != 0)
        return -1;
    return dropped;
}

int clof_topology_select(clof_topology_t *t, unsigned mask)
{
    unsigned keep = 0;
    for (uint32_t l = 0; l < t->nlevels; l++)
        if (mask & (1u << t->level[l].kind))
            keep |= 1u << l;
    return rebuild(t, keep);
}

int clof_topology_flat(clof_topology_t *t, uint32_t ncpus)
{
    if (ncpus == 0)
        ncpus = clof_topo_configured_cpus_();
    if (ncpus > CLOF_TOPO_MAX_CPUS)
        ncpus = CLOF_TOPO_MAX_CPUS;
    uint8_t *present = malloc(ncpus);
    if (!present)
        return -1;
    memset(present, 1, ncpus);
    topo_spec_t s;
    memset(&s, 0, sizeof s);
    s.ncpus = ncpus;
    s.present = present;
    s.nlevels = 1;
    s.kind[0] = CLOF_LEVEL_SYSTEM;
    int rc = clof_topo_build_(t, &s);
    free(present);
    if (rc == 0) {
        t->source = CLOF_TOPO_SRC_FLAT;
        clof_topo_strlcpy_(t->origin, "flat", sizeof t->origin);
    }
    return rc;
}
