/* SPDX-License-Identifier: MIT */
/*
 * pl_rwbench -- pthread_rwlock_t driver for libclof-preload.so (an ordinary
 * pthread program; bench/preload/rw.sh preloads the library).
 *
 *   pl_rwbench rd|wr N        N uncontended rdlock+unlock (or wrlock+unlock)
 *                             pairs on one static rwlock (callgrind)
 *   pl_rwbench mix T P MS     T threads for MS milliseconds on one rwlock,
 *                             P% of the operations reads; a read section
 *                             reads 4 cache lines, a write section writes
 *                             them (checked: a reader never sees them
 *                             disagree); prints "ops=<total> ops_per_s=<x>"
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static struct { volatile uint64_t v; char pad[56]; } lines[4] __attribute__((aligned(64)));
static volatile int stop;
static int pct;

static void *worker(void *arg)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1), n = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if ((int)(x % 100) < pct) {
            pthread_rwlock_rdlock(&rw);
            uint64_t v = lines[0].v;
            for (int k = 1; k < 4; k++)
                if (lines[k].v != v) {
                    fprintf(stderr, "pl_rwbench: a reader saw a half-done write\n");
                    exit(1);
                }
            pthread_rwlock_unlock(&rw);
        } else {
            pthread_rwlock_wrlock(&rw);
            for (int k = 0; k < 4; k++)
                lines[k].v++;
            pthread_rwlock_unlock(&rw);
        }
        n++;
    }
    return (void *)(uintptr_t)n;
}

int main(int argc, char **argv)
{
    if (argc == 3 && (!strcmp(argv[1], "rd") || !strcmp(argv[1], "wr"))) {
        long n = atol(argv[2]);
        int rd = !strcmp(argv[1], "rd");
        for (long i = 0; i < n; i++) {
            if (rd)
                pthread_rwlock_rdlock(&rw);
            else
                pthread_rwlock_wrlock(&rw);
            pthread_rwlock_unlock(&rw);
        }
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "mix")) {
        int t = atoi(argv[2]);
        pct = atoi(argv[3]);
        long ms = atol(argv[4]);
        if (t < 1 || t > 256)
            return 2;
        pthread_t th[256];
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < t; i++)
            pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
        struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&d, NULL);
        __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
        uint64_t total = 0;
        for (int i = 0; i < t; i++) {
            void *r;
            pthread_join(th[i], &r);
            total += (uint64_t)(uintptr_t)r;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        printf("ops=%llu ops_per_s=%.0f\n", (unsigned long long)total, (double)total / s);
        return 0;
    }
    fprintf(stderr, "usage: pl_rwbench rd|wr N | mix T READ_PERCENT MS\n");
    return 2;
}
