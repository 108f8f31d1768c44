/* SPDX-License-Identifier: MIT */
/*
 * tests/preload/pl_leak.c -- memory stays flat under libclof-preload.so
 * while mutexes and condition variables are created, contended and
 * destroyed, and threads come and go.
 *
 *   LD_PRELOAD=libclof-preload.so CLOF_LOCK=NAME pl_leak [--rounds R]
 *       [--threads T] [--bound-kib K] [--allow-glibc]
 *
 * R mutexes and R condition variables (default 100,000 each), in batches of
 * 100: the main thread initialises a batch (half with pthread_*_init, half
 * with the static initializers), it and two workers lock every mutex of the
 * batch (in different orders: they contend; every seventh with a timed lock
 * of a few microseconds, which may time out), signal its condition variable,
 * and now and then wait on it with a deadline already passed (a waiter
 * queued and dequeued); one new thread per batch (T in all, default 1,000)
 * locks some of them and exits; then the main thread destroys the batch.
 * The resident size (/proc/self/statm) is read once 10% of the rounds are
 * done (pools, trees and caches warmed up) and at the end: the growth must
 * stay under K KiB (default 4096).  A lock that leaked one 64-byte node per
 * destroyed mutex would grow by 6 MiB; one that kept every tree (a 3-level
 * composition over the emulated 2x2x2 machine: about 0.6 KiB) by 60 MiB.
 * The counters of the mutexes are checked (mutual exclusion).
 *
 * Prints one line: lock, rounds, threads, resident KiB at the start, after
 * warm-up and at the end, growth (the figures of docs/reliability.md's leak
 * table; bench/preload/leaks.sh runs it under every lock family).  Exit 0
 * pass, 1 fail.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clof/preload.h>

/* the shared test helpers (tests/common/clof_test.h): FAIL reports
 * "FAIL %s: ..." with the program's name, set first thing in main */
#include "clof_test.h"
#define FAIL(...) CLOF_TEST_CHECK(0, __VA_ARGS__)
#define EQ(a, b)                                                               \
    do {                                                                       \
        long a_ = (long)(a), b_ = (long)(b);                                   \
        if (a_ != b_)                                                          \
            FAIL("%s:%d: %s = %ld, expected %ld", __FILE__, __LINE__, #a, a_, b_); \
    } while (0)

#define BATCH 100
#define WORKERS 2 /* besides the main thread */

static pthread_mutex_t mx[BATCH];
static pthread_cond_t cv[BATCH];
static long cnt[BATCH];
static pthread_barrier_t bar;
static int nbatches;
static struct timespec past; /* a deadline already passed */

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (!f || fscanf(f, "%ld %ld", &size, &res) != 2)
        FAIL("cannot read /proc/self/statm");
    fclose(f);
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static long acquired; /* successful acquisitions of the batch (atomic) */

/* a deadline d nanoseconds from now, on CLOCK_REALTIME */
static struct timespec in_ns(long d)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += d;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* thread `who` (0 = main) goes over the batch in its own order; every
 * seventh mutex with a timed lock of a few microseconds (an abortable lock
 * then abandons queue nodes in the lock, which its destroy must not lose) */
static void contend(int who)
{
    long mine = 0;
    for (int j = 0; j < BATCH; j++) {
        /* all in the same order, one of them a few steps behind: they meet */
        int i = who == 1 ? (j + 3) % BATCH : j;
        if (i % 7 == who) {
            struct timespec ts = in_ns(2000 + 1000 * j % 8000);
            int r = pthread_mutex_timedlock(&mx[i], &ts);
            if (r == ETIMEDOUT)
                continue;
            EQ(r, 0);
        } else {
            EQ(pthread_mutex_lock(&mx[i]), 0);
        }
        mine++;
        cnt[i]++;
        if ((j & 7) == 0)
            sched_yield(); /* a holder off the cpu: the others queue */
        pthread_cond_signal(&cv[i]);
        if (i % 10 == who) { /* queue and time out at once (or be signalled) */
            int r = pthread_cond_timedwait(&cv[i], &mx[i], &past);
            if (r != 0 && r != ETIMEDOUT)
                FAIL("pthread_cond_timedwait: %d", r);
        }
        EQ(pthread_mutex_unlock(&mx[i]), 0);
    }
    __atomic_fetch_add(&acquired, mine, __ATOMIC_RELAXED);
}

static void *worker(void *p)
{
    int who = (int)(long)p;
    for (int b = 0; b < nbatches; b++) {
        pthread_barrier_wait(&bar); /* batch made */
        contend(who);
        pthread_barrier_wait(&bar); /* batch done */
    }
    return NULL;
}

static void *passer(void *p) /* a thread that locks a few and exits */
{
    int b = (int)(long)p;
    for (int k = 0; k < 3; k++) {
        int i = (b * 3 + k * 37) % BATCH;
        EQ(pthread_mutex_lock(&mx[i]), 0);
        cnt[i]++;
        pthread_cond_broadcast(&cv[i]);
        EQ(pthread_mutex_unlock(&mx[i]), 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    clof_test_name("%s", "pl_leak");
    long rounds = 100000, threads = 1000, bound = 4096;
    int allow_glibc = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atol(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atol(argv[++i]);
        else if (!strcmp(argv[i], "--bound-kib") && i + 1 < argc)
            bound = atol(argv[++i]);
        else if (!strcmp(argv[i], "--allow-glibc"))
            allow_glibc = 1;
        else
            FAIL("usage: pl_leak [--rounds R] [--threads T] [--bound-kib K] [--allow-glibc]");
    }
    nbatches = (int)((rounds + BATCH - 1) / BATCH);
    if (nbatches < 10)
        nbatches = 10;
    const char *lock = "glibc";
    clof_preload_info_fn info = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    if (info) {
        clof_preload_info_t in;
        memset(&in, 0, sizeof in);
        info(&in, sizeof in);
        lock = in.lock;
    }
    if (!strcmp(lock, "glibc") && !allow_glibc)
        FAIL("not running on a clof lock (LD_PRELOAD=libclof-preload.so CLOF_LOCK=...)");
    clock_gettime(CLOCK_REALTIME, &past);
    past.tv_sec -= 1;

    long rss0 = rss_kib(), rss_warm = 0;
    pthread_barrier_init(&bar, NULL, WORKERS + 1);
    pthread_t w[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        EQ(pthread_create(&w[i], NULL, worker, (void *)(i + 1)), 0);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    long made = 0;
    for (int b = 0; b < nbatches; b++) {
        for (int i = 0; i < BATCH; i++) {
            if ((i + b) & 1) {
                EQ(pthread_mutex_init(&mx[i], (i & 2) ? &ma : NULL), 0);
                EQ(pthread_cond_init(&cv[i], NULL), 0);
            } else {
                mx[i] = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
                cv[i] = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
            }
            cnt[i] = 0;
        }
        pthread_barrier_wait(&bar);
        contend(0);
        pthread_t p;
        int passed = made < threads;
        if (passed) {
            EQ(pthread_create(&p, NULL, passer, (void *)(long)b), 0);
            EQ(pthread_join(p, NULL), 0);
            made++;
        }
        pthread_barrier_wait(&bar);
        long sum = 0;
        for (int i = 0; i < BATCH; i++) {
            sum += cnt[i];
            EQ(pthread_cond_destroy(&cv[i]), 0);
            EQ(pthread_mutex_destroy(&mx[i]), 0);
        }
        EQ(sum, __atomic_exchange_n(&acquired, 0, __ATOMIC_RELAXED) + (passed ? 3 : 0));
        if (b == nbatches / 10)
            rss_warm = rss_kib();
    }
    /* the rest of the threads, if more were asked for than batches */
    for (; made < threads; made++) {
        pthread_t p;
        for (int i = 0; i < BATCH; i++) {
            EQ(pthread_mutex_init(&mx[i], NULL), 0);
            EQ(pthread_cond_init(&cv[i], NULL), 0);
        }
        EQ(pthread_create(&p, NULL, passer, (void *)made), 0);
        EQ(pthread_join(p, NULL), 0);
        for (int i = 0; i < BATCH; i++) {
            EQ(pthread_cond_destroy(&cv[i]), 0);
            EQ(pthread_mutex_destroy(&mx[i]), 0);
        }
    }
    for (int i = 0; i < WORKERS; i++)
        EQ(pthread_join(w[i], NULL), 0);
    long rss_end = rss_kib();
    long growth = rss_end - rss_warm;
    printf("pl_leak: lock=%s rounds=%ld threads=%ld rss_kib start=%ld warm=%ld end=%ld "
           "growth=%ld bound=%ld\n",
           lock, (long)nbatches * BATCH, made, rss0, rss_warm, rss_end, growth, bound);
    if (growth > bound)
        FAIL("resident size grew by %ld KiB after warm-up (bound %ld KiB) under %s", growth,
             bound, lock);
    return 0;
}
