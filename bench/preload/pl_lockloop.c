/* SPDX-License-Identifier: MIT */
/*
 * pl_lockloop -- a second pthread_mutex harness for the preload library,
 * deliberately unlike pl_mutexbench: T threads each make a fixed number of
 * lock/unlock pairs (--iters N) on one mutex set up by pthread_mutex_init,
 * with a critical section that increments K shared cache lines (default 2)
 * and NOTHING outside it: the releaser's next lock() follows its unlock()
 * at once.  The clock runs from the start signal to the last thread's last
 * unlock (duration_s), so a lock that lets one thread race through its share and leaves
 * the rest queued pays for it at the end (pl_mutexbench stops everybody at
 * a fixed time instead).  The threads start as they are created (no warm-up
 * wait for the others' creation beyond the start signal).  Prints one JSON
 * object with the fields of pl_mutexbench's that bench/preload/oversub.sh
 * reads (ops_per_s, lock) and the spread of the threads' finish times.
 *
 *   pl_lockloop --threads T --iters N [--cs-lines K] [--label L]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <clof/preload.h>

#define MAX_LINES 64
static pthread_mutex_t lock;
static struct {
    volatile uint64_t v;
    char pad[56];
} lines[MAX_LINES] __attribute__((aligned(64)));
static atomic_int go;
static int cs_lines = 2;
static long iters = 100000;

typedef struct {
    double done; /* seconds since the start signal */
    char pad[56];
} __attribute__((aligned(64))) per_thread_t;
static double t_start;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *worker(void *p)
{
    per_thread_t *me = p;
    while (!atomic_load_explicit(&go, memory_order_acquire))
        ;
    for (long n = 0; n < iters; n++) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < cs_lines; i++)
            lines[i].v++;
        pthread_mutex_unlock(&lock);
    }
    me->done = now() - t_start;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 2;
    const char *label = "";
    static const struct option opts[] = {{"threads", required_argument, 0, 't'},
                                         {"iters", required_argument, 0, 'n'},
                                         {"cs-lines", required_argument, 0, 'k'},
                                         {"label", required_argument, 0, 'l'},
                                         {0, 0, 0, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 't': threads = atoi(optarg); break;
        case 'n': iters = atol(optarg); break;
        case 'k': cs_lines = atoi(optarg); break;
        case 'l': label = optarg; break;
        default:
            fprintf(stderr, "usage: %s --threads T --iters N [--cs-lines K] [--label L]\n", argv[0]);
            return 2;
        }
    }
    if (threads < 1 || threads > 1024 || iters < 1 || cs_lines < 0 || cs_lines > MAX_LINES) {
        fprintf(stderr, "pl_lockloop: bad arguments (threads 1..1024, iters >= 1, cs-lines 0..%d)\n",
                MAX_LINES);
        return 2;
    }
    pthread_mutex_init(&lock, NULL);
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
        fprintf(stderr, "pl_lockloop: out of memory\n");
        return 1;
    }
    t_start = now();
    atomic_store(&go, 1); /* before the threads exist: each starts when created */
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, &pt[i]) != 0) {
            fprintf(stderr, "pl_lockloop: pthread_create failed\n");
            return 1;
        }
    double first = 0, last = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        if (i == 0 || pt[i].done < first)
            first = pt[i].done;
        if (pt[i].done > last)
            last = pt[i].done;
    }
    double elapsed = last; /* to the last unlock: not the joins' own time */
    uint64_t total = (uint64_t)threads * (uint64_t)iters;
    uint64_t want = (uint64_t)iters * (uint64_t)threads;
    if (cs_lines > 0 && lines[0].v != want) {
        fprintf(stderr, "pl_lockloop: %llu increments, expected %llu: mutual exclusion broken\n",
                (unsigned long long)lines[0].v, (unsigned long long)want);
        return 1;
    }
    pthread_mutex_destroy(&lock);
    printf("{\"driver\":\"pl_lockloop\",\"label\":\"%s\",\"lock\":\"%s\",\"threads\":%d,"
           "\"iters\":%ld,\"cs_lines\":%d,\"duration_s\":%.4f,\"ops\":%llu,\"ops_per_s\":%.1f,"
           "\"first_done_s\":%.4f,\"cpus\":%ld}\n",
           label, lockname, threads, iters, cs_lines, elapsed, (unsigned long long)total,
           total / elapsed, first, sysconf(_SC_NPROCESSORS_ONLN));
    return 0;
}
