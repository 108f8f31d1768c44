/* SPDX-License-Identifier: MIT */
/*
 * pl_hotloop -- the preload library's third pthread_mutex harness: the
 * hottest oversubscribed shape.  T threads share one statically initialised
 * mutex (PTHREAD_MUTEX_INITIALIZER, as most programs have theirs) for a
 * fixed time (--duration S).  The critical section is two increments of
 * two shared counters; after the unlock, three iterations of four go
 * straight back to the lock, and the fourth first does a little private
 * work (--work N steps of a dependent multiply chain, default 64: some tens
 * of ns; no calibration, so it is the same program under every lock).
 * With more threads than cpus this is the shape where a lock that hands
 * over to a waiter which is not running loses the most: nearly all the time
 * is spent in lock and unlock.
 *
 * At the end the two counters must both equal the sum of the threads'
 * counts (mutual exclusion), or it exits 1.  Prints one JSON object with
 * the fields bench/preload/oversub.sh reads (ops_per_s, lock) and the
 * spread of the threads' counts (fairness_rstd: their relative standard
 * deviation).
 *
 *   pl_hotloop --threads T [--duration S] [--work N] [--label L]
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
#include <time.h>
#include <unistd.h>

#include <clof/preload.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    volatile uint64_t a, b; /* the critical section's two counters */
} __attribute__((aligned(64))) shared;
static atomic_int go, stop;
static unsigned work = 64;

typedef struct {
    uint64_t count;
    char pad[56];
} __attribute__((aligned(64))) per_thread_t;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* private work the compiler cannot remove */
static void private_work(unsigned n)
{
    uint64_t x = n;
    for (unsigned i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    }
}

static void *worker(void *p)
{
    per_thread_t *me = p;
    while (!atomic_load_explicit(&go, memory_order_acquire))
        ;
    uint64_t n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_mutex_lock(&lock);
        shared.a++;
        shared.b++;
        pthread_mutex_unlock(&lock);
        if ((++n & 3) == 0)
            private_work(work);
    }
    me->count = n;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 8;
    double duration = 1.0;
    const char *label = "";
    static const struct option opts[] = {{"threads", required_argument, 0, 't'},
                                         {"duration", required_argument, 0, 'd'},
                                         {"work", required_argument, 0, 'w'},
                                         {"label", required_argument, 0, 'l'},
                                         {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 't': threads = atoi(optarg); break;
        case 'd': duration = atof(optarg); break;
        case 'w': work = (unsigned)atoi(optarg); break;
        case 'l': label = optarg; break;
        default:
            fprintf(stderr, "usage: %s --threads T [--duration S] [--work N] [--label L]\n",
                    argv[0]);
            return 2;
        }
    }
    if (threads < 1 || threads > 1024 || !(duration > 0 && duration <= 3600) || work > 1000000) {
        fprintf(stderr, "pl_hotloop: bad arguments (threads 1..1024, duration in (0, 3600] s, "
                        "work 0..1000000)\n");
        return 2;
    }
    clof_preload_info_fn info = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    const char *lockname = "glibc";
    if (info) {
        clof_preload_info_t i;
        info(&i, sizeof i);
        lockname = i.lock;
    }
    per_thread_t *pt = calloc((size_t)threads, sizeof *pt);
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!pt || !t) {
        fprintf(stderr, "pl_hotloop: out of memory\n");
        return 1;
    }
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, &pt[i]) != 0) {
            fprintf(stderr, "pl_hotloop: pthread_create failed\n");
            return 1;
        }
    double t0 = now();
    atomic_store_explicit(&go, 1, memory_order_release);
    struct timespec d = {(time_t)duration, (long)((duration - (time_t)duration) * 1e9)};
    while (nanosleep(&d, &d) != 0)
        ;
    atomic_store_explicit(&stop, 1, memory_order_relaxed);
    double elapsed = now() - t0; /* the threads' last pairs after this are counted too:
                                    at most one each */
    uint64_t total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        total += pt[i].count;
    }
    if (shared.a != total || shared.b != total) {
        fprintf(stderr, "pl_hotloop: counters %llu and %llu after %llu pairs: mutual exclusion "
                        "broken\n",
                (unsigned long long)shared.a, (unsigned long long)shared.b,
                (unsigned long long)total);
        return 1;
    }
    double mean = (double)total / threads, var = 0;
    for (int i = 0; i < threads; i++)
        var += ((double)pt[i].count - mean) * ((double)pt[i].count - mean);
    double rstd = mean > 0 ? sqrt(var / threads) / mean : 0;
    printf("{\"driver\":\"pl_hotloop\",\"label\":\"%s\",\"lock\":\"%s\",\"threads\":%d,"
           "\"work\":%u,\"duration_s\":%.4f,\"ops\":%llu,\"ops_per_s\":%.1f,"
           "\"fairness_rstd\":%.4f,\"cpus\":%ld}\n",
           label, lockname, threads, work, elapsed, (unsigned long long)total,
           total / elapsed, rstd, sysconf(_SC_NPROCESSORS_ONLN));
    return 0;
}
