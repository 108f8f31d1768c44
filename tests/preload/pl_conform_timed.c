/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_timed.c -- conformance tests of libclof-preload.so: trylock, timedlock, clocklock
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

typedef struct {
    pthread_mutex_t *m;
    atomic_int state; /* 1 holding, 2 release now, 3 released */
    int hold_ms;      /* >0: release by itself after this long */
} holder_t;

static void *holder_fn(void *p)
{
    holder_t *h = p;
    EQ(pthread_mutex_lock(h->m), 0);
    atomic_store(&h->state, 1);
    if (h->hold_ms > 0)
        sleep_ms(h->hold_ms);
    else
        while (atomic_load(&h->state) != 2)
            sleep_ms(1);
    EQ(pthread_mutex_unlock(h->m), 0);
    atomic_store(&h->state, 3);
    return NULL;
}

static pthread_t hold_in_thread(holder_t *h, pthread_mutex_t *m, int hold_ms)
{
    h->m = m;
    h->hold_ms = hold_ms;
    atomic_store(&h->state, 0);
    pthread_t t = spawn(holder_fn, h);
    while (atomic_load(&h->state) < 1)
        sleep_ms(1);
    return t;
}

void t_trylock(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    EQ(pthread_mutex_trylock(&m), 0);
    CHECK(held_fn(&m), "trylock did not go through clof");
    EQ(pthread_mutex_unlock(&m), 0);
    holder_t h;
    pthread_t t = hold_in_thread(&h, &m, 0);
    for (int i = 0; i < 100; i++)
        EQ(pthread_mutex_trylock(&m), EBUSY); /* EBUSY, not 1 or -1 */
    atomic_store(&h.state, 2);
    join(t);
    EQ(pthread_mutex_trylock(&m), 0);
    EQ(pthread_mutex_trylock(&m), EBUSY); /* normal: by the owner too */
    EQ(pthread_mutex_unlock(&m), 0);
}

void t_timedlock(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct timespec past = {0, 0};
    EQ(pthread_mutex_timedlock(&m, &past), 0); /* free: acquired whatever the time */
    EQ(pthread_mutex_unlock(&m), 0);

    holder_t h;
    pthread_t t = hold_in_thread(&h, &m, 0);
    struct timespec bad = {time(NULL) + 10, 1000000000L};
    EQ(pthread_mutex_timedlock(&m, &bad), EINVAL);
    bad.tv_nsec = -1;
    EQ(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &bad), EINVAL);
    struct timespec ok = ts_in(CLOCK_MONOTONIC, 1);
    EQ(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &ok), EINVAL);

    /* CLOCK_REALTIME (timedlock and clocklock) */
    struct timespec abs = ts_in(CLOCK_REALTIME, 0.15);
    double t0 = now_s(CLOCK_MONOTONIC);
    EQ(pthread_mutex_timedlock(&m, &abs), ETIMEDOUT);
    CHECK(ts_reached(CLOCK_REALTIME, &abs), "timedlock returned before its deadline");
    CHECK(now_s(CLOCK_MONOTONIC) - t0 < 30, "timedlock took far too long");
    abs = ts_in(CLOCK_REALTIME, 0.1);
    EQ(pthread_mutex_clocklock(&m, CLOCK_REALTIME, &abs), ETIMEDOUT);
    CHECK(ts_reached(CLOCK_REALTIME, &abs), "clocklock(REALTIME) returned early");
    /* CLOCK_MONOTONIC: a deadline read on the wrong clock would return at
     * once (monotonic < realtime) -- the elapsed time tells */
    abs = ts_in(CLOCK_MONOTONIC, 0.15);
    t0 = now_s(CLOCK_MONOTONIC);
    EQ(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &abs), ETIMEDOUT);
    CHECK(ts_reached(CLOCK_MONOTONIC, &abs), "clocklock(MONOTONIC) returned early");
    CHECK(now_s(CLOCK_MONOTONIC) - t0 >= 0.149, "clocklock(MONOTONIC) did not wait");
    atomic_store(&h.state, 2);
    join(t);

    /* released while we wait: acquired before the deadline */
    t = hold_in_thread(&h, &m, 100);
    abs = ts_in(CLOCK_REALTIME, 60);
    EQ(pthread_mutex_timedlock(&m, &abs), 0);
    CHECK(!ts_reached(CLOCK_REALTIME, &abs), "timedlock acquired only at the deadline");
    CHECK(held_fn(&m), "timedlock did not go through clof");
    EQ(pthread_mutex_unlock(&m), 0);
    join(t);
    t = hold_in_thread(&h, &m, 100);
    abs = ts_in(CLOCK_MONOTONIC, 60);
    EQ(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &abs), 0);
    EQ(pthread_mutex_unlock(&m), 0);
    join(t);

    /* errorcheck owner: EDEADLK; recursive owner: counted */
    pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    EQ(pthread_mutex_lock(&e), 0);
    abs = ts_in(CLOCK_REALTIME, 1);
    EQ(pthread_mutex_timedlock(&e, &abs), EDEADLK);
    EQ(pthread_mutex_unlock(&e), 0);
    pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    EQ(pthread_mutex_timedlock(&r, &abs), 0);
    EQ(pthread_mutex_timedlock(&r, &abs), 0);
    EQ(pthread_mutex_unlock(&r), 0);
    EQ(pthread_mutex_unlock(&r), 0);
    EQ(pthread_mutex_unlock(&r), EPERM);
}

/* Many threads mixing lock, trylock and timedlock on one mutex. */
typedef struct {
    pthread_mutex_t *m;
    long *counter;
    atomic_int *inside;
    int iters;
    int id;
} mix_arg_t;
static void *mix_worker(void *p)
{
    mix_arg_t *a = p;
    for (int i = 0; i < a->iters; i++) {
        int how = (i + a->id) % 3, r;
        if (how == 0) {
            r = pthread_mutex_lock(a->m);
        } else if (how == 1) {
            while ((r = pthread_mutex_trylock(a->m)) == EBUSY)
                sched_yield();
        } else {
            struct timespec abs = ts_in(CLOCK_REALTIME, 0.0005 * (i % 4));
            while ((r = pthread_mutex_timedlock(a->m, &abs)) == ETIMEDOUT)
                abs = ts_in(CLOCK_REALTIME, 0.001);
        }
        EQ(r, 0);
        if (atomic_fetch_add(a->inside, 1) != 0)
            FAIL("two threads inside the critical section");
        (*a->counter)++;
        atomic_fetch_sub(a->inside, 1);
        EQ(pthread_mutex_unlock(a->m), 0);
    }
    return NULL;
}
void t_mixed(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    long counter = 0;
    atomic_int inside = 0;
    enum { N = 6, IT = 3000 };
    mix_arg_t a[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        a[i] = (mix_arg_t){&m, &counter, &inside, IT, i};
        t[i] = spawn(mix_worker, &a[i]);
    }
    for (int i = 0; i < N; i++)
        join(t[i]);
    EQ(counter, (long)N * IT);
}
