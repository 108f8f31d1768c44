/* SPDX-License-Identifier: MIT */
/*
 * tests/profile/pl_profile_prog.c -- a program with one hot lock and one
 * cold lock, for `clof profile` (tests/profile/test_profile.py).
 *
 *   pl_profile_prog [THREADS [ROUNDS [EXIT [SIGNAL]]]]
 *
 * THREADS threads (default 4) each take the hot lock ROUNDS times (default
 * 20000) in hot_path(), holding it across a short computation, and the
 * cold lock once per 1000 rounds in cold_path(); a condition variable is
 * waited on once per thread in wait_path().  Prints "sum=<value>" (the
 * same for every lock: profiling never changes the result) and exits with
 * status EXIT (default 0); SIGNAL (e.g. 2) makes it raise that signal
 * after the work instead of exiting.
 *
 * Before the workers start, one contended acquisition is made sure of:
 * main holds the hot lock while a thread enters hot_path() and sleeps
 * 20 ms before releasing it, so the hot lock waits at least once, at
 * hot_path, whatever the scheduling.  Counts the test checks exactly: the
 * hot lock is acquired THREADS * ROUNDS + 2 times, the cold lock
 * THREADS * ceil(ROUNDS / 1000).
 *
 * A read-write lock, `table`: every round reads it (read_path), every
 * 100th round writes it (write_path), and each worker ends with one
 * pthread_rwlock_timedwrlock (a deadline an hour away).  Before the
 * workers, main holds it for writing while a thread enters read_path and
 * sleeps 20 ms, so it waits at least once, at read_path.  Exact counts:
 * reads THREADS * ROUNDS + 1, writes THREADS * (ceil(ROUNDS / 100) + 1) + 1.
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t hot = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cold = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static uint64_t table_value, table_reads;
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open;
static uint64_t hot_sum, cold_sum;
static long rounds = 20000;

static uint64_t work(uint64_t x)
{
    for (int i = 0; i < 200; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

__attribute__((noinline)) void hot_path(uint64_t i)
{
    pthread_mutex_lock(&hot);
    hot_sum += work(i) & 0xff;
    pthread_mutex_unlock(&hot);
}

__attribute__((noinline)) void cold_path(uint64_t i)
{
    pthread_mutex_lock(&cold);
    cold_sum += i;
    pthread_mutex_unlock(&cold);
}

__attribute__((noinline)) void read_path(void)
{
    pthread_rwlock_rdlock(&table);
    __atomic_fetch_add(&table_reads, table_value & 1, __ATOMIC_RELAXED);
    pthread_rwlock_unlock(&table);
}

__attribute__((noinline)) void write_path(void)
{
    pthread_rwlock_wrlock(&table);
    table_value += 2;
    pthread_rwlock_unlock(&table);
}

__attribute__((noinline)) void timed_write_path(void)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 3600;
    if (pthread_rwlock_timedwrlock(&table, &dl) == 0) {
        table_value += 2;
        pthread_rwlock_unlock(&table);
    }
}

__attribute__((noinline)) void wait_path(void)
{
    pthread_mutex_lock(&gate);
    while (!gate_open)
        pthread_cond_wait(&gate_cv, &gate);
    pthread_mutex_unlock(&gate);
}

static int entering;

static void *first_waiter(void *arg)
{
    (void)arg;
    __atomic_store_n(&entering, 1, __ATOMIC_RELEASE);
    hot_path(0);
    return NULL;
}

static void *first_reader(void *arg)
{
    (void)arg;
    __atomic_store_n(&entering, 2, __ATOMIC_RELEASE);
    read_path();
    return NULL;
}

static void *worker(void *arg)
{
    uint64_t id = (uint64_t)(uintptr_t)arg;
    wait_path();
    for (long i = 0; i < rounds; i++) {
        hot_path(id * 1000003u + (uint64_t)i);
        if (i % 1000 == 0)
            cold_path((uint64_t)i);
        read_path();
        if (i % 100 == 0)
            write_path();
    }
    timed_write_path();
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    rounds = argc > 2 ? atol(argv[2]) : 20000;
    int status = argc > 3 ? atoi(argv[3]) : 0;
    int sig = argc > 4 ? atoi(argv[4]) : 0;
    if (threads < 1 || threads > 64 || rounds < 1) {
        fprintf(stderr, "usage: pl_profile_prog [THREADS 1..64 [ROUNDS [EXIT [SIGNAL]]]]\n");
        return 2;
    }
    pthread_t t[64];
    /* the sure contended acquisition (its value is in the sum too) */
    pthread_mutex_lock(&hot);
    if (pthread_create(&t[0], NULL, first_waiter, NULL) != 0) {
        perror("pthread_create");
        return 2;
    }
    while (!__atomic_load_n(&entering, __ATOMIC_ACQUIRE))
        sched_yield();
    struct timespec d = {0, 20 * 1000 * 1000};
    nanosleep(&d, NULL);
    pthread_mutex_unlock(&hot);
    pthread_join(t[0], NULL);
    /* the rwlock's sure wait */
    pthread_rwlock_wrlock(&table);
    if (pthread_create(&t[0], NULL, first_reader, NULL) != 0) {
        perror("pthread_create");
        return 2;
    }
    while (__atomic_load_n(&entering, __ATOMIC_ACQUIRE) != 2)
        sched_yield();
    nanosleep(&d, NULL);
    pthread_rwlock_unlock(&table);
    pthread_join(t[0], NULL);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) != 0) {
            perror("pthread_create");
            return 2;
        }
    pthread_mutex_lock(&gate);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    /* the expected sum, computed again without locks */
    uint64_t want = work(0) & 0xff;
    for (int id = 0; id < threads; id++)
        for (long i = 0; i < rounds; i++)
            want += work((uint64_t)id * 1000003u + (uint64_t)i) & 0xff;
    /* and the rwlock's writes, each one exclusive */
    uint64_t writes = (uint64_t)threads * ((uint64_t)(rounds + 99) / 100 + 1);
    int good = hot_sum == want && table_value == 2 * writes;
    printf("sum=%llu %s\n", (unsigned long long)hot_sum, good ? "ok" : "WRONG");
    fflush(stdout);
    if (!good)
        return 1;
    if (sig != 0)
        raise(sig);
    return status;
}
