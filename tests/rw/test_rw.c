/* SPDX-License-Identifier: MIT */
/*
 * Behaviour tests of the RW locks (include/clof/rw/list.h) on an emulated
 * machine (so that the reader indicators really have several slots).
 *
 *   test_rw LOCK TEST PREF SHAPE T
 *
 * LOCK: a name of CLOF_RW_LOCKS; PREF: reader, writer or neutral; SHAPE an
 * emulated machine (CLOF_EMULATE syntax); T threads.  Tests:
 *   mix         T threads, 1 in 5 operations a write (tries and timed
 *               acquisitions mixed in): a writer is alone (no reader, no
 *               writer beside it, and the protected lines agree), a reader
 *               sees no writer and consistent lines; the lines end at the
 *               number of writes
 *   concurrent  T readers inside at the same time (a barrier inside the
 *               read section: a lock that serialises readers hangs, and the
 *               watchdog fails the test)
 *   try         tries and timed acquisitions against a held lock fail (and
 *               the timed ones only after their deadline), succeed on a free
 *               one
 *   recursive   (reader preference) a thread holding a read lock reads again
 *               while a writer waits, and the writer gets in after
 *   wpref       (writer preference) while a writer waits for a reader, a
 *               new reader's try fails and its acquire waits for the writer
 */
#define _GNU_SOURCE 1
#include <clof/rw/list.h>

#include "../common/clof_test.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    const char *name;
    size_t lsize, csize;
    void (*init)(void *, uint32_t);
    void (*ra)(void *, void *);
    bool (*rt)(void *, void *);
    bool (*ru)(void *, void *, uint64_t);
    void (*rr)(void *, void *);
    void (*wa)(void *, void *);
    bool (*wt)(void *, void *);
    bool (*wu)(void *, void *, uint64_t);
    void (*wr)(void *, void *);
} rwops_t;

#define X(id, nm)                                                              \
    static void id##_init_(void *l, uint32_t p) { clof_##id##_init(l, p); }    \
    static void id##_ra_(void *l, void *c) { clof_##id##_read_acquire(l, c); } \
    static bool id##_rt_(void *l, void *c) { return clof_##id##_read_tryacquire(l, c); } \
    static bool id##_ru_(void *l, void *c, uint64_t d) { return clof_##id##_read_acquire_until(l, c, d); } \
    static void id##_rr_(void *l, void *c) { clof_##id##_read_release(l, c); } \
    static void id##_wa_(void *l, void *c) { clof_##id##_write_acquire(l, c); } \
    static bool id##_wt_(void *l, void *c) { return clof_##id##_write_tryacquire(l, c); } \
    static bool id##_wu_(void *l, void *c, uint64_t d) { return clof_##id##_write_acquire_until(l, c, d); } \
    static void id##_wr_(void *l, void *c) { clof_##id##_write_release(l, c); }
CLOF_RW_LOCKS(X)
#undef X
#define X(id, nm)                                                              \
    {nm, sizeof(clof_##id##_t), sizeof(clof_##id##_ctx_t), id##_init_,         \
     id##_ra_, id##_rt_, id##_ru_, id##_rr_, id##_wa_, id##_wt_, id##_wu_,     \
     id##_wr_},
static const rwops_t ops_table[] = {CLOF_RW_LOCKS(X)};
#undef X

static const rwops_t *ops;
static void *lock;
static int nthreads;

#define LINES 4
static clof_test_line_t lines[LINES];
static int writers_in, readers_in; /* __atomic */
static uint64_t writes_done;       /* __atomic */

static void *ctx_new(void)
{
    void *c = aligned_alloc(64, (ops->csize + 63) / 64 * 64);
    if (!c)
        clof_test_fail("out of memory");
    memset(c, 0, ops->csize);
    return c;
}

static uint64_t in_ns(uint64_t ns)
{
    return clof_now_ns() + ns;
}

static void write_section(void)
{
    CLOF_TEST_CHECK(__atomic_fetch_add(&writers_in, 1, __ATOMIC_SEQ_CST) == 0,
                    "two writers inside");
    CLOF_TEST_CHECK(__atomic_load_n(&readers_in, __ATOMIC_SEQ_CST) == 0,
                    "a writer inside with readers");
    clof_test_critical(lines, LINES, 1);
    __atomic_fetch_add(&writes_done, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&writers_in, 1, __ATOMIC_SEQ_CST);
}

static void read_section(void)
{
    __atomic_fetch_add(&readers_in, 1, __ATOMIC_SEQ_CST);
    CLOF_TEST_CHECK(__atomic_load_n(&writers_in, __ATOMIC_SEQ_CST) == 0,
                    "a reader inside with a writer");
    uint64_t v0 = lines[0].v;
    if ((v0 & 7) == 0)
        sched_yield();
    for (int k = 1; k < LINES; k++)
        CLOF_TEST_CHECK(lines[k].v == v0, "a reader saw a half-done write");
    __atomic_fetch_sub(&readers_in, 1, __ATOMIC_SEQ_CST);
}

static void *mix_thread(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    clof_topo_set_vcpu((int32_t)id);
    void *c = ctx_new();
    uint64_t x = 0x9e3779b97f4a7c15ull * (id + 1);
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned r = (unsigned)(x % 100);
        bool write = r < 20;
        unsigned how = (unsigned)(x >> 32) % 8; /* 0: try, 1: timed, else plain */
        if (write) {
            bool ok = true;
            if (how == 0)
                ok = ops->wt(lock, c);
            else if (how == 1)
                ok = ops->wu(lock, c, in_ns(200000));
            else
                ops->wa(lock, c);
            if (ok) {
                write_section();
                ops->wr(lock, c);
            }
        } else {
            bool ok = true;
            if (how == 0)
                ok = ops->rt(lock, c);
            else if (how == 1)
                ok = ops->ru(lock, c, in_ns(200000));
            else
                ops->ra(lock, c);
            if (ok) {
                read_section();
                ops->rr(lock, c);
            }
        }
    }
    free(c);
    return NULL;
}

static pthread_barrier_t bar;

static void *conc_thread(void *arg)
{
    clof_topo_set_vcpu((int32_t)(uintptr_t)arg);
    void *c = ctx_new();
    ops->ra(lock, c);
    pthread_barrier_wait(&bar); /* every reader is inside */
    ops->rr(lock, c);
    free(c);
    return NULL;
}

static void run_threads(void *(*fn)(void *), int n)
{
    pthread_t th[256];
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, (void *)(uintptr_t)i) != 0)
            clof_test_fail("pthread_create");
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

/* ---- two-thread scenarios: the main thread and one helper ---- */
static int helper_op;      /* what the helper does */
static int helper_state;   /* 1 started, 2 done */
static void *helper_ctx;

static void *helper(void *arg)
{
    (void)arg;
    clof_topo_set_vcpu(nthreads > 1 ? nthreads - 1 : 0);
    __atomic_store_n(&helper_state, 1, __ATOMIC_SEQ_CST);
    if (helper_op == 0) { /* write */
        ops->wa(lock, helper_ctx);
        write_section();
        ops->wr(lock, helper_ctx);
    } else { /* read */
        ops->ra(lock, helper_ctx);
        read_section();
        ops->rr(lock, helper_ctx);
    }
    __atomic_store_n(&helper_state, 2, __ATOMIC_SEQ_CST);
    return NULL;
}

static pthread_t start_helper(int op)
{
    pthread_t t;
    helper_op = op;
    helper_state = 0;
    if (!helper_ctx)
        helper_ctx = ctx_new();
    if (pthread_create(&t, NULL, helper, NULL) != 0)
        clof_test_fail("pthread_create");
    while (__atomic_load_n(&helper_state, __ATOMIC_SEQ_CST) == 0)
        sched_yield();
    struct timespec d = {0, 30 * 1000 * 1000}; /* let it reach its wait */
    nanosleep(&d, NULL);
    return t;
}

/* tries from another thread (a helper that only tries) */
static int try_op, try_result;
static void *try_thread(void *arg)
{
    (void)arg;
    void *c = ctx_new();
    bool ok;
    switch (try_op) {
    case 0: ok = ops->rt(lock, c); if (ok) ops->rr(lock, c); break;
    case 1: ok = ops->wt(lock, c); if (ok) ops->wr(lock, c); break;
    case 2: ok = ops->ru(lock, c, in_ns(20000000)); if (ok) ops->rr(lock, c); break;
    default: ok = ops->wu(lock, c, in_ns(20000000)); if (ok) ops->wr(lock, c); break;
    }
    free(c);
    try_result = ok;
    return NULL;
}
static bool try_from_other(int op)
{
    pthread_t t;
    try_op = op;
    if (pthread_create(&t, NULL, try_thread, NULL) != 0)
        clof_test_fail("pthread_create");
    pthread_join(t, NULL);
    return try_result;
}

static void test_try(void)
{
    void *c = ctx_new();
    CLOF_TEST_CHECK(try_from_other(0) && try_from_other(1), "tries on a free lock failed");
    ops->wa(lock, c);
    CLOF_TEST_CHECK(!try_from_other(0), "read try succeeded under a writer");
    CLOF_TEST_CHECK(!try_from_other(1), "write try succeeded under a writer");
    uint64_t t0 = clof_now_ns();
    CLOF_TEST_CHECK(!try_from_other(2), "timed read succeeded under a writer");
    CLOF_TEST_CHECK(clof_now_ns() - t0 >= 20000000, "timed read gave up before its deadline");
    CLOF_TEST_CHECK(!try_from_other(3), "timed write succeeded under a writer");
    ops->wr(lock, c);
    CLOF_TEST_CHECK(ops->rt(lock, c), "read try on a free lock failed");
    CLOF_TEST_CHECK(!try_from_other(1), "write try succeeded under a reader");
    t0 = clof_now_ns();
    CLOF_TEST_CHECK(!try_from_other(3), "timed write succeeded under a reader");
    CLOF_TEST_CHECK(clof_now_ns() - t0 >= 20000000, "timed write gave up before its deadline");
    CLOF_TEST_CHECK(try_from_other(0), "read try failed beside a reader");
    CLOF_TEST_CHECK(try_from_other(2), "timed read failed beside a reader");
    ops->rr(lock, c);
    CLOF_TEST_CHECK(try_from_other(1) && try_from_other(3),
                    "write tries on a lock free again failed");
    CLOF_TEST_CHECK(ops->wt(lock, c), "write try on a free lock failed");
    ops->wr(lock, c);
    free(c);
}

static void test_recursive(void)
{
    void *c1 = ctx_new(), *c2 = ctx_new();
    ops->ra(lock, c1);
    pthread_t w = start_helper(0); /* a writer that waits */
    CLOF_TEST_CHECK(__atomic_load_n(&helper_state, __ATOMIC_SEQ_CST) == 1,
                    "the writer got in beside a reader");
    ops->ra(lock, c2); /* must not wait for the writer */
    read_section();
    ops->rr(lock, c2);
    CLOF_TEST_CHECK(__atomic_load_n(&helper_state, __ATOMIC_SEQ_CST) == 1,
                    "the writer got in beside a reader");
    ops->rr(lock, c1);
    pthread_join(w, NULL);
    CLOF_TEST_CHECK(writes_done == 1, "the writer did not write");
    free(c1), free(c2);
}

static void test_wpref(void)
{
    void *c1 = ctx_new();
    ops->ra(lock, c1);
    pthread_t w = start_helper(0); /* a writer that waits for us */
    CLOF_TEST_CHECK(!try_from_other(0), "a reader got in while a writer waited");
    ops->rr(lock, c1);
    pthread_join(w, NULL);
    CLOF_TEST_CHECK(writes_done == 1, "the writer did not write");
    CLOF_TEST_CHECK(try_from_other(0), "read try failed after the writer left");
    free(c1);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: test_rw LOCK TEST PREF SHAPE T\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof ops_table / sizeof ops_table[0]; i++)
        if (!strcmp(ops_table[i].name, argv[1]))
            ops = &ops_table[i];
    if (!ops) {
        fprintf(stderr, "test_rw: unknown lock '%s'; known:", argv[1]);
        for (size_t i = 0; i < sizeof ops_table / sizeof ops_table[0]; i++)
            fprintf(stderr, " %s", ops_table[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    const char *test = argv[2];
    uint32_t pref = !strcmp(argv[3], "writer")    ? CLOF_RW_PREF_WRITER
                    : !strcmp(argv[3], "neutral") ? CLOF_RW_PREF_NEUTRAL
                                                  : CLOF_RW_PREF_READER;
    nthreads = atoi(argv[5]);
    if (nthreads < 1 || nthreads > 256) {
        fprintf(stderr, "test_rw: T must be 1..256\n");
        return 2;
    }
    clof_test_name("%s %s %s %s T=%d", argv[1], test, argv[3], argv[4], nthreads);
    clof_test_watchdog(60, 1, NULL);
    clof_topo_opts_t o;
    memset(&o, 0, sizeof o);
    o.emulate = argv[4];
    o.flags = CLOF_TOPO_NO_ENV | CLOF_TOPO_QUIET;
    clof_topo_error_t e;
    if (clof_topology_install(&o, &e) != 0) {
        fprintf(stderr, "test_rw: %s\n", e.msg);
        return 2;
    }
    lock = aligned_alloc(64, (ops->lsize + 63) / 64 * 64);
    if (!lock)
        clof_test_fail("out of memory");
    memset(lock, 0, ops->lsize); /* zero bytes: an unlocked lock */
    if (pref != CLOF_RW_PREF_READER)
        ops->init(lock, pref);
    if (!strcmp(test, "mix")) {
        run_threads(mix_thread, nthreads);
        CLOF_TEST_CHECK(lines[0].v == writes_done, "lines %llu != writes %llu",
                        (unsigned long long)lines[0].v,
                        (unsigned long long)writes_done);
        CLOF_TEST_CHECK(writes_done > 0, "no write went through");
    } else if (!strcmp(test, "concurrent")) {
        pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
        run_threads(conc_thread, nthreads);
    } else if (!strcmp(test, "try")) {
        test_try();
    } else if (!strcmp(test, "recursive")) {
        test_recursive();
    } else if (!strcmp(test, "wpref")) {
        test_wpref();
    } else {
        fprintf(stderr, "test_rw: unknown test '%s'\n", test);
        return 2;
    }
    printf("ok %s\n", clof_test_name_);
    return 0;
}
