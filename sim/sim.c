/* SPDX-License-Identifier: MIT */
/*
 * sim/sim.c -- the simulator of the `sim` backend (see sim.h for the model,
 * docs/simulation.md for its use and its limits).
 *
 * Structure
 *   profiles   parse a .profile file (costs) and its hierarchy file (the
 *              library's own parser), derive the cpu x cpu cost table;
 *   directory  one entry per touched 64-byte line: the modified holder, the
 *              sharer set, the time the line is busy until (transfers of a
 *              line are serialised), the threads sleeping on it;
 *   threads    one fiber each (fiber/fiber.h, the project's one fiber
 *              runtime), a virtual clock, a cpu;
 *   scheduler  a binary heap of the runnable threads ordered by (clock,
 *              index); a thread runs until its next access finds another
 *              thread with a smaller clock, then yields to the scheduler.
 * All state is per process (one simulation at a time, on one OS thread).
 */
#define _GNU_SOURCE
#include "sim.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fiber.h"

#if defined(__GNUC__) && !defined(__clang__)
/* error messages are cut to their buffers on purpose */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#ifndef CLOF_SIM_PROFILE_DIR
#define CLOF_SIM_PROFILE_DIR "sim/profiles"
#endif

#define SIM_WORDS (SIM_MAX_CPUS / 64)
#define SIM_STACK (128 * 1024)
#define SIM_START_SPREAD_NS 20.0 /* per thread: see sim_run */

/* ====================================================================== profiles */

static const char *const kind_names[SIM_NKINDS] = {"core", "cache", "numa",
                                                   "package", "system"};

static int kind_of(const char *s)
{
    for (int k = 0; k < SIM_NKINDS; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

/* $CLOF_SIM_PROFILES, else the source tree's sim/profiles the program was
 * built from, else (an installed program whose source tree is gone)
 * ../share/clof/profiles beside the program's folder */
const char *sim_profile_dir(void)
{
    const char *e = getenv("CLOF_SIM_PROFILES");
    if (e && *e)
        return e;
    if (access(CLOF_SIM_PROFILE_DIR, R_OK) == 0)
        return CLOF_SIM_PROFILE_DIR;
    static char installed[4096];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return CLOF_SIM_PROFILE_DIR;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return CLOF_SIM_PROFILE_DIR;
    *slash = 0;
    snprintf(installed, sizeof installed, "%s/../share/clof/profiles", exe);
    return access(installed, R_OK) == 0 ? installed : CLOF_SIM_PROFILE_DIR;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void sim_profile_list(char *buf, size_t n, const char *sep)
{
    char *names[256];
    int k = 0;
    if (n)
        buf[0] = 0;
    DIR *d = opendir(sim_profile_dir());
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && k < 256) {
        size_t l = strlen(e->d_name);
        if (l > 8 && strcmp(e->d_name + l - 8, ".profile") == 0)
            names[k++] = strndup(e->d_name, l - 8);
    }
    closedir(d);
    qsort(names, (size_t)k, sizeof names[0], name_cmp);
    size_t used = 0;
    for (int i = 0; i < k; i++) {
        if (names[i] && used < n)
            used += (size_t)snprintf(buf + used, n - used, "%s%s",
                                     i ? sep : "", names[i]);
        free(names[i]);
    }
}

void sim_profile_free(sim_profile_t *p)
{
    clof_topology_free(&p->topo);
    free(p->pair_kind);
    free(p->pair_ns);
    p->pair_kind = NULL;
    p->pair_ns = NULL;
}

/* Parse a number; false when s is not one in [lo, hi]. */
static bool num_in(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

#define PERR(...)                                                              \
    do {                                                                       \
        char m_[1200];                                                          \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                  \
        snprintf(err, errlen, "%s:%u: %s", p->path, line, m_);                 \
        goto fail;                                                             \
    } while (0)

static int parse_profile(sim_profile_t *p, FILE *f, char *err, size_t errlen)
{
    char buf[1024];
    unsigned line = 0;
    bool magic = false;
    struct {
        char list[512];
        double v;
        unsigned line;
    } speeds[64];
    int nspeeds = 0;
    unsigned level_line[SIM_NKINDS] = {0};
    unsigned hier_line = 0;
    char hier[1024] = "";

    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (!strchr(buf, '\n') && !feof(f))
            PERR("a line longer than %d characters", (int)sizeof buf - 2);
        char raw[1024];
        memcpy(raw, buf, sizeof raw);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *w[4] = {0};
        int nw = 0;
        char *save = NULL;
        char *rest = NULL; /* the text after the first word */
        for (char *tok = strtok_r(buf, " \t\r\n", &save); tok;
             tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (nw == 1 && !rest)
                rest = tok;
            if (nw < 4)
                w[nw] = tok;
            nw++;
        }
        if (nw == 0)
            continue;
        if (!magic) {
            if (strcmp(w[0], "clof-sim-profile") != 0 || nw != 2 ||
                strcmp(w[1], "1") != 0)
                PERR("expected 'clof-sim-profile 1' as the first statement, "
                     "got '%s'",
                     w[0]);
            magic = true;
            continue;
        }
        if (strcmp(w[0], "name") == 0 || strcmp(w[0], "description") == 0 ||
            strcmp(w[0], "source") == 0) {
            if (nw < 2)
                PERR("expected text after '%s'", w[0]);
            /* the rest of the line, as written */
            const char *r = raw + (rest - buf);
            size_t rl = strcspn(r, "#\r\n");
            while (rl && (r[rl - 1] == ' ' || r[rl - 1] == '\t'))
                rl--;
            char *dst = strcmp(w[0], "name") == 0          ? p->name
                        : strcmp(w[0], "description") == 0 ? p->description
                                                           : p->source;
            size_t cap = strcmp(w[0], "name") == 0 ? sizeof p->name
                                                   : sizeof p->description;
            snprintf(dst, cap, "%.*s", (int)rl, r);
            continue;
        }
        if (strcmp(w[0], "hierarchy") == 0) {
            if (nw != 2)
                PERR("expected 'hierarchy FILE' (a hierarchy file, relative "
                     "to this profile)");
            if (hier_line)
                PERR("'hierarchy' given twice (first at line %u)", hier_line);
            hier_line = line;
            snprintf(hier, sizeof hier, "%s", w[1]);
            continue;
        }
        if (strcmp(w[0], "cost") == 0) {
            double v;
            if (nw != 3)
                PERR("expected 'cost hit|rmw|fence|pause|memory|switch|wake NS'");
            if (!num_in(w[2], 0, 1e6, &v))
                PERR("expected a cost in ns (0..1e6) after 'cost %s', got '%s'",
                     w[1], w[2]);
            if (strcmp(w[1], "hit") == 0)
                p->hit_ns = v;
            else if (strcmp(w[1], "rmw") == 0)
                p->rmw_ns = v;
            else if (strcmp(w[1], "fence") == 0)
                p->fence_ns = v;
            else if (strcmp(w[1], "pause") == 0)
                p->pause_ns = v;
            else if (strcmp(w[1], "memory") == 0)
                p->memory_ns = v;
            else if (strcmp(w[1], "switch") == 0)
                p->switch_ns = v;
            else if (strcmp(w[1], "wake") == 0)
                p->wake_ns = v;
            else
                PERR("unknown cost '%s': expected hit, rmw, fence, pause, "
                     "memory, switch or wake",
                     w[1]);
            continue;
        }
        if (strcmp(w[0], "level") == 0) {
            double v;
            int k;
            if (nw != 3)
                PERR("expected 'level KIND NS' (the cost of a line transfer "
                     "between two cpus whose closest common level is KIND)");
            if ((k = kind_of(w[1])) < 0)
                PERR("unknown level '%s': expected core, cache, numa, package "
                     "or system",
                     w[1]);
            if (level_line[k])
                PERR("level %s given twice (first at line %u)", w[1],
                     level_line[k]);
            if (!num_in(w[2], 0, 1e6, &v))
                PERR("expected a transfer cost in ns (0..1e6) after 'level "
                     "%s', got '%s'",
                     w[1], w[2]);
            p->level_ns[k] = v;
            level_line[k] = line;
            continue;
        }
        if (strcmp(w[0], "speed") == 0) {
            double v;
            if (nw != 3)
                PERR("expected 'speed LIST FACTOR' (e.g. 'speed 0-3 0.55')");
            if (!num_in(w[2], 0.01, 100, &v))
                PERR("expected a speed factor (0.01..100) after 'speed %s', "
                     "got '%s'",
                     w[1], w[2]);
            if (nspeeds == 64)
                PERR("too many 'speed' lines (at most 64)");
            if (strlen(w[1]) >= sizeof speeds[0].list)
                PERR("a cpu list of more than %d characters after 'speed'",
                     (int)sizeof speeds[0].list - 1);
            snprintf(speeds[nspeeds].list, sizeof speeds[nspeeds].list, "%s",
                     w[1]);
            speeds[nspeeds].v = v;
            speeds[nspeeds].line = line;
            nspeeds++;
            continue;
        }
        if (strcmp(w[0], "slice") == 0) {
            double v;
            if (nw != 2 || !num_in(w[1], 1000, 1e9, &v))
                PERR("expected 'slice NS' with a time slice in ns "
                     "(1000..1e9), got '%s'",
                     nw >= 2 ? w[1] : "");
            p->slice_ns = v;
            continue;
        }
        if (strcmp(w[0], "jitter") == 0) {
            double v;
            if (nw != 2 || !num_in(w[1], 0, 0.9, &v))
                PERR("expected 'jitter FRACTION' with a fraction 0..0.9");
            p->jitter = v;
            continue;
        }
        PERR("unknown statement '%s': expected name, description, source, "
             "hierarchy, cost, level, speed, slice or jitter",
             w[0]);
    }
    if (!magic) {
        line = 1;
        PERR("empty profile: expected 'clof-sim-profile 1'");
    }
    if (!hier_line) {
        PERR("no 'hierarchy FILE' statement: a profile names its machine's "
             "hierarchy file");
    }
    /* the hierarchy, relative to the profile's directory */
    if (hier[0] == '/') {
        snprintf(p->hierarchy, sizeof p->hierarchy, "%s", hier);
    } else {
        const char *slash = strrchr(p->path, '/');
        int dl = slash ? (int)(slash - p->path) : 1;
        snprintf(p->hierarchy, sizeof p->hierarchy, "%.*s/%s", dl,
                 slash ? p->path : ".", hier);
    }
    clof_topo_error_t te;
    if (clof_topology_load_file(&p->topo, p->hierarchy, &te) != 0) {
        line = hier_line;
        PERR("bad hierarchy file: %s", te.msg);
    }
    if (p->topo.ncpus > SIM_MAX_CPUS) {
        line = hier_line;
        PERR("the hierarchy has cpu ids up to %u: at most %d cpus can be "
             "simulated",
             p->topo.ncpus - 1, SIM_MAX_CPUS);
    }
    for (uint32_t l = 0; l < p->topo.nlevels; l++) {
        int k = (int)p->topo.level[l].kind;
        if (!level_line[k]) {
            line = hier_line;
            PERR("the hierarchy has a %s level but the profile gives no "
                 "'level %s NS' cost",
                 kind_names[k], kind_names[k]);
        }
    }
    for (int k = 0; k < SIM_NKINDS; k++) {
        bool present = false;
        for (uint32_t l = 0; l < p->topo.nlevels; l++)
            present |= (int)p->topo.level[l].kind == k;
        if (level_line[k] && !present) {
            line = level_line[k];
            PERR("a cost for level %s, but the hierarchy (%s) has no %s level",
                 kind_names[k], p->hierarchy, kind_names[k]);
        }
    }
    for (int i = 0; i < SIM_MAX_CPUS; i++)
        p->speed[i] = 1.0;
    for (int s = 0; s < nspeeds; s++) {
        static uint8_t set[SIM_MAX_CPUS];
        line = speeds[s].line;
        if (clof_topo_cpulist_parse(speeds[s].list, set, SIM_MAX_CPUS) < 0)
            PERR("bad cpu list '%s': expected e.g. 0-3,8", speeds[s].list);
        for (uint32_t c = 0; c < SIM_MAX_CPUS; c++)
            if (set[c]) {
                if (c >= p->topo.ncpus || !p->topo.present[c])
                    PERR("cpu %u is not one of the hierarchy's cpus", c);
                p->speed[c] = speeds[s].v;
            }
    }
    return 0;
fail:
    return -1;
}

static void profile_defaults(sim_profile_t *p)
{
    memset(p, 0, sizeof *p);
    p->hit_ns = 1.0;
    p->rmw_ns = 5.0;
    p->fence_ns = 5.0;
    p->pause_ns = 5.0;
    p->memory_ns = 100.0;
    p->jitter = 0.0;
    p->switch_ns = SIM_DEFAULT_SWITCH_NS;
    p->wake_ns = SIM_DEFAULT_WAKE_NS;
    p->slice_ns = SIM_DEFAULT_SLICE_NS;
    for (int k = 0; k < SIM_NKINDS; k++)
        p->level_ns[k] = -1;
}

/* parse the open profile f (p->path and p->name set), then the pair tables */
static int profile_from(sim_profile_t *p, FILE *f, char *err, size_t errlen)
{
    int rc = parse_profile(p, f, err, errlen);
    if (rc != 0) {
        sim_profile_free(p);
        return -1;
    }
    /* the pair tables */
    uint32_t n = p->topo.ncpus;
    p->pair_kind = malloc((size_t)n * n);
    p->pair_ns = malloc(sizeof(double) * n * n);
    if (!p->pair_kind || !p->pair_ns) {
        snprintf(err, errlen, "out of memory");
        sim_profile_free(p);
        return -1;
    }
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++) {
            size_t i = (size_t)a * n + b;
            if (a == b) {
                p->pair_kind[i] = SIM_NKINDS;
                p->pair_ns[i] = 0;
                continue;
            }
            for (uint32_t l = 0; l < p->topo.nlevels; l++)
                if (clof_topo_cohort(&p->topo, a, l) ==
                    clof_topo_cohort(&p->topo, b, l)) {
                    int k = (int)p->topo.level[l].kind;
                    p->pair_kind[i] = (uint8_t)k;
                    p->pair_ns[i] = p->level_ns[k];
                    break;
                }
        }
    return 0;
}

int sim_profile_load(sim_profile_t *p, const char *arg, char *err,
                     size_t errlen)
{
    profile_defaults(p);
    size_t al = strlen(arg);
    bool is_path = strchr(arg, '/') || (al > 8 && !strcmp(arg + al - 8, ".profile"));
    if (is_path) {
        snprintf(p->path, sizeof p->path, "%s", arg);
        const char *b = strrchr(arg, '/');
        b = b ? b + 1 : arg;
        size_t bl = strlen(b);
        if (bl > 8 && !strcmp(b + bl - 8, ".profile"))
            bl -= 8;
        snprintf(p->name, sizeof p->name, "%.*s", (int)bl, b);
    } else {
        snprintf(p->path, sizeof p->path, "%s/%s.profile", sim_profile_dir(),
                 arg);
        snprintf(p->name, sizeof p->name, "%s", arg);
    }
    FILE *f = fopen(p->path, "r");
    if (!f) {
        if (!is_path) {
            char known[2048];
            sim_profile_list(known, sizeof known, ", ");
            snprintf(err, errlen,
                     "unknown profile '%s'; known profiles: %s (in %s), or "
                     "the path of a .profile file",
                     arg, known[0] ? known : "(none)", sim_profile_dir());
        } else {
            snprintf(err, errlen, "%s: cannot open: %s", p->path,
                     strerror(errno));
        }
        return -1;
    }
    int rc = profile_from(p, f, err, errlen);
    fclose(f);
    return rc;
}

int sim_profile_parse(sim_profile_t *p, const char *path, const char *text,
                      size_t len, char *err, size_t errlen)
{
    profile_defaults(p);
    snprintf(p->path, sizeof p->path, "%s", path);
    snprintf(p->name, sizeof p->name, "%s", path);
    /* fmemopen needs a size above 0: an empty text is an empty file */
    FILE *f = len ? fmemopen((void *)(uintptr_t)text, len, "r") : fopen("/dev/null", "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the text: %s", path, strerror(errno));
        return -1;
    }
    int rc = profile_from(p, f, err, errlen);
    fclose(f);
    return rc;
}

/* ====================================================================== state */

enum {
    T_RUNNABLE, /* on its cpu, in the heap (key = clock) */
    T_BLOCKED,  /* on its cpu, waiting for a write of a line (a spin); in
                   the heap only with a deadline (key = the deadline) */
    T_PARKED,   /* off its cpu, waiting for a write of a line (futex park) */
    T_QUEUED,   /* ready, waiting for its cpu (time-sharing) */
    T_DONE
};

typedef struct sthr {
    clof_fiber_t *f;
    double clock;
    double key; /* heap order: the clock, or a blocked thread's deadline */
    double inv_speed;
    double sb_until; /* the buffered stores complete (SIM_MECH_STORE_BUFFER) */
    double ready_at; /* queued: when it became ready */
    uint32_t cpu;
    int id;
    int state;
    int hpos;  /* position in the heap, -1 */
    int wnext; /* next waiter on the same line, -1 */
    int qnext; /* next thread in its cpu's run queue, -1 */
    bool woken; /* the last wait ended by a write (not a deadline) */
    /* the waiting policy (time-sharing runs): the current wait, its spin
     * time and yields left, and the adaptive spin budget (wait.h) */
    bool w_live, w_halved;
    bool w_keyed; /* parked until the word holds w_want (else: changes) */
    int w_size;
    const void *w_addr;
    uint64_t w_seen, w_want;
    double w_spin_left;
    uint32_t w_yields, w_parked;
    uint32_t spins;
    uint32_t nparks;
    sim_fn fn;
    void *arg;
} sthr_t;

/* A simulated cpu of a time-sharing run. */
typedef struct {
    int cur;            /* the thread on it, -1: idle */
    int qhead, qtail;   /* its run queue (FIFO), -1 */
    int nq;
    bool used;          /* in the run's cpu set (a thread was placed on it) */
    double idle_since;  /* idle: when it went idle */
    double slice_end;   /* the current thread's time slice ends */
} scpu_t;

typedef struct {
    uintptr_t tag; /* line index + 1; 0: empty slot */
    int32_t owner; /* cpu holding it modified/exclusive, -1 */
    int32_t waiters; /* first sleeping thread, -1 */
    double ready;  /* busy until (previous transfer completes) */
    uint64_t sh[SIM_WORDS]; /* cpus holding a copy (the owner too) */
} dline_t;

static struct {
    const sim_profile_t *p;
    uint32_t ncpus;
    uint32_t nused; /* distinct cpus of the run */
    sthr_t *thr;
    int n;
    sthr_t *cur;
    int *heap;
    int nheap;
    dline_t *dir;
    size_t dcap, dused;
    uint64_t rng;
    uint64_t salt; /* the seed's, for sim_thread_key() */
    double last_now;
    sim_stats_t st;
    scpu_t *cpu;    /* [ncpus] */
    bool timeshare; /* cpus are time-shared (run queues, slices) */
    dline_t *pend_line; /* a write to it may wake parked threads */
    double pend_at;
    bool policy;    /* waits follow the waiting policy (spin, yield, park) */
    unsigned mech;  /* SIM_MECH_*: the mechanisms of the model in force */
} S;

static int g_wait_model = SIM_WAIT_AUTO; /* sim_set_wait_model */

/* The model's mechanisms beyond the first model (docs/simulation-accuracy.md
 * has each one's source and what it moved on the measured points).  On by
 * default: shared-reads.  Off by default: store-buffer (tried against the
 * measured points and not kept: it moved the held-back error of the 16-cpu
 * machine from 45% to 122%).  CLOF_SIM_MECH = "none", "all", or a comma list
 * of the names selects them, for A/B runs (sim/validate.py --mech). */
enum {
    SIM_MECH_SHARED_READS = 1u << 0, /* reads of a clean line run in parallel */
    SIM_MECH_STORE_BUFFER = 1u << 1, /* a store miss does not stall its cpu */
    SIM_MECH_ALL = SIM_MECH_SHARED_READS | SIM_MECH_STORE_BUFFER,
    SIM_MECH_DEFAULT = SIM_MECH_SHARED_READS
};
static unsigned mech_from_env(void)
{
    const char *e = getenv("CLOF_SIM_MECH");
    if (!e || !*e)
        return SIM_MECH_DEFAULT;
    if (!strcmp(e, "all"))
        return SIM_MECH_ALL;
    unsigned m = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", e);
    char *save = NULL;
    for (char *w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        if (!strcmp(w, "shared-reads"))
            m |= SIM_MECH_SHARED_READS;
        else if (!strcmp(w, "store-buffer"))
            m |= SIM_MECH_STORE_BUFFER;
        else if (strcmp(w, "none") != 0) {
            fprintf(stderr, "clof sim: CLOF_SIM_MECH: unknown mechanism '%s' (expected "
                            "none, all, or a comma list of shared-reads, store-buffer)\n", w);
            exit(2);
        }
    }
    return m;
}
bool sim_pending_; /* S.pend_line is set: sim_written checks it */

static inline bool before(const sthr_t *a, const sthr_t *b)
{
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static inline void heap_set_(int i, int id)
{
    S.heap[i] = id;
    S.thr[id].hpos = i;
}

static void heap_up_(int i, int id)
{
    while (i > 0) {
        int par = (i - 1) / 2;
        if (!before(&S.thr[id], &S.thr[S.heap[par]]))
            break;
        heap_set_(i, S.heap[par]);
        i = par;
    }
    heap_set_(i, id);
}

static void heap_down_(int i, int id)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= S.nheap)
            break;
        if (c + 1 < S.nheap && before(&S.thr[S.heap[c + 1]], &S.thr[S.heap[c]]))
            c++;
        if (!before(&S.thr[S.heap[c]], &S.thr[id]))
            break;
        heap_set_(i, S.heap[c]);
        i = c;
    }
    heap_set_(i, id);
}

/* Insert thread id with heap key `key`. */
static void heap_push_key(int id, double key)
{
    S.thr[id].key = key;
    heap_up_(S.nheap++, id);
}

static void heap_push(int id)
{
    heap_push_key(id, S.thr[id].clock);
}

static void heap_remove(int id)
{
    int i = S.thr[id].hpos;
    S.thr[id].hpos = -1;
    int last = S.heap[--S.nheap];
    if (last == id)
        return;
    heap_up_(i, last);
    heap_down_(S.thr[last].hpos, last);
}

static int heap_pop(void)
{
    int top = S.heap[0];
    heap_remove(top);
    return top;
}

/* Move thread id (in the heap or not) to key `key`. */
static void heap_rekey(int id, double key)
{
    if (S.thr[id].hpos >= 0)
        heap_remove(id);
    heap_push_key(id, key);
}

/* ---- the directory ---- */

static void dir_init(size_t cap)
{
    S.dir = calloc(cap, sizeof *S.dir);
    S.dcap = cap;
    S.dused = 0;
    if (!S.dir) {
        fprintf(stderr, "clof sim: out of memory\n");
        abort();
    }
}

static inline size_t dir_hash(uintptr_t tag)
{
    return (size_t)((tag * 0x9e3779b97f4a7c15ull) >> 20);
}

static dline_t *dir_get(uintptr_t line);

static void dir_grow(void)
{
    dline_t *old = S.dir;
    size_t ocap = S.dcap;
    dir_init(ocap * 2);
    for (size_t i = 0; i < ocap; i++)
        if (old[i].tag) {
            size_t j = dir_hash(old[i].tag) & (S.dcap - 1);
            while (S.dir[j].tag)
                j = (j + 1) & (S.dcap - 1);
            S.dir[j] = old[i];
            S.dused++;
        }
    free(old);
}

static dline_t *dir_get(uintptr_t line)
{
    uintptr_t tag = line + 1;
    size_t j = dir_hash(tag) & (S.dcap - 1);
    for (;;) {
        dline_t *d = &S.dir[j];
        if (d->tag == tag)
            return d;
        if (!d->tag)
            break;
        j = (j + 1) & (S.dcap - 1);
    }
    if (2 * (S.dused + 1) > S.dcap) {
        dir_grow();
        return dir_get(line);
    }
    dline_t *d = &S.dir[j];
    d->tag = tag;
    d->owner = -1;
    d->waiters = -1;
    d->ready = 0;
    S.dused++;
    return d;
}

static inline bool has(const dline_t *d, uint32_t c)
{
    return d->sh[c >> 6] >> (c & 63) & 1;
}

/* Take thread t off the waiter list of line d (a wait that timed out). */
static void line_unlink(dline_t *d, sthr_t *t)
{
    for (int *pp = &d->waiters; *pp >= 0; pp = &S.thr[*pp].wnext)
        if (*pp == t->id) {
            *pp = t->wnext;
            break;
        }
    t->wnext = -1;
}

/* ---- scheduling ---- */

/* uniform in [0, 1) from the seeded generator (xorshift64*) */
static inline double jitter_u(void)
{
    uint64_t x = S.rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    S.rng = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * 0x1p-53;
}

static inline double jitter(double ns)
{
    if (S.p->jitter <= 0 || ns <= 0)
        return ns;
    return ns * (1.0 + S.p->jitter * (2.0 * jitter_u() - 1.0));
}

/* Make the calling thread the one with the smallest clock. */
static inline void sync_turn(void)
{
    sthr_t *t = S.cur;
    t->key = t->clock;
    if (S.nheap && before(&S.thr[S.heap[0]], t)) {
        t->state = T_RUNNABLE;
        S.st.switches++;
        clof_fiber_yield();
    }
}

/* ---- time-sharing: run queues, slices, switches ---- */

static inline double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* Give cpu c to thread n from time `at` on (a switch). */
static void cpu_give(scpu_t *c, sthr_t *n, double at)
{
    c->cur = n->id;
    n->clock = dmax(n->clock, at) + S.p->switch_ns;
    c->slice_end = n->clock + S.p->slice_ns;
    n->state = T_RUNNABLE;
    heap_push(n->id);
    S.st.ctx_switches++;
}

/* The thread on cpu c leaves it at time `at`: the next queued one runs. */
static void cpu_next(scpu_t *c, double at)
{
    if (c->nq == 0) {
        c->cur = -1;
        c->idle_since = at;
        return;
    }
    sthr_t *n = &S.thr[c->qhead];
    c->qhead = n->qnext;
    if (c->qhead < 0)
        c->qtail = -1;
    c->nq--;
    n->qnext = -1;
    cpu_give(c, n, dmax(at, n->ready_at));
}

/* The spinning thread on c must stop at its slice's end now that others
 * wait for c. */
static void cpu_bound_spin(scpu_t *c)
{
    if (c->cur < 0)
        return;
    sthr_t *h = &S.thr[c->cur];
    if (h->state != T_BLOCKED)
        return; /* a running thread checks its slice at its next access */
    double dl = dmax(c->slice_end, h->clock);
    if (h->hpos < 0 || dl < h->key)
        heap_rekey(h->id, dl);
}

static void cpu_enqueue(scpu_t *c, sthr_t *t, double at)
{
    t->state = T_QUEUED;
    t->ready_at = at;
    t->qnext = -1;
    if (c->qtail >= 0)
        S.thr[c->qtail].qnext = t->id;
    else
        c->qhead = t->id;
    c->qtail = t->id;
    c->nq++;
    cpu_bound_spin(c);
}

/* Wake-up placement: t's own cpu when it is idle, else the nearest idle cpu
 * of the run's set within t's NUMA node (Linux's select_idle_sibling looks
 * for an idle cpu near the waker; no periodic load balancing), else queue
 * on its own cpu. */
static void cpu_make_ready(sthr_t *t, double at)
{
    scpu_t *c = &S.cpu[t->cpu];
    if (c->cur >= 0 || c->nq) {
        const uint32_t n = S.ncpus;
        int best = -1;
        double bestns = 1e300;
        for (uint32_t o = 0; o < n; o++) {
            scpu_t *oc = &S.cpu[o];
            if (!oc->used || oc->cur >= 0 || oc->nq)
                continue;
            size_t i = (size_t)t->cpu * n + o;
            if (S.p->pair_kind[i] > CLOF_LEVEL_NUMA)
                continue;
            if (S.p->pair_ns[i] < bestns) {
                bestns = S.p->pair_ns[i];
                best = (int)o;
            }
        }
        if (best >= 0) {
            t->cpu = (uint32_t)best;
            c = &S.cpu[best];
            S.st.migrations++;
        }
    }
    if (c->cur < 0 && c->nq == 0)
        cpu_give(c, t, dmax(at, c->idle_since));
    else
        cpu_enqueue(c, t, at);
}

/* The calling thread goes to the tail of its cpu's run queue (a preemption
 * at the end of its slice, or a yield with others ready) and resumes when
 * the cpu comes back to it. */
static void cpu_requeue(sthr_t *t)
{
    scpu_t *c = &S.cpu[t->cpu];
    cpu_enqueue(c, t, t->clock);
    cpu_next(c, t->clock);
    S.st.switches++;
    clof_fiber_yield();
}

/* Preempt the calling thread if its slice is over and others wait. */
static inline void slice_check(sthr_t *t)
{
    if (!S.timeshare)
        return;
    scpu_t *c = &S.cpu[t->cpu];
    if (c->nq && t->clock >= c->slice_end) {
        S.st.preemptions++;
        cpu_requeue(t);
    }
}

static inline uint64_t load_word(const void *ptr, int size)
{
    return size == 8 ? __atomic_load_n((const uint64_t *)ptr, __ATOMIC_RELAXED)
                     : __atomic_load_n((const uint32_t *)ptr, __ATOMIC_RELAXED);
}

/* A write of line d at time `at` (charged, not yet done): the spinning
 * waiters wake (their copy was invalidated); the parked ones are checked by
 * sim_written once the write is done (a futex waits for its word). */
static void wake_line(dline_t *d, double at)
{
    int w = d->waiters;
    d->waiters = -1;
    int *keep = &d->waiters;
    while (w >= 0) {
        sthr_t *t = &S.thr[w];
        int next = t->wnext;
        t->wnext = -1;
        if (t->state == T_PARKED) {
            *keep = w;
            keep = &t->wnext;
            sim_pending_ = true;
            S.pend_line = d;
            S.pend_at = at;
        } else {
            t->woken = true;
            S.st.wakeups++;
            if (t->clock < at)
                t->clock = at;
            t->state = T_RUNNABLE;
            heap_rekey(w, t->clock);
        }
        w = next;
    }
}

void sim_pending_wake_(void)
{
    sim_pending_ = false;
    dline_t *d = S.pend_line;
    S.pend_line = NULL;
    if (!d)
        return;
    for (int *pp = &d->waiters; *pp >= 0;) {
        sthr_t *t = &S.thr[*pp];
        uint64_t v = load_word(t->w_addr, t->w_size);
        if (t->state != T_PARKED ||
            (t->w_keyed ? v != t->w_want : v == t->w_seen)) {
            pp = &t->wnext;
            continue;
        }
        *pp = t->wnext;
        t->wnext = -1;
        t->woken = true;
        S.st.wakeups++;
        /* a futex wake: the writer pays the system call, the parked thread
         * needs a cpu */
        if (S.cur)
            S.cur->clock += S.p->wake_ns * S.cur->inv_speed;
        S.st.park_wakes++;
        cpu_make_ready(t, S.pend_at);
    }
}

bool sim_active(void)
{
    return S.cur != NULL;
}

double sim_now_ns(void)
{
    return S.cur ? S.cur->clock : S.last_now;
}

uint32_t sim_parks(void)
{
    return S.cur ? S.cur->nparks : 0;
}

uint64_t sim_thread_key(void)
{
    if (!S.cur)
        return 0;
    uint64_t k = ((uint64_t)S.cur->id + 1) * 0x9E3779B97F4A7C15ULL ^ S.salt;
    k ^= k >> 31;
    return k * 0xBF58476D1CE4E5B9ULL;
}

uint32_t sim_ncpus(void)
{
    return S.cur ? S.nused : SIM_MAX_CPUS;
}

void sim_set_wait_model(int model)
{
    g_wait_model = model;
}

/* Store buffer (SIM_MECH_STORE_BUFFER): a store that misses retires into
 * the store buffer and the cpu goes on; the line moves as before (busy
 * until the transfer is done, visible to others -- and waking its waiters --
 * only then), in program order with the cpu's earlier stores (TSO).  An
 * atomic RMW, a seq_cst store and a seq_cst fence wait until the buffer
 * has drained (Intel SDM vol. 3A, "Memory Ordering in P6 and More Recent
 * Processor Families": locked instructions and MFENCE order all earlier
 * stores; Arm ARM chapter B2, the memory model: DMB and acquire-release
 * read-modify-writes order them likewise).  Loads of the cpu's own
 * pending lines are forwarded (the cpu owns them: a hit). */
static inline void sb_drain(sthr_t *t)
{
    if (t->sb_until > t->clock)
        t->clock = t->sb_until;
}

void sim_access(const void *addr, int kind)
{
    sthr_t *t = S.cur;
    if (!t)
        return;
    sync_turn();
    slice_check(t);
    bool buffered = kind == SIM_WRITE && (S.mech & SIM_MECH_STORE_BUFFER);
    if (kind == SIM_RMW || kind == SIM_WRITE_SC) {
        sb_drain(t);
        kind = kind == SIM_WRITE_SC ? SIM_WRITE : kind;
        sync_turn();
    }
    const sim_profile_t *p = S.p;
    const uint32_t n = S.ncpus;
    const uint32_t c = t->cpu;
    dline_t *d = dir_get((uintptr_t)addr / SIM_LINE);
    double local = (kind == SIM_RMW ? p->rmw_ns : p->hit_ns) * t->inv_speed;
    S.st.accesses++;

    if (kind == SIM_READ) {
        if (d->owner == (int32_t)c || has(d, c)) {
            t->clock += local;
            return;
        }
    } else if (d->owner == (int32_t)c) {
        t->clock += local;
        if (d->waiters >= 0) /* visible after the earlier buffered stores */
            wake_line(d, buffered && t->sb_until > t->clock ? t->sb_until : t->clock);
        return;
    }

    /* A miss (or an upgrade): where the data comes from. */
    double xfer = 0;
    int src = -1;
    bool src_clean = d->owner < 0; /* no modified copy: served by a sharer or memory */
    if (!has(d, c)) {
        if (d->owner >= 0) {
            src = d->owner;
        } else {
            double best = 1e300;
            for (uint32_t wd = 0; wd < SIM_WORDS; wd++)
                for (uint64_t b = d->sh[wd]; b; b &= b - 1) {
                    uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(b);
                    double cost = p->pair_ns[(size_t)s * n + c];
                    if (cost < best) {
                        best = cost;
                        src = (int)s;
                    }
                }
        }
        if (src >= 0) {
            xfer = p->pair_ns[(size_t)src * n + c];
            S.st.transfers[p->pair_kind[(size_t)src * n + c]]++;
        } else {
            xfer = p->memory_ns;
            S.st.memory_fills++;
        }
    }
    if (kind == SIM_READ) {
        if (d->owner >= 0)
            d->owner = -1; /* the modified holder keeps a shared copy */
        d->sh[c >> 6] |= 1ull << (c & 63);
    } else {
        /* invalidate every other copy: at least the farthest round trip */
        double inv = 0;
        for (uint32_t wd = 0; wd < SIM_WORDS; wd++)
            for (uint64_t b = d->sh[wd]; b; b &= b - 1) {
                uint32_t s = wd * 64 + (uint32_t)__builtin_ctzll(b);
                if (s == c)
                    continue;
                size_t i = (size_t)s * n + c;
                S.st.invalidations[p->pair_kind[i]]++;
                if (p->pair_ns[i] > inv)
                    inv = p->pair_ns[i];
            }
        if (inv > xfer)
            xfer = inv;
        memset(d->sh, 0, sizeof d->sh);
        d->sh[c >> 6] = 1ull << (c & 63);
        d->owner = (int32_t)c;
    }
    double start = t->clock > d->ready ? t->clock : d->ready;
    double done = start + jitter(xfer);
    /* Serialisation: a line leaves a modified owner, or is taken exclusive,
     * one requester at a time.  A read of a clean line (copies in other
     * caches, or memory) does not change who may write it: with
     * SIM_MECH_SHARED_READS such reads are served in parallel (each still
     * waits for a transfer in flight and pays its own transfer), as
     * MESI/MOESI caches serve read hits of a Shared line concurrently. */
    if (buffered && done < t->sb_until)
        done = t->sb_until; /* TSO: stores complete in program order */
    if (!(kind == SIM_READ && src_clean && (S.mech & SIM_MECH_SHARED_READS)))
        d->ready = done;
    if (buffered) {
        t->sb_until = done;
        t->clock += local;
    } else {
        t->clock = done + local;
    }
    if (kind != SIM_READ && d->waiters >= 0)
        wake_line(d, done);
}

/* One waiting step under the waiting policy on a time-shared machine (the
 * caller re-reads the word after it and calls again while it is unchanged):
 *   spin   the thread keeps its cpu, asleep on the line until a write or
 *          the end of its spin time (the adaptive budget x `cost pause`,
 *          wait.h's clof_wait_spins_) or of its slice when others wait for
 *          the cpu (then it is preempted, and spins on when it is back);
 *   yield  wp->yields times: to the tail of the cpu's run queue when others
 *          wait for it, else a `pause`;
 *   park   off the cpu until a write of the line; the writer pays `wake`,
 *          the thread then needs a cpu (cpu_make_ready), and its next wait
 *          steps yield wp->yields_woken times before parking again.
 * Successive calls with the same word and value are one wait (its spin time
 * and yields carry over).  wp NULL or spin_only: spin only (a spinning
 * waiter burns its slice). */
static void await_policy(sthr_t *t, const void *ptr, int size, uint64_t seen,
                         const sim_wait_params_t *wp)
{
    const sim_profile_t *p = S.p;
    bool spin_only = !S.policy || !wp || wp->spin_only;
    if (!t->spins && wp)
        t->spins = wp->spins; /* the budget's start, wait.h */
    if (!(t->w_live && t->w_addr == ptr && t->w_seen == seen)) {
        t->w_live = true;
        t->w_addr = ptr;
        t->w_seen = seen;
        t->w_spin_left = spin_only ? INFINITY : t->spins * p->pause_ns * t->inv_speed;
        t->w_yields = spin_only ? 0 : wp->yields;
        t->w_parked = 0;
        t->w_halved = false;
    }
    dline_t *d = dir_get((uintptr_t)ptr / SIM_LINE);
    scpu_t *c = &S.cpu[t->cpu];
    if (t->w_spin_left > 0) {
        double start = t->clock;
        double dl = start + t->w_spin_left;
        if (c->nq && c->slice_end < dl)
            dl = dmax(c->slice_end, start);
        t->wnext = d->waiters;
        d->waiters = t->id;
        t->state = T_BLOCKED;
        t->woken = false;
        if (dl < INFINITY)
            heap_push_key(t->id, dl);
        S.st.switches++;
        clof_fiber_yield();
        if (t->state == T_BLOCKED) { /* a deadline, not a write */
            line_unlink(d, t);
            t->clock = dmax(t->clock, t->key);
            t->state = T_RUNNABLE;
        }
        /* what is left of the budget; below a picosecond it is spent:
         * start + left - start can round to 0 when the clock is large, and
         * a budget that never shrinks would spin in zero time forever */
        t->w_spin_left -= t->clock - start;
        if (t->w_spin_left < 1e-3)
            t->w_spin_left = 0;
        if (t->woken) {
            if (!t->w_parked && !t->w_halved && wp && t->spins < wp->spins)
                t->spins *= 2; /* the wait ended spinning: wait.h's clof_wait_end */
            return;
        }
        c = &S.cpu[t->cpu];
        if (c->nq && t->clock >= c->slice_end) {
            S.st.preemptions++;
            cpu_requeue(t);
            return;
        }
        if (t->w_spin_left > 0 || spin_only)
            return;
    }
    if (!t->w_halved) { /* had to yield or park: wait.h halves the budget */
        t->w_halved = true;
        if (t->spins > wp->spins_min)
            t->spins /= 2;
    }
    if (t->w_yields > 0) {
        t->w_yields--;
        S.st.yields++;
        if (c->nq)
            cpu_requeue(t);
        else
            t->clock += p->pause_ns * t->inv_speed;
        return;
    }
    /* park */
    sync_turn();
    if (load_word(ptr, size) != seen)
        return;
    t->wnext = d->waiters;
    d->waiters = t->id;
    t->state = T_PARKED;
    t->woken = false;
    S.st.parks++;
    t->nparks++;
    cpu_next(&S.cpu[t->cpu], t->clock);
    S.st.switches++;
    clof_fiber_yield();
    /* woken by a write and given a cpu (cpu_make_ready) */
    t->w_parked++;
    t->w_spin_left = t->spins * p->pause_ns * t->inv_speed;
    t->w_yields = wp->yields_woken;
}

static void await_(const void *ptr, int size, uint64_t seen, bool keyed,
                   uint64_t want, const sim_wait_params_t *wp)
{
    sthr_t *t = S.cur;
    if (!t)
        return;
    sync_turn(); /* now no write can happen before our time */
    slice_check(t);
    if (load_word(ptr, size) != seen) {
        t->w_live = false;
        return;
    }
    if (S.timeshare) {
        t->w_keyed = keyed;
        t->w_want = want;
        t->w_size = size;
        await_policy(t, ptr, size, seen, wp);
        return;
    }
    dline_t *d = dir_get((uintptr_t)ptr / SIM_LINE);
    t->wnext = d->waiters;
    d->waiters = t->id;
    t->state = T_BLOCKED;
    S.st.switches++;
    clof_fiber_yield();
}

void sim_await(const void *ptr, int size, uint64_t seen,
               const sim_wait_params_t *wp)
{
    await_(ptr, size, seen, false, 0, wp);
}

void sim_await_for(const void *ptr, int size, uint64_t seen, uint64_t want,
                   const sim_wait_params_t *wp)
{
    await_(ptr, size, seen, true, want, wp);
}

void sim_await_change(const void *ptr, int size, uint64_t seen)
{
    await_(ptr, size, seen, false, 0, NULL);
}

void sim_work_ns(double ns)
{
    sthr_t *t = S.cur;
    if (!t || ns <= 0)
        return;
    double w = ns * t->inv_speed;
    /* on a shared cpu, the slice may end within the work */
    while (S.timeshare && S.cpu[t->cpu].nq &&
           t->clock + w > S.cpu[t->cpu].slice_end) {
        double part = S.cpu[t->cpu].slice_end - t->clock;
        if (part > 0) {
            t->clock += part;
            w -= part;
        }
        sync_turn();
        slice_check(t);
    }
    t->clock += w;
}

void sim_fence(void)
{
    if (S.cur)
        sb_drain(S.cur);
    sim_work_ns(S.cur ? S.p->fence_ns : 0);
}

void sim_pause(uint32_t n)
{
    sim_work_ns(S.cur ? S.p->pause_ns * n : 0);
}

void sim_stats_get(sim_stats_t *s)
{
    *s = S.st;
    s->now_ns = sim_now_ns();
}

static void thr_main(void *arg)
{
    sthr_t *t = arg;
    t->fn(t->arg);
    t->state = T_DONE;
}

int sim_run(const sim_profile_t *p, int nthreads, const uint32_t *cpus,
            sim_fn fn, void *const *args, uint64_t seed, char *err,
            size_t errlen)
{
    if (nthreads < 1 || nthreads > SIM_MAX_THREADS) {
        snprintf(err, errlen,
                 "%d threads: a simulation runs 1 to %d threads (on the %u "
                 "cpus of '%s', time-shared when more)",
                 nthreads, SIM_MAX_THREADS, p->topo.npresent, p->name);
        return -1;
    }
    static uint16_t used[SIM_MAX_CPUS];
    memset(used, 0, sizeof used);
    bool shared = false;
    uint32_t nused = 0;
    for (int i = 0; i < nthreads; i++) {
        if (cpus[i] >= p->topo.ncpus || !p->topo.present[cpus[i]]) {
            snprintf(err, errlen, "thread %d: cpu %u is not a cpu of '%s'",
                     i, cpus[i], p->name);
            return -1;
        }
        shared |= used[cpus[i]] != 0;
        nused += used[cpus[i]] == 0;
        used[cpus[i]]++;
    }
    memset(&S, 0, sizeof S);
    sim_pending_ = false;
    S.p = p;
    S.ncpus = p->topo.ncpus;
    S.nused = nused;
    S.n = nthreads;
    /* time-sharing when threads share a cpu, or waits park by request */
    S.policy = g_wait_model == SIM_WAIT_POLICY ||
               (g_wait_model == SIM_WAIT_AUTO && shared);
    S.timeshare = shared || S.policy;
    S.mech = mech_from_env();
    S.rng = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    S.salt = (seed + 1) * 0xD1B54A32D192ED03ULL;
    if (!S.rng)
        S.rng = 1;
    S.thr = calloc((size_t)nthreads, sizeof *S.thr);
    S.heap = malloc(sizeof(int) * (size_t)nthreads);
    S.cpu = calloc(S.ncpus, sizeof *S.cpu);
    dir_init(1u << 12);
    for (uint32_t c = 0; c < S.ncpus; c++) {
        S.cpu[c].cur = S.cpu[c].qhead = S.cpu[c].qtail = -1;
        S.cpu[c].used = used[c] != 0;
    }
    int rc = 0;
    for (int i = 0; i < nthreads; i++) {
        sthr_t *t = &S.thr[i];
        t->id = i;
        t->cpu = cpus[i];
        t->inv_speed = 1.0 / p->speed[cpus[i]];
        t->fn = fn;
        t->arg = args[i];
        t->wnext = -1;
        t->qnext = -1;
        t->hpos = -1;
        /* a seeded start offset in [0, SIM_START_SPREAD_NS * nthreads): the
         * threads first arrive in a random order, not in cpu order (a FIFO
         * lock keeps its first order for long; cpu order would hand it
         * neighbour-to-neighbour locality by accident) */
        t->clock = jitter_u() * SIM_START_SPREAD_NS * nthreads;
        t->f = clof_fiber_create(thr_main, t, SIM_STACK);
        if (!t->f) {
            snprintf(err, errlen, "out of memory for %d fibers", nthreads);
            rc = -1;
            goto out;
        }
        scpu_t *c = &S.cpu[t->cpu];
        if (!S.timeshare) {
            t->state = T_RUNNABLE;
            heap_push(i);
        } else if (c->cur < 0) { /* the first thread of a cpu runs on it */
            c->cur = i;
            c->slice_end = t->clock + p->slice_ns;
            t->state = T_RUNNABLE;
            heap_push(i);
        } else {
            cpu_enqueue(c, t, t->clock);
        }
    }
    int32_t saved_vcpu = clof_topo_get_vcpu();
    int done = 0;
    while (S.nheap) {
        sthr_t *t = &S.thr[heap_pop()];
        S.cur = t;
        clof_topo_vcpu_tls_ = (int32_t)t->cpu; /* the fiber's cpu */
        clof_fiber_run(t->f);
        S.last_now = t->clock > S.last_now ? t->clock : S.last_now;
        S.cur = NULL;
        if (t->state == T_DONE) {
            done++;
            if (S.timeshare)
                cpu_next(&S.cpu[t->cpu], t->clock);
        } else if (t->state == T_RUNNABLE) {
            heap_push(t->id);
        }
    }
    clof_topo_set_vcpu(saved_vcpu);
    if (done < nthreads) {
        int w = -1;
        for (int i = 0; i < nthreads; i++)
            if (S.thr[i].state == T_BLOCKED || S.thr[i].state == T_PARKED) {
                w = i;
                break;
            }
        snprintf(err, errlen,
                 "simulation deadlock at %.0f ns: %d of %d threads wait for a "
                 "change that no running thread can make (first: thread %d on "
                 "cpu %u) -- a lost wake-up or a lock bug",
                 S.last_now, nthreads - done, nthreads, w,
                 w >= 0 ? S.thr[w].cpu : 0);
        rc = -1;
    }
out:
    for (int i = 0; i < nthreads; i++)
        if (S.thr[i].f)
            clof_fiber_destroy(S.thr[i].f);
    free(S.thr);
    free(S.heap);
    free(S.dir);
    free(S.cpu);
    S.thr = NULL;
    S.heap = NULL;
    S.dir = NULL;
    S.cpu = NULL;
    return rc;
}
