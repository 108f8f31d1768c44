/* SPDX-License-Identifier: MIT */
/*
 * tests/profile/pl_profile_waits.c -- waits under glibc's own mutexes that
 * `clof profile` must count and time, one by one (test_profile.py).
 *
 *   pl_profile_waits [ROUNDS]
 *
 * Under glibc's mutexes the profile's uncontended path peeks at glibc's
 * lock word and, when the mutex is free, goes straight into glibc's lock
 * without timing it (src/preload/pl_profile.c).  This program makes sure
 * that every acquisition that does wait is still counted and timed, for
 * each glibc mutex type.  ROUNDS times (default 5) for each lock, main
 * holds it while a thread, in waiter_lock(), locks it; main waits until
 * that thread is asleep in glibc's lock -- glibc's lock word is 2 (locked,
 * with waiters) -- then sleeps 2 ms and unlocks.  So each lock waits
 * exactly ROUNDS times, each wait longer than 2 ms (the waiter reads the
 * clock before it blocks, and main unlocks 2 ms after seeing it blocked),
 * and every wait comes from waiter_lock.  Exact counts, per lock:
 *
 *   w_normal      normal (PTHREAD_MUTEX_INITIALIZER)  3 * ROUNDS acquisitions
 *                 (main locks it once more per round, for the trylock below)
 *   w_adaptive    PTHREAD_MUTEX_ADAPTIVE_NP           2 * ROUNDS
 *   w_recursive   recursive; main locks it twice      3 * ROUNDS
 *                 (the second an owner's relock: an acquisition that does
 *                 not wait)
 *   w_errorcheck  errorcheck; main's relock must say  2 * ROUNDS
 *                 EDEADLK (not an acquisition)
 *   w_timed       normal; the waiter uses              2 * ROUNDS
 *                 pthread_mutex_timedlock (an hour's deadline)
 *
 * contended = ROUNDS and wait >= ROUNDS * 2 ms for each, and w_normal has
 * ROUNDS busy trylocks (a thread's pthread_mutex_trylock while main holds
 * it).  Prints "waits ok" and exits 0 when the program itself saw what it
 * expects (locks and errors as glibc documents them); the profile's counts
 * are for the test to check.  Needs glibc's mutexes (it reads their lock
 * word): not for a clof lock.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t w_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t w_adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t w_recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t w_errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t w_timed = PTHREAD_MUTEX_INITIALIZER;

static int failures;

static void expect(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "pl_profile_waits: %s\n", what);
        failures++;
    }
}

static void sleep_ns(long ns)
{
    struct timespec d = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&d, NULL);
}

/* the waiter: one lock (timed or not) and its unlock */
struct waiter {
    pthread_mutex_t *m;
    int timed;
    int result;
};

__attribute__((noinline)) void waiter_lock(struct waiter *w)
{
    if (w->timed) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 3600;
        w->result = pthread_mutex_timedlock(w->m, &dl);
    } else {
        w->result = pthread_mutex_lock(w->m);
    }
    if (w->result == 0)
        pthread_mutex_unlock(w->m);
}

static void *waiter_main(void *arg)
{
    waiter_lock(arg);
    return NULL;
}

static void *trylock_main(void *arg)
{
    return (void *)(long)pthread_mutex_trylock(arg);
}

/* glibc's lock word: 2 once a waiter sleeps in glibc's lock */
static int lock_word(pthread_mutex_t *m)
{
    return __atomic_load_n(&m->__data.__lock, __ATOMIC_ACQUIRE);
}

/* main holds m (relock 1: twice, a recursive mutex; relock 2: tries twice,
 * an errorcheck one); a waiter blocks on it; main unlocks 2 ms after it
 * sees the waiter asleep */
static void one_wait(pthread_mutex_t *m, int timed, int relock)
{
    expect(pthread_mutex_lock(m) == 0, "main's lock failed");
    if (relock == 1)
        expect(pthread_mutex_lock(m) == 0, "the owner's relock of a recursive mutex failed");
    if (relock == 2)
        expect(pthread_mutex_lock(m) == EDEADLK, "errorcheck relock: EDEADLK expected");
    struct waiter w = {m, timed, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, waiter_main, &w) != 0) {
        perror("pthread_create");
        exit(2);
    }
    /* the waiter asleep in glibc's lock (10 s at most: then the layout is
     * not glibc's, and the test says so) */
    int seen = 0;
    for (long i = 0; i < 100000 && !seen; i++) {
        if (lock_word(m) == 2)
            seen = 1;
        else
            sleep_ns(100 * 1000);
    }
    expect(seen, "the waiter never slept in glibc's lock (lock word never 2)");
    sleep_ns(2 * 1000 * 1000);
    if (relock == 1)
        pthread_mutex_unlock(m);
    pthread_mutex_unlock(m);
    pthread_join(t, NULL);
    expect(w.result == 0, "the waiter's lock failed");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: pl_profile_waits [ROUNDS 1..1000]\n");
        return 2;
    }
    for (int i = 0; i < rounds; i++) {
        one_wait(&w_normal, 0, 0);
        one_wait(&w_adaptive, 0, 0);
        one_wait(&w_recursive, 0, 1);
        one_wait(&w_errorcheck, 0, 2);
        one_wait(&w_timed, 1, 0);
        /* a trylock that finds w_normal held */
        pthread_mutex_lock(&w_normal);
        pthread_t t;
        void *r;
        if (pthread_create(&t, NULL, trylock_main, &w_normal) != 0) {
            perror("pthread_create");
            return 2;
        }
        pthread_join(t, &r);
        expect((long)r == EBUSY, "trylock of a held mutex: EBUSY expected");
        pthread_mutex_unlock(&w_normal);
    }
    printf("waits %s\n", failures ? "WRONG" : "ok");
    return failures ? 1 : 0;
}
