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
