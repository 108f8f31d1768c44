/* SPDX-License-Identifier: MIT */
/*
 * libclof: the runtime topology -- output, the source order (which calls the
 * sources: topology_file.c, topology_sysfs.c, topology_emulate.c), the
 * process topology and the current cpu (real or virtual).  Every topology is
 * built by topology_build.c.  See include/clof/topology.h.
 */
#include "topology_internal.h"

#include <clof/lock/ttas.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

/* ---- output ------------------------------------------------------------------ */

/* the cpu list of cohort c at level l */
static char *cohort_list(const clof_topology_t *t, uint32_t l, uint32_t c,
                         uint8_t *set, char *buf, size_t size)
{
    const clof_topo_level_t *L = &t->level[l];
    memset(set, 0, t->ncpus);
    for (uint32_t i = L->cpu_start[c]; i < L->cpu_start[c + 1]; i++)
        set[L->cpus[i]] = 1;
    clof_topo_cpulist_format(buf, size, set, t->ncpus);
    return buf;
}

#define LISTBUF (CLOF_TOPO_MAX_CPUS * 6)

int clof_topology_write(const clof_topology_t *t, FILE *f)
{
    if (t->nlevels == 0)
        return -1;
    uint8_t *set = malloc(t->ncpus);
    char *buf = malloc(LISTBUF);
    if (!set || !buf) {
        free(set), free(buf);
        return -1;
    }
    fprintf(f, "clof-topology 1\n");
    if (t->name[0])
        fprintf(f, "name %s\n", t->name);
    fprintf(f, "# source: %s (%s)\n", clof_topo_source_name(t->source), t->origin);
    clof_topo_cpulist_format(buf, LISTBUF, t->present, t->ncpus);
    fprintf(f, "cpus %s\n", buf);
    for (uint32_t l = 0; l < t->nlevels; l++) {
        const clof_topo_level_t *L = &t->level[l];
        fprintf(f, "\nlevel %s", clof_topo_level_name(L->kind));
        if (L->threshold != CLOF_TOPO_DEFAULT_THRESHOLD || L->kind != CLOF_LEVEL_SYSTEM)
            fprintf(f, " threshold %u", L->threshold);
        fprintf(f, "\n");
        if (L->kind == CLOF_LEVEL_SYSTEM)
            break;
        for (uint32_t c = 0; c < L->ncohorts; c++)
            fprintf(f, "group %s\n", cohort_list(t, l, c, set, buf, LISTBUF));
    }
    bool any_little = false;
    for (uint32_t c = 0; c < t->ncpus; c++)
        if (t->present[c] && t->core_type[c] == CLOF_CORE_LITTLE)
            any_little = true;
    if (any_little) {
        fprintf(f, "\n");
        for (int ty = CLOF_CORE_BIG; ty <= CLOF_CORE_LITTLE; ty++) {
            for (uint32_t c = 0; c < t->ncpus; c++)
                set[c] = t->present[c] && t->core_type[c] == ty;
            clof_topo_cpulist_format(buf, LISTBUF, set, t->ncpus);
            if (buf[0])
                fprintf(f, "%s %s\n", clof_topo_core_type_name((clof_core_type_t)ty), buf);
        }
    }
    free(set);
    free(buf);
    return ferror(f) ? -1 : 0;
}

void clof_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

int clof_topology_write_json(const clof_topology_t *t, FILE *f)
{
    if (t->nlevels == 0)
        return -1;
    uint8_t *set = malloc(t->ncpus);
    char *buf = malloc(LISTBUF);
    if (!set || !buf) {
        free(set), free(buf);
        return -1;
    }
    fprintf(f, "{\"source\": ");
    clof_json_str(f, clof_topo_source_name(t->source));
    fprintf(f, ", \"origin\": ");
    clof_json_str(f, t->origin);
    fprintf(f, ", \"name\": ");
    clof_json_str(f, t->name);
    fprintf(f, ", \"emulated\": %s, \"ncpus\": %u, \"npresent\": %u, \"cpus\": ",
            t->emulated ? "true" : "false", t->ncpus, t->npresent);
    clof_topo_cpulist_format(buf, LISTBUF, t->present, t->ncpus);
    clof_json_str(f, buf);
    fprintf(f, ",\n \"levels\": [");
    for (uint32_t l = 0; l < t->nlevels; l++) {
        const clof_topo_level_t *L = &t->level[l];
        fprintf(f, "%s\n  {\"kind\": \"%s\", \"cohorts\": %u, \"threshold\": %u, \"groups\": [",
                l ? "," : "", clof_topo_level_name(L->kind), L->ncohorts, L->threshold);
        for (uint32_t c = 0; c < L->ncohorts; c++) {
            fprintf(f, "%s", c ? ", " : "");
            clof_json_str(f, cohort_list(t, l, c, set, buf, LISTBUF));
        }
        fprintf(f, "], \"parent\": [");
        for (uint32_t c = 0; c < L->ncohorts; c++)
            fprintf(f, "%s%u", c ? ", " : "", L->parent[c]);
        fprintf(f, "]}");
    }
    fprintf(f, "],\n \"core_types\": {");
    for (int ty = CLOF_CORE_BIG; ty <= CLOF_CORE_LITTLE; ty++) {
        for (uint32_t c = 0; c < t->ncpus; c++)
            set[c] = t->present[c] && t->core_type[c] == ty;
        clof_topo_cpulist_format(buf, LISTBUF, set, t->ncpus);
        fprintf(f, "%s\"%s\": ", ty ? ", " : "",
                clof_topo_core_type_name((clof_core_type_t)ty));
        clof_json_str(f, buf);
    }
    fprintf(f, "},\n \"capacity\": [");
    for (uint32_t c = 0; c < t->ncpus; c++)
        fprintf(f, "%s%u", c ? ", " : "", t->capacity[c]);
    fprintf(f, "],\n \"warning\": ");
    clof_json_str(f, t->warning);
    fprintf(f, "}\n");
    free(set);
    free(buf);
    return ferror(f) ? -1 : 0;
}

/* ---- the source order ----------------------------------------------------------- */

static const char *env(const char *name, unsigned flags)
{
    if (flags & CLOF_TOPO_NO_ENV)
        return NULL;
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int clof_topology_load(clof_topology_t *t, const clof_topo_opts_t *opts,
                       clof_topo_error_t *err)
{
    clof_topo_opts_t o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof o);
    if (err)
        memset(err, 0, sizeof *err);
    memset(t, 0, sizeof *t);

    const char *file = o.file, *emu = o.emulate;
    if (!file && !emu) { /* explicit beats environment */
        file = env("CLOF_TOPOLOGY", o.flags);
        emu = env("CLOF_EMULATE", o.flags);
    }
    if (file)
        return clof_topology_load_file(t, file, err);
    if (emu)
        return clof_topology_emulate(t, emu, o.flags, err);

    const char *root = o.sysfs_root;
    if (!root)
        root = env("CLOF_SYSFS_ROOT", o.flags);
    if (!root)
        root = "/sys";
    clof_topo_error_t serr;
    if (clof_topology_from_sysfs(t, root, o.flags, &serr) == 0) {
        if (t->warning[0] && !(o.flags & CLOF_TOPO_QUIET))
            fprintf(stderr, "clof: warning: %s\n", t->warning);
        return 0;
    }
    if (o.flags & CLOF_TOPO_NO_FLAT) {
        if (err)
            *err = serr;
        return -1;
    }
    if (clof_topology_flat(t, 0) != 0)
        return clof_topo_fail_(err, NULL, 0, "out of memory");
    snprintf(t->warning, sizeof t->warning,
             "topology: %.160s; using one flat system level over %u cpus",
             serr.msg, t->npresent);
    if (!(o.flags & CLOF_TOPO_QUIET))
        fprintf(stderr, "clof: warning: %s\n", t->warning);
    return 0;
}

/* ---- the process topology ------------------------------------------------------- */

/* Guards the loading and the installing of the process topology.  Not a
 * pthread mutex: under libclof-preload.so pthread_mutex_lock is a clof lock,
 * and CNA (also as cr:'s passive queue) looks the topology up from inside
 * its acquire, between its exchange of the tail and its link -- a lazy load
 * there that took an interposed mutex re-entered the lock and hung the
 * queue.  A TTAS lock of this library waits through the waiting policy and
 * is never interposed. */
static clof_ttas_t g_lock = CLOF_TTAS_INITIALIZER;
static void g_lock_take(void)
{
    clof_ttas_ctx_t c;
    clof_ttas_acquire(&g_lock, &c);
}
static void g_lock_drop(void)
{
    clof_ttas_ctx_t c;
    clof_ttas_release(&g_lock, &c);
}
static clof_topology_t *g_topo;   /* published with release order */
static int g_assign = -1;         /* clof_vcpu_assign_t, -1 = not yet read */
static uint32_t g_next_thread;    /* registration order */

static void publish(clof_topology_t *t)
{
    __atomic_store_n(&clof_topo_real_cpus_, t->emulated ? 0 : 1, __ATOMIC_RELAXED);
    __atomic_store_n(&g_topo, t, __ATOMIC_RELEASE);
}

const clof_topology_t *clof_topology(void)
{
    clof_topology_t *t = __atomic_load_n(&g_topo, __ATOMIC_ACQUIRE);
    if (t)
        return t;
    g_lock_take();
    t = g_topo;
    /* out of memory (the topology's arrays are malloc'd): one line on
     * stderr, and the load is tried again every millisecond -- a lock's
     * first use waits for memory rather than ending the process */
    for (bool said = false; !t; said = true) {
        t = calloc(1, sizeof *t);
        clof_topo_error_t err;
        if (t && clof_topology_load(t, NULL, &err) != 0) {
            if (!said)
                fprintf(stderr, "clof: %s; using the machine's own topology\n", err.msg);
            clof_topo_opts_t o = {NULL, NULL, NULL, CLOF_TOPO_NO_ENV};
            if (clof_topology_load(t, &o, &err) != 0)
                clof_topology_flat(t, 0);
        }
        if (t && t->nlevels != 0) {
            publish(t);
            break;
        }
        free(t);
        t = NULL;
        if (!said)
            fprintf(stderr, "clof: out of memory loading the topology; waiting for memory\n");
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    g_lock_drop();
    return t;
}

int clof_topology_install(const clof_topo_opts_t *opts, clof_topo_error_t *err)
{
    clof_topology_t *t = calloc(1, sizeof *t);
    if (!t)
        return clof_topo_fail_(err, NULL, 0, "out of memory");
    if (clof_topology_load(t, opts, err) != 0) {
        free(t);
        return -1;
    }
    g_lock_take();
    /* the old topology stays allocated: locks built on it may still use it */
    publish(t);
    __atomic_store_n(&g_next_thread, 0, __ATOMIC_RELAXED);
    g_lock_drop();
    return 0;
}

/* ---- current cpu and virtual cpus ------------------------------------------------- */

__thread int32_t clof_topo_vcpu_tls_ = -1;
int clof_topo_real_cpus_; /* 1 once a non-emulated process topology is published */

int clof_topo_set_vcpu(int32_t vcpu)
{
    if (vcpu >= CLOF_TOPO_MAX_CPUS)
        return -1;
    clof_topo_vcpu_tls_ = vcpu < 0 ? -1 : vcpu;
    return 0;
}

int32_t clof_topo_get_vcpu(void)
{
    return clof_topo_vcpu_tls_;
}

int clof_topo_assign_from_name(const char *name)
{
    if (strcmp(name, "packed") == 0)
        return CLOF_VCPU_PACKED;
    if (strcmp(name, "spread") == 0)
        return CLOF_VCPU_SPREAD;
    if (strcmp(name, "linear") == 0)
        return CLOF_VCPU_LINEAR;
    return -1;
}

void clof_topo_set_assign(clof_vcpu_assign_t policy)
{
    __atomic_store_n(&g_assign, (int)policy, __ATOMIC_RELAXED);
}

static clof_vcpu_assign_t assign_policy(void)
{
    int a = __atomic_load_n(&g_assign, __ATOMIC_RELAXED);
    if (a >= 0)
        return (clof_vcpu_assign_t)a;
    const char *e = getenv("CLOF_EMULATE_ASSIGN");
    a = e ? clof_topo_assign_from_name(e) : -1;
    if (e && a < 0)
        fprintf(stderr, "clof: CLOF_EMULATE_ASSIGN=%s: expected packed, spread "
                        "or linear; using packed\n", e);
    if (a < 0)
        a = CLOF_VCPU_PACKED;
    int expect = -1;
    __atomic_compare_exchange_n(&g_assign, &expect, a, false, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    return (clof_vcpu_assign_t)__atomic_load_n(&g_assign, __ATOMIC_RELAXED);
}

void clof_topo_assign_reset(void)
{
    __atomic_store_n(&g_next_thread, 0, __ATOMIC_RELAXED);
}

uint32_t clof_topo_assign_vcpu(const clof_topology_t *t,
                               clof_vcpu_assign_t policy, uint32_t k)
{
    uint32_t i = k % t->npresent;
    switch (policy) {
    case CLOF_VCPU_SPREAD:
        return t->order_spread[i];
    case CLOF_VCPU_LINEAR: {
        /* the i-th present cpu by id */
        for (uint32_t c = 0; c < t->ncpus; c++)
            if (t->present[c] && i-- == 0)
                return c;
        return 0;
    }
    default:
        return t->order_packed[i];
    }
}

uint32_t clof_current_cpu_slow_(void)
{
    const clof_topology_t *t = clof_topology();
    if (t->emulated) {
        uint32_t k = __atomic_fetch_add(&g_next_thread, 1, __ATOMIC_RELAXED);
        uint32_t v = clof_topo_assign_vcpu(t, assign_policy(), k);
        clof_topo_vcpu_tls_ = (int32_t)v;
        return v;
    }
    int c = sched_getcpu();
    return c < 0 ? 0 : (uint32_t)c;
}
