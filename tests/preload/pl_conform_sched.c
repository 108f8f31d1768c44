/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_sched.c -- conformance tests of libclof-preload.so: SCHED_FIFO
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

typedef struct {
    pthread_mutex_t m;
    atomic_int held, acquired;
    double waiter_cpu, waiter_wall;
} fifo_t;
static void pin_cpu0(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    int r = pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    if (r != 0)
        FAIL("pthread_setaffinity_np: %s", strerror(r));
}
static void *fifo_holder(void *p)
{
    fifo_t *f = p;
    pin_cpu0();
    EQ(pthread_mutex_lock(&f->m), 0);
    atomic_store(&f->held, 1);
    /* 300 ms of cpu on cpu 0 while holding the lock */
    double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
    while (now_s(CLOCK_THREAD_CPUTIME_ID) - c0 < 0.3)
        ;
    EQ(pthread_mutex_unlock(&f->m), 0);
    return NULL;
}
static void *fifo_waiter(void *p)
{
    fifo_t *f = p;
    pin_cpu0();
    while (!atomic_load(&f->held))
        sched_yield();
    struct sched_param sp = {.sched_priority = 10};
    int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (r != 0)
        return (void *)(intptr_t)r;
    double c0 = now_s(CLOCK_THREAD_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
    EQ(pthread_mutex_lock(&f->m), 0);
    f->waiter_cpu = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    f->waiter_wall = now_s(CLOCK_MONOTONIC) - w0;
    atomic_store(&f->acquired, 1);
    EQ(pthread_mutex_unlock(&f->m), 0);
    sp.sched_priority = 0;
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
    return NULL;
}
void t_sched_fifo(void)
{
    struct sched_param sp = {.sched_priority = 10};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
        SKIP("this process may not use SCHED_FIFO (%s)", strerror(errno));
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
    for (int round = 0; round < 2; round++) {
        fifo_t f;
        memset(&f, 0, sizeof f);
        pthread_mutex_init(&f.m, NULL);
        pthread_t h = spawn(fifo_holder, &f), w = spawn(fifo_waiter, &f);
        void *wr;
        join(h);
        EQ(pthread_join(w, &wr), 0);
        if (wr != NULL)
            SKIP("pthread_setschedparam(SCHED_FIFO): %s", strerror((int)(intptr_t)wr));
        EQ(atomic_load(&f.acquired), 1);
        /* A waiter that only spun would have burnt its cpu -- the holder's
         * cpu -- for the whole wait (the holder ran only in the kernel's
         * real-time throttling slack).  A parked waiter uses almost none. */
        printf("round %d: SCHED_FIFO waiter got the lock after %.3f s wall, %.3f s cpu\n", round,
               f.waiter_wall, f.waiter_cpu);
        CHECK(f.waiter_cpu < 0.1 + 0.25 * f.waiter_wall,
              "the SCHED_FIFO waiter spun: %.3f s cpu over %.3f s", f.waiter_cpu, f.waiter_wall);
    }
}

/* ---- sched_order: the order of waiters of different real-time priorities
 * (docs/preload-rt.md).  clof does not order waiters by priority: three
 * SCHED_FIFO threads of priorities 10, 20, 30 queue in that order on a
 * condition variable, and each pthread_cond_signal wakes the longest
 * waiter (10, then 20, then 30), not the highest priority; with a FIFO
 * queue lock (PL_EXPECT_FIFO_MUTEX=1: mcs, clh, ticket) the same three
 * queued on a held mutex acquire it in arrival order. */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int tickets, order[3], n;
    atomic_int waiting;
} so_t;
typedef struct {
    so_t *s;
    int prio;
} so_arg_t;
static void *so_cond_waiter(void *p)
{
    so_arg_t *a = p;
    so_t *s = a->s;
    EQ(pthread_mutex_lock(&s->m), 0);
    atomic_fetch_add(&s->waiting, 1);
    while (s->tickets == 0)
        EQ(pthread_cond_wait(&s->c, &s->m), 0);
    s->tickets--;
    s->order[s->n++] = a->prio;
    EQ(pthread_mutex_unlock(&s->m), 0);
    return NULL;
}
static void *so_mutex_waiter(void *p)
{
    so_arg_t *a = p;
    so_t *s = a->s;
    atomic_fetch_add(&s->waiting, 1);
    EQ(pthread_mutex_lock(&s->m), 0);
    s->order[s->n++] = a->prio;
    EQ(pthread_mutex_unlock(&s->m), 0);
    return NULL;
}
static bool so_spawn(pthread_t *t, void *(*fn)(void *), so_arg_t *a)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&at, SCHED_FIFO);
    struct sched_param sp = {.sched_priority = a->prio};
    pthread_attr_setschedparam(&at, &sp);
    int r = pthread_create(t, &at, fn, a);
    pthread_attr_destroy(&at);
    return r == 0;
}
void t_sched_order(void)
{
    so_t s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.m, NULL);
    pthread_cond_init(&s.c, NULL);
    so_arg_t a[3] = {{&s, 10}, {&s, 20}, {&s, 30}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        if (!so_spawn(&t[i], so_cond_waiter, &a[i])) {
            if (i == 0)
                SKIP("this process may not create SCHED_FIFO threads");
            FAIL("pthread_create (SCHED_FIFO)");
        }
        /* queued: it announced itself under the mutex and released it in the wait */
        await_at_least(&s.waiting, i + 1, 20, "cond waiters");
        EQ(pthread_mutex_lock(&s.m), 0);
        EQ(pthread_mutex_unlock(&s.m), 0);
    }
    for (int k = 0; k < 3; k++) {
        EQ(pthread_mutex_lock(&s.m), 0);
        s.tickets++;
        EQ(pthread_cond_signal(&s.c), 0);
        EQ(pthread_mutex_unlock(&s.m), 0);
        double end = now_s(CLOCK_MONOTONIC) + 20;
        for (;;) {
            EQ(pthread_mutex_lock(&s.m), 0);
            int n = s.n;
            EQ(pthread_mutex_unlock(&s.m), 0);
            if (n == k + 1)
                break;
            if (now_s(CLOCK_MONOTONIC) > end)
                FAIL("signal %d woke nobody", k);
            sleep_ms(1);
        }
    }
    for (int i = 0; i < 3; i++)
        join(t[i]);
    printf("condvar: signals woke priorities %d, %d, %d (queued 10, 20, 30)\n", s.order[0],
           s.order[1], s.order[2]);
    CHECK(s.order[0] == 10 && s.order[1] == 20 && s.order[2] == 30,
          "pthread_cond_signal did not wake the longest waiter");

    const char *fifo = getenv("PL_EXPECT_FIFO_MUTEX");
    if (fifo == NULL || strcmp(fifo, "1") != 0)
        return;
    memset(&s.order, 0, sizeof s.order);
    s.n = 0;
    atomic_store(&s.waiting, 0);
    EQ(pthread_mutex_lock(&s.m), 0);
    for (int i = 0; i < 3; i++) {
        CHECK(so_spawn(&t[i], so_mutex_waiter, &a[i]), "pthread_create (SCHED_FIFO)");
        await_at_least(&s.waiting, i + 1, 20, "mutex waiters");
        sleep_ms(50); /* in the lock's queue (it queues at once, then waits) */
    }
    EQ(pthread_mutex_unlock(&s.m), 0);
    for (int i = 0; i < 3; i++)
        join(t[i]);
    printf("mutex: acquired by priorities %d, %d, %d (queued 10, 20, 30)\n", s.order[0], s.order[1],
           s.order[2]);
    CHECK(s.order[0] == 10 && s.order[1] == 20 && s.order[2] == 30,
          "the FIFO lock was not taken in arrival order");
}
