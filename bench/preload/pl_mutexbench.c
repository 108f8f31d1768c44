/* SPDX-License-Identifier: MIT */
/*
 * pl_mutexbench -- a pthread_mutex microbenchmark for the preload library:
 * T threads take one shared mutex (PTHREAD_MUTEX_INITIALIZER) in a loop for
 * D seconds; the critical section touches K shared cache lines, the
 * non-critical section spins for about NS nanoseconds.  It calls
 * pthread_mutex_lock/unlock through the PLT: glibc's, or clof's under
 * LD_PRELOAD=libclof-preload.so.  Prints one JSON object.
 *
 *   pl_mutexbench --threads T --duration S [--cs-lines K] [--non-cs NS] [--label L]
 *                 [--wait] [--spin-per-ns X]
 *   pl_mutexbench --calibrate
 *
 * The work outside is a loop of empty iterations, NS ns long at the rate
 * the program measures when it starts (spin_per_ns in the record: loop
 * iterations per ns).  That rate moves with the host from run to run (on a
 * shared 2-vCPU VM, 1.3-3.0 per ns between runs a second apart), and each
 * run's own measurement moves the work it then does with it.  A series of
 * runs that compares locks gives them the same work: --calibrate prints the
 * rate measured now (a number, nothing else) and --spin-per-ns X uses X
 * instead of measuring (bench/preload/oversub.sh measures it once per series).
 *
 * Fairness: share_min/share_max (each thread's acquisitions over the mean)
 * and per_thread (the counts) in every record.  With
 * --wait, each pthread_mutex_lock call is timed (two clock reads around
 * it, which slows every acquisition: a fairness run, not a throughput one)
 * and wait_p50_ns / wait_p999_ns / wait_max_ns are added (a histogram with
 * 16 sub-buckets per power of two: within 6.25%; the max is exact).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clof/preload.h>

#define MAX_LINES 64
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    volatile uint64_t v;
    char pad[56];
} lines[MAX_LINES] __attribute__((aligned(64)));
static atomic_int go, stop;
static int cs_lines = 2;
static long non_cs_ns = 100;
static double spin_per_ns = 1.0;

/* --wait: the histogram of lock() waits, ns: bucket (e, m) = 2^e * (16 + m) / 16 */
#define WB_SUB 16
#define WB_N (64 * WB_SUB)
static int time_waits;
typedef struct {
    uint64_t ops;
    uint64_t wait_max;
    uint64_t *hist; /* WB_N buckets, --wait only */
    char pad[40];
} __attribute__((aligned(64))) per_thread_t;

static inline int wb_index(uint64_t ns)
{
    if (ns < WB_SUB)
        return (int)ns;
    int e = 63 - __builtin_clzll(ns); /* >= 4 */
    int m = (int)((ns >> (e - 4)) & (WB_SUB - 1));
    return (e - 3) * WB_SUB + m;
}
static inline uint64_t wb_value(int i) /* the upper edge of bucket i */
{
    if (i < WB_SUB)
        return (uint64_t)i;
    int e = i / WB_SUB + 3, m = i % WB_SUB;
    return ((uint64_t)(WB_SUB + m + 1) << (e - 4)) - 1;
}
static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline void spin(long iters)
{
    for (long i = 0; i < iters; i++)
        __asm__ __volatile__("" ::: "memory");
}

static void *worker(void *p)
{
    per_thread_t *me = p;
    uint64_t x = (uint64_t)(uintptr_t)p | 1;
    long base = (long)(non_cs_ns * spin_per_ns);
    while (!atomic_load_explicit(&go, memory_order_acquire))
        ;
    uint64_t n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (time_waits) {
            uint64_t a = mono_ns();
            pthread_mutex_lock(&lock);
            uint64_t w = mono_ns() - a;
            me->hist[wb_index(w)]++;
            if (w > me->wait_max)
                me->wait_max = w;
        } else {
            pthread_mutex_lock(&lock);
        }
        for (int i = 0; i < cs_lines; i++)
            lines[i].v++;
        pthread_mutex_unlock(&lock);
        n++;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (base > 0)
            spin(base / 2 + (long)(x % (uint64_t)(base + 1)));
    }
    me->ops = n;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 2;
    double duration = 1.0;
    const char *label = "";
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"duration", required_argument, 0, 'd'},
        {"cs-lines", required_argument, 0, 'k'}, {"non-cs", required_argument, 0, 'n'},
        {"label", required_argument, 0, 'l'},   {"wait", no_argument, 0, 'w'},
        {"spin-per-ns", required_argument, 0, 's'}, {"calibrate", no_argument, 0, 'c'},
        {0, 0, 0, 0}};
    double given_rate = 0;
    int calibrate_only = 0;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 't': threads = atoi(optarg); break;
        case 'd': duration = atof(optarg); break;
        case 'k': cs_lines = atoi(optarg); break;
        case 'n': non_cs_ns = atol(optarg); break;
        case 'l': label = optarg; break;
        case 'w': time_waits = 1; break;
        case 's': {
            char *end;
            given_rate = strtod(optarg, &end);
            if (*end != '\0' || !(given_rate > 0 && given_rate < 1e6)) {
                fprintf(stderr, "pl_mutexbench: --spin-per-ns %s: expected a positive number "
                                "(loop iterations per ns, as --calibrate prints)\n", optarg);
                return 2;
            }
            break;
        }
        case 'c': calibrate_only = 1; break;
        default:
            fprintf(stderr, "usage: %s --threads T --duration S [--cs-lines K] [--non-cs NS] [--label L] [--wait]\n"
                            "           [--spin-per-ns X]\n       %s --calibrate\n",
                    argv[0], argv[0]);
            return 2;
        }
    }
    if (threads < 1 || threads > 1024 || duration <= 0 || cs_lines < 0 || cs_lines > MAX_LINES) {
        fprintf(stderr, "pl_mutexbench: bad arguments\n");
        return 2;
    }
    /* the rate of the non-critical spin: given, or measured now */
    if (given_rate > 0) {
        spin_per_ns = given_rate;
    } else {
        double t0 = now();
        spin(10000000);
        spin_per_ns = 10000000 / ((now() - t0) * 1e9);
    }
    if (calibrate_only) {
        printf("%.4f\n", spin_per_ns);
        return 0;
    }

    clof_preload_info_fn info = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    const char *lockname = "glibc";
    int preloaded = 0;
    if (info) {
        clof_preload_info_t i;
        info(&i, sizeof i);
        lockname = i.lock;
        preloaded = 1;
    }
    per_thread_t *pt = calloc((size_t)threads, sizeof *pt);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    for (int i = 0; i < threads; i++) {
        if (time_waits && !(pt[i].hist = calloc(WB_N, sizeof(uint64_t)))) {
            fprintf(stderr, "pl_mutexbench: out of memory\n");
            return 1;
        }
        pthread_create(&t[i], NULL, worker, &pt[i]);
    }
    usleep(20000);
    double start = now();
    atomic_store(&go, 1);
    usleep((useconds_t)(duration * 1e6));
    atomic_store(&stop, 1);
    double elapsed = now() - start;
    uint64_t total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += pt[i].ops;
    }
    double mean = (double)total / threads, var = 0;
    for (int i = 0; i < threads; i++)
        var += ((double)pt[i].ops - mean) * ((double)pt[i].ops - mean);
    double rstd = mean > 0 ? sqrt(var / threads) / mean : 0;
    double smin = 0, smax = 0;
    for (int i = 0; i < threads; i++) {
        double sh = mean > 0 ? (double)pt[i].ops / mean : 0;
        if (i == 0 || sh < smin)
            smin = sh;
        if (i == 0 || sh > smax)
            smax = sh;
    }
    printf("{\"driver\":\"pl_mutexbench\",\"label\":\"%s\",\"lock\":\"%s\",\"preloaded\":%s,"
           "\"threads\":%d,\"duration_s\":%.3f,\"cs_lines\":%d,\"non_cs_ns\":%ld,\"ops\":%llu,"
           "\"ops_per_s\":%.1f,\"fairness_rstd\":%.4f,\"share_min\":%.4f,\"share_max\":%.4f,"
           "\"cpus\":%ld,\"spin_per_ns\":%.4f,\"per_thread\":[",
           label, lockname, preloaded ? "true" : "false", threads, elapsed, cs_lines, non_cs_ns,
           (unsigned long long)total, total / elapsed, rstd, smin, smax,
           sysconf(_SC_NPROCESSORS_ONLN), spin_per_ns);
    for (int i = 0; i < threads; i++)
        printf("%s%llu", i ? "," : "", (unsigned long long)pt[i].ops);
    printf("]");
    if (time_waits) {
        uint64_t n = 0, mx = 0, p50 = 0, p999 = 0;
        for (int i = 0; i < threads; i++) {
            if (pt[i].wait_max > mx)
                mx = pt[i].wait_max;
            for (int b = 1; b < threads && i == 0; b++)
                for (int k = 0; k < WB_N; k++)
                    pt[0].hist[k] += pt[b].hist[k];
        }
        for (int k = 0; k < WB_N; k++)
            n += pt[0].hist[k];
        uint64_t c = 0;
        for (int k = 0; k < WB_N && n; k++) {
            c += pt[0].hist[k];
            if (!p50 && c * 2 >= n)
                p50 = wb_value(k);
            if (!p999 && c * 1000 >= n * 999) {
                p999 = wb_value(k);
                break;
            }
        }
        printf(",\"wait_p50_ns\":%llu,\"wait_p999_ns\":%llu,\"wait_max_ns\":%llu",
               (unsigned long long)p50, (unsigned long long)p999, (unsigned long long)mx);
    }
    printf("}\n");
    return 0;
}
