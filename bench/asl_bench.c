/* SPDX-License-Identifier: MIT */
/*
 * clof-asl-bench -- the LibASL benchmarks (LibASL paper §4.1, Bench-1 and
 * Bench-5) on big and little cores, emulated or simulated.
 *
 * Threads run epochs.  Workload bench1 (Bench-1): an epoch is 4 critical
 * sections of different lengths over 2 locks (8, 16, 16 and 24 shared cache
 * lines read-modified-written: 64 in all), then non-critical work.
 * Workload bench5 (Bench-5): an epoch is one critical section of 2 lines on
 * one lock, then non-critical work (vary --non-cs for the contention level).
 * Reported: epochs per second, and the epoch latency (start to end) P50/P99
 * per core type and overall; for ASL the SLO and the little cores' final
 * windows.
 *
 * Big and little cores:
 *   - emulated (clof-asl-bench): threads get virtual cpus of an emulated
 *     big.LITTLE topology (default the shape cache:2,core:4;little=4-7:
 *     big cpus 0-3, little 4-7); the ASL lock finds its core type through
 *     clof_current_cpu() and the topology, exactly as on a real machine.  The
 *     little cores' slowness is emulated: their critical-section and
 *     non-critical work runs --slowdown times as long (default 1.8, the
 *     LibASL paper's M1 NOP ratio).  On a machine with fewer cpus than
 *     threads this is also an over-subscribed run: figures are labelled
 *     "emulated".
 *   - simulated (clof-asl-bench-sim, --simulate PROFILE, e.g. m1): the
 *     threads are simulated cpus of the profile, their local work is scaled
 *     by the profile's per-cpu speed, the clock is virtual time.  Labelled
 *     "simulated".
 *
 * Locks: mcs tas ticket mcs-tkt (the bases alone; mcs-tkt is the CLoF
 * composition ticket-over-MCS on the machine's lowest level), shfl-pb10 (the
 * proportional policy of the paper's evaluation: 1 little core admitted
 * after every 10 big ones, over MCS), asl:mcs asl:ticket asl:tas
 * asl:mcs-tkt (ASL over that composition) aslb:mcs (blocking standby); natively also pthread and
 * aslb:pthread (Bench-6: the blocking variant over pthread_mutex).
 * `asl` is asl:mcs.  --slo NS gives every epoch that SLO (0: impossible);
 * --slo none runs ASL without epochs (the default maximum window, the
 * paper's LibASL-MAX).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <clof/asl.h>
#include <clof/compose.h>
#include <clof/lock/mcs.h>
#include <clof/lock/tas.h>
#include <clof/lock/ticket.h>

#include "bench_util.h"
#include "lockname.h"
#ifdef ASL_BENCH_SIM
#include "sim.h"
#endif

#define MAXT 256
#define NLOCKS 2

/* ---- locks ------------------------------------------------------------------ */

CLOF_COMPOSE(mcs_tkt, mcs, ticket)
CLOF_ASL_LOCK(asl_mcs, mcs)
CLOF_ASL_LOCK(asl_ticket, ticket)
CLOF_ASL_LOCK(asl_tas, tas)
CLOF_ASL_LOCK(asl_mcs_tkt, mcs_tkt)
CLOF_ASL_BLOCKING_LOCK(aslb_mcs, mcs)

#ifndef ASL_BENCH_SIM
/* pthread_mutex with the one lock interface (Bench-6's blocking base) */
typedef struct {
    pthread_mutex_t m;
} clof_pthr_t;
typedef clof_noctx_t clof_pthr_ctx_t;
static inline void clof_pthr_init(clof_pthr_t *l)
{
    pthread_mutex_init(&l->m, NULL);
}
static inline void clof_pthr_acquire(clof_pthr_t *l, clof_pthr_ctx_t *c)
{
    (void)c;
    pthread_mutex_lock(&l->m);
}
static inline bool clof_pthr_tryacquire(clof_pthr_t *l, clof_pthr_ctx_t *c)
{
    (void)c;
    return pthread_mutex_trylock(&l->m) == 0;
}
static inline void clof_pthr_release(clof_pthr_t *l, clof_pthr_ctx_t *c)
{
    (void)c;
    pthread_mutex_unlock(&l->m);
}
static inline bool clof_pthr_has_waiters(clof_pthr_t *l, clof_pthr_ctx_t *c)
{
    (void)l;
    (void)c;
    return false;
}
CLOF_ASL_BLOCKING_LOCK(aslb_pthr, pthr)
#endif

/* SHFL-PB10: the proportional policy (LibASL §4: "a simple counter to allow
 * exactly 1 little core to lock after every 10 big cores"), over MCS.  Big
 * cores enqueue at once and count their acquisitions; a little core takes
 * the lock when it is free, else stands by (the same standby step as ASL)
 * until 10 big acquisitions have passed and no other little core is
 * admitted, then enqueues; its acquisition resets the count. */
#define PB_RATIO 10u
typedef struct {
    clof_mcs_t m;
    clof_atomic32_t bigs;     /* big acquisitions since the last little one */
    clof_atomic32_t admitted; /* a little core is enqueued by the policy */
} pb_lock_t;

static void pb_init(pb_lock_t *l)
{
    clof_mcs_init(&l->m);
    clof_atomic32_write_rlx(&l->bigs, 0);
    clof_atomic32_write_rlx(&l->admitted, 0);
}

static inline void pb_acquire(pb_lock_t *l, clof_mcs_ctx_t *c, bool little)
{
    if (!little) {
        clof_mcs_acquire(&l->m, c);
        /* under the lock: only holders write bigs */
        clof_atomic32_write_rlx(&l->bigs, clof_atomic32_read_rlx(&l->bigs) + 1);
        return;
    }
    bool admitted = false;
    if (!clof_mcs_tryacquire(&l->m, c)) {
        clof_asl_standby_t s = CLOF_ASL_STANDBY_INIT;
        for (;;) {
            if (clof_atomic32_read_rlx(&l->bigs) >= PB_RATIO &&
                clof_atomic32_cmpxchg(&l->admitted, 0, 1) == 0) {
                admitted = true;
                clof_mcs_acquire(&l->m, c);
                break;
            }
            clof_asl_standby_step_(&s, 0, UINT64_MAX, false);
            if (clof_mcs_tryacquire(&l->m, c))
                break;
        }
        clof_wait_end(&s.w);
    }
    clof_atomic32_write_rlx(&l->bigs, 0);
    if (admitted)
        clof_atomic32_write_rel(&l->admitted, 0);
}

typedef enum {
    K_MCS, K_TAS, K_TICKET, K_MCS_TKT, K_PB10, K_ASL_MCS, K_ASL_TICKET, K_ASL_TAS,
    K_ASL_MCS_TKT, K_ASLB_MCS,
#ifndef ASL_BENCH_SIM
    K_PTHREAD, K_ASLB_PTHREAD,
#endif
    K_COUNT
} kind_t;
static const char *const kind_names[K_COUNT] = {
    "mcs", "tas", "ticket", "mcs-tkt", "shfl-pb10", "asl:mcs", "asl:ticket", "asl:tas",
    "asl:mcs-tkt", "aslb:mcs",
#ifndef ASL_BENCH_SIM
    "pthread", "aslb:pthread",
#endif
};

static bool kind_is_asl(kind_t k)
{
    return k == K_ASL_MCS || k == K_ASL_TICKET || k == K_ASL_TAS ||
           k == K_ASL_MCS_TKT || k == K_ASLB_MCS
#ifndef ASL_BENCH_SIM
           || k == K_ASLB_PTHREAD
#endif
        ;
}

typedef union {
    clof_mcs_t mcs;
    clof_tas_t tas;
    clof_ticket_t tkt;
    clof_mcs_tkt_t cmp;
    pb_lock_t pb;
    clof_asl_mcs_t asl_mcs;
    clof_asl_ticket_t asl_tkt;
    clof_asl_tas_t asl_tas;
    clof_asl_mcs_tkt_t asl_cmp;
    clof_aslb_mcs_t aslb_mcs;
#ifndef ASL_BENCH_SIM
    pthread_mutex_t pth;
    clof_aslb_pthr_t aslb_pth;
#endif
} anylock_t;

typedef union {
    clof_mcs_ctx_t mcs;
    clof_tas_ctx_t tas;
    clof_ticket_ctx_t tkt;
    clof_mcs_tkt_ctx_t cmp;
} anyctx_t;

typedef struct {
    anylock_t l;
    char pad[CLOF_CACHELINE];
} CLOF_CACHE_ALIGNED padded_lock_t;

/* ---- parameters and state ------------------------------------------------------ */

static struct {
    kind_t kind;
    int big, little;
    double duration_s;
    double slowdown;     /* emulated little cores: work x this */
    int bench5;          /* workload */
    int cs5_lines;       /* bench5 lines */
    double non_cs_ns;    /* between epochs (nominal, big core) */
    double cs_work_ns;   /* extra work inside each critical section */
    bool slo_set;        /* --slo given (else: no epochs for ASL) */
    uint64_t slo_ns;
    const char *emulate, *topology, *simulate;
    bool json;
    uint64_t seed;
} P;

static padded_lock_t g_locks[NLOCKS];
static struct {
    clof_atomic64_t v;
    char pad[56];
} CLOF_CACHE_ALIGNED g_lines[64];
static volatile int g_stop;
static double g_iters_per_ns __attribute__((unused)) = 1.0; /* work loop calibration (native) */
static uint64_t g_cs_count[NLOCKS];  /* protected by the lock */

/* log-linear latency histogram: 128 sub-buckets per power of two (0.8%) */
#define HB 128
typedef struct {
    uint64_t n;
    uint64_t b[64 * HB];
    double sum;
} hist_t;
static void hist_add(hist_t *h, uint64_t v)
{
    int e = v < HB ? 0 : 63 - __builtin_clzll(v) - 7;
    uint64_t idx = v < HB ? v : (uint64_t)(e + 1) * HB + ((v >> e) & (HB - 1));
    if (idx >= 64 * HB)
        idx = 64 * HB - 1;
    h->b[idx]++;
    h->n++;
    h->sum += (double)v;
}
static double hist_bucket_value(uint64_t idx)
{
    if (idx < HB)
        return (double)idx;
    uint64_t e = idx / HB - 1, m = idx % HB;
    return (double)((HB + m) << e) + (double)(1ull << e) / 2;
}
static void hist_merge(hist_t *d, const hist_t *s)
{
    d->n += s->n;
    d->sum += s->sum;
    for (int i = 0; i < 64 * HB; i++)
        d->b[i] += s->b[i];
}
static double hist_pct(const hist_t *h, double p)
{
    if (h->n == 0)
        return NAN;
    uint64_t want = (uint64_t)ceil(p / 100.0 * (double)h->n), acc = 0;
    if (want == 0)
        want = 1;
    for (uint64_t i = 0; i < 64 * HB; i++) {
        acc += h->b[i];
        if (acc >= want)
            return hist_bucket_value(i);
    }
    return hist_bucket_value(64 * HB - 1);
}

typedef struct {
    int id;
    bool little;
    uint32_t cpu;
    uint64_t epochs;
    uint64_t misses; /* epochs over the SLO */
    uint64_t window_end;
    hist_t hist;
#ifdef ASL_BENCH_SIM
    clof_asl_thread_t st; /* per simulated thread (fibers share TLS) */
#endif
} thr_t;
static thr_t g_thr[MAXT];

/* ---- clock and work ------------------------------------------------------------ */

static inline uint64_t now_ns(void)
{
#ifdef ASL_BENCH_SIM
    return (uint64_t)sim_now_ns();
#else
    return bench_now_ns();
#endif
}

static inline void work_ns(double ns, bool little)
{
#ifdef ASL_BENCH_SIM
    (void)little;
    if (ns > 0)
        sim_work_ns(ns); /* the profile's per-cpu speed scales it */
#else
    if (little)
        ns *= P.slowdown;
    uint64_t n = (uint64_t)(ns * g_iters_per_ns);
    for (uint64_t i = 0; i < n; i++)
        __asm__ __volatile__("" ::: "memory");
#endif
}

static void calibrate(void)
{
#ifndef ASL_BENCH_SIM
    uint64_t best = UINT64_MAX, n = 2000000;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = bench_now_ns();
        for (uint64_t i = 0; i < n; i++)
            __asm__ __volatile__("" ::: "memory");
        uint64_t dt = bench_now_ns() - t0;
        if (dt < best)
            best = dt;
    }
    g_iters_per_ns = (double)n / (double)(best ? best : 1);
#endif
}

/* ---- acquire / release by kind --------------------------------------------------- */

static inline void lock_acq(kind_t k, anylock_t *l, anyctx_t *c, thr_t *t)
{
#ifdef ASL_BENCH_SIM
    /* Alg. 3 on the simulated thread's own epoch state */
    uint64_t w = clof_asl_window_of(&t->st, t->little, clof_asl_config());
#define ASL_ACQ_(L, f, m)                                                      \
    do {                                                                       \
        if (w == 0)                                                            \
            clof_##L##_acquire_immediately(&l->f, &c->m);                      \
        else                                                                   \
            clof_##L##_acquire_reorder(&l->f, &c->m, w);                       \
    } while (0)
#else
#define ASL_ACQ_(L, f, m) clof_##L##_acquire(&l->f, &c->m)
#endif
    switch (k) {
    case K_MCS: clof_mcs_acquire(&l->mcs, &c->mcs); break;
    case K_TAS: clof_tas_acquire(&l->tas, &c->tas); break;
    case K_TICKET: clof_ticket_acquire(&l->tkt, &c->tkt); break;
    case K_MCS_TKT: clof_mcs_tkt_acquire(&l->cmp, &c->cmp); break;
    case K_PB10: pb_acquire(&l->pb, &c->mcs, t->little); break;
    case K_ASL_MCS: ASL_ACQ_(asl_mcs, asl_mcs, mcs); break;
    case K_ASL_TICKET: ASL_ACQ_(asl_ticket, asl_tkt, tkt); break;
    case K_ASL_TAS: ASL_ACQ_(asl_tas, asl_tas, tas); break;
    case K_ASL_MCS_TKT: ASL_ACQ_(asl_mcs_tkt, asl_cmp, cmp); break;
    case K_ASLB_MCS: ASL_ACQ_(aslb_mcs, aslb_mcs, mcs); break;
#ifndef ASL_BENCH_SIM
    case K_PTHREAD: pthread_mutex_lock(&l->pth); break;
    case K_ASLB_PTHREAD: ASL_ACQ_(aslb_pthr, aslb_pth, tas); break;
#endif
    default: break;
    }
#undef ASL_ACQ_
    (void)t;
}

static inline void lock_rel(kind_t k, anylock_t *l, anyctx_t *c)
{
    switch (k) {
    case K_MCS: clof_mcs_release(&l->mcs, &c->mcs); break;
    case K_TAS: clof_tas_release(&l->tas, &c->tas); break;
    case K_TICKET: clof_ticket_release(&l->tkt, &c->tkt); break;
    case K_MCS_TKT: clof_mcs_tkt_release(&l->cmp, &c->cmp); break;
    case K_PB10: clof_mcs_release(&l->pb.m, &c->mcs); break;
    case K_ASL_MCS: clof_asl_mcs_release(&l->asl_mcs, &c->mcs); break;
    case K_ASL_TICKET: clof_asl_ticket_release(&l->asl_tkt, &c->tkt); break;
    case K_ASL_TAS: clof_asl_tas_release(&l->asl_tas, &c->tas); break;
    case K_ASL_MCS_TKT: clof_asl_mcs_tkt_release(&l->asl_cmp, &c->cmp); break;
    case K_ASLB_MCS: clof_aslb_mcs_release(&l->aslb_mcs, &c->mcs); break;
#ifndef ASL_BENCH_SIM
    case K_PTHREAD: pthread_mutex_unlock(&l->pth); break;
    case K_ASLB_PTHREAD: clof_aslb_pthr_release(&l->aslb_pth, &c->tas); break;
#endif
    default: break;
    }
}

static void locks_init(void)
{
    for (int i = 0; i < NLOCKS; i++) {
        anylock_t *l = &g_locks[i].l;
        memset(l, 0, sizeof *l);
        switch (P.kind) {
        case K_MCS: clof_mcs_init(&l->mcs); break;
        case K_TAS: clof_tas_init(&l->tas); break;
        case K_TICKET: clof_ticket_init(&l->tkt); break;
        case K_MCS_TKT: clof_mcs_tkt_init(&l->cmp); break;
        case K_PB10: pb_init(&l->pb); break;
        case K_ASL_MCS: clof_asl_mcs_init(&l->asl_mcs); break;
        case K_ASL_TICKET: clof_asl_ticket_init(&l->asl_tkt); break;
        case K_ASL_TAS: clof_asl_tas_init(&l->asl_tas); break;
        case K_ASL_MCS_TKT: clof_asl_mcs_tkt_init(&l->asl_cmp); break;
        case K_ASLB_MCS: clof_aslb_mcs_init(&l->aslb_mcs); break;
#ifndef ASL_BENCH_SIM
        case K_PTHREAD: pthread_mutex_init(&l->pth, NULL); break;
        case K_ASLB_PTHREAD: clof_aslb_pthr_init(&l->aslb_pth); break;
#endif
        default: break;
        }
    }
}

/* ---- the epoch -------------------------------------------------------------------- */

static inline void cs(int lk, int first, int n, thr_t *t, anyctx_t *c)
{
    anylock_t *l = &g_locks[lk].l;
    lock_acq(P.kind, l, c, t);
    for (int i = first; i < first + n; i++)
        clof_atomic64_write_rlx(&g_lines[i].v, clof_atomic64_read_rlx(&g_lines[i].v) + 1);
    g_cs_count[lk]++;
    work_ns(P.cs_work_ns, t->little);
    lock_rel(P.kind, l, c);
}

static inline void epoch_start(thr_t *t, bool asl, uint64_t now)
{
    (void)now;
    if (!asl)
        return;
#ifdef ASL_BENCH_SIM
    clof_asl_epoch_start_at(&t->st, 1, now, clof_asl_config());
#else
    (void)t;
    clof_epoch_start(1);
#endif
}

static inline void epoch_end(thr_t *t, bool asl, uint64_t now)
{
    (void)now;
    if (!asl)
        return;
#ifdef ASL_BENCH_SIM
    clof_asl_epoch_end_at(&t->st, 1, P.slo_ns, now, t->little, clof_asl_config());
#else
    (void)t;
    clof_epoch_end(1, P.slo_ns);
#endif
}

static void worker(thr_t *t)
{
    anyctx_t c;
    memset(&c, 0, sizeof c);
    bool asl = kind_is_asl(P.kind) && P.slo_set;
    uint64_t seed = P.seed * 0x9e3779b97f4a7c15ull + (uint64_t)t->id * 7919u + 1;
    uint64_t end = t->window_end;
    for (;;) {
        uint64_t t0 = now_ns();
        if (t0 >= end || g_stop)
            break;
        epoch_start(t, asl, t0);
        if (P.bench5) {
            cs(0, 0, P.cs5_lines, t, &c);
        } else { /* Bench-1: 4 critical sections, 2 locks, 64 lines */
            cs(0, 0, 8, t, &c);
            cs(1, 8, 16, t, &c);
            cs(0, 24, 16, t, &c);
            cs(1, 40, 24, t, &c);
        }
        uint64_t t1 = now_ns();
        epoch_end(t, asl, t1);
        hist_add(&t->hist, t1 - t0);
        if (asl && t1 - t0 > P.slo_ns)
            t->misses++;
        t->epochs++;
        /* non-critical work, uniform in [0.5, 1.5] x the mean */
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        work_ns(P.non_cs_ns * (0.5 + (double)(seed >> 11) / 9007199254740992.0),
                t->little);
    }
}

#ifdef ASL_BENCH_SIM
static void sim_thread(void *arg)
{
    thr_t *t = arg;
    clof_asl_thread_t init = CLOF_ASL_THREAD_INIT;
    t->st = init;
    worker(t);
}
#else
static pthread_barrier_t g_barrier;
static void *native_thread(void *arg)
{
    thr_t *t = arg;
    clof_topo_set_vcpu((int32_t)t->cpu);
    pthread_barrier_wait(&g_barrier);
    t->window_end = UINT64_MAX;
    worker(t);
    return NULL;
}
#endif

/* ---- main ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: clof-asl-bench [--lock NAME] [--slo NS|none] [--big N] "
            "[--little N]\n"
            "         [--duration S] [--workload bench1|bench5] [--cs-lines K]\n"
            "         [--non-cs NS] [--cs-work NS] [--slowdown F] [--seed N]\n"
            "         [--emulate SHAPE | --topology FILE%s] [--json]\n"
            "locks:",
#ifdef ASL_BENCH_SIM
            " | --simulate PROFILE"
#else
            ""
#endif
    );
    for (int k = 0; k < K_COUNT; k++)
        fprintf(f, " %s", kind_names[k]);
    fprintf(f, " (asl = asl:mcs)\n");
}

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "clof-asl-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    exit(2);
}

static double num(const char *opt, const char *s, double lo, double hi)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (errno || e == s || *e || !(v >= lo) || !(v <= hi)) {
        fprintf(stderr, "clof-asl-bench: %s '%s': expected a number from %g to %g\n",
                opt, s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    P.kind = K_ASL_MCS;
    P.big = 2;
    P.little = 2;
    P.duration_s = 2;
    P.slowdown = 1.8;
    P.cs5_lines = 2;
    P.non_cs_ns = 2000;
    P.cs_work_ns = 0;
    P.seed = 1;
    bool dur_given = false;
    static const struct option opts[] = {
        {"lock", 1, 0, 'l'},     {"slo", 1, 0, 's'},      {"big", 1, 0, 'b'},
        {"little", 1, 0, 'L'},   {"duration", 1, 0, 'd'}, {"workload", 1, 0, 'w'},
        {"cs-lines", 1, 0, 'k'}, {"non-cs", 1, 0, 'n'},   {"cs-work", 1, 0, 'c'},
        {"slowdown", 1, 0, 'f'}, {"seed", 1, 0, 'r'},     {"emulate", 1, 0, 'e'},
        {"topology", 1, 0, 't'}, {"simulate", 1, 0, 'S'}, {"json", 0, 0, 'j'},
        {"help", 0, 0, 'h'},     {"list", 0, 0, 'i'},     {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 'l': {
            /* the one grammar of lock names (src/lockname, docs/locks.md);
             * shfl-pb10 and aslb:<lock> are this benchmark's own */
            char canon[CLOF_LOCKNAME_MAX];
            const char *n = optarg;
            if (strcasecmp(optarg, "asl") == 0)
                n = "asl:mcs";
            else if (clof_lockname_canon(optarg, canon, sizeof canon))
                n = canon;
            int k;
            for (k = 0; k < K_COUNT; k++)
                if (strcasecmp(n, kind_names[k]) == 0)
                    break;
            if (k == K_COUNT) {
                char msg[512];
                clof_lockname_unknown("clof-asl-bench", optarg,
                                      (clof_lockset_t){kind_names, K_COUNT, sizeof kind_names[0]},
                                      msg, sizeof msg);
                fprintf(stderr, "%s\n", msg);
                exit(2);
            }
            P.kind = (kind_t)k;
            break;
        }
        case 's':
            if (strcmp(optarg, "none") == 0) {
                P.slo_set = false;
            } else {
                uint64_t v;
                if (clof_asl_parse_ns(optarg, &v) != 0)
                    die("--slo '%s': expected a duration (e.g. 50us, 20000) or none", optarg);
                P.slo_set = true;
                P.slo_ns = v;
            }
            break;
        case 'b': P.big = (int)num("--big", optarg, 0, MAXT); break;
        case 'L': P.little = (int)num("--little", optarg, 0, MAXT); break;
        case 'd': P.duration_s = num("--duration", optarg, 0.001, 3600); dur_given = true; break;
        case 'w':
            if (strcmp(optarg, "bench1") == 0)
                P.bench5 = 0;
            else if (strcmp(optarg, "bench5") == 0)
                P.bench5 = 1;
            else
                die("--workload '%s': expected bench1 or bench5", optarg);
            break;
        case 'k': P.cs5_lines = (int)num("--cs-lines", optarg, 1, 64); break;
        case 'n': P.non_cs_ns = num("--non-cs", optarg, 0, 1e9); break;
        case 'c': P.cs_work_ns = num("--cs-work", optarg, 0, 1e9); break;
        case 'f': P.slowdown = num("--slowdown", optarg, 1, 100); break;
        case 'r': P.seed = (uint64_t)num("--seed", optarg, 0, 1e18); break;
        case 'e': P.emulate = optarg; break;
        case 't': P.topology = optarg; break;
        case 'S': P.simulate = optarg; break;
        case 'j': P.json = true; break;
        case 'i':
            for (int k = 0; k < K_COUNT; k++)
                printf("%s\n", kind_names[k]);
            return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc)
        die("unexpected argument '%s'", argv[optind]);
    int n = P.big + P.little;
    if (n < 1 || n > MAXT)
        die("%s", "--big + --little must be 1 to 256 threads");
    if ((P.emulate != NULL) + (P.topology != NULL) + (P.simulate != NULL) > 1)
        die("%s", "--emulate, --topology and --simulate exclude each other");

    /* the machine: its hierarchy and core types */
    const char *machine_kind = "emulated";
#ifdef ASL_BENCH_SIM
    sim_profile_t prof;
    if (!P.simulate)
        die("%s", "clof-asl-bench-sim runs simulated machines: give --simulate PROFILE");
    {
        char err[2048];
        if (sim_profile_load(&prof, P.simulate, err, sizeof err) != 0) {
            fprintf(stderr, "clof-asl-bench: --simulate: %s\n", err);
            return 2;
        }
    }
    machine_kind = "simulated";
    if (!dur_given)
        P.duration_s = 0.02;
#else
    (void)dur_given;
    if (P.simulate) {
        /* the simulated build is a sibling program */
        char self[4096];
        ssize_t m = readlink("/proc/self/exe", self, sizeof self - 16);
        if (m <= 0)
            die("%s", "--simulate: cannot find clof-asl-bench-sim");
        self[m] = 0;
        strcat(self, "-sim");
        execv(self, argv);
        fprintf(stderr, "clof-asl-bench: --simulate: cannot run %s: %s (built "
                        "only with the simulator, see docs/simulation.md)\n",
                self, strerror(errno));
        return 2;
    }
#endif
    clof_topo_opts_t to;
    memset(&to, 0, sizeof to);
    to.flags = CLOF_TOPO_NO_ENV;
#ifdef ASL_BENCH_SIM
    to.file = prof.hierarchy;
#else
    if (P.topology)
        to.file = P.topology;
    else
        to.emulate = P.emulate ? P.emulate : "cache:2,core:4;little=4-7";
#endif
    clof_topo_error_t terr;
    if (clof_topology_install(&to, &terr) != 0) {
        fprintf(stderr, "clof-asl-bench: %s\n", terr.msg);
        return 2;
    }
    const clof_topology_t *topo = clof_topology();
    static uint32_t bigs[4096], littles[4096];
    uint32_t nb = 0, nl = 0;
    for (uint32_t cpu = 0; cpu < topo->ncpus && cpu < 4096; cpu++) {
        if (!topo->present[cpu])
            continue;
        if (clof_topo_is_little(topo, cpu))
            littles[nl++] = cpu;
        else
            bigs[nb++] = cpu;
    }
    if ((P.big && !nb) || (P.little && !nl)) {
        fprintf(stderr, "clof-asl-bench: the machine has %u big and %u little cpus: "
                        "cannot place %d big and %d little threads\n",
                nb, nl, P.big, P.little);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        thr_t *t = &g_thr[i];
        t->id = i;
        t->little = i >= P.big;
        t->cpu = t->little ? littles[(i - P.big) % nl] : bigs[i % nb];
    }
#ifdef ASL_BENCH_SIM
    if ((uint32_t)n > topo->npresent) {
        fprintf(stderr, "clof-asl-bench: %d threads: the simulated machine has %u cpus\n",
                n, topo->npresent);
        return 2;
    }
#endif
    calibrate();
    locks_init();

    double elapsed;
#ifdef ASL_BENCH_SIM
    {
        uint32_t cpus[MAXT];
        void *args[MAXT];
        for (int i = 0; i < n; i++) {
            cpus[i] = g_thr[i].cpu;
            args[i] = &g_thr[i];
            g_thr[i].window_end = (uint64_t)(P.duration_s * 1e9);
        }
        char err[512];
        if (sim_run(&prof, n, cpus, sim_thread, args, P.seed, err, sizeof err) != 0) {
            fprintf(stderr, "clof-asl-bench: simulation failed: %s\n", err);
            return 1;
        }
        elapsed = P.duration_s;
    }
#else
    {
        pthread_t th[MAXT];
        pthread_barrier_init(&g_barrier, NULL, (unsigned)n + 1);
        for (int i = 0; i < n; i++)
            if (pthread_create(&th[i], NULL, native_thread, &g_thr[i]) != 0) {
                fprintf(stderr, "clof-asl-bench: pthread_create failed\n");
                return 1;
            }
        pthread_barrier_wait(&g_barrier);
        uint64_t t0 = bench_now_ns();
        struct timespec ts = {(time_t)P.duration_s,
                              (long)((P.duration_s - (double)(time_t)P.duration_s) * 1e9)};
        nanosleep(&ts, NULL);
        g_stop = 1;
        for (int i = 0; i < n; i++)
            pthread_join(th[i], NULL);
        elapsed = (double)(bench_now_ns() - t0) / 1e9;
    }
#endif

    /* mutual exclusion: every critical section counted once per line */
    uint64_t total = 0, miss_l = 0, ep_l = 0;
    hist_t *hb = calloc(3, sizeof(hist_t));
    if (!hb)
        return 1;
    for (int i = 0; i < n; i++) {
        total += g_thr[i].epochs;
        hist_merge(&hb[g_thr[i].little ? 1 : 0], &g_thr[i].hist);
        hist_merge(&hb[2], &g_thr[i].hist);
        if (g_thr[i].little) {
            miss_l += g_thr[i].misses;
            ep_l += g_thr[i].epochs;
        }
    }
    uint64_t per_line = P.bench5 ? total : 2 * total;
    bool lines_ok = clof_atomic64_read_rlx(&g_lines[0].v) == total &&
                    g_cs_count[0] == per_line;
    if (!lines_ok) {
        fprintf(stderr, "clof-asl-bench: mutual exclusion broken: %llu epochs, line 0 = %llu, "
                        "lock 0 critical sections = %llu\n",
                (unsigned long long)total,
                (unsigned long long)clof_atomic64_read_rlx(&g_lines[0].v),
                (unsigned long long)g_cs_count[0]);
        return 1;
    }
    double load = -1;
    {
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (fscanf(f, "%lf", &load) != 1)
                load = -1;
            fclose(f);
        }
    }
    double ops = (double)total / elapsed;
    char slo[32];
    if (!kind_is_asl(P.kind))
        snprintf(slo, sizeof slo, "-");
    else if (!P.slo_set)
        snprintf(slo, sizeof slo, "none");
    else
        snprintf(slo, sizeof slo, "%llu", (unsigned long long)P.slo_ns);
    if (P.json) {
        bench_machine_t m;
        bench_machine_read(&m);
        printf("{\"bench\":\"clof-asl-bench\",\"lock\":");
        bench_json_str(stdout, kind_names[P.kind]);
        printf(",\"workload\":\"%s\",\"slo_ns\":", P.bench5 ? "bench5" : "bench1");
        if (kind_is_asl(P.kind) && P.slo_set)
            printf("%llu", (unsigned long long)P.slo_ns);
        else
            printf("null");
        printf(",\"big\":%d,\"little\":%d,\"duration_s\":", P.big, P.little);
        bench_json_num(stdout, elapsed);
        printf(",\"epochs\":%llu,\"ops_per_s\":", (unsigned long long)total);
        bench_json_num(stdout, ops);
        const char *nm[3] = {"big", "little", "all"};
        for (int k = 0; k < 3; k++) {
            printf(",\"%s_epochs\":%llu,\"%s_p50_ns\":", nm[k], (unsigned long long)hb[k].n, nm[k]);
            bench_json_num(stdout, hist_pct(&hb[k], 50));
            printf(",\"%s_p99_ns\":", nm[k]);
            bench_json_num(stdout, hist_pct(&hb[k], 99));
            printf(",\"%s_mean_ns\":", nm[k]);
            bench_json_num(stdout, hb[k].n ? hb[k].sum / (double)hb[k].n : NAN);
        }
        printf(",\"little_slo_miss_rate\":");
        bench_json_num(stdout, ep_l && kind_is_asl(P.kind) && P.slo_set
                                   ? (double)miss_l / (double)ep_l : NAN);
        printf(",\"non_cs_ns\":");
        bench_json_num(stdout, P.non_cs_ns);
        printf(",\"cs_work_ns\":");
        bench_json_num(stdout, P.cs_work_ns);
        printf(",\"cs_lines\":%d,\"slowdown\":", P.bench5 ? P.cs5_lines : 64);
#ifdef ASL_BENCH_SIM
        printf("null,\"simulated\":true,\"profile\":");
        bench_json_str(stdout, prof.name);
#else
        bench_json_num(stdout, P.slowdown);
        printf(",\"simulated\":false,\"emulated\":true,\"topology\":");
        bench_json_str(stdout, topo->origin);
#endif
        printf(",\"machine_kind\":\"%s\",\"loadavg_1min\":", machine_kind);
        bench_json_num(stdout, load);
        printf(",\"seed\":%llu,\"machine\":", (unsigned long long)P.seed);
        bench_machine_json(stdout, &m);
        printf("}\n");
    } else {
        printf("%-12s slo %-8s %s  %.0f epochs/s  P99 big %.0f ns  little %.0f ns  "
               "all %.0f ns  (%s, load %.2f)\n",
               kind_names[P.kind], slo, P.bench5 ? "bench5" : "bench1", ops,
               hist_pct(&hb[0], 99), hist_pct(&hb[1], 99), hist_pct(&hb[2], 99),
               machine_kind, load);
    }
    free(hb);
    return 0;
}
