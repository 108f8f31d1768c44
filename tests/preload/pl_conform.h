/* SPDX-License-Identifier: MIT */
/*
 * pl_conform.h -- what the conformance tests of libclof-preload.so share
 * (pl_conform.c: the test table and main; pl_conform_<area>.c: the tests of
 * one area each).
 *
 *   LD_PRELOAD=.../libclof-preload.so CLOF_LOCK=<lock> pl_conform <test>
 *
 * The program is an ordinary pthread program: it is not linked with the
 * library.  Every test first checks, through the library's introspection
 * functions (dlsym), that the library is loaded and runs the lock named by
 * CLOF_LOCK (or glibc, where a test expects the fallback), so that no test
 * can pass on glibc's locks by accident.  Exit status: 0 pass, 1 fail,
 * 77 skipped (with a message).  A watchdog turns a hang into a failure.
 */
#ifndef PL_CONFORM_H
#define PL_CONFORM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <clof/preload.h>

/* old-ABI and compat-version entry points (pl_oldabi.c) */
int old_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int old_cond_signal(pthread_cond_t *c);
int old_cond_broadcast(pthread_cond_t *c);
int old_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int old_cond_destroy(pthread_cond_t *c);
int old_mutex_trylock(pthread_mutex_t *m);
int compat_pthread_mutex_lock(pthread_mutex_t *m);
int compat_pthread_mutex_unlock(pthread_mutex_t *m);

/* defined in pl_conform.c */
extern const char *test_name;
extern clof_preload_info_fn info_fn;
extern clof_preload_mutex_held_fn held_fn;
extern const char *self_exe; /* argv[0], for the tests that exec themselves */

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "FAIL %s (%s:%d): ", test_name, __FILE__, __LINE__);   \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
        exit(1);                                                               \
    } while (0)
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "FAIL %s (%s:%d): `%s`: ", test_name, __FILE__,    \
                    __LINE__, #cond);                                          \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            exit(1);                                                           \
        }                                                                      \
    } while (0)
#define EQ(a, b)                                                               \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ != b_)                                                          \
            FAIL("%s == %lld, expected %s == %lld", #a, a_, #b, b_);           \
    } while (0)
#define SKIP(...)                                                              \
    do {                                                                       \
        printf("SKIP %s: ", test_name);                                        \
        printf(__VA_ARGS__);                                                   \
        printf("\n");                                                          \
        exit(77);                                                              \
    } while (0)

static inline void *xmalloc(size_t n)
{
    void *p = calloc(1, n);
    if (!p)
        FAIL("out of memory");
    return p;
}

static inline pthread_t spawn(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    int r = pthread_create(&t, NULL, fn, arg);
    if (r != 0)
        FAIL("pthread_create: %s", strerror(r));
    return t;
}
static inline void join(pthread_t t)
{
    int r = pthread_join(t, NULL);
    if (r != 0)
        FAIL("pthread_join: %s", strerror(r));
}

static inline double now_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static inline struct timespec ts_in(clockid_t clk, double secs)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    long long ns = ts.tv_nsec + (long long)(secs * 1e9);
    ts.tv_sec += ns / 1000000000LL;
    ts.tv_nsec = ns % 1000000000LL;
    return ts;
}
static inline bool ts_reached(clockid_t clk, const struct timespec *abs)
{
    struct timespec n;
    clock_gettime(clk, &n);
    return n.tv_sec > abs->tv_sec || (n.tv_sec == abs->tv_sec && n.tv_nsec >= abs->tv_nsec);
}
static inline void sleep_ms(int ms)
{
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
}

/* Wait (sleeping) until *v >= want, failing after `secs`. */
static inline void await_at_least(atomic_int *v, int want, double secs, const char *what)
{
    double end = now_s(CLOCK_MONOTONIC) + secs;
    while (atomic_load(v) < want) {
        if (now_s(CLOCK_MONOTONIC) > end)
            FAIL("%s: %d after %.0f s, expected %d", what, atomic_load(v), secs, want);
        sleep_ms(1);
    }
}

static inline clof_preload_info_t info(void)
{
    clof_preload_info_t i;
    info_fn(&i, sizeof i);
    return i;
}

/* The library must be there and run CLOF_LOCK (aliases resolved by it). */
static inline void expect_lock(const char *want)
{
    info_fn = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    held_fn = (clof_preload_mutex_held_fn)dlsym(RTLD_DEFAULT, "clof_preload_mutex_held");
    if (!info_fn || !held_fn)
        FAIL("libclof-preload.so is not loaded (run with LD_PRELOAD)");
    clof_preload_info_t i = info();
    char canon[128];
    if (want == NULL) {
        want = getenv("CLOF_LOCK");
        if (want == NULL)
            FAIL("CLOF_LOCK is not set");
        /* the tests name compositions as clof:<parts>; the library runs
         * them by their canonical name, without clof: (docs/locks.md) */
        size_t o = 0;
        for (const char *p = want; *p && o + 1 < sizeof canon;)
            if (strncmp(p, "clof:", 5) == 0)
                p += 5;
            else
                canon[o++] = *p++;
        canon[o] = 0;
        want = canon;
    }
    /* (the fault sweep, tests/preload/fault_sweep.sh: a start-up whose
     * allocations failed runs on glibc's mutexes, as documented) */
    const char *g = getenv("PL_ALLOW_GLIBC");
    if (strcmp(i.lock, want) != 0 && !(g && !strcmp(g, "1") && !strcmp(i.lock, "glibc")))
        FAIL("the library runs '%s', expected '%s'", i.lock, want);
}


/* helpers that tests of several areas use */
/* pl_conform_mutex.c: a statically initialised mutex; nthreads threads
 * incrementing under m, the total checked */
extern pthread_mutex_t static_m;
void mutual_exclusion(pthread_mutex_t *m, int nthreads, int iters);
/* pl_conform_types.c: pthread_mutex_trylock(m) from another thread */
int trylock_in_thread(pthread_mutex_t *m);
/* pl_conform_cond.c: a condition variable with counted waiters */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    atomic_int waiting, returns;
    int stop;
} cv_t;
void *cv_waiter(void *p);
void cv_start(cv_t *v, pthread_t *t, int n);

/* the tests (one file per area) */
void t_mutex_static(void);
void t_oom(void);
void t_static_many(void);
void t_mutex_init(void);
void t_mutex_moved(void);
void t_trylock(void);
void t_timedlock(void);
void t_mixed(void);
void t_errorcheck(void);
void t_recursive(void);
void t_cr_number(void);
void t_pshared(void);
void t_robust(void);
void t_oblivious(void);
void t_handoverhand(void);
void t_threads_10k(void);
void t_cond_signal(void);
void t_cond_broadcast(void);
void t_cond_pc(void);
void t_cond_timed(void);
void t_cond_timed_signal(void);
void t_cond_destroy(void);
void t_cond_cancel(void);
void t_cond_types(void);
void t_cond_pshared(void);
void t_fork(void);
void t_fork_stress(void);
void t_sig_waits(void);
void t_cancel_stress(void);
void t_async_cancel_lock(void);
void t_sched_fifo(void);
void t_sched_order(void);
void t_stats(void);
void t_config(void);
void t_symbols(void);
void t_early(void);
void t_stats_child(void);
void t_glibc_child(void);
void t_glibc_adaptive(void);
void t_default_child(void);
void t_comp_child(void);
void t_asl_child(void);
void t_asl_epochs(void);
void t_asl_reorder(void);

#endif /* PL_CONFORM_H */
