/* SPDX-License-Identifier: MIT */
/*
 * clof-heatmap -- the handover heatmap of the CLoF paper, section 3.1 (the
 * measuring half of `clof heatmap`; docs/topology.md "The heatmap").
 *
 * For a pair of cpus (i, j), thread A pinned to i and thread B pinned to j
 * take turns incrementing a shared counter: A waits for an even value, B for
 * an odd one, for a fixed time.  The rate is increments per second.  Pairs
 * are unordered (the test is symmetric: each thread makes half the
 * increments), so each is measured once and the CSV matrix is mirrored; the
 * diagonal (both threads on one cpu) is measured too.
 *
 * Noise.  A pair's time is cut into --slices slices and the reported rate is
 * the best slice: a vCPU that the host deschedules (12-16 ms on our VMs) only
 * lowers the slices it hits.  Every wait is bounded by the clock, so a
 * descheduled partner never hangs the run: a waiter spins with pause, then
 * yields, and gives up at the end of the pair's time.
 *
 * Sampling (big machines).  With more than --max-pairs unordered pairs, the
 * pairs inside each NUMA node (each package when sysfs names no node) and
 * the diagonal are all measured -- the fine levels (core, cache group) are
 * read from single pairs, so none may be missing -- and a seeded random
 * sample of the pairs across nodes fills up to --max-pairs: the coarse
 * levels are averages over many pairs, which a sample estimates well.
 * Pairs not measured are "nan" in the CSV.
 *
 * Output: CSV on stdout or --out FILE; progress bar and ETA on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <clof/topology.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This is a measuring tool, not a lock: it uses C11 atomics directly. */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define SPINS_BEFORE_YIELD 1024u
#define MAX_SLICES 64

typedef struct pair {
    _Alignas(64) _Atomic uint64_t counter;
    _Alignas(64) _Atomic int ready;
    _Atomic int go;
    _Atomic int stop;
    int cpu_a, cpu_b;
    uint64_t dur_ns;
    unsigned slices;
    double rate[MAX_SLICES];
    unsigned done_slices;
} pair_t;

/* wait until (counter & 1) == parity, or the clock passes limit; returns
 * the value seen, or UINT64_MAX at the limit (or when *stop is set) */
static uint64_t await_parity(pair_t *p, uint64_t parity, uint64_t limit, bool use_stop)
{
    unsigned spins = 0;
    for (;;) {
        uint64_t v = atomic_load_explicit(&p->counter, memory_order_acquire);
        if ((v & 1) == parity)
            return v;
        if (++spins % 256 == 0) {
            if (use_stop && atomic_load_explicit(&p->stop, memory_order_relaxed))
                return UINT64_MAX;
            if (now_ns() >= limit)
                return UINT64_MAX;
        }
        if (spins >= SPINS_BEFORE_YIELD)
            sched_yield(); /* the partner may share this cpu, or be descheduled */
        else
            cpu_relax();
    }
}

static void start_line(pair_t *p)
{
    atomic_fetch_add(&p->ready, 1);
    while (!atomic_load_explicit(&p->go, memory_order_acquire))
        sched_yield();
}

static void *thread_a(void *arg) /* even; keeps the time */
{
    pair_t *p = arg;
    start_line(p);
    uint64_t t0 = now_ns();
    uint64_t slice = p->dur_ns / p->slices;
    for (unsigned s = 0; s < p->slices; s++) {
        uint64_t end = t0 + slice * (s + 1);
        uint64_t ts = now_ns();
        uint64_t c0 = atomic_load_explicit(&p->counter, memory_order_relaxed);
        uint64_t tnow = ts;
        unsigned k = 0;
        for (;;) {
            uint64_t v = await_parity(p, 0, end, false);
            if (v == UINT64_MAX) {
                tnow = now_ns();
                break;
            }
            atomic_store_explicit(&p->counter, v + 1, memory_order_release);
            if (++k % 16 == 0 && (tnow = now_ns()) >= end)
                break;
        }
        uint64_t c1 = atomic_load_explicit(&p->counter, memory_order_relaxed);
        p->rate[s] = tnow > ts ? (double)(c1 - c0) * 1e9 / (double)(tnow - ts) : 0.0;
        p->done_slices = s + 1;
    }
    atomic_store_explicit(&p->stop, 1, memory_order_release);
    return NULL;
}

static void *thread_b(void *arg) /* odd */
{
    pair_t *p = arg;
    start_line(p);
    /* A sets stop at the end; the clock bounds us if A never runs again */
    uint64_t limit = now_ns() + p->dur_ns + 2000000000ull;
    for (;;) {
        uint64_t v = await_parity(p, 1, limit, true);
        if (v == UINT64_MAX)
            break;
        atomic_store_explicit(&p->counter, v + 1, memory_order_release);
    }
    return NULL;
}

static int spawn(pthread_t *th, int cpu, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    cpu_set_t set;
    pthread_attr_init(&attr);
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    int rc = pthread_create(th, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* one pair; NAN when the threads could not be pinned */
static double measure(int a, int b, uint64_t dur_ns, unsigned slices, const char *stat)
{
    pair_t *p = aligned_alloc(64, sizeof(pair_t));
    if (!p)
        return NAN;
    memset(p, 0, sizeof *p);
    p->cpu_a = a, p->cpu_b = b, p->dur_ns = dur_ns, p->slices = slices;
    pthread_t ta, tb;
    if (spawn(&ta, a, thread_a, p) != 0) {
        free(p);
        return NAN;
    }
    if (spawn(&tb, b, thread_b, p) != 0) {
        atomic_store(&p->go, 1);
        atomic_store(&p->stop, 1);
        /* A alone: it times out on its slices */
        pthread_join(ta, NULL);
        free(p);
        return NAN;
    }
    while (atomic_load(&p->ready) < 2)
        sched_yield();
    atomic_store_explicit(&p->go, 1, memory_order_release);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    double r;
    qsort(p->rate, p->done_slices, sizeof(double), cmp_double);
    if (p->done_slices == 0)
        r = NAN;
    else if (!strcmp(stat, "median"))
        r = p->rate[p->done_slices / 2];
    else
        r = p->rate[p->done_slices - 1];
    free(p);
    return r;
}

/* ---- progress ---------------------------------------------------------------- */

static void fmt_dur(char *b, size_t n, double s)
{
    if (s < 0 || s != s)
        s = 0;
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(b, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(b, n, "%lu:%02lu", t / 60, t % 60);
}

static void progress(size_t done, size_t total, double elapsed, bool tty, bool final)
{
    static int last_decile = -1;
    int pct = total ? (int)(100 * done / total) : 100;
    char e[32], eta[32];
    fmt_dur(e, sizeof e, elapsed);
    fmt_dur(eta, sizeof eta, done ? elapsed / (double)done * (double)(total - done) : 0);
    if (tty) {
        char bar[31];
        int fill = total ? (int)(30 * done / total) : 30;
        for (int i = 0; i < 30; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %zu/%zu pairs %3d%%  elapsed %s  ETA %s ", bar, done, total,
                pct, e, eta);
        if (final)
            fputc('\n', stderr);
    } else if (pct / 10 != last_decile || final) {
        last_decile = pct / 10;
        fprintf(stderr, "heatmap: %zu/%zu pairs (%d%%), elapsed %s, ETA %s\n", done, total, pct,
                e, eta);
    }
}

/* Time each cpu spent busy (not idle/iowait) and stolen by the host, from
 * /proc/stat, in clock ticks; -1 when unreadable. */
static int cpu_ticks(uint64_t *busy, uint64_t *steal, uint64_t *total, int ncpu)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    char line[512];
    memset(total, 0, (size_t)ncpu * sizeof *total);
    while (fgets(line, sizeof line, f)) {
        int c;
        unsigned long long v[10] = {0};
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &c, &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]) < 9 || c < 0 || c >= ncpu)
            continue;
        /* user nice system idle iowait irq softirq steal */
        busy[c] = v[0] + v[1] + v[2] + v[5] + v[6];
        steal[c] = v[7];
        total[c] = busy[c] + v[3] + v[4] + v[7];
    }
    fclose(f);
    return 0;
}

/* How busy the measured cpus are right now: over 250 ms, the largest share
 * of a cpu's time that other programs used (busy) or the host took (steal). */
static void sample_busy(const int *cpu, int n, double *busy_max, double *steal_max)
{
    int ncpu = CLOF_TOPO_MAX_CPUS;
    uint64_t *b = calloc((size_t)ncpu * 6, sizeof *b);
    *busy_max = *steal_max = -1;
    if (!b)
        return;
    uint64_t *b0 = b, *s0 = b + ncpu, *t0 = b + 2 * ncpu, *b1 = b + 3 * ncpu,
             *s1 = b + 4 * ncpu, *t1 = b + 5 * ncpu;
    if (cpu_ticks(b0, s0, t0, ncpu) == 0) {
        struct timespec ts = {0, 250000000};
        nanosleep(&ts, NULL);
        if (cpu_ticks(b1, s1, t1, ncpu) == 0) {
            *busy_max = *steal_max = 0;
            for (int i = 0; i < n; i++) {
                int c = cpu[i];
                double dt = (double)(t1[c] - t0[c]);
                if (dt <= 0)
                    continue;
                double bu = (double)(b1[c] - b0[c]) / dt, st = (double)(s1[c] - s0[c]) / dt;
                if (bu > *busy_max)
                    *busy_max = bu;
                if (st > *steal_max)
                    *steal_max = st;
            }
        }
    }
    free(b);
}

/* ---- main ---------------------------------------------------------------------- */

static const char *usage_text =
    "usage: clof-heatmap [--cpus LIST] [--pair-ms MS] [--slices N] [--stat best|median]\n"
    "                    [--max-pairs N] [--seed N] [--sysfs ROOT] [--out FILE] [--quiet]\n"
    "  --cpus LIST     cpus to measure (default: every cpu this process may use)\n"
    "  --pair-ms MS    time per pair, default 20\n"
    "  --slices N      slices per pair, the best (or median) counts; default 5\n"
    "  --max-pairs N   above this many pairs, sample (see the header comment); default 5000\n"
    "  --seed N        seed of the sample and of the measuring order; default 1\n"
    "  --sysfs ROOT    where to read the NUMA nodes for sampling (default /sys)\n"
    "  --out FILE      CSV file (default stdout)\n"
    "  --quiet         no progress on stderr\n";

/* run by `clof heatmap` (CLOF_PROG set): its options are the wrapper's,
 * so a bad value is named without this program's own usage */
static int usage(const char *why)
{
    const char *prog = getenv("CLOF_PROG");
    if (prog != NULL && *prog != 0) {
        fprintf(stderr, "%s: %s (try '%s --help')\n", prog, why ? why : "bad usage", prog);
        return 2;
    }
    if (why)
        fprintf(stderr, "clof-heatmap: %s\n", why);
    fputs(usage_text, stderr);
    return 2;
}

static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static bool parse_num(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return false;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    const char *cpus_arg = NULL, *out = NULL, *sysfs = NULL, *stat = "best";
    unsigned long pair_ms = 20, slices = 5, max_pairs = 5000, seed = 1;
    bool quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
            continue;
        }
        if (!v)
            return usage("an option needs an argument");
        i++;
        if (!strcmp(a, "--cpus"))
            cpus_arg = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--sysfs"))
            sysfs = v;
        else if (!strcmp(a, "--stat")) {
            if (strcmp(v, "best") && strcmp(v, "median"))
                return usage("--stat takes best or median");
            stat = v;
        } else if (!strcmp(a, "--pair-ms")) {
            if (!parse_num(v, 1, 3600000, &pair_ms))
                return usage("--pair-ms takes a number of milliseconds >= 1");
        } else if (!strcmp(a, "--slices")) {
            if (!parse_num(v, 1, MAX_SLICES, &slices))
                return usage("--slices takes a number from 1 to 64");
        } else if (!strcmp(a, "--max-pairs")) {
            if (!parse_num(v, 1, 100000000, &max_pairs))
                return usage("--max-pairs takes a positive number");
        } else if (!strcmp(a, "--seed")) {
            if (!parse_num(v, 0, ~0ul, &seed))
                return usage("--seed takes a number");
        } else {
            char why[256];
            snprintf(why, sizeof why, "unknown argument '%.200s'", a);
            return usage(why);
        }
    }

    /* the cpus: those we may run on, or the ones asked for */
    uint8_t *want = calloc(CLOF_TOPO_MAX_CPUS, 1);
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (!want || sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        fprintf(stderr, "clof-heatmap: cannot read the cpu affinity: %s\n", strerror(errno));
        return 1;
    }
    if (cpus_arg) {
        if (clof_topo_cpulist_parse(cpus_arg, want, CLOF_TOPO_MAX_CPUS) <= 0)
            return usage("--cpus takes a cpu list such as 0-3,8");
        for (int c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
            if (want[c] && (c >= CPU_SETSIZE || !CPU_ISSET(c, &allowed))) {
                fprintf(stderr, "clof-heatmap: cpu %d is not available to this process\n", c);
                return 2;
            }
    } else {
        for (int c = 0; c < CLOF_TOPO_MAX_CPUS && c < CPU_SETSIZE; c++)
            want[c] = CPU_ISSET(c, &allowed) != 0;
    }
    int n = 0, *cpu = malloc(CLOF_TOPO_MAX_CPUS * sizeof *cpu);
    if (!cpu)
        return 1;
    for (int c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
        if (want[c])
            cpu[n++] = c;

    /* NUMA groups for sampling */
    int *group = calloc((size_t)n, sizeof *group);
    clof_topology_t topo;
    clof_topo_error_t err;
    bool have_topo = clof_topology_from_sysfs(&topo, sysfs ? sysfs : "/sys",
                                              CLOF_TOPO_KEEP_ALL, &err) == 0;
    if (!have_topo && sysfs) {
        fprintf(stderr, "clof-heatmap: --sysfs %s: %s\n", sysfs, err.msg);
        return 2;
    }
    int glevel = -1;
    if (have_topo) {
        glevel = clof_topo_level_index(&topo, CLOF_LEVEL_NUMA);
        if (glevel < 0)
            glevel = clof_topo_level_index(&topo, CLOF_LEVEL_PACKAGE);
    }
    for (int i = 0; i < n; i++)
        group[i] = glevel >= 0 ? (int)clof_topo_cohort(&topo, (uint32_t)cpu[i], (uint32_t)glevel) : 0;

    /* the pairs */
    size_t all = (size_t)n * (size_t)(n + 1) / 2, npairs = 0;
    int(*pairs)[2] = malloc(all * sizeof *pairs);
    double *m = malloc((size_t)n * (size_t)n * sizeof *m);
    if (!pairs || !m || !group)
        return 1;
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        m[k] = NAN;
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    const char *policy = "all";
    if (all <= max_pairs) {
        for (int i = 0; i < n; i++)
            for (int j = i; j < n; j++)
                pairs[npairs][0] = i, pairs[npairs][1] = j, npairs++;
    } else {
        policy = glevel >= 0 ? "sampled: every pair inside a NUMA node or package, the "
                               "diagonal, a random sample of the rest"
                             : "sampled: the diagonal and a random sample";
        size_t rest = 0;
        for (int i = 0; i < n; i++)
            for (int j = i; j < n; j++) {
                if (i == j || group[i] == group[j])
                    pairs[npairs][0] = i, pairs[npairs][1] = j, npairs++;
                else
                    rest++;
            }
        size_t room = max_pairs > npairs ? max_pairs - npairs : 0;
        /* reservoir-free selection: each cross pair with probability room/rest */
        for (int i = 0; i < n && room; i++)
            for (int j = i + 1; j < n; j++) {
                if (group[i] == group[j])
                    continue;
                if (rng() % rest < room) {
                    pairs[npairs][0] = i, pairs[npairs][1] = j, npairs++;
                    room--;
                }
                rest--;
                if (!room)
                    break;
            }
    }
    /* measuring order: shuffled, so slow drifts do not paint rows */
    for (size_t k = npairs; k > 1; k--) {
        size_t r = rng() % k;
        int t0 = pairs[k - 1][0], t1 = pairs[k - 1][1];
        pairs[k - 1][0] = pairs[r][0], pairs[k - 1][1] = pairs[r][1];
        pairs[r][0] = t0, pairs[r][1] = t1;
    }

    bool tty = isatty(2);
    double busy0, steal0;
    sample_busy(cpu, n, &busy0, &steal0);
    if (busy0 >= 0.2 || steal0 >= 0.2)
        fprintf(stderr, "clof-heatmap: warning: the cpus are busy (up to %.0f%% used by other "
                        "programs, %.0f%% stolen by the host): a pinned thread that shares its "
                        "cpu hands over only when the scheduler switches, so rates will be low "
                        "and noisy; measure on an idle machine\n", busy0 * 100, steal0 * 100);
    if (!quiet)
        fprintf(stderr, "heatmap: %d cpus, %zu of %zu pairs, %lu ms each: about %.0f s\n", n,
                npairs, all, pair_ms, (double)npairs * (double)pair_ms / 1000.0);
    uint64_t t0 = now_ns(), last = 0;
    size_t failed = 0;
    for (size_t k = 0; k < npairs; k++) {
        int i = pairs[k][0], j = pairs[k][1];
        double r = measure(cpu[i], cpu[j], pair_ms * 1000000ull, (unsigned)slices, stat);
        if (r != r)
            failed++;
        m[(size_t)i * n + j] = m[(size_t)j * n + i] = r;
        uint64_t t = now_ns();
        if (!quiet && (t - last > 100000000ull || k + 1 == npairs)) {
            progress(k + 1, npairs, (double)(t - t0) / 1e9, tty, k + 1 == npairs);
            last = t;
        }
    }
    if (failed)
        fprintf(stderr, "clof-heatmap: %zu pairs could not be pinned (nan in the CSV)\n", failed);

    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "clof-heatmap: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    fprintf(f, "# clof heatmap: increments per second of two threads pinned to (row cpu, "
               "column cpu) taking turns on a shared counter\n");
    fprintf(f, "# pair_ms=%lu slices=%lu stat=%s seed=%lu pairs=%zu/%zu policy=%s\n", pair_ms,
            slices, stat, seed, npairs, all, policy);
    fprintf(f, "# before measuring, the busiest measured cpu was %.0f%% used by other programs, "
               "%.0f%% stolen by the host (the heatmap needs an idle machine)\n",
            busy0 * 100, steal0 * 100);
    fprintf(f, "cpu");
    for (int j = 0; j < n; j++)
        fprintf(f, ",%d", cpu[j]);
    fprintf(f, "\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "%d", cpu[i]);
        for (int j = 0; j < n; j++) {
            double v = m[(size_t)i * n + j];
            if (v != v)
                fprintf(f, ",nan");
            else
                fprintf(f, ",%.1f", v);
        }
        fprintf(f, "\n");
    }
    int bad = ferror(f);
    if (out)
        bad |= fclose(f);
    if (have_topo)
        clof_topology_free(&topo);
    free(want), free(cpu), free(group), free(pairs), free(m);
    if (bad) {
        fprintf(stderr, "clof-heatmap: write error\n");
        return 1;
    }
    return failed == npairs ? 1 : 0;
}
