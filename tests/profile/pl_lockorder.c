/* SPDX-License-Identifier: MIT */
/*
 * tests/profile/pl_lockorder.c -- programs with known lock-order bugs (and
 * look-alikes that are not bugs), for `clof profile --lock-order` and
 * `--hang-after` (tests/profile/test_lockorder.py, docs/profile.md).
 *
 *   pl_lockorder CASE
 *
 * The threads of a case run one after the other (each joined before the
 * next starts), so nothing deadlocks, except in the case "deadlock":
 *   abba      take_ab: lock_a then lock_b; take_ba: lock_b then lock_a
 *             -- one inversion (lock_a, lock_b)
 *   cycle3    lock_a->lock_b, lock_b->lock_c, lock_c->lock_a by three
 *             threads -- one three-lock cycle
 *   trylock   lock_a then trylock(lock_b); lock_b then trylock(lock_a)
 *             -- no inversion: a trylock cannot block
 *   rwread    rdlock(rw_a) then rdlock(rw_b); rdlock(rw_b) then
 *             rdlock(rw_a) -- no inversion: readers do not block readers
 *   rwmixed   wrlock(rw_a) then wrlock(rw_b); rdlock(rw_b) then
 *             rdlock(rw_a) -- one inversion (a writer on each side)
 *   recursive a recursive mutex taken twice, then lock_a; lock_a then it
 *             -- one inversion (lock_a, rec), no self-cycle
 *   reuse     a mutex at one address (reused): initialised, taken after
 *             lock_a, destroyed; initialised again, taken before lock_a --
 *             no inversion: two different locks at the same address
 *   deadlock  dl_one: lock_a, then lock_b; dl_two: lock_b, then lock_a, a
 *             barrier between their first and second locks: a real
 *             deadlock (the program never ends; the test kills it)
 *   condhang  cw_wait waits on a condition variable with lock_a (released
 *             while it waits); cw_take takes lock_a, then lock_b, which
 *             main holds for ever: a hang (killed by the test) whose
 *             wait-for graph shows lock_a held by cw_take only
 *   rwhang    main holds rw_a for writing for ever; rw_wait reads rw_b,
 *             then asks to read rw_a: a hang (killed by the test)
 *   longhold  main holds lock_c for 200 ms (taken in main) while wait_c
 *             waits for it: one long hold, one wait begun meanwhile
 * Prints "done CASE" at the end.
 */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_c = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw_a = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t rw_b = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t rec;
static pthread_mutex_t reused;
static pthread_barrier_t both;
static volatile int work;

#define NOINLINE __attribute__((noinline))

static NOINLINE void *take_ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    pthread_mutex_lock(&lock_b);
    work++;
    pthread_mutex_unlock(&lock_b);
    pthread_mutex_unlock(&lock_a);
    return NULL;
}

static NOINLINE void *take_ba(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_b);
    pthread_mutex_lock(&lock_a);
    work++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&lock_b);
    return NULL;
}

static NOINLINE void *take_bc(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_b);
    pthread_mutex_lock(&lock_c);
    work++;
    pthread_mutex_unlock(&lock_c);
    pthread_mutex_unlock(&lock_b);
    return NULL;
}

static NOINLINE void *take_ca(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_c);
    pthread_mutex_lock(&lock_a);
    work++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&lock_c);
    return NULL;
}

static NOINLINE void *try_ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    if (pthread_mutex_trylock(&lock_b) == 0) {
        work++;
        pthread_mutex_unlock(&lock_b);
    }
    pthread_mutex_unlock(&lock_a);
    return NULL;
}

static NOINLINE void *try_ba(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_b);
    if (pthread_mutex_trylock(&lock_a) == 0) {
        work++;
        pthread_mutex_unlock(&lock_a);
    }
    pthread_mutex_unlock(&lock_b);
    return NULL;
}

static NOINLINE void *read_ab(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw_a);
    pthread_rwlock_rdlock(&rw_b);
    work++;
    pthread_rwlock_unlock(&rw_b);
    pthread_rwlock_unlock(&rw_a);
    return NULL;
}

static NOINLINE void *read_ba(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw_b);
    pthread_rwlock_rdlock(&rw_a);
    work++;
    pthread_rwlock_unlock(&rw_a);
    pthread_rwlock_unlock(&rw_b);
    return NULL;
}

static NOINLINE void *write_ab(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&rw_a);
    pthread_rwlock_wrlock(&rw_b);
    work++;
    pthread_rwlock_unlock(&rw_b);
    pthread_rwlock_unlock(&rw_a);
    return NULL;
}

static NOINLINE void *rec_then_a(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&rec);
    pthread_mutex_lock(&rec);
    pthread_mutex_lock(&lock_a);
    work++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&rec);
    pthread_mutex_unlock(&rec);
    return NULL;
}

static NOINLINE void *a_then_rec(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    pthread_mutex_lock(&rec);
    work++;
    pthread_mutex_unlock(&rec);
    pthread_mutex_unlock(&lock_a);
    return NULL;
}

static NOINLINE void *a_then_reused(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    pthread_mutex_lock(&reused);
    work++;
    pthread_mutex_unlock(&reused);
    pthread_mutex_unlock(&lock_a);
    return NULL;
}

static NOINLINE void *reused_then_a(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&reused);
    pthread_mutex_lock(&lock_a);
    work++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&reused);
    return NULL;
}

static NOINLINE void *dl_one(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&lock_b);
    return NULL;
}

static NOINLINE void *dl_two(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_b);
    pthread_barrier_wait(&both);
    pthread_mutex_lock(&lock_a);
    return NULL;
}

static int started;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static NOINLINE void *cw_wait(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    for (;;)
        pthread_cond_wait(&never, &lock_a);
    return NULL;
}

static NOINLINE void *rw_wait(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw_b);
    pthread_rwlock_rdlock(&rw_a);
    return NULL;
}

static NOINLINE void *cw_take(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    pthread_mutex_lock(&lock_b);
    return NULL;
}

static NOINLINE void *wait_c(void *arg)
{
    (void)arg;
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&lock_c);
    work++;
    pthread_mutex_unlock(&lock_c);
    return NULL;
}

static void run(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (strcmp(c, "abba") == 0) {
        run(take_ab);
        run(take_ba);
    } else if (strcmp(c, "cycle3") == 0) {
        run(take_ab);
        run(take_bc);
        run(take_ca);
    } else if (strcmp(c, "trylock") == 0) {
        run(try_ab);
        run(try_ba);
    } else if (strcmp(c, "rwread") == 0) {
        run(read_ab);
        run(read_ba);
    } else if (strcmp(c, "rwmixed") == 0) {
        run(write_ab);
        run(read_ba);
    } else if (strcmp(c, "recursive") == 0) {
        pthread_mutexattr_t at;
        pthread_mutexattr_init(&at);
        pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&rec, &at);
        run(rec_then_a);
        run(a_then_rec);
    } else if (strcmp(c, "reuse") == 0) {
        pthread_mutex_init(&reused, NULL);
        run(a_then_reused);
        pthread_mutex_destroy(&reused);
        pthread_mutex_init(&reused, NULL);
        run(reused_then_a);
        pthread_mutex_destroy(&reused);
    } else if (strcmp(c, "deadlock") == 0) {
        pthread_t t1, t2;
        pthread_barrier_init(&both, NULL, 2);
        pthread_create(&t1, NULL, dl_one, NULL);
        pthread_create(&t2, NULL, dl_two, NULL);
        pthread_join(t1, NULL);
        pthread_join(t2, NULL);
    } else if (strcmp(c, "condhang") == 0) {
        pthread_t t1, t2;
        pthread_mutex_lock(&lock_b);
        pthread_create(&t1, NULL, cw_wait, NULL);
        while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
            sched_yield();
        pthread_create(&t2, NULL, cw_take, NULL);
        pthread_join(t2, NULL);
    } else if (strcmp(c, "rwhang") == 0) {
        pthread_t t;
        pthread_rwlock_wrlock(&rw_a);
        pthread_create(&t, NULL, rw_wait, NULL);
        pthread_join(t, NULL);
    } else if (strcmp(c, "longhold") == 0) {
        pthread_t t;
        pthread_mutex_lock(&lock_c);
        pthread_create(&t, NULL, wait_c, NULL);
        while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
            sched_yield();
        struct timespec d = {0, 200000000L};
        nanosleep(&d, NULL);
        pthread_mutex_unlock(&lock_c);
        pthread_join(t, NULL);
    } else {
        fprintf(stderr, "pl_lockorder: unknown case '%s' (abba, cycle3, trylock, rwread, "
                        "rwmixed, recursive, reuse, deadlock, condhang, rwhang, longhold)\n", c);
        return 2;
    }
    printf("done %s %d\n", c, work);
    return 0;
}
