/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_mutex.c -- conformance tests of libclof-preload.so: mutual exclusion
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

typedef struct {
    pthread_mutex_t *m;
    int iters;
    long *counter;
    atomic_int *inside;
    atomic_int *start;
} mx_arg_t;

static void *mx_worker(void *p)
{
    mx_arg_t *a = p;
    while (!atomic_load(a->start))
        sched_yield();
    for (int i = 0; i < a->iters; i++) {
        EQ(pthread_mutex_lock(a->m), 0);
        if (atomic_fetch_add_explicit(a->inside, 1, memory_order_relaxed) != 0)
            FAIL("two threads inside the critical section");
        long v = *a->counter;
        if ((i & 63) == 0)
            sched_yield(); /* let others try while we hold it */
        *a->counter = v + 1;
        atomic_fetch_sub_explicit(a->inside, 1, memory_order_relaxed);
        EQ(pthread_mutex_unlock(a->m), 0);
    }
    return NULL;
}

void mutual_exclusion(pthread_mutex_t *m, int nthreads, int iters)
{
    long counter = 0;
    atomic_int inside = 0, start = 0;
    pthread_t *t = xmalloc(sizeof(pthread_t) * (size_t)nthreads);
    mx_arg_t a = {m, iters, &counter, &inside, &start};
    for (int i = 0; i < nthreads; i++)
        t[i] = spawn(mx_worker, &a);
    atomic_store(&start, 1);
    for (int i = 0; i < nthreads; i++)
        join(t[i]);
    EQ(counter, (long)nthreads * iters);
    free(t);
}

pthread_mutex_t static_m = PTHREAD_MUTEX_INITIALIZER;

/* A mutex made only by PTHREAD_MUTEX_INITIALIZER, held through clof. */
void t_mutex_static(void)
{
    EQ(pthread_mutex_lock(&static_m), 0);
    CHECK(held_fn(&static_m) == 1, "a locked static mutex is not held through clof");
    EQ(pthread_mutex_unlock(&static_m), 0);
    CHECK(held_fn(&static_m) == 0, "an unlocked mutex still looks held");
    mutual_exclusion(&static_m, 8, 20000);
}

/* A static mutex shared by many threads. */
void t_static_many(void)
{
    mutual_exclusion(&static_m, 64, 2000);
}

/* pthread_mutex_init / destroy, many lifetimes; lock blocks are reused. */
void t_mutex_init(void)
{
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, NULL), 0);
    mutual_exclusion(&m, 4, 20000);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
    EQ(pthread_mutex_init(&m, &a), 0);
    EQ(pthread_mutex_lock(&m), 0);
    CHECK(held_fn(&m), "a normal mutex is not held through clof");
    EQ(pthread_mutex_destroy(&m), EBUSY); /* locked: refused */
    EQ(pthread_mutex_unlock(&m), 0);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
    EQ(pthread_mutex_init(&m, &a), 0);
    mutual_exclusion(&m, 4, 5000);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutexattr_destroy(&a);

    /* 100,000 lifetimes of 100 mutexes: memory must not grow with them */
    clof_preload_info_t before = info();
    pthread_mutex_t *ms = xmalloc(100 * sizeof *ms);
    for (int round = 0; round < 1000; round++) {
        for (int i = 0; i < 100; i++) {
            EQ(pthread_mutex_init(&ms[i], NULL), 0);
            EQ(pthread_mutex_lock(&ms[i]), 0);
        }
        for (int i = 0; i < 100; i++) {
            EQ(pthread_mutex_unlock(&ms[i]), 0);
            EQ(pthread_mutex_destroy(&ms[i]), 0);
        }
    }
    clof_preload_info_t after = info();
    if (!after.inplace)
        CHECK(after.blocks - before.blocks <= 100, "lock blocks grew by %llu for 100 live mutexes",
              (unsigned long long)(after.blocks - before.blocks));
    else
        EQ(after.blocks, 0);
    free(ms);
}
