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
    atomic_int *stop;     /* set by the main thread at the time bound */
    atomic_long *done;    /* acquisitions made, all threads */
    atomic_int *finished; /* threads that ran their iterations */
} mx_arg_t;

static void *mx_worker(void *p)
{
    mx_arg_t *a = p;
    while (!atomic_load(a->start))
        sched_yield();
    for (int i = 0; i < a->iters && !atomic_load_explicit(a->stop, memory_order_relaxed);
         i++) {
        EQ(pthread_mutex_lock(a->m), 0);
        if (atomic_fetch_add_explicit(a->inside, 1, memory_order_relaxed) != 0)
            FAIL("two threads inside the critical section");
        long v = *a->counter;
        if ((i & 63) == 0)
            sched_yield(); /* let others try while we hold it */
        *a->counter = v + 1;
        atomic_fetch_sub_explicit(a->inside, 1, memory_order_relaxed);
        EQ(pthread_mutex_unlock(a->m), 0);
        atomic_fetch_add_explicit(a->done, 1, memory_order_relaxed);
    }
    atomic_fetch_add(a->finished, 1);
    return NULL;
}

/* Every thread makes `iters` acquisitions, or fewer when the run reaches
 * PL_MX_SECONDS: a strict FIFO lock hands over to one given thread, which
 * on a machine whose cpus are busy with other work waits for the scheduler
 * (about 1 ms a hand-over measured here with three busy loops beside it, a
 * convoy, not a hang: docs/reliability.md), so the time bound keeps the
 * test's duration in check while the count it checks stays exact.  A lock
 * that really hangs never reaches the bound's check and the watchdog
 * (pl_conform.c) fails the test. */
#define PL_MX_SECONDS 30
void mutual_exclusion(pthread_mutex_t *m, int nthreads, int iters)
{
    long counter = 0;
    atomic_int inside = 0, start = 0, stop = 0, finished = 0;
    atomic_long done = 0;
    pthread_t *t = xmalloc(sizeof(pthread_t) * (size_t)nthreads);
    mx_arg_t a = {m, iters, &counter, &inside, &start, &stop, &done, &finished};
    for (int i = 0; i < nthreads; i++)
        t[i] = spawn(mx_worker, &a);
    atomic_store(&start, 1);
    for (int ms = 0; atomic_load(&finished) < nthreads; ms += 10) {
        if (ms >= PL_MX_SECONDS * 1000) {
            atomic_store(&stop, 1);
            break;
        }
        usleep(10000);
    }
    for (int i = 0; i < nthreads; i++)
        join(t[i]);
    EQ(counter, atomic_load(&done));
    if (atomic_load(&stop))
        printf("note: %ld of %ld acquisitions in the %d s bound (slow machine)\n",
               (long)atomic_load(&done), (long)nthreads * iters, PL_MX_SECONDS);
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

/* A mutex moved while unlocked and idle, as a realloc of the structure
 * that holds it moves it (POSIX leaves it undefined; programs do it, and
 * glibc's mutex survives it): the moved mutex still excludes, and nothing
 * is written at its old place.  The first round is contended, so that a
 * hierarchical lock builds its tree (checked: the library's count of
 * trees grows, under CLOF_EMULATE) before the move; the tree stays with
 * the mutex, and its system level must take the fast word at the new
 * place (compose.h's indexed layout rebinds it, clof_cmp_bind_). */
void t_mutex_moved(void)
{
    const size_t sz = sizeof(pthread_mutex_t);
    unsigned char *old = xmalloc(sz), *moved = xmalloc(sz);
    clof_preload_info_t before = info();
    const char *base = before.lock; /* the lock under cr: or asl: */
    for (bool more = true; more;) {
        more = strncmp(base, "cr:", 3) == 0 || strncmp(base, "asl:", 4) == 0;
        if (more)
            base = strchr(base, ':') + 1;
    }
    bool tree = strcmp(base, "hmcs") == 0 || strncmp(base, "c-", 2) == 0 ||
                strncmp(base, "a-c-", 4) == 0 || strncmp(base, "clof:", 5) == 0;
    /* a cr: lock in place keeps its state in a block found from the mutex
     * (pl_internal.h): the move must carry that too */
    bool block = strncmp(before.lock, "cr:", 3) == 0 && before.inplace;
    EQ(pthread_mutex_init((pthread_mutex_t *)old, NULL), 0);
    /* contended rounds until what the lock builds at its first contention
     * (a tree, a cr: state block) is there, 20 at most; a lock that builds
     * neither runs one (it used to run all 20: under CLOF_CR_ACTIVE=1, where
     * every contended acquisition parks, that was most of the test's time) */
    for (int round = 0; round < 20; round++) {
        mutual_exclusion((pthread_mutex_t *)old, 4, 2000);
        clof_preload_info_t now = info();
        if ((!tree || now.trees > before.trees) && (!block || now.cr_blocks > before.cr_blocks))
            break;
    }
    clof_preload_info_t built = info();
    if (tree && getenv("CLOF_EMULATE") != NULL)
        CHECK(built.trees > before.trees, "%s built no tree in 20 contended rounds", built.lock);
    memcpy(moved, old, sz); /* the move */
    memset(old, 0x5a, sz);  /* the old place, poisoned */
    mutual_exclusion((pthread_mutex_t *)moved, 4, 20000);
    for (size_t i = 0; i < sz; i++)
        CHECK(old[i] == 0x5a, "byte %zu of the old place was written after the move", i);
    EQ(pthread_mutex_destroy((pthread_mutex_t *)moved), 0);
    free(old);
    free(moved);
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
    /* cr: locks in place keep their state in a block per contended mutex,
     * freed at destroy: as many in use after as before */
    EQ(after.cr_blocks - after.cr_blocks_pooled, before.cr_blocks - before.cr_blocks_pooled);
    /* CLH in the mutex (clh, cr:clh) takes a first node from a pool at a
     * mutex's first acquisition, and destroy gives back the node the idle
     * tail holds: as many in use after as before */
    bool clh_inplace = after.inplace && (strcmp(after.lock, "clh") == 0 || strcmp(after.lock, "cr:clh") == 0);
    if (clh_inplace) {
        EQ(after.clh_nodes - after.clh_nodes_pooled, before.clh_nodes - before.clh_nodes_pooled);
        CHECK(after.clh_nodes - before.clh_nodes <= 100, "CLH first nodes grew by %llu for 100 live mutexes",
              (unsigned long long)(after.clh_nodes - before.clh_nodes));
    }
    /* ... and reused: contended lifetimes (4 threads) do not add blocks or
     * nodes (the node given back is some thread's former one: nodes
     * circulate) */
    before = info();
    for (int round = 0; round < 50; round++) {
        EQ(pthread_mutex_init(&ms[0], NULL), 0);
        mutual_exclusion(&ms[0], 4, 500);
        EQ(pthread_mutex_destroy(&ms[0]), 0);
    }
    after = info();
    EQ(after.cr_blocks - after.cr_blocks_pooled, before.cr_blocks - before.cr_blocks_pooled);
    CHECK(after.cr_blocks - before.cr_blocks <= 1, "cr state blocks grew by %llu for 1 live mutex",
          (unsigned long long)(after.cr_blocks - before.cr_blocks));
    if (!after.inplace || strncmp(after.lock, "cr:", 3) != 0)
        EQ(after.cr_blocks, 0);
    if (clh_inplace) {
        EQ(after.clh_nodes - after.clh_nodes_pooled, before.clh_nodes - before.clh_nodes_pooled);
        CHECK(after.clh_nodes - before.clh_nodes <= 1, "CLH first nodes grew by %llu for 1 live mutex",
              (unsigned long long)(after.clh_nodes - before.clh_nodes));
    }
    if (strstr(after.lock, "clh") == NULL)
        EQ(after.clh_nodes, 0);
    free(ms);
}
