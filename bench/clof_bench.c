/* SPDX-License-Identifier: MIT */
/*
 * clof-bench -- the lock microbenchmark (LBench-like; see bench/README.md).
 *
 * T threads loop: acquire one shared lock, read and write K shared cache
 * lines, release, then do calibrated non-critical work.  After a start
 * barrier the run lasts a fixed duration; then a stop flag ends it.
 * Reported: total throughput, per-thread counts, fairness (relative
 * standard deviation of the per-thread counts), sampled acquire latency
 * (P50, P99) and the handovers between threads (with the cpus of the
 * previous and the new owner, so that they can be classified by level of a
 * hierarchy).  A non-atomic counter in the critical section checks mutual
 * exclusion.
 *
 * The measured loop has no indirect call: one thread function per lock is
 * generated from BENCH_LOCKS (bench_locks.h) and chosen once at start-up.
 *
 * The simulated build (CLOF_BENCH_SIM; the program clof-bench-sim, see
 * bench/sim.cmake and docs/simulation.md) compiles this same file and the
 * same locks against the `sim` backend of the atomics shim: the threads are
 * simulated cpus of a machine profile running in virtual time, the clock of
 * the loop (latency, duration, non-critical work) is virtual time, and the
 * critical section's lines are charged by the coherence model.  clof-bench
 * --simulate PROFILE runs it (exec of the sibling clof-bench-sim).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <time.h>
#include <unistd.h>

#include "bench_locks.h"
#include "bench_rwlocks.h"
#include "bench_util.h"
#include "lockname.h"
#ifdef CLOF_BENCH_SIM
#include "sim.h"
#endif

#define BENCH_MAX_THREADS 4096
#define BENCH_MAX_LINES 4096
#define BENCH_SAMPLE_CAP 8192u      /* latency samples kept per thread */
#define BENCH_PAIR_MAX_CPUS 256     /* handover matrix up to this many cpus */
#define BENCH_NO_OWNER UINT64_MAX

#define BENCH_INLINE static inline __attribute__((always_inline))

/* ---- parameters ----------------------------------------------------------- */

typedef struct {
    int lock;             /* index in bench_lock_names, or -1 (rw_lock) */
    int rw_lock;          /* index in bench_rwlock_names, or -1 (lock) */
    const char *lock_name;
    double read_percent;  /* RW locks: the share of read acquisitions */
    int rw_pref;          /* RW locks: CLOF_RW_PREF_* (--rw-pref) */
    int threads;
    double duration_s;
    int cs_lines;
    double non_cs_ns;
    bool non_cs_fixed;    /* exactly non_cs_ns each time (default: uniform
                             in [0, 2*non_cs_ns], mean non_cs_ns) */
    bool pin;
    bool json;
    uint64_t seed;
    int repeat;
    uint64_t sample_every; /* power of two */
    const char *label;
    double join_timeout_s;
    const char *emulate;  /* --emulate SHAPE */
    const char *topology; /* --topology FILE */
    int placement;        /* clof_vcpu_assign_t for emulated threads */
    const char *simulate; /* --simulate PROFILE */
    const char *levels;   /* --levels KIND,...: the locks' hierarchy */
    uint64_t sim_ops;     /* --sim-ops N: stop a simulated run after N */
    int sim_wait;         /* --sim-wait: SIM_WAIT_AUTO/SPIN/POLICY (sim.h) */
    unsigned sim_wall_s;  /* --sim-wall S: give up a simulated run after S */
} params_t;

/* ---- shared state ---------------------------------------------------------- */

/* A shared cache line of the critical section.  Line 0 also carries the
 * mutual-exclusion counter (v[0]) and the last owner (v[1]:
 * thread id << 32 | cpu). */
typedef struct {
    uint64_t v[BENCH_CACHELINE / 8];
} __attribute__((aligned(BENCH_CACHELINE))) cs_line_t;

typedef struct {
    bench_lock_u lock;
    bench_rwlock_u rwlock; /* the lock when p->rw_lock >= 0 */
    struct {
        uint32_t v;
    } BENCH_ALIGNED stop;
    struct {
        uint32_t ready;
        uint32_t go;
    } BENCH_ALIGNED barrier;
    cs_line_t *lines; /* cs_lines of them */
    int cs_lines;
    bool rw;          /* an RW lock: line counts are write counts */
    /* local streaks (written in the critical section, so lock-protected):
     * consecutive acquisitions whose owner stayed in one cohort of level l */
    const clof_topology_t *topo;
    uint32_t nlev;                     /* levels tracked (0: off) */
    uint64_t streak[CLOF_TOPO_MAX_LEVELS];
    uint64_t streak_max[CLOF_TOPO_MAX_LEVELS];
} BENCH_ALIGNED shared_t;

/* How the cpu of an owner is known.  CPU_VIRTUAL is where an emulated
 * topology will put its thread -> virtual-cpu assignment. */
enum { CPU_OS = 0, CPU_FIXED = 1, CPU_VIRTUAL = 2 };

typedef struct {
    uint64_t count; /* iterations done; written by the owner, read at stop */
    shared_t *sh;
    int id;
    int cpu_mode;
    int fixed_cpu;
    uint32_t ncpu_ids;      /* dimension of pairs */
    uint64_t rng;
    uint32_t noncs_range;   /* non-CS iterations drawn from [0, range) */
    uint32_t noncs_fixed;   /* or exactly this many (when range == 0) */
    uint64_t sample_mask;   /* sample when (n & mask) == mask */
    uint64_t *samples;
    uint32_t nsamples;
    uint64_t handovers;     /* acquisitions that followed another thread's */
    uint64_t handover_same_cpu;
    uint64_t *pairs;        /* [prev cpu * ncpu_ids + cpu] handover counts */
    uint64_t cpu_unknown;   /* handovers whose cpus fell outside pairs */
    bench_ctx_u ctx;
    /* RW locks: a read when the next random draw >> 32 is below
     * read_below (P% of 2^32); the counts of each kind; reads that saw a
     * write in progress (must stay 0) */
    uint64_t read_below;
    uint64_t reads, writes, torn;
    bench_rwctx_u rwctx;
    pthread_t tid;
} BENCH_ALIGNED thread_t;

/* ---- the pieces of the loop (all inlined into each lock's loop) ------------ */

static size_t bench_rseq_off;
static bool bench_rseq_ok;

BENCH_INLINE int bench_os_cpu(void)
{
    if (CLOF_LIKELY(bench_rseq_ok)) {
        const struct rseq *rs =
            (const struct rseq *)((char *)__builtin_thread_pointer() +
                                  bench_rseq_off);
        return (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
    }
    return sched_getcpu();
}

/* The clock of the loop: the TSC natively, virtual ns when simulated. */
#ifdef CLOF_BENCH_SIM
#define bench_lat_now() ((uint64_t)sim_now_ns())
#else
#define bench_lat_now() bench_ticks()
#endif

BENCH_INLINE int bench_cpu(const thread_t *t)
{
    if (t->cpu_mode == CPU_VIRTUAL)
        return (int)clof_current_cpu();
    return t->cpu_mode == CPU_FIXED ? t->fixed_cpu : bench_os_cpu();
}

BENCH_INLINE uint64_t bench_rand(uint64_t *s)
{
    /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* The calibrated unit of non-critical work: a dependent multiply chain the
 * compiler cannot remove. */
BENCH_INLINE void bench_spin(uint32_t n)
{
#ifdef CLOF_BENCH_SIM
    sim_work_ns((double)n); /* simulated: one iteration is one ns */
    return;
#endif
    uint64_t x = n;
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
}

BENCH_INLINE void bench_noncs(thread_t *t)
{
    if (t->noncs_range) {
        uint64_t r = bench_rand(&t->rng) >> 32;
        bench_spin((uint32_t)((r * t->noncs_range) >> 32));
    } else if (t->noncs_fixed) {
        bench_spin(t->noncs_fixed);
    }
}

/* The critical section: read and write every shared line, note the owner.
 * Returns the previous owner. */
BENCH_INLINE uint64_t bench_cs(shared_t *sh, uint64_t me)
{
    cs_line_t *ln = sh->lines;
#ifdef CLOF_BENCH_SIM
    /* each line is read, then written: one exclusive fetch per line */
    for (int k = 0; k < sh->cs_lines; k++)
        sim_access(&ln[k], SIM_WRITE);
#endif
    uint64_t prev = ln[0].v[1];
    ln[0].v[1] = me;
    ln[0].v[0]++;
    for (int k = 1; k < sh->cs_lines; k++)
        ln[k].v[0]++;
    __asm__ volatile("" ::: "memory");
    return prev;
}

/* Inside the critical section: extend or restart the streak of each level. */
static void bench_streak(shared_t *sh, uint64_t prev, uint32_t cpu)
{
    for (uint32_t l = 0; l < sh->nlev; l++) {
        if (prev != BENCH_NO_OWNER &&
            clof_topo_cohort(sh->topo, (uint32_t)prev, l) ==
                clof_topo_cohort(sh->topo, cpu, l))
            sh->streak[l]++;
        else
            sh->streak[l] = 1;
        if (sh->streak[l] > sh->streak_max[l])
            sh->streak_max[l] = sh->streak[l];
    }
}

/* After the release: classify the handover the critical section saw. */
BENCH_INLINE void bench_handover(thread_t *t, uint64_t prev, uint32_t cpu)
{
    if (prev == BENCH_NO_OWNER || (uint32_t)(prev >> 32) == (uint32_t)t->id)
        return;
    uint32_t pcpu = (uint32_t)prev;
    t->handovers++;
    t->handover_same_cpu += (pcpu == cpu);
    if (t->pairs && pcpu < t->ncpu_ids && cpu < t->ncpu_ids)
        t->pairs[(size_t)pcpu * t->ncpu_ids + cpu]++;
    else
        t->cpu_unknown++;
}

static void bench_sample_add(thread_t *t, uint64_t ns)
{
    t->samples[t->nsamples++] = ns;
    if (t->nsamples == BENCH_SAMPLE_CAP) {
        /* keep every other sample (those at the doubled stride) */
        for (uint32_t i = 0; i < BENCH_SAMPLE_CAP / 2; i++)
            t->samples[i] = t->samples[2 * i + 1];
        t->nsamples = BENCH_SAMPLE_CAP / 2;
        t->sample_mask = 2 * t->sample_mask + 1;
    }
}

static void bench_thread_start(thread_t *t)
{
    shared_t *sh = t->sh;
    if (t->cpu_mode == CPU_VIRTUAL)
        clof_topo_set_vcpu(t->fixed_cpu);
#ifdef CLOF_BENCH_SIM
    return; /* simulated threads all start at virtual time 0 */
#endif
    __atomic_fetch_add(&sh->barrier.ready, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&sh->barrier.go, __ATOMIC_ACQUIRE))
        sched_yield();
}

#ifdef CLOF_BENCH_SIM
/* The stop of a simulated run: after sim_ops acquisitions or at the virtual
 * duration, whichever comes first; the counts, the virtual time and the
 * simulator's statistics are taken at that instant. */
static struct {
    thread_t *th;
    int T;
    void *(*entry)(void *);
    uint64_t done, target;
    double end_ns;
    bool stopped;
    double stop_ns;
    uint64_t *per_thread;
    uint32_t *cpus; /* the cpu of each thread */
    sim_stats_t st;
    double wall_s;
} bsim;

static void bench_sim_op_done(shared_t *sh)
{
    if (bsim.stopped)
        return;
    bsim.done++;
    double now = sim_now_ns();
    if (bsim.done >= bsim.target || now >= bsim.end_ns) {
        bsim.stopped = true;
        bsim.stop_ns = now;
        for (int i = 0; i < bsim.T; i++)
            bsim.per_thread[i] = bsim.th[i].count;
        sim_stats_get(&bsim.st);
        __atomic_store_n(&sh->stop.v, 1, __ATOMIC_RELAXED);
    }
}
#define BENCH_SIM_OP_DONE_(sh) bench_sim_op_done(sh)
#else
#define BENCH_SIM_OP_DONE_(sh) ((void)0)
#endif

/* One loop per lock.  `me` is recomputed from the cpu each iteration (the
 * thread may migrate unless pinned). */
#define BENCH_LOOP_(lk, LK)                                                    \
    static void *bench_thread_##lk(void *arg)                                  \
    {                                                                          \
        thread_t *t = arg;                                                     \
        shared_t *sh = t->sh;                                                  \
        bl_##lk##_lock_t *l = &sh->lock.lk;                                    \
        bl_##lk##_ctx_t *c = &t->ctx.lk;                                       \
        bl_##lk##_ctx_init(l, c);                                              \
        const uint64_t tag = (uint64_t)(uint32_t)t->id << 32;                  \
        uint64_t n = 0;                                                        \
        bench_thread_start(t);                                                 \
        while (!__atomic_load_n(&sh->stop.v, __ATOMIC_RELAXED)) {              \
            uint64_t prev;                                                     \
            uint32_t cpu;                                                      \
            if (CLOF_UNLIKELY((n & t->sample_mask) == t->sample_mask)) {       \
                uint64_t t0 = bench_lat_now();                                 \
                bl_##lk##_acquire(l, c);                                       \
                uint64_t t1 = bench_lat_now();                                 \
                cpu = (uint32_t)bench_cpu(t);                                  \
                prev = bench_cs(sh, tag | cpu);                                \
                if (sh->nlev)                                                  \
                    bench_streak(sh, prev, cpu);                               \
                bl_##lk##_release(l, c);                                       \
                bench_sample_add(t, t1 - t0);                                  \
            } else {                                                           \
                bl_##lk##_acquire(l, c);                                       \
                cpu = (uint32_t)bench_cpu(t);                                  \
                prev = bench_cs(sh, tag | cpu);                                \
                if (sh->nlev)                                                  \
                    bench_streak(sh, prev, cpu);                               \
                bl_##lk##_release(l, c);                                       \
            }                                                                  \
            bench_handover(t, prev, cpu);                                      \
            n++;                                                               \
            __atomic_store_n(&t->count, n, __ATOMIC_RELAXED);                  \
            BENCH_SIM_OP_DONE_(sh);                                            \
            bench_noncs(t);                                                    \
        }                                                                      \
        return NULL;                                                           \
    }                                                                          \
    static void bench_init_##lk(shared_t *sh)                                  \
    {                                                                          \
        bl_##lk##_init(&sh->lock.lk);                                          \
    }
BENCH_LOCKS(BENCH_LOOP_)
#undef BENCH_LOOP_

static void *(*const bench_threads[BENCH_NLOCKS])(void *) = {
#define X(id, ID) bench_thread_##id,
    BENCH_LOCKS(X)
#undef X
};
static void (*const bench_inits[BENCH_NLOCKS])(shared_t *) = {
#define X(id, ID) bench_init_##id,
    BENCH_LOCKS(X)
#undef X
};

/* ---- the reader-writer loops (--lock <rw name> --read-percent P) ------------ */

/* A write critical section: bench_cs, with line 0's v[2] raised while the
 * lines are being written (a reader that sees it, or lines that disagree,
 * saw a write in progress). */
BENCH_INLINE uint64_t bench_cs_write(shared_t *sh, uint64_t me)
{
    volatile uint64_t *busy = &sh->lines[0].v[2];
    *busy = 1;
    __asm__ volatile("" ::: "memory");
    uint64_t prev = bench_cs(sh, me);
    *busy = 0;
    __asm__ volatile("" ::: "memory");
    return prev;
}

/* A read critical section: read every shared line (no writes); true when
 * what it read is a consistent state (no write in progress, every line's
 * count the same). */
BENCH_INLINE bool bench_cs_read(shared_t *sh)
{
    cs_line_t *ln = sh->lines;
#ifdef CLOF_BENCH_SIM
    for (int k = 0; k < sh->cs_lines; k++)
        sim_access(&ln[k], SIM_READ);
#endif
    const volatile cs_line_t *vl = ln;
    bool ok = vl[0].v[2] == 0;
    uint64_t n0 = vl[0].v[0];
    for (int k = 1; k < sh->cs_lines; k++)
        ok &= vl[k].v[0] == n0;
    return ok;
}

/* One loop per RW lock: each iteration is a read (with probability
 * read_percent) or a write critical section, then the non-critical work.
 * Handovers and streaks are those between writers (readers write nothing
 * shared). */
#define BENCH_RW_LOOP_(lk, NAME)                                               \
    static void *bench_rwthread_##lk(void *arg)                                \
    {                                                                          \
        thread_t *t = arg;                                                     \
        shared_t *sh = t->sh;                                                  \
        bl_##lk##_lock_t *l = &sh->rwlock.lk;                                  \
        bl_##lk##_ctx_t *c = &t->rwctx.lk;                                     \
        memset(c, 0, sizeof *c);                                               \
        const uint64_t tag = (uint64_t)(uint32_t)t->id << 32;                  \
        uint64_t n = 0;                                                        \
        bench_thread_start(t);                                                 \
        while (!__atomic_load_n(&sh->stop.v, __ATOMIC_RELAXED)) {              \
            uint64_t prev = BENCH_NO_OWNER;                                    \
            uint32_t cpu = 0;                                                  \
            bool sample = (n & t->sample_mask) == t->sample_mask;              \
            bool rd = (bench_rand(&t->rng) >> 32) < t->read_below;             \
            uint64_t t0 = sample ? bench_lat_now() : 0;                        \
            if (rd) {                                                          \
                bl_##lk##_read_acquire(l, c);                                  \
                uint64_t t1 = sample ? bench_lat_now() : 0;                    \
                t->torn += !bench_cs_read(sh);                                 \
                bl_##lk##_read_release(l, c);                                  \
                t->reads++;                                                    \
                if (CLOF_UNLIKELY(sample))                                     \
                    bench_sample_add(t, t1 - t0);                              \
            } else {                                                           \
                bl_##lk##_write_acquire(l, c);                                 \
                uint64_t t1 = sample ? bench_lat_now() : 0;                    \
                cpu = (uint32_t)bench_cpu(t);                                  \
                prev = bench_cs_write(sh, tag | cpu);                          \
                if (sh->nlev)                                                  \
                    bench_streak(sh, prev, cpu);                               \
                bl_##lk##_write_release(l, c);                                 \
                t->writes++;                                                   \
                if (CLOF_UNLIKELY(sample))                                     \
                    bench_sample_add(t, t1 - t0);                              \
            }                                                                  \
            bench_handover(t, prev, cpu);                                      \
            n++;                                                               \
            __atomic_store_n(&t->count, n, __ATOMIC_RELAXED);                  \
            BENCH_SIM_OP_DONE_(sh);                                            \
            bench_noncs(t);                                                    \
        }                                                                      \
        return NULL;                                                           \
    }                                                                          \
    static void bench_rwinit_##lk(shared_t *sh, int pref)                      \
    {                                                                          \
        bl_##lk##_init(&sh->rwlock.lk, (uint32_t)pref);                        \
    }
BENCH_RW_LOCKS(BENCH_RW_LOOP_)
#undef BENCH_RW_LOOP_

static void *(*const bench_rwthreads[BENCH_NRWLOCKS])(void *) = {
#define X(id, NAME) bench_rwthread_##id,
    BENCH_RW_LOCKS(X)
#undef X
};
static void (*const bench_rwinits[BENCH_NRWLOCKS])(shared_t *, int) = {
#define X(id, NAME) bench_rwinit_##id,
    BENCH_RW_LOCKS(X)
#undef X
};

/* The thread function of the run's lock (mutex or RW). */
static void *(*bench_thread_fn(const params_t *p))(void *)
{
    return p->rw_lock >= 0 ? bench_rwthreads[p->rw_lock]
                           : bench_threads[p->lock];
}

/* ---- calibration ------------------------------------------------------------ */

static double bench_spin_ns_per_iter; /* calibrated at start-up */
static double bench_clock_overhead_ns;

static void __attribute__((noinline)) bench_spin_outlined(uint32_t n)
{
    bench_spin(n);
}

static __attribute__((unused)) void bench_calibrate(void)
{
    const uint32_t n = 200000;
    double best = 1e30;
    bench_spin_outlined(n); /* warm up */
    for (int i = 0; i < 9; i++) {
        uint64_t t0 = bench_now_ns();
        bench_spin_outlined(n);
        uint64_t t1 = bench_now_ns();
        double ns = (double)(t1 - t0) / n;
        if (ns < best)
            best = ns;
    }
    bench_spin_ns_per_iter = best > 0 ? best : 0.25;

    bench_ticks_calibrate(10.0);
    uint64_t bestc = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t t0 = bench_ticks();
        uint64_t t1 = bench_ticks();
        if (t1 - t0 < bestc)
            bestc = t1 - t0;
    }
    bench_clock_overhead_ns = (double)bestc / bench_ticks_per_ns;
}

/* ---- one run ------------------------------------------------------------------ */

typedef struct {
    uint64_t lat;
    uint64_t weight;
} wsample_t;

static int wsample_cmp(const void *a, const void *b)
{
    const wsample_t *x = a, *y = b;
    return (x->lat > y->lat) - (x->lat < y->lat);
}

static double wquantile(const wsample_t *s, size_t n, uint64_t total, double q)
{
    if (n == 0)
        return NAN;
    double target = q * (double)total;
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += s[i].weight;
        if ((double)acc >= target)
            return (double)s[i].lat;
    }
    return (double)s[n - 1].lat;
}

typedef struct {
    double duration_s;
    uint64_t total;
    uint64_t *per_thread;
    double ops_per_s;
    double rstd;
    double p50, p99;
    uint64_t nsamples;
    uint64_t handovers, same_cpu, cpu_unknown;
    uint64_t *pairs; /* summed over threads, or NULL */
    uint32_t ncpu_ids;
    uint64_t streak_max[CLOF_TOPO_MAX_LEVELS];
    uint64_t reads, writes; /* RW locks: acquisitions of each kind (whole run) */
} result_t;

static void *xaligned(size_t align, size_t size)
{
    size = (size + align - 1) / align * align;
    void *p = aligned_alloc(align, size);
    if (!p) {
        fprintf(stderr, "clof-bench: out of memory\n");
        exit(1);
    }
    memset(p, 0, size);
    return p;
}

static int bench_allowed_cpus(int *cpus, int max)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && n < max; c++)
            if (CPU_ISSET(c, &set))
                cpus[n++] = c;
    }
    if (n == 0) {
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        for (int c = 0; c < on && n < max; c++)
            cpus[n++] = c;
    }
    return n;
}

static void sleep_s(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* After a run: check mutual exclusion, then the figures (r->per_thread and
 * r->duration_s are set: the counts and the time at the stop instant). */
static int bench_collect(const params_t *p, shared_t *sh, thread_t *th,
                         uint32_t ncpu_ids, result_t *r)
{
    int T = p->threads;
    /* Mutual exclusion: every line was incremented once per iteration (RW
     * locks: once per write); no reader saw a write in progress. */
    uint64_t sum = 0, torn = 0;
    for (int i = 0; i < T; i++) {
        sum += sh->rw ? th[i].writes : th[i].count;
        torn += th[i].torn;
    }
    if (torn) {
        fprintf(stderr,
                "clof-bench: %s: READERS SAW A WRITER: %llu read critical "
                "sections saw a write in progress\n",
                p->lock_name, (unsigned long long)torn);
        return 1;
    }
    for (int k = 0; k < p->cs_lines; k++) {
        if (sh->lines[k].v[0] != sum) {
            fprintf(stderr,
                    "clof-bench: %s: MUTUAL EXCLUSION VIOLATED: line %d "
                    "counted %llu critical sections, threads counted %llu\n",
                    p->lock_name, k,
                    (unsigned long long)sh->lines[k].v[0],
                    (unsigned long long)sum);
            return 1;
        }
    }

    /* Results over the measured interval (counts at the stop instant). */
    r->total = 0;
    for (int i = 0; i < T; i++)
        r->total += r->per_thread[i];
    r->reads = r->writes = 0;
    for (int i = 0; i < T; i++) {
        r->reads += th[i].reads;
        r->writes += th[i].writes;
    }
    r->ops_per_s = (double)r->total / r->duration_s;
    double mean = (double)r->total / T, var = 0;
    for (int i = 0; i < T; i++) {
        double d = (double)r->per_thread[i] - mean;
        var += d * d;
    }
    var /= T;
    r->rstd = mean > 0 ? sqrt(var) / mean : NAN;

    size_t ns = 0;
    for (int i = 0; i < T; i++)
        ns += th[i].nsamples;
    wsample_t *ws = malloc(sizeof *ws * (ns ? ns : 1));
    size_t j = 0;
    uint64_t wtotal = 0;
    for (int i = 0; i < T; i++)
        for (uint32_t k = 0; k < th[i].nsamples; k++) {
            ws[j].lat = (uint64_t)llround((double)th[i].samples[k] /
                                          bench_ticks_per_ns);
            ws[j].weight = th[i].sample_mask + 1;
            wtotal += ws[j].weight;
            j++;
        }
    qsort(ws, ns, sizeof *ws, wsample_cmp);
    r->p50 = wquantile(ws, ns, wtotal, 0.50);
    r->p99 = wquantile(ws, ns, wtotal, 0.99);
    r->nsamples = ns;
    free(ws);

    r->handovers = r->same_cpu = r->cpu_unknown = 0;
    r->ncpu_ids = ncpu_ids;
    r->pairs = ncpu_ids ? calloc((size_t)ncpu_ids * ncpu_ids, 8) : NULL;
    for (int i = 0; i < T; i++) {
        r->handovers += th[i].handovers;
        r->same_cpu += th[i].handover_same_cpu;
        r->cpu_unknown += th[i].cpu_unknown;
        if (r->pairs)
            for (size_t k = 0; k < (size_t)ncpu_ids * ncpu_ids; k++)
                r->pairs[k] += th[i].pairs[k];
        free(th[i].samples);
        free(th[i].pairs);
    }
    memcpy(r->streak_max, sh->streak_max, sizeof r->streak_max);
    free(th);
    free(sh->lines);
    free(sh);
    return 0;
}

/* The shared state of one run (both the native and the simulated one). */
static shared_t *bench_shared_new_(const params_t *p)
{
    shared_t *sh = xaligned(128, sizeof *sh);
    sh->cs_lines = p->cs_lines;
    sh->lines = xaligned(128, sizeof(cs_line_t) * (size_t)p->cs_lines);
    sh->lines[0].v[1] = BENCH_NO_OWNER;
    const clof_topology_t *topo = clof_topology();
    sh->topo = topo;
    sh->nlev = topo->nlevels > 1 ? topo->nlevels : 0;
    sh->rw = p->rw_lock >= 0;
    if (sh->rw)
        bench_rwinits[p->rw_lock](sh, p->rw_pref);
    else
        bench_inits[p->lock](sh);
    return sh;
}

/* A thread's random stream, non-critical work, latency samples and
 * handover matrix (t->id set); iters: non-critical iterations. */
static void bench_thread_setup_(thread_t *t, const params_t *p, int run,
                                double iters, uint32_t ncpu_ids)
{
    uint64_t i = (uint64_t)t->id;
    t->rng = p->seed * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL +
             (uint64_t)run * 0x94D049BB133111EBULL + 1;
    if (t->rng == 0)
        t->rng = 1;
    if (p->non_cs_fixed || iters < 0.5) {
        t->noncs_range = 0;
        t->noncs_fixed = (uint32_t)llround(iters);
    } else {
        t->noncs_range = (uint32_t)llround(2.0 * iters) + 1;
    }
    t->sample_mask = p->sample_every - 1;
    /* P% of 2^32 (100%: every draw, 0%: none) */
    t->read_below = (uint64_t)llround(p->read_percent / 100.0 * 4294967296.0);
    t->samples = xaligned(64, sizeof(uint64_t) * BENCH_SAMPLE_CAP);
    t->ncpu_ids = ncpu_ids;
    if (ncpu_ids)
        t->pairs = xaligned(64, sizeof(uint64_t) * ncpu_ids * ncpu_ids);
}

static __attribute__((unused)) int bench_run(const params_t *p, int run,
                                           result_t *r)
{
    int T = p->threads;
    shared_t *sh = bench_shared_new_(p);
    const clof_topology_t *topo = sh->topo;

    thread_t *th = xaligned(128, sizeof *th * (size_t)T);
    long nconf = topo->emulated ? (long)topo->ncpus
                                : sysconf(_SC_NPROCESSORS_CONF);
    if (!topo->emulated && (long)topo->ncpus > nconf)
        nconf = (long)topo->ncpus;
    uint32_t ncpu_ids = (nconf > 0 && nconf <= BENCH_PAIR_MAX_CPUS)
                            ? (uint32_t)nconf
                            : 0;
    static int cpus[CPU_SETSIZE];
    int ncpus = bench_allowed_cpus(cpus, CPU_SETSIZE);

    double iters = p->non_cs_ns / bench_spin_ns_per_iter;
    for (int i = 0; i < T; i++) {
        thread_t *t = &th[i];
        t->sh = sh;
        t->id = i;
        t->cpu_mode = p->pin ? CPU_FIXED : CPU_OS;
        t->fixed_cpu = p->pin ? cpus[i % ncpus] : -1;
        if (topo->emulated) { /* the thread's virtual cpu by the placement */
            t->cpu_mode = CPU_VIRTUAL;
            t->fixed_cpu = (int)clof_topo_assign_vcpu(
                topo, (clof_vcpu_assign_t)p->placement, (uint32_t)i);
        }
        bench_thread_setup_(t, p, run, iters, ncpu_ids);
    }

    for (int i = 0; i < T; i++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (p->pin) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(th[i].fixed_cpu, &set);
            if (pthread_attr_setaffinity_np(&attr, sizeof set, &set) != 0) {
                fprintf(stderr, "clof-bench: cannot pin to cpu %d\n",
                        th[i].fixed_cpu);
                return 1;
            }
        }
        int e = pthread_create(&th[i].tid, &attr, bench_thread_fn(p), &th[i]);
        pthread_attr_destroy(&attr);
        if (e != 0) {
            fprintf(stderr, "clof-bench: pthread_create: %s\n", strerror(e));
            return 1;
        }
    }

    while (__atomic_load_n(&sh->barrier.ready, __ATOMIC_SEQ_CST) !=
           (uint32_t)T)
        sleep_s(50e-6);
    uint64_t t0 = bench_now_ns();
    __atomic_store_n(&sh->barrier.go, 1, __ATOMIC_RELEASE);
    sleep_s(p->duration_s);
    uint64_t t1 = bench_now_ns();
    r->per_thread = calloc((size_t)T, sizeof(uint64_t));
    for (int i = 0; i < T; i++)
        r->per_thread[i] = __atomic_load_n(&th[i].count, __ATOMIC_RELAXED);
    __atomic_store_n(&sh->stop.v, 1, __ATOMIC_RELAXED);

    /* Join, with a watchdog: a lock that loses a wake-up shows up here. */
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)p->join_timeout_s;
    for (int i = 0; i < T; i++) {
        int e = pthread_timedjoin_np(th[i].tid, NULL, &dl);
        if (e != 0) {
            fprintf(stderr,
                    "clof-bench: %s: thread %d did not stop within %.0f s "
                    "after the end of the run (lost wake-up or deadlock?)\n",
                    p->lock_name, i, p->join_timeout_s);
            return 1;
        }
    }

    r->duration_s = (double)(t1 - t0) / 1e9;
    return bench_collect(p, sh, th, ncpu_ids, r);
}

#ifdef CLOF_BENCH_SIM
static sim_profile_t bench_prof;

/* The watchdog of a simulated run: a run stops at an acquisition (the
 * --sim-ops'th, or the first after --duration), so a lock under which no
 * thread completes one (a livelock in the model's deterministic timing)
 * would run forever.  After --sim-wall seconds of wall time: one message,
 * exit 1. */
static char bench_sim_wall_msg[512];
static void bench_sim_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, bench_sim_wall_msg, strlen(bench_sim_wall_msg));
    (void)w;
    _exit(1);
}

static void bench_sim_entry(void *arg)
{
    (void)bsim.entry(arg);
}

/* One simulated run: the threads are fibers on the profile's cpus (by the
 * placement), all time is virtual. */
static int bench_run_sim(const params_t *p, int run, result_t *r)
{
    int T = p->threads;
    shared_t *sh = bench_shared_new_(p);
    const clof_topology_t *topo = sh->topo;

    thread_t *th = xaligned(128, sizeof *th * (size_t)T);
    uint32_t ncpu_ids = topo->ncpus <= BENCH_PAIR_MAX_CPUS ? topo->ncpus : 0;
    uint32_t *cpus = calloc((size_t)T, sizeof *cpus);
    void **args = calloc((size_t)T, sizeof *args);
    double iters = p->non_cs_ns; /* bench_spin: one iteration = one ns */
    for (int i = 0; i < T; i++) {
        thread_t *t = &th[i];
        t->sh = sh;
        t->id = i;
        t->cpu_mode = CPU_VIRTUAL;
        t->fixed_cpu = (int)clof_topo_assign_vcpu(
            &bench_prof.topo, (clof_vcpu_assign_t)p->placement, (uint32_t)i);
        bench_thread_setup_(t, p, run, iters, ncpu_ids);
        cpus[i] = (uint32_t)t->fixed_cpu;
        args[i] = t;
    }
    free(bsim.cpus);
    memset(&bsim, 0, sizeof bsim);
    bsim.cpus = cpus;
    bsim.th = th;
    bsim.T = T;
    bsim.entry = bench_thread_fn(p);
    bsim.target = p->sim_ops;
    bsim.end_ns = p->duration_s * 1e9;
    bsim.per_thread = calloc((size_t)T, sizeof(uint64_t));
    char err[512];
    uint64_t w0 = bench_now_ns();
    snprintf(bench_sim_wall_msg, sizeof bench_sim_wall_msg,
             "clof-bench: %s: the simulated run did not finish within "
             "--sim-wall %u s of wall time (no acquisition completes: a "
             "livelock or starvation in the model?)\n",
             p->lock_name, p->sim_wall_s);
    signal(SIGALRM, bench_sim_alarm);
    alarm(p->sim_wall_s);
    int rc = sim_run(&bench_prof, T, cpus, bench_sim_entry, args,
                     p->seed * 1000003u + (uint64_t)run, err, sizeof err);
    alarm(0);
    bsim.wall_s = (double)(bench_now_ns() - w0) / 1e9;
    free(args);
    if (rc != 0) {
        fprintf(stderr, "clof-bench: %s: %s\n", p->lock_name, err);
        return 1;
    }
    r->per_thread = bsim.per_thread;
    r->duration_s = bsim.stop_ns / 1e9;
    return bench_collect(p, sh, th, ncpu_ids, r);
}
#endif

/* Fraction of the handovers whose two owners share a cohort of level l. */
static double bench_local_fraction(const result_t *r, uint32_t l)
{
    const clof_topology_t *t = clof_topology();
    if (!r->pairs)
        return NAN;
    uint64_t all = 0, local = 0;
    for (uint32_t a = 0; a < r->ncpu_ids; a++)
        for (uint32_t b = 0; b < r->ncpu_ids; b++) {
            uint64_t n = r->pairs[(size_t)a * r->ncpu_ids + b];
            if (!n)
                continue;
            all += n;
            if (clof_topo_cohort(t, a, l) == clof_topo_cohort(t, b, l))
                local += n;
        }
    return all ? (double)local / (double)all : NAN;
}

/* ---- output -------------------------------------------------------------------- */

static bench_machine_t machine;

static void print_human(const params_t *p, const result_t *r)
{
    char p50[32], p99[32], same[32];
    if (isnan(r->p50))
        snprintf(p50, sizeof p50, "-");
    else
        snprintf(p50, sizeof p50, "%.0f", r->p50);
    if (isnan(r->p99))
        snprintf(p99, sizeof p99, "-");
    else
        snprintf(p99, sizeof p99, "%.0f", r->p99);
    if (r->handovers)
        snprintf(same, sizeof same, "%.3f",
                 (double)r->same_cpu / (double)r->handovers);
    else
        snprintf(same, sizeof same, "-");
    printf("%-12s T=%-3d %10.3f Mops/s  rstd %.3f  p50 %6s ns  p99 %8s ns  "
           "handovers/op %.3f  same-cpu %s",
           p->lock_name, p->threads, r->ops_per_s / 1e6, r->rstd,
           p50, p99,
           r->total ? (double)r->handovers / (double)r->total : 0.0, same);
    if (p->rw_lock >= 0)
        printf("  reads %g%% (%s pref; %llu reads, %llu writes)",
               p->read_percent, bench_rw_pref_names[p->rw_pref],
               (unsigned long long)r->reads, (unsigned long long)r->writes);
    const clof_topology_t *t = clof_topology();
    if (t->nlevels > 1) {
        printf("  local:");
        for (uint32_t l = 0; l + 1 < t->nlevels; l++)
            printf(" %s %.3f (streak %llu)",
                   clof_topo_level_name(clof_topo_level_kind(t, l)),
                   bench_local_fraction(r, l),
                   (unsigned long long)r->streak_max[l]);
    }
#ifdef CLOF_BENCH_SIM
    {
        static const char *const kinds[SIM_NKINDS] = {"core", "cache", "numa",
                                                      "package", "system"};
        double ops = r->total ? (double)r->total : 1.0;
        printf("  [simulated %s, %.0f us virtual, %.2f s wall; line "
               "transfers/CS:",
               bench_prof.name, bsim.stop_ns / 1e3, bsim.wall_s);
        for (uint32_t l = 0; l < bench_prof.topo.nlevels; l++) {
            int k = (int)bench_prof.topo.level[l].kind;
            printf(" %s %.2f", kinds[k], (double)bsim.st.transfers[k] / ops);
        }
        if (bsim.st.ctx_switches)
            printf("; per CS: cpu switches %.3f, parks %.3f, preemptions %.4f",
                   (double)bsim.st.ctx_switches / ops,
                   (double)bsim.st.parks / ops,
                   (double)bsim.st.preemptions / ops);
        printf("]");
    }
#endif
    putchar('\n');
}

#ifdef CLOF_BENCH_SIM
/* The simulation's own figures: line transfers (and invalidations) per
 * critical section by the closest common level of the two cpus, from the
 * coherence model (sim.h). */
static void print_sim_json(FILE *f, const params_t *p, const result_t *r)
{
    static const char *const kinds[SIM_NKINDS] = {"core", "cache", "numa",
                                                  "package", "system"};
    double ops = r->total ? (double)r->total : 1.0;
    fputs(",\"sim\":{\"profile\":", f);
    bench_json_str(f, bench_prof.name);
    fputs(",\"profile_path\":", f);
    bench_json_str(f, bench_prof.path);
    fputs(",\"description\":", f);
    bench_json_str(f, bench_prof.description);
    fputs(",\"cost_source\":", f);
    bench_json_str(f, bench_prof.source);
    fputs(",\"placement\":", f);
    bench_json_str(f, p->placement == CLOF_VCPU_SPREAD   ? "spread"
                      : p->placement == CLOF_VCPU_LINEAR ? "linear"
                                                         : "packed");
    fputs(",\"cpus\":[", f);
    for (int i = 0; i < p->threads; i++)
        fprintf(f, "%s%u", i ? "," : "", bsim.cpus[i]);
    fputs("]", f);
    fputs(",\"transfers_per_cs\":{", f);
    bool first = true;
    for (uint32_t l = 0; l < bench_prof.topo.nlevels; l++) {
        int k = (int)bench_prof.topo.level[l].kind;
        fprintf(f, "%s\"%s\":", first ? "" : ",", kinds[k]);
        bench_json_num(f, (double)bsim.st.transfers[k] / ops);
        first = false;
    }
    fputs("},\"invalidations_per_cs\":{", f);
    first = true;
    for (uint32_t l = 0; l < bench_prof.topo.nlevels; l++) {
        int k = (int)bench_prof.topo.level[l].kind;
        fprintf(f, "%s\"%s\":", first ? "" : ",", kinds[k]);
        bench_json_num(f, (double)bsim.st.invalidations[k] / ops);
        first = false;
    }
    fputs("},\"memory_fills_per_cs\":", f);
    bench_json_num(f, (double)bsim.st.memory_fills / ops);
    fputs(",\"virtual_s\":", f);
    bench_json_num(f, bsim.stop_ns / 1e9);
    fprintf(f, ",\"ops_target\":%llu,\"accesses\":%llu,\"switches\":%llu,"
               "\"wakeups\":%llu,\"wall_s\":",
            (unsigned long long)bsim.target,
            (unsigned long long)bsim.st.accesses,
            (unsigned long long)bsim.st.switches,
            (unsigned long long)bsim.st.wakeups);
    bench_json_num(f, bsim.wall_s);
    fprintf(f, ",\"wait_model\":\"%s\",\"cpu_switches\":%llu,"
               "\"preemptions\":%llu,\"yields\":%llu,\"parks\":%llu,"
               "\"park_wakes\":%llu,\"migrations\":%llu",
            p->sim_wait == 1 ? "spin" : p->sim_wait == 2 ? "policy" : "auto",
            (unsigned long long)bsim.st.ctx_switches,
            (unsigned long long)bsim.st.preemptions,
            (unsigned long long)bsim.st.yields,
            (unsigned long long)bsim.st.parks,
            (unsigned long long)bsim.st.park_wakes,
            (unsigned long long)bsim.st.migrations);
    fputs("}", f);
}
#endif

static void print_json(const params_t *p, int run, const result_t *r)
{
    FILE *f = stdout;
    fputs("{\"lock\":", f);
    bench_json_str(f, p->lock_name);
    if (p->rw_lock >= 0) {
        /* RW locks: the requested share of reads, the preference, and
         * what the run did (acquisitions of each kind, whole run) */
        fputs(",\"read_percent\":", f);
        bench_json_num(f, p->read_percent);
        fputs(",\"rw_pref\":", f);
        bench_json_str(f, bench_rw_pref_names[p->rw_pref]);
        fprintf(f, ",\"reads\":%llu,\"writes\":%llu",
                (unsigned long long)r->reads, (unsigned long long)r->writes);
    }
    fprintf(f, ",\"threads\":%d,\"duration_s\":", p->threads);
    bench_json_num(f, r->duration_s);
    fputs(",\"ops\":", f);
    fprintf(f, "%llu", (unsigned long long)r->total);
    fputs(",\"ops_per_s\":", f);
    bench_json_num(f, r->ops_per_s);
    fputs(",\"per_thread\":[", f);
    for (int i = 0; i < p->threads; i++)
        fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)r->per_thread[i]);
    fputs("],\"fairness_rstd\":", f);
    bench_json_num(f, r->rstd);
    fputs(",\"p50_ns\":", f);
    bench_json_num(f, r->p50);
    fputs(",\"p99_ns\":", f);
    bench_json_num(f, r->p99);
    fprintf(f, ",\"latency_samples\":%llu", (unsigned long long)r->nsamples);
    /* For each level of the hierarchy: the fraction of handovers whose
     * previous and next owner share a cohort of that level (system: 1). */
    const clof_topology_t *t = clof_topology();
    fputs(",\"handover_local\":{", f);
    for (uint32_t l = 0; l < t->nlevels; l++) {
        fprintf(f, "%s\"%s\":", l ? "," : "",
                clof_topo_level_name(clof_topo_level_kind(t, l)));
        bench_json_num(f, l + 1 == t->nlevels ? 1.0 : bench_local_fraction(r, l));
    }
    fputs("},\"local_streak_max\":{", f);
    for (uint32_t l = 0; l + 1 < t->nlevels; l++)
        fprintf(f, "%s\"%s\":%llu", l ? "," : "",
                clof_topo_level_name(clof_topo_level_kind(t, l)),
                (unsigned long long)r->streak_max[l]);
    fputs("}", f);
    fprintf(f, ",\"handovers\":{\"count\":%llu,\"per_op\":",
            (unsigned long long)r->handovers);
    bench_json_num(f, r->total ? (double)r->handovers / (double)r->total : 0.0);
    fputs(",\"same_cpu\":", f);
    bench_json_num(f, r->handovers ? (double)r->same_cpu / (double)r->handovers
                                   : NAN);
    fprintf(f, ",\"cpu_unknown\":%llu}", (unsigned long long)r->cpu_unknown);
    fputs(",\"topology\":{\"source\":", f);
    bench_json_str(f, clof_topo_source_name(t->source));
    fputs(",\"origin\":", f);
    bench_json_str(f, t->origin);
    fputs(",\"emulated\":", f);
    fputs(t->emulated ? "true" : "false", f);
    fputs(",\"levels\":[", f);
    for (uint32_t l = 0; l < t->nlevels; l++) {
        fputs(l ? "," : "", f);
        bench_json_str(f, clof_topo_level_name(clof_topo_level_kind(t, l)));
    }
    fprintf(f, "],\"cpus\":%u}", t->npresent);
#ifdef CLOF_BENCH_SIM
    fputs(",\"simulated\":true,\"machine\":", f);
    bench_machine_json(f, &machine);
    print_sim_json(f, p, r);
#else
    fputs(",\"simulated\":false,\"machine\":", f);
    bench_machine_json(f, &machine);
#endif
    fprintf(f, ",\"params\":{\"cs_lines\":%d,\"non_cs_ns\":", p->cs_lines);
    bench_json_num(f, p->non_cs_ns);
    fprintf(f, ",\"non_cs_dist\":\"%s\",\"pin\":%s,\"wait_policy\":",
            p->non_cs_fixed ? "fixed" : "uniform", p->pin ? "true" : "false");
    bench_json_str(f, BENCH_WAIT_POLICY);
    fprintf(f, ",\"seed\":%llu,\"sample_every\":%llu,\"spin_ns_per_iter\":",
            (unsigned long long)p->seed, (unsigned long long)p->sample_every);
    bench_json_num(f, bench_spin_ns_per_iter);
    fputs(",\"clock_overhead_ns\":", f);
    bench_json_num(f, bench_clock_overhead_ns);
    fputs(",\"latency_clock\":", f);
    bench_json_str(f, BENCH_TICKS_SOURCE);
    fputs(",\"duration_requested_s\":", f);
    bench_json_num(f, p->duration_s);
    fputs("},\"build\":{\"compiler\":", f);
    bench_json_str(f, BENCH_COMPILER);
    fputs(",\"clof_version\":", f);
    bench_json_str(f, CLOF_VERSION_STRING);
    fprintf(f, "},\"run\":%d", run);
    if (p->label) {
        fputs(",\"label\":", f);
        bench_json_str(f, p->label);
    }
    fputs(",\"mutex_check\":\"ok\"}\n", f);
    fflush(f);
}

/* ---- command line ---------------------------------------------------------------- */

/* the name the usage and the errors give: "clof bench" when the clof
 * command ran this program (it sets CLOF_PROG), else clof-bench */
static const char *prog_name(void)
{
    const char *p = getenv("CLOF_PROG");
    return p != NULL && *p != 0 ? p : "clof-bench";
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s --list | --list-rw\n"
            "       %s --lock NAME --threads N --duration SECONDS\n",
            prog_name(), prog_name());
    fputs(
        "                  [--read-percent P] [--rw-pref PREF]\n"
        "                  [--cs-lines K] [--non-cs NS] [--non-cs-fixed] [--pin]\n"
        "                  [--seed S] [--repeat R] [--sample-every N]\n"
        "                  [--label TEXT] [--json]\n"
        "                  [--emulate SHAPE | --topology FILE | --simulate PROFILE]\n"
        "                  [--placement packed|spread|linear] [--levels K,..]\n"
        "                  [--sim-ops N] [--sim-wall S]\n"
        "\n"
        "  --list            print every lock name, one per line\n"
        "  --list-rw         print every reader-writer lock name, one per line\n"
        "  --lock NAME       the lock, any spelling of its name (docs/locks.md:\n"
        "                    tkt-mcs = clof:tkt-mcs, cr:mcs, hmcs; `clof locks`)\n"
        "  --read-percent P  RW locks: each acquisition is a read with\n"
        "                    probability P% (0..100, default 90), else a\n"
        "                    write; a read reads the --cs-lines lines, a write\n"
        "                    reads and writes them\n"
        "  --rw-pref PREF    RW locks: reader (default, glibc's), writer or\n"
        "                    neutral preference (docs/rwlocks.md)\n"
        "  --threads N       threads (default 1)\n"
        "  --duration S      seconds per run, fractions allowed (default 1)\n"
        "  --cs-lines K      shared cache lines read+written in the critical\n"
        "                    section (default 2, at least 1)\n"
        "  --non-cs NS       mean non-critical work per iteration in ns\n"
        "                    (calibrated compute loop; default 100)\n"
        "  --non-cs-fixed    exactly NS each iteration (default: uniform in\n"
        "                    [0, 2*NS] drawn from the seeded per-thread PRNG)\n"
        "  --pin             pin thread i to the i-th allowed cpu (mod count)\n"
        "  --seed S          PRNG seed (default 1)\n"
        "  --repeat R        run R times, one result per run (default 1)\n"
        "  --sample-every N  time every N-th acquisition (power of two,\n"
        "                    default 64; the stride doubles when a thread's\n"
        "                    buffer of 8192 samples fills)\n"
        "  --label TEXT      copied into the JSON record\n"
        "  --json            one JSON object per run on stdout\n"
        "  --emulate SHAPE   run on an emulated machine, e.g.\n"
        "                    package:2,numa:2,cache:8,core:4 (threads get\n"
        "                    virtual cpus; NUMA locks and the handover\n"
        "                    accounting use its hierarchy)\n"
        "  --topology FILE   use this hierarchy file for the real cpus\n"
        "  --placement P     virtual cpus of emulated threads: packed\n"
        "                    (default), spread or linear\n"
        "  --levels K,...    build the NUMA locks over these levels of the\n"
        "                    hierarchy only (core,cache,numa,package; system\n"
        "                    is always kept), e.g. --levels numa for HMCS<2>\n"
        "  --simulate PROFILE  run on a simulated machine (a profile name:\n"
        "                    kunpeng920, epyc7352, local, m1 -- or the path of\n"
        "                    a .profile file; docs/simulation.md): threads are\n"
        "                    simulated cpus placed by --placement, all times\n"
        "                    are virtual, --duration is virtual seconds\n"
        "                    (default then 0.01)\n"
        "  --sim-ops N       simulated: stop after N acquisitions in all\n"
        "                    (default 20000) or at --duration, whichever first\n"
        "  --sim-wait M      simulated waits: auto (the waiting policy's spin,\n"
        "                    yield and park when threads share cpus, else spin),\n"
        "                    spin (waiters keep their cpu), policy (always)\n"
        "  --sim-wall S      simulated: give up (exit 1) after S seconds of wall\n"
        "                    time (default 300; a run without progress)\n"
        "exit status: 0 ok, 1 failed run or check, 2 bad usage\n"
        "example: clof bench --lock tkt-mcs --threads 4 --duration 1 --emulate numa:2,core:2\n",
        f);
}

static void die_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s\n", prog_name(), msg, arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, "try '%s --help'\n", prog_name());
    exit(2);
}

static double parse_double(const char *s, const char *what, double lo,
                           double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "bad %s (expected %g..%g)", what, lo, hi);
        die_usage(msg, s);
    }
    return v;
}

static long long parse_int(const char *s, const char *what, long long lo,
                           long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        char msg[128];
        snprintf(msg, sizeof msg, "bad %s (expected an integer %lld..%lld)",
                 what, lo, hi);
        die_usage(msg, s);
    }
    return v;
}

/* --levels: keep only the named levels of the process topology (system is
 * always kept) and make that the process topology, through a temporary
 * hierarchy file (emulated stays emulated). */
static int bench_install_levels(const char *levels, char *err, size_t n)
{
    const clof_topology_t *src = clof_topology();
    unsigned mask = 1u << CLOF_LEVEL_SYSTEM;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", levels);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int k = clof_topo_level_from_name(tok);
        if (k < 0) {
            snprintf(err, n,
                     "unknown level '%s': expected core, cache, numa, package "
                     "or system",
                     tok);
            return -1;
        }
        bool have = false;
        for (uint32_t l = 0; l < src->nlevels; l++)
            have |= (int)src->level[l].kind == k;
        if (!have) {
            char names[128] = "";
            size_t u = 0;
            for (uint32_t l = 0; l < src->nlevels; l++)
                u += (size_t)snprintf(names + u, sizeof names - u, "%s%s",
                                      l ? "," : "",
                                      clof_topo_level_name(src->level[l].kind));
            snprintf(err, n, "the hierarchy (%s) has no %s level; it has %s",
                     src->origin, tok, names);
            return -1;
        }
        mask |= 1u << k;
    }
    clof_topology_t t;
    memset(&t, 0, sizeof t);
    char path[] = "/tmp/clof-bench-levels-XXXXXX";
    int fd = -1;
    FILE *f = NULL;
    if (clof_topology_copy(&t, src) != 0 || clof_topology_select(&t, mask) != 0 ||
        (fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w"))) {
        snprintf(err, n, "cannot write the selected hierarchy: %s",
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        clof_topology_free(&t);
        return -1;
    }
    bool emulated = src->emulated;
    clof_topology_write(&t, f);
    fclose(f);
    clof_topology_free(&t);
    clof_topo_opts_t to;
    memset(&to, 0, sizeof to);
    if (emulated)
        to.emulate = path;
    else
        to.file = path;
    to.flags = CLOF_TOPO_NO_ENV;
    clof_topo_error_t te;
    int rc = clof_topology_install(&to, &te);
    unlink(path);
    if (rc != 0) {
        snprintf(err, n, "%s", te.msg);
        return -1;
    }
    return 0;
}

#ifndef CLOF_BENCH_SIM
/* --simulate: run the same benchmark built with the simulation backend,
 * clof-bench-sim, from this program's folder. */
static int bench_exec_sim(char **argv)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "clof-bench: --simulate: cannot find my own folder\n");
        return 2;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    *slash = 0;
    snprintf(path, sizeof path, "%s/clof-bench-sim", self);
    argv[0] = path;
    execv(path, argv);
    /* Under a user-mode emulator without binfmt_misc (a cross build run
     * with qemu-aarch64, docs/arm.md) the target program cannot be exec'd:
     * CLOF_EMULATOR names the emulator's command (words separated by
     * spaces), which runs it. */
    const char *emu = getenv("CLOF_EMULATOR");
    if (errno == ENOEXEC && emu != NULL && *emu != 0) {
        static char words[1024];
        int nw = 0, na = 0;
        while (argv[na] != NULL)
            na++;
        char **av = calloc((size_t)na + 34, sizeof *av);
        if (av != NULL) {
            snprintf(words, sizeof words, "%s", emu);
            for (char *w = strtok(words, " "); w != NULL && nw < 32; w = strtok(NULL, " "))
                av[nw++] = w;
            for (int i = 0; i <= na; i++)
                av[nw + i] = argv[i];
            execvp(av[0], av);
        }
    }
    fprintf(stderr,
            "clof-bench: --simulate needs the simulated build clof-bench-sim "
            "next to clof-bench (%s): %s\n",
            path, strerror(errno));
    return 2;
}
#endif

int main(int argc, char **argv)
{
    params_t p = {
        .lock = -1,
        .rw_lock = -1,
        .read_percent = 90,
        .threads = 1,
        .duration_s = 1.0,
        .cs_lines = 2,
        .non_cs_ns = 100.0,
        .seed = 1,
        .repeat = 1,
        .sample_every = 64,
        .join_timeout_s = 30,
        .sim_wall_s = 300,
    };
    const char *lock_name = NULL;
    enum {
        O_LIST = 256, O_LOCK, O_THREADS, O_DURATION, O_CS, O_NONCS,
        O_NONCS_FIXED, O_PIN, O_JSON, O_SEED, O_REPEAT, O_SAMPLE, O_LABEL,
        O_EMULATE, O_TOPOLOGY, O_SIMULATE, O_PLACEMENT, O_HELP, O_LEVELS,
        O_SIM_OPS, O_SIM_WAIT, O_SIM_WALL, O_LIST_RW, O_READ_PERCENT, O_RW_PREF
    };
    static const struct option opts[] = {
        {"list", no_argument, 0, O_LIST},
        {"lock", required_argument, 0, O_LOCK},
        {"threads", required_argument, 0, O_THREADS},
        {"duration", required_argument, 0, O_DURATION},
        {"cs-lines", required_argument, 0, O_CS},
        {"non-cs", required_argument, 0, O_NONCS},
        {"non-cs-fixed", no_argument, 0, O_NONCS_FIXED},
        {"pin", no_argument, 0, O_PIN},
        {"json", no_argument, 0, O_JSON},
        {"seed", required_argument, 0, O_SEED},
        {"repeat", required_argument, 0, O_REPEAT},
        {"sample-every", required_argument, 0, O_SAMPLE},
        {"label", required_argument, 0, O_LABEL},
        {"emulate", required_argument, 0, O_EMULATE},
        {"topology", required_argument, 0, O_TOPOLOGY},
        {"simulate", required_argument, 0, O_SIMULATE},
        {"placement", required_argument, 0, O_PLACEMENT},
        {"levels", required_argument, 0, O_LEVELS},
        {"sim-ops", required_argument, 0, O_SIM_OPS},
        {"sim-wait", required_argument, 0, O_SIM_WAIT},
        {"list-rw", no_argument, 0, O_LIST_RW},
        {"sim-wall", required_argument, 0, O_SIM_WALL},
        {"read-percent", required_argument, 0, O_READ_PERCENT},
        {"rw-pref", required_argument, 0, O_RW_PREF},
        {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    bool list = false, list_rw = false;
    bool read_percent_given = false, rw_pref_given = false;
    bool duration_given = false;
    bool sim_wait_given = false;
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case O_LIST: list = true; break;
        case O_LIST_RW: list_rw = true; break;
        case O_SIM_WALL:
            p.sim_wall_s = (unsigned)parse_int(optarg, "--sim-wall", 1, 86400);
            break;
        case O_READ_PERCENT:
            p.read_percent = parse_double(optarg, "--read-percent", 0, 100);
            read_percent_given = true;
            break;
        case O_RW_PREF:
            p.rw_pref = bench_rw_pref_find(optarg);
            if (p.rw_pref < 0)
                die_usage("bad --rw-pref (expected reader, writer or neutral)",
                          optarg);
            rw_pref_given = true;
            break;
        case O_LOCK: lock_name = optarg; break;
        case O_THREADS:
            p.threads = (int)parse_int(optarg, "--threads", 1, BENCH_MAX_THREADS);
            break;
        case O_DURATION:
            p.duration_s = parse_double(optarg, "--duration", 1e-6, 86400);
            duration_given = true;
            break;
        case O_CS:
            p.cs_lines = (int)parse_int(optarg, "--cs-lines", 1, BENCH_MAX_LINES);
            break;
        case O_NONCS:
            p.non_cs_ns = parse_double(optarg, "--non-cs", 0, 1e8);
            break;
        case O_NONCS_FIXED: p.non_cs_fixed = true; break;
        case O_PIN: p.pin = true; break;
        case O_JSON: p.json = true; break;
        case O_SEED:
            p.seed = (uint64_t)parse_int(optarg, "--seed", 0, INT64_MAX);
            break;
        case O_REPEAT:
            p.repeat = (int)parse_int(optarg, "--repeat", 1, 1000000);
            break;
        case O_SAMPLE: {
            long long v = parse_int(optarg, "--sample-every", 1, 1LL << 40);
            uint64_t s = 1;
            while (s < (uint64_t)v)
                s <<= 1;
            p.sample_every = s;
            break;
        }
        case O_LABEL: p.label = optarg; break;
        case O_EMULATE: p.emulate = optarg; break;
        case O_TOPOLOGY: p.topology = optarg; break;
        case O_PLACEMENT: {
            int a = clof_topo_assign_from_name(optarg);
            if (a < 0)
                die_usage("bad --placement (expected packed, spread or linear)",
                          optarg);
            p.placement = a;
            break;
        }
        case O_SIMULATE: p.simulate = optarg; break;
        case O_LEVELS: p.levels = optarg; break;
        case O_SIM_OPS:
            p.sim_ops = (uint64_t)parse_int(optarg, "--sim-ops", 1, 1LL << 40);
            break;
        case O_SIM_WAIT:
            p.sim_wait = !strcmp(optarg, "auto")     ? 0
                         : !strcmp(optarg, "spin")   ? 1
                         : !strcmp(optarg, "policy") ? 2
                                                     : -1;
            if (p.sim_wait < 0)
                die_usage("bad --sim-wait (expected auto, spin or policy)", optarg);
            sim_wait_given = true;
            break;
        case O_HELP: usage(stdout); return 0;
        case '?':
        default:
            if (optopt)
                die_usage("option needs an argument or is unknown",
                          argv[optind - 1]);
            die_usage("unknown option", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die_usage("unexpected argument", argv[optind]);
    if (list) {
        bench_lock_list(stdout, "\n");
        putchar('\n');
        return 0;
    }
    if (list_rw) {
        bench_rwlock_list(stdout, "\n");
        putchar('\n');
        return 0;
    }
    if (p.emulate && p.topology)
        die_usage("--emulate and --topology exclude each other", NULL);
    if (p.simulate && (p.emulate || p.topology))
        die_usage("--simulate excludes --emulate and --topology (a profile "
                  "names its machine's hierarchy)",
                  NULL);
    if ((p.sim_ops || sim_wait_given) && !p.simulate)
        die_usage("--sim-ops and --sim-wait need --simulate", NULL);
#ifdef CLOF_BENCH_SIM
    if (!p.simulate)
        die_usage("clof-bench-sim runs simulated machines only: give "
                  "--simulate PROFILE (or use clof-bench)",
                  NULL);
    if (!duration_given)
        p.duration_s = 0.01;
    if (!p.sim_ops)
        p.sim_ops = 20000;
    {
        char err[2048];
        if (sim_profile_load(&bench_prof, p.simulate, err, sizeof err) != 0) {
            fprintf(stderr, "clof-bench: --simulate: %s\n", err);
            return 2;
        }
        clof_topo_opts_t to;
        memset(&to, 0, sizeof to);
        to.file = bench_prof.hierarchy;
        to.flags = CLOF_TOPO_NO_ENV;
        clof_topo_error_t terr;
        if (clof_topology_install(&to, &terr) != 0) {
            fprintf(stderr, "clof-bench: --simulate: %s\n", terr.msg);
            return 2;
        }
        if (p.threads > SIM_MAX_THREADS) {
            fprintf(stderr,
                    "clof-bench: --threads %d: at most %d simulated threads "
                    "(the %u cpus of '%s' are time-shared beyond %u)\n",
                    p.threads, SIM_MAX_THREADS, bench_prof.topo.npresent,
                    bench_prof.name, bench_prof.topo.npresent);
            return 2;
        }
        sim_set_wait_model(p.sim_wait);
    }
#else
    (void)duration_given;
    if (p.simulate)
        return bench_exec_sim(argv);
#endif
    if (!p.simulate && (p.emulate || p.topology)) {
        clof_topo_opts_t to;
        memset(&to, 0, sizeof to);
        to.emulate = p.emulate;
        to.file = p.topology;
        clof_topo_error_t err;
        if (clof_topology_install(&to, &err) != 0) {
            fprintf(stderr, "clof-bench: %s\n", err.msg);
            return 2;
        }
    }
    if (p.levels) {
        char err[512];
        if (bench_install_levels(p.levels, err, sizeof err) != 0) {
            fprintf(stderr, "clof-bench: --levels: %s\n", err);
            return 2;
        }
    }
    if (!lock_name)
        die_usage("--lock NAME is required (see --list)", NULL);
    /* the one grammar of lock names (src/lockname, docs/locks.md): any
     * spelling of a name, looked up by its canonical one, which the results
     * carry */
    static char canon[CLOF_LOCKNAME_MAX];
    bool canon_ok = clof_lockname_canon(lock_name, canon, sizeof canon);
    p.rw_lock = canon_ok ? bench_rwlock_find(canon) : -1;
    p.lock = p.rw_lock >= 0 || !canon_ok ? -1 : bench_lock_find(canon);
    if (p.lock < 0 && p.rw_lock < 0) {
        char msg[512];
        bool rw = read_percent_given || rw_pref_given;
        clof_lockname_unknown(prog_name(), lock_name,
                              rw ? (clof_lockset_t){bench_rwlock_names, BENCH_NRWLOCKS,
                                                    sizeof bench_rwlock_names[0]}
                                 : (clof_lockset_t){bench_lock_names, BENCH_NLOCKS,
                                                    sizeof bench_lock_names[0]},
                              msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    p.lock_name = p.rw_lock >= 0 ? bench_rwlock_names[p.rw_lock] : bench_lock_names[p.lock];
    if (p.lock >= 0 && (read_percent_given || rw_pref_given)) {
        fprintf(stderr,
                "clof-bench: --read-percent and --rw-pref need a "
                "reader-writer lock; '%s' is a mutex.  Known RW locks: ",
                lock_name);
        bench_rwlock_list(stderr, " ");
        fputc('\n', stderr);
        return 2;
    }

#ifdef CLOF_BENCH_SIM
    /* peers that do not go through the atomics shim cannot be simulated */
#define X(id, ID)                                                              \
    if (p.lock == BENCH_LOCK_##ID) {                                           \
        fprintf(stderr,                                                        \
                "clof-bench: --simulate: '%s' does not go through the clof "   \
                "atomics shim and cannot be simulated (every clof lock "       \
                "can)\n",                                                      \
                lock_name);                                                    \
        return 2;                                                              \
    }
    BENCH_PEER_LOCKS(X)
#undef X
#define X(id, NAME)                                                            \
    if (p.rw_lock == BENCH_RWLOCK_##id) {                                      \
        fprintf(stderr,                                                        \
                "clof-bench: --simulate: '%s' does not go through the clof "   \
                "atomics shim and cannot be simulated (every clof RW lock "    \
                "can)\n",                                                      \
                lock_name);                                                    \
        return 2;                                                              \
    }
    BENCH_RW_PEER_LOCKS(X)
#undef X
#endif

    bench_rseq_off = (size_t)__rseq_offset;
    bench_rseq_ok = __rseq_size > 0;
    bench_machine_read(&machine);
#ifdef CLOF_BENCH_SIM
    {
        char host[256];
        snprintf(host, sizeof host, "%s", machine.cpu_model);
        snprintf(machine.cpu_model, sizeof machine.cpu_model,
                 "%.120s (simulated on %.100s)", bench_prof.description, host);
        machine.cpus_online = (long)bench_prof.topo.npresent;
    }
    bench_spin_ns_per_iter = 1.0; /* bench_spin: 1 iteration = 1 virtual ns */
    bench_ticks_per_ns = 1.0;     /* latencies are virtual ns */
    bench_clock_overhead_ns = 0;
#else
    bench_calibrate();
#endif

    for (int run = 0; run < p.repeat; run++) {
        result_t r;
        memset(&r, 0, sizeof r);
#ifdef CLOF_BENCH_SIM
        if (bench_run_sim(&p, run, &r) != 0)
            return 1;
#else
        if (bench_run(&p, run, &r) != 0)
            return 1;
#endif
        if (p.json)
            print_json(&p, run, &r);
        else
            print_human(&p, &r);
        free(r.per_thread);
        free(r.pairs);
    }
    return 0;
}
