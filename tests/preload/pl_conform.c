/*
 * pl_conform -- conformance tests of libclof-preload.so.
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
#define _GNU_SOURCE
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

#include "clof_preload.h"

/* old-ABI and compat-version entry points (pl_oldabi.c) */
int old_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int old_cond_signal(pthread_cond_t *c);
int old_cond_broadcast(pthread_cond_t *c);
int old_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
int old_cond_destroy(pthread_cond_t *c);
int old_mutex_trylock(pthread_mutex_t *m);
int compat_pthread_mutex_lock(pthread_mutex_t *m);
int compat_pthread_mutex_unlock(pthread_mutex_t *m);

static const char *test_name = "?";
static clof_preload_info_fn info_fn;
static clof_preload_mutex_held_fn held_fn;

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

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n);
    if (!p)
        FAIL("out of memory");
    return p;
}

static pthread_t spawn(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    int r = pthread_create(&t, NULL, fn, arg);
    if (r != 0)
        FAIL("pthread_create: %s", strerror(r));
    return t;
}
static void join(pthread_t t)
{
    int r = pthread_join(t, NULL);
    if (r != 0)
        FAIL("pthread_join: %s", strerror(r));
}

static double now_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static struct timespec ts_in(clockid_t clk, double secs)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    long long ns = ts.tv_nsec + (long long)(secs * 1e9);
    ts.tv_sec += ns / 1000000000LL;
    ts.tv_nsec = ns % 1000000000LL;
    return ts;
}
static bool ts_reached(clockid_t clk, const struct timespec *abs)
{
    struct timespec n;
    clock_gettime(clk, &n);
    return n.tv_sec > abs->tv_sec || (n.tv_sec == abs->tv_sec && n.tv_nsec >= abs->tv_nsec);
}
static void sleep_ms(int ms)
{
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
}

/* Wait (sleeping) until *v >= want, failing after `secs`. */
static void await_at_least(atomic_int *v, int want, double secs, const char *what)
{
    double end = now_s(CLOCK_MONOTONIC) + secs;
    while (atomic_load(v) < want) {
        if (now_s(CLOCK_MONOTONIC) > end)
            FAIL("%s: %d after %.0f s, expected %d", what, atomic_load(v), secs, want);
        sleep_ms(1);
    }
}

static clof_preload_info_t info(void)
{
    clof_preload_info_t i;
    info_fn(&i, sizeof i);
    return i;
}

/* The library must be there and run CLOF_LOCK (aliases resolved by it). */
static void expect_lock(const char *want)
{
    info_fn = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    held_fn = (clof_preload_mutex_held_fn)dlsym(RTLD_DEFAULT, "clof_preload_mutex_held");
    if (!info_fn || !held_fn)
        FAIL("libclof-preload.so is not loaded (run with LD_PRELOAD)");
    clof_preload_info_t i = info();
    if (want == NULL) {
        want = getenv("CLOF_LOCK");
        if (want == NULL)
            FAIL("CLOF_LOCK is not set");
    }
    if (strcmp(i.lock, want) != 0)
        FAIL("the library runs '%s', expected '%s'", i.lock, want);
}

/* ========================================================================= */
/* mutual exclusion                                                           */
/* ========================================================================= */
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

static void mutual_exclusion(pthread_mutex_t *m, int nthreads, int iters)
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

static pthread_mutex_t static_m = PTHREAD_MUTEX_INITIALIZER;

/* A mutex made only by PTHREAD_MUTEX_INITIALIZER, held through clof. */
static void t_mutex_static(void)
{
    EQ(pthread_mutex_lock(&static_m), 0);
    CHECK(held_fn(&static_m) == 1, "a locked static mutex is not held through clof");
    EQ(pthread_mutex_unlock(&static_m), 0);
    CHECK(held_fn(&static_m) == 0, "an unlocked mutex still looks held");
    mutual_exclusion(&static_m, 8, 20000);
}

/* A static mutex shared by many threads. */
static void t_static_many(void)
{
    mutual_exclusion(&static_m, 64, 2000);
}

/* pthread_mutex_init / destroy, many lifetimes; lock blocks are reused. */
static void t_mutex_init(void)
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

/* ========================================================================= */
/* trylock, timedlock, clocklock                                              */
/* ========================================================================= */
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

static void t_trylock(void)
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

static void t_timedlock(void)
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
static void t_mixed(void)
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

/* ========================================================================= */
/* mutex types                                                                */
/* ========================================================================= */
static void *unlock_other(void *p)
{
    return (void *)(intptr_t)pthread_mutex_unlock(p);
}
static int unlock_in_thread(pthread_mutex_t *m)
{
    pthread_t t = spawn(unlock_other, m);
    void *r;
    pthread_join(t, &r);
    return (int)(intptr_t)r;
}
static void *trylock_other(void *p)
{
    pthread_mutex_t *m = p;
    int r = pthread_mutex_trylock(m);
    if (r == 0)
        pthread_mutex_unlock(m);
    return (void *)(intptr_t)r;
}
static int trylock_in_thread(pthread_mutex_t *m)
{
    pthread_t t = spawn(trylock_other, m);
    void *r;
    pthread_join(t, &r);
    return (int)(intptr_t)r;
}

static void errorcheck_on(pthread_mutex_t *m)
{
    EQ(pthread_mutex_unlock(m), EPERM); /* not locked */
    EQ(pthread_mutex_lock(m), 0);
    CHECK(held_fn(m), "errorcheck mutex not held through clof");
    EQ(pthread_mutex_lock(m), EDEADLK);
    EQ(pthread_mutex_trylock(m), EBUSY);
    EQ(unlock_in_thread(m), EPERM); /* not the owner */
    EQ(trylock_in_thread(m), EBUSY);
    EQ(pthread_mutex_unlock(m), 0);
    EQ(pthread_mutex_unlock(m), EPERM);
    EQ(trylock_in_thread(m), 0);
    mutual_exclusion(m, 4, 5000);
}

static void t_errorcheck(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, &a), 0);
    errorcheck_on(&m);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutex_t s = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    errorcheck_on(&s);
    pthread_mutexattr_destroy(&a);
}

static void recursive_on(pthread_mutex_t *m)
{
    EQ(pthread_mutex_unlock(m), EPERM);
    EQ(pthread_mutex_lock(m), 0);
    EQ(pthread_mutex_lock(m), 0);
    EQ(pthread_mutex_trylock(m), 0);
    CHECK(held_fn(m), "recursive mutex not held through clof");
    EQ(trylock_in_thread(m), EBUSY);
    EQ(unlock_in_thread(m), EPERM);
    EQ(pthread_mutex_unlock(m), 0);
    EQ(pthread_mutex_unlock(m), 0);
    EQ(trylock_in_thread(m), EBUSY); /* still held once */
    EQ(pthread_mutex_unlock(m), 0);
    EQ(pthread_mutex_unlock(m), EPERM);
    EQ(trylock_in_thread(m), 0);
    mutual_exclusion(m, 4, 5000);
}

static void t_recursive(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, &a), 0);
    recursive_on(&m);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutex_t s = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    recursive_on(&s);
    pthread_mutexattr_destroy(&a);
}

/* Process-shared: glibc's, untouched -- and correct across processes. */
static void t_pshared(void)
{
    struct shm {
        pthread_mutex_t m;
        long counter;
    } *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED, "mmap");
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    EQ(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
    EQ(pthread_mutex_init(&s->m, &a), 0);
    CHECK(s->m.__data.__kind & 128, "glibc's pshared bit missing: not initialised by glibc");
    EQ(pthread_mutex_lock(&s->m), 0);
    CHECK(!held_fn(&s->m), "a process-shared mutex went through clof");
    EQ(s->m.__data.__owner, syscall(SYS_gettid)); /* glibc's layout */
    EQ(pthread_mutex_unlock(&s->m), 0);
    enum { IT = 20000 };
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    for (int i = 0; i < IT; i++) {
        if (pthread_mutex_lock(&s->m) != 0)
            FAIL("lock");
        long v = s->counter;
        if ((i & 255) == 0)
            sched_yield();
        s->counter = v + 1;
        pthread_mutex_unlock(&s->m);
    }
    if (pid == 0)
        _exit(0);
    int st;
    EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed");
    EQ(s->counter, 2L * IT);
    pthread_mutexattr_destroy(&a);
}

/* Robust: glibc's, with EOWNERDEAD when the owner died. */
static void *lock_and_die(void *p)
{
    pthread_mutex_lock(p);
    return NULL; /* exits holding it */
}
static void t_robust(void)
{
    /* robust mutexes need the kernel's robust futex list, which qemu-user
     * does not emulate (set_robust_list is ENOSYS there: an owner's death
     * never unlocks): glibc's own robust mutex cannot work then */
    void *head;
    size_t len;
    if (syscall(SYS_get_robust_list, 0, &head, &len) != 0 && errno == ENOSYS)
        SKIP("no robust futex list (get_robust_list: ENOSYS; an emulator?)");
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    EQ(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
    pthread_mutex_t m;
    EQ(pthread_mutex_init(&m, &a), 0);
    join(spawn(lock_and_die, &m));
    EQ(pthread_mutex_lock(&m), EOWNERDEAD);
    CHECK(!held_fn(&m), "a robust mutex went through clof");
    EQ(pthread_mutex_consistent(&m), 0);
    EQ(pthread_mutex_unlock(&m), 0);
    EQ(pthread_mutex_lock(&m), 0);
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    EQ(pthread_mutex_destroy(&m), 0);
    /* priority inheritance: glibc's as well */
    pthread_mutexattr_init(&a);
    EQ(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0);
    EQ(pthread_mutex_init(&m, &a), 0);
    EQ(pthread_mutex_lock(&m), 0);
    CHECK(!held_fn(&m), "a priority-inheritance mutex went through clof");
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    EQ(pthread_mutex_destroy(&m), 0);
    pthread_mutexattr_destroy(&a);
}

/* Unlock by another thread than the locker (normal mutex; glibc allows it). */
static void t_oblivious(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    for (int i = 0; i < 200; i++) {
        EQ(pthread_mutex_lock(&m), 0);
        EQ(unlock_in_thread(&m), 0);
        EQ(trylock_in_thread(&m), 0);
    }
    mutual_exclusion(&m, 4, 2000);
}

/* Hand-over-hand: locks released in another order than taken. */
enum { HOH_N = 32 };
static pthread_mutex_t hoh_m[HOH_N];
static long hoh_count[HOH_N];
static void *hoh_worker(void *p)
{
    int rounds = (int)(intptr_t)p;
    for (int r = 0; r < rounds; r++) {
        EQ(pthread_mutex_lock(&hoh_m[0]), 0);
        for (int i = 0; i < HOH_N; i++) {
            hoh_count[i]++;
            if (i + 1 < HOH_N)
                EQ(pthread_mutex_lock(&hoh_m[i + 1]), 0);
            EQ(pthread_mutex_unlock(&hoh_m[i]), 0);
        }
    }
    return NULL;
}
static void t_handoverhand(void)
{
    for (int i = 0; i < HOH_N; i++)
        EQ(pthread_mutex_init(&hoh_m[i], NULL), 0);
    enum { T = 8, R = 1000 };
    pthread_t t[T];
    for (int i = 0; i < T; i++)
        t[i] = spawn(hoh_worker, (void *)(intptr_t)R);
    for (int i = 0; i < T; i++)
        join(t[i]);
    for (int i = 0; i < HOH_N; i++)
        EQ(hoh_count[i], (long)T * R);
    /* and an arbitrary order: take 8, release in a shuffled order */
    int order[8] = {3, 0, 7, 5, 1, 6, 2, 4};
    for (int r = 0; r < 1000; r++) {
        for (int i = 0; i < 8; i++)
            EQ(pthread_mutex_lock(&hoh_m[i]), 0);
        for (int i = 0; i < 8; i++)
            EQ(pthread_mutex_unlock(&hoh_m[order[(i + r) % 8]]), 0);
    }
    for (int i = 0; i < 8; i++)
        EQ(trylock_in_thread(&hoh_m[i]), 0);
}

/* ========================================================================= */
/* 10,000 threads over the process's life                                     */
/* ========================================================================= */
static pthread_mutex_t life_m[3] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER};
static pthread_cond_t life_c = PTHREAD_COND_INITIALIZER;
static long life_count[3];
static void *life_worker(void *p)
{
    (void)p;
    for (int k = 0; k < 3; k++) {
        EQ(pthread_mutex_lock(&life_m[0]), 0);
        EQ(pthread_mutex_lock(&life_m[1]), 0);
        life_count[0]++;
        EQ(pthread_mutex_unlock(&life_m[0]), 0);
        EQ(pthread_mutex_lock(&life_m[2]), 0);
        life_count[1]++;
        EQ(pthread_mutex_unlock(&life_m[1]), 0);
        life_count[2]++;
        pthread_cond_signal(&life_c);
        EQ(pthread_mutex_unlock(&life_m[2]), 0);
    }
    return NULL;
}
static void t_threads_10k(void)
{
    /* under an emulator (CLOF_EMULATOR, a cross build's ctest) a thread
     * costs milliseconds to create: 1,000 threads, 20 waves */
    enum { WAVE = 50 };
    const int TOTAL = getenv("CLOF_EMULATOR") != NULL ? 1000 : 10000;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 * 1024);
    pthread_t t[WAVE];
    for (int done = 0; done < TOTAL; done += WAVE) {
        for (int i = 0; i < WAVE; i++) {
            int r = pthread_create(&t[i], &at, life_worker, NULL);
            if (r != 0)
                FAIL("pthread_create #%d: %s", done + i, strerror(r));
        }
        for (int i = 0; i < WAVE; i++)
            join(t[i]);
    }
    for (int k = 0; k < 3; k++)
        EQ(life_count[k], 3L * TOTAL);
    clof_preload_info_t i = info();
    CHECK(i.threads_seen >= (uint64_t)TOTAL, "only %llu threads seen", (unsigned long long)i.threads_seen);
    /* contexts are recycled: bounded by the threads alive at once */
    CHECK(i.boxes <= 4 * WAVE + 64, "%llu contexts for %d threads alive at a time",
          (unsigned long long)i.boxes, WAVE);
    CHECK(i.threads_live <= 2, "%llu threads still registered", (unsigned long long)i.threads_live);
    pthread_attr_destroy(&at);
}

/* ========================================================================= */
/* condition variables                                                        */
/* ========================================================================= */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    atomic_int waiting, returns;
    int stop;
} cv_t;

static void *cv_waiter(void *p)
{
    cv_t *v = p;
    EQ(pthread_mutex_lock(&v->m), 0);
    atomic_fetch_add(&v->waiting, 1);
    while (!v->stop) {
        EQ(pthread_cond_wait(&v->c, &v->m), 0);
        atomic_fetch_add(&v->returns, 1);
        CHECK(held_fn(&v->m) || !strcmp(info().lock, "glibc"), "mutex not held after the wait");
        break; /* count one return per waiter */
    }
    EQ(pthread_mutex_unlock(&v->m), 0);
    return NULL;
}

/* All waiters are queued once the main thread can take the mutex after
 * each of them announced itself under it. */
static void cv_start(cv_t *v, pthread_t *t, int n)
{
    for (int i = 0; i < n; i++)
        t[i] = spawn(cv_waiter, v);
    await_at_least(&v->waiting, n, 60, "waiters");
    EQ(pthread_mutex_lock(&v->m), 0);
    EQ(pthread_mutex_unlock(&v->m), 0);
}

/* signal wakes one; broadcast wakes all */
static void t_cond_signal(void)
{
    enum { N = 8 };
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    pthread_t t[N];
    cv_start(&v, t, N);
    for (int k = 1; k <= 3; k++) {
        EQ(pthread_cond_signal(&v.c), 0);
        await_at_least(&v.returns, k, 60, "returns after signal");
        sleep_ms(200);
        EQ(atomic_load(&v.returns), k); /* exactly one more */
    }
    EQ(pthread_mutex_lock(&v.m), 0);
    EQ(pthread_cond_signal(&v.c), 0); /* under the mutex too */
    EQ(pthread_mutex_unlock(&v.m), 0);
    await_at_least(&v.returns, 4, 60, "returns after signal");
    sleep_ms(200);
    EQ(atomic_load(&v.returns), 4);
    EQ(pthread_cond_broadcast(&v.c), 0);
    await_at_least(&v.returns, N, 60, "returns after broadcast");
    for (int i = 0; i < N; i++)
        join(t[i]);
    EQ(pthread_cond_signal(&v.c), 0); /* nobody waiting: no effect */
    EQ(pthread_cond_broadcast(&v.c), 0);
    EQ(pthread_cond_destroy(&v.c), 0);
}

static void t_cond_broadcast(void)
{
    enum { N = 32 };
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    EQ(pthread_cond_init(&v.c, NULL), 0);
    pthread_t t[N];
    cv_start(&v, t, N);
    EQ(pthread_cond_broadcast(&v.c), 0);
    await_at_least(&v.returns, N, 60, "returns after broadcast");
    for (int i = 0; i < N; i++)
        join(t[i]);
    EQ(atomic_load(&v.returns), N);
    EQ(pthread_cond_destroy(&v.c), 0);
}

/* Producer/consumer through one cond and one mutex, many rounds. */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t notempty, notfull;
    int buf[8], head, tail, n;
    long sum;
} pc_t;
static void *pc_producer(void *p)
{
    pc_t *q = p;
    for (int i = 1; i <= 20000; i++) {
        pthread_mutex_lock(&q->m);
        while (q->n == 8)
            pthread_cond_wait(&q->notfull, &q->m);
        q->buf[q->tail] = i;
        q->tail = (q->tail + 1) % 8;
        q->n++;
        pthread_cond_signal(&q->notempty);
        pthread_mutex_unlock(&q->m);
    }
    return NULL;
}
static void *pc_consumer(void *p)
{
    pc_t *q = p;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&q->m);
        while (q->n == 0)
            pthread_cond_wait(&q->notempty, &q->m);
        q->sum += q->buf[q->head];
        q->head = (q->head + 1) % 8;
        q->n--;
        pthread_cond_signal(&q->notfull);
        pthread_mutex_unlock(&q->m);
    }
    return NULL;
}
static void t_cond_pc(void)
{
    pc_t q;
    memset(&q, 0, sizeof q);
    pthread_mutex_init(&q.m, NULL);
    pthread_cond_init(&q.notempty, NULL);
    pthread_cond_init(&q.notfull, NULL);
    pthread_t t[4] = {spawn(pc_producer, &q), spawn(pc_producer, &q), spawn(pc_consumer, &q),
                      spawn(pc_consumer, &q)};
    for (int i = 0; i < 4; i++)
        join(t[i]);
    EQ(q.sum, 2L * 20000 * 20001 / 2);
}

/* Timeouts: the deadline is read on the right clock. */
static void timed_wait_check(pthread_cond_t *c, clockid_t clk, int api)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    EQ(pthread_mutex_lock(&m), 0);
    struct timespec abs = ts_in(clk, 0.15);
    double t0 = now_s(CLOCK_MONOTONIC);
    int r = api == 0 ? pthread_cond_timedwait(c, &m, &abs) : pthread_cond_clockwait(c, &m, clk, &abs);
    EQ(r, ETIMEDOUT);
    CHECK(ts_reached(clk, &abs), "returned before the deadline");
    CHECK(now_s(CLOCK_MONOTONIC) - t0 >= 0.149, "did not wait (wrong clock?)");
    CHECK(now_s(CLOCK_MONOTONIC) - t0 < 30, "waited far too long (wrong clock?)");
    CHECK(held_fn(&m), "the mutex is not held after a timed-out wait");
    struct timespec bad = abs;
    bad.tv_nsec = 1000000000L;
    EQ(api == 0 ? pthread_cond_timedwait(c, &m, &bad) : pthread_cond_clockwait(c, &m, clk, &bad),
       EINVAL);
    EQ(pthread_mutex_unlock(&m), 0);
}

static void t_cond_timed(void)
{
    pthread_cond_t c = PTHREAD_COND_INITIALIZER; /* CLOCK_REALTIME */
    timed_wait_check(&c, CLOCK_REALTIME, 0);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    EQ(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
    pthread_cond_t cm;
    EQ(pthread_cond_init(&cm, &a), 0);
    timed_wait_check(&cm, CLOCK_MONOTONIC, 0);
    /* clockwait: its own clock, whatever the cond's */
    timed_wait_check(&c, CLOCK_MONOTONIC, 1);
    timed_wait_check(&c, CLOCK_REALTIME, 1);
    timed_wait_check(&cm, CLOCK_REALTIME, 1);
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    struct timespec abs = ts_in(CLOCK_MONOTONIC, 1);
    EQ(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &abs), EINVAL);
    pthread_mutex_unlock(&m);
    EQ(pthread_cond_destroy(&cm), 0);
    pthread_condattr_destroy(&a);
}

/* A timed waiter that is signalled returns 0 before its deadline, and a
 * signal racing with timeouts is never lost. */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int tickets, got;
    atomic_int done;
} tk_t;
static void *tk_waiter(void *p)
{
    tk_t *k = p;
    pthread_mutex_lock(&k->m);
    for (;;) {
        while (k->tickets == 0) {
            struct timespec abs = ts_in(CLOCK_REALTIME, 0.0003);
            int r = pthread_cond_timedwait(&k->c, &k->m, &abs);
            CHECK(r == 0 || r == ETIMEDOUT, "timedwait returned %d", r);
        }
        if (k->tickets < 0)
            break;
        k->tickets--;
        k->got++;
    }
    pthread_mutex_unlock(&k->m);
    return NULL;
}
/* a waiter that takes tickets without timeouts, until cancelled */
static void tk_unlock(void *p)
{
    pthread_mutex_unlock(p);
}
static void *tk_cancel_waiter(void *p)
{
    tk_t *k = p;
    pthread_mutex_lock(&k->m);
    pthread_cleanup_push(tk_unlock, &k->m);
    for (;;) {
        while (k->tickets == 0)
            pthread_cond_wait(&k->c, &k->m);
        if (k->tickets < 0)
            break;
        k->tickets--;
        k->got++;
    }
    pthread_cleanup_pop(1);
    return NULL;
}

static void t_cond_timed_signal(void)
{
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    struct timespec abs = ts_in(CLOCK_REALTIME, 60);
    pthread_t w = spawn(cv_waiter, &v);
    await_at_least(&v.waiting, 1, 60, "waiter");
    pthread_mutex_lock(&v.m);
    pthread_cond_signal(&v.c);
    pthread_mutex_unlock(&v.m);
    join(w);
    CHECK(!ts_reached(CLOCK_REALTIME, &abs), "signalled wait ran to its deadline");
    EQ(atomic_load(&v.returns), 1);

    /* tickets: 4 waiters with tiny timeouts, 20000 signals; every ticket
     * is taken (a lost signal would leave one) */
    tk_t k;
    memset(&k, 0, sizeof k);
    pthread_mutex_init(&k.m, NULL);
    pthread_cond_init(&k.c, NULL);
    pthread_t ws[4];
    for (int i = 0; i < 4; i++)
        ws[i] = spawn(tk_waiter, &k);
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&k.m);
        k.tickets++;
        pthread_cond_signal(&k.c);
        pthread_mutex_unlock(&k.m);
        if ((i & 15) == 0)
            sched_yield();
    }
    double end = now_s(CLOCK_MONOTONIC) + 60;
    for (;;) {
        pthread_mutex_lock(&k.m);
        int left = k.tickets;
        if (left == 0)
            k.tickets = -1;
        pthread_cond_broadcast(&k.c);
        pthread_mutex_unlock(&k.m);
        if (left == 0)
            break;
        if (now_s(CLOCK_MONOTONIC) > end)
            FAIL("%d tickets never taken", left);
        sleep_ms(1);
    }
    for (int i = 0; i < 4; i++)
        join(ws[i]);
    EQ(k.got, 20000);
}

/* The woken waiter destroys and frees the cond at once. */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int flag;
} dz_t;
static void *dz_signaller(void *p)
{
    dz_t *d = p;
    pthread_mutex_lock(&d->m);
    d->flag = 1;
    pthread_cond_signal(&d->c);
    pthread_mutex_unlock(&d->m);
    return NULL;
}
static void t_cond_destroy(void)
{
    for (int i = 0; i < 2000; i++) {
        dz_t *d = xmalloc(sizeof *d);
        pthread_mutex_init(&d->m, NULL);
        pthread_cond_init(&d->c, NULL);
        pthread_mutex_lock(&d->m);
        pthread_t t = spawn(dz_signaller, d);
        while (!d->flag)
            EQ(pthread_cond_wait(&d->c, &d->m), 0);
        pthread_mutex_unlock(&d->m);
        EQ(pthread_cond_destroy(&d->c), 0);
        join(t);
        EQ(pthread_mutex_destroy(&d->m), 0);
        free(d);
    }
}

/* Cancelling a thread blocked in pthread_cond_wait: its cleanup runs with
 * the mutex held; the mutex is then free, and signals still work. */
static atomic_int cancel_cleanup_held;
static void cancel_cleanup(void *p)
{
    pthread_mutex_t *m = p;
    atomic_store(&cancel_cleanup_held, held_fn(m) ? 1 : 2);
    pthread_mutex_unlock(m);
}
static void *cancel_waiter(void *p)
{
    cv_t *v = p;
    pthread_mutex_lock(&v->m);
    pthread_cleanup_push(cancel_cleanup, &v->m);
    atomic_fetch_add(&v->waiting, 1);
    for (;;)
        pthread_cond_wait(&v->c, &v->m);
    pthread_cleanup_pop(1);
    return NULL;
}
static void t_cond_cancel(void)
{
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    pthread_t t = spawn(cancel_waiter, &v);
    await_at_least(&v.waiting, 1, 60, "waiter");
    EQ(pthread_mutex_lock(&v.m), 0); /* it is queued and asleep (soon) */
    EQ(pthread_mutex_unlock(&v.m), 0);
    sleep_ms(50);
    EQ(pthread_cancel(t), 0);
    void *ret;
    EQ(pthread_join(t, &ret), 0);
    CHECK(ret == PTHREAD_CANCELED, "the thread was not cancelled");
    EQ(atomic_load(&cancel_cleanup_held), 1); /* cleanup ran holding the mutex */
    EQ(trylock_in_thread(&v.m), 0);
    /* the cancelled waiter left the queue: a new one gets the next signal */
    pthread_t w = spawn(cv_waiter, &v);
    await_at_least(&v.waiting, 2, 60, "waiter");
    EQ(pthread_mutex_lock(&v.m), 0);
    EQ(pthread_cond_signal(&v.c), 0);
    EQ(pthread_mutex_unlock(&v.m), 0);
    join(w);
    EQ(atomic_load(&v.returns), 1);

    /* cancellations racing with signals: the queue stays sound (a node
     * left behind would be a dangling stack address), no signal is lost
     * for the waiters that stay */
    tk_t k;
    memset(&k, 0, sizeof k);
    pthread_mutex_init(&k.m, NULL);
    pthread_cond_init(&k.c, NULL);
    pthread_t stay[2] = {spawn(tk_waiter, &k), spawn(tk_waiter, &k)};
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        pthread_t cw = spawn(tk_cancel_waiter, &k);
        for (int i = 0; i < 3; i++) {
            pthread_mutex_lock(&k.m);
            k.tickets++;
            pthread_cond_signal(&k.c);
            pthread_mutex_unlock(&k.m);
        }
        seed = seed * 1103515245u + 12345u;
        if (seed & 1)
            sleep_ms((int)(seed >> 16) % 3);
        EQ(pthread_cancel(cw), 0);
        EQ(pthread_join(cw, NULL), 0);
    }
    double end = now_s(CLOCK_MONOTONIC) + 60;
    for (;;) { /* the two that stay take every ticket left */
        pthread_mutex_lock(&k.m);
        int left = k.tickets;
        if (left == 0)
            k.tickets = -1;
        pthread_cond_broadcast(&k.c);
        pthread_mutex_unlock(&k.m);
        if (left == 0)
            break;
        if (now_s(CLOCK_MONOTONIC) > end)
            FAIL("%d tickets never taken", left);
        sleep_ms(1);
    }
    join(stay[0]);
    join(stay[1]);
    EQ(trylock_in_thread(&k.m), 0);
}

/* cond waits with recursive, errorcheck and robust (glibc's) mutexes */
typedef struct {
    pthread_mutex_t *m;
    pthread_cond_t *c;
    int *flag;
} sig_arg_t;
static void *sig_after_lock(void *p)
{
    sig_arg_t *s = p;
    EQ(pthread_mutex_lock(s->m), 0); /* possible only if the waiter released it fully */
    *s->flag = 1;
    EQ(pthread_cond_signal(s->c), 0);
    EQ(pthread_mutex_unlock(s->m), 0);
    return NULL;
}
static void t_cond_types(void)
{
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    /* recursive, held twice: wait releases it, and gives back both levels */
    pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    int flag = 0;
    EQ(pthread_mutex_lock(&r), 0);
    EQ(pthread_mutex_lock(&r), 0);
    sig_arg_t s = {&r, &c, &flag};
    pthread_t t = spawn(sig_after_lock, &s);
    while (!flag)
        EQ(pthread_cond_wait(&c, &r), 0);
    join(t);
    EQ(pthread_mutex_unlock(&r), 0);
    EQ(trylock_in_thread(&r), EBUSY);
    EQ(pthread_mutex_unlock(&r), 0);
    EQ(pthread_mutex_unlock(&r), EPERM);
    /* errorcheck, not held: EPERM */
    pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    struct timespec abs = ts_in(CLOCK_REALTIME, 5);
    EQ(pthread_cond_timedwait(&c, &e, &abs), EPERM);
    flag = 0;
    EQ(pthread_mutex_lock(&e), 0);
    s.m = &e;
    t = spawn(sig_after_lock, &s);
    while (!flag)
        EQ(pthread_cond_wait(&c, &e), 0);
    join(t);
    EQ(pthread_mutex_unlock(&e), 0);
    /* robust (glibc's mutex, our cond) */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_t rb;
    EQ(pthread_mutex_init(&rb, &a), 0);
    flag = 0;
    EQ(pthread_mutex_lock(&rb), 0);
    s.m = &rb;
    t = spawn(sig_after_lock, &s);
    while (!flag)
        EQ(pthread_cond_wait(&c, &rb), 0);
    join(t);
    EQ(pthread_mutex_unlock(&rb), 0);
    pthread_mutexattr_destroy(&a);
}

/* Process-shared cond + mutex: glibc's, across processes. */
static void t_cond_pshared(void)
{
    struct shm {
        pthread_mutex_t m;
        pthread_cond_t c;
        int flag;
    } *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED, "mmap");
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    pthread_mutexattr_init(&ma);
    pthread_condattr_init(&ca);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    EQ(pthread_mutex_init(&s->m, &ma), 0);
    EQ(pthread_cond_init(&s->c, &ca), 0);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        sleep_ms(100);
        pthread_mutex_lock(&s->m);
        s->flag = 1;
        pthread_cond_signal(&s->c);
        pthread_mutex_unlock(&s->m);
        _exit(0);
    }
    EQ(pthread_mutex_lock(&s->m), 0);
    while (!s->flag)
        EQ(pthread_cond_wait(&s->c, &s->m), 0);
    EQ(pthread_mutex_unlock(&s->m), 0);
    int st;
    EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed");
    /* a process-shared cond with a clof (private) mutex: spurious wake-ups only */
    pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&pm);
    struct timespec abs = ts_in(CLOCK_REALTIME, 0.05);
    int r;
    while ((r = pthread_cond_timedwait(&s->c, &pm, &abs)) == 0)
        ;
    EQ(r, ETIMEDOUT);
    CHECK(held_fn(&pm), "mutex not held after the wait");
    pthread_mutex_unlock(&pm);
}

/* ========================================================================= */
/* fork                                                                       */
/* ========================================================================= */
static pthread_mutex_t fork_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fork_c = PTHREAD_COND_INITIALIZER;
static atomic_int fork_stop;
static long fork_count;
static void fork_prepare(void) { pthread_mutex_lock(&fork_m); }
static void fork_release(void) { pthread_mutex_unlock(&fork_m); }
static void *fork_hammer(void *p)
{
    (void)p;
    while (!atomic_load(&fork_stop)) {
        pthread_mutex_lock(&fork_m);
        fork_count++;
        if ((fork_count & 7) == 0) {
            struct timespec abs = ts_in(CLOCK_REALTIME, 0.0002);
            pthread_cond_timedwait(&fork_c, &fork_m, &abs);
        }
        pthread_mutex_unlock(&fork_m);
    }
    return NULL;
}
static void *fork_child_worker(void *p)
{
    (void)p;
    for (int i = 0; i < 2000; i++) {
        EQ(pthread_mutex_lock(&fork_m), 0);
        fork_count++;
        EQ(pthread_mutex_unlock(&fork_m), 0);
        EQ(pthread_mutex_lock(&static_m), 0);
        EQ(pthread_mutex_unlock(&static_m), 0);
    }
    return NULL;
}
static void *fork_cond_waiter(void *p)
{
    (void)p;
    EQ(pthread_mutex_lock(&fork_m), 0);
    while (fork_count != -1)
        EQ(pthread_cond_wait(&fork_c, &fork_m), 0);
    EQ(pthread_mutex_unlock(&fork_m), 0);
    return NULL;
}

/* In the child, only the forking thread exists: every mutex it held,
 * possibly with the parent's other threads queued in it, must work. */
static void fork_child_body(void)
{
    alarm(30);
    fork_count = 0;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        t[i] = spawn(fork_child_worker, NULL);
    for (int i = 0; i < 4; i++)
        join(t[i]);
    EQ(fork_count, 4 * 2000);
    /* the cond of the parent (whose waiters are gone) still signals ours */
    pthread_t w = spawn(fork_cond_waiter, NULL);
    sleep_ms(20);
    EQ(pthread_mutex_lock(&fork_m), 0);
    fork_count = -1;
    EQ(pthread_cond_signal(&fork_c), 0);
    EQ(pthread_mutex_unlock(&fork_m), 0);
    join(w);
    _exit(0);
}

static void wait_child(pid_t pid, const char *what)
{
    int st;
    double end = now_s(CLOCK_MONOTONIC) + 60;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (now_s(CLOCK_MONOTONIC) > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            FAIL("%s: the child hung", what);
        }
        sleep_ms(2);
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        FAIL("%s: the child failed (status %#x)", what, st);
}

static void t_fork(void)
{
    /* qemu-user (7.2) aborts inside itself on this fork of a multi-threaded
     * program ("assertion failed: (cpu == current_cpu)"), with glibc's
     * locks as with ours: not something a test of ours can pass there */
    if (getenv("CLOF_EMULATOR") != NULL)
        SKIP("under an emulator (CLOF_EMULATOR): qemu-user aborts on fork of threaded programs");
    /* 1: the forking thread holds the mutex, other threads queue in it */
    pthread_atfork(fork_prepare, fork_release, fork_release);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        t[i] = spawn(fork_hammer, NULL);
    for (int k = 0; k < 20; k++) {
        sleep_ms(5);
        pid_t pid = fork();
        CHECK(pid >= 0, "fork");
        if (pid == 0)
            fork_child_body();
        wait_child(pid, "fork with queued waiters");
    }
    atomic_store(&fork_stop, 1);
    for (int i = 0; i < 4; i++)
        join(t[i]);
    /* 2: held across fork without atfork: the child unlocks it */
    EQ(pthread_mutex_lock(&static_m), 0);
    pid_t pid = fork();
    if (pid == 0) {
        EQ(pthread_mutex_unlock(&static_m), 0);
        EQ(pthread_mutex_lock(&static_m), 0);
        EQ(pthread_mutex_unlock(&static_m), 0);
        mutual_exclusion(&static_m, 4, 2000);
        _exit(0);
    }
    wait_child(pid, "fork holding a mutex");
    EQ(pthread_mutex_unlock(&static_m), 0);
    /* 3: a child of a child */
    pid = fork();
    if (pid == 0) {
        pid_t g = fork();
        if (g == 0) {
            mutual_exclusion(&static_m, 4, 2000);
            _exit(0);
        }
        wait_child(g, "grandchild");
        _exit(0);
    }
    wait_child(pid, "child of a child");
}

/* ========================================================================= */
/* SCHED_FIFO                                                                 */
/* ========================================================================= */
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
static void t_sched_fifo(void)
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

/* ========================================================================= */
/* configuration, statistics, symbols                                          */
/* ========================================================================= */
static const char *self_exe;

/* Exec this program again.  Under a user-mode emulator without binfmt_misc
 * (a cross build's ctest runs us under qemu-aarch64, docs/arm.md) the target
 * binary cannot be exec'd directly: CLOF_EMULATOR names the emulator's
 * command (words separated by spaces), and LD_PRELOAD is handed to the
 * emulated program (qemu's -E) instead of the host's loader. */
static void exec_self(const char *test)
{
    const char *emu = getenv("CLOF_EMULATOR");
    if (emu == NULL || *emu == 0) {
        execl(self_exe, self_exe, test, (char *)NULL);
        return;
    }
    static char words[1024], preload[4096];
    char *argv[32];
    int n = 0;
    snprintf(words, sizeof words, "%s", emu);
    for (char *w = strtok(words, " "); w != NULL && n < 26; w = strtok(NULL, " "))
        argv[n++] = w;
    const char *pl = getenv("LD_PRELOAD");
    if (pl != NULL) {
        snprintf(preload, sizeof preload, "LD_PRELOAD=%s", pl);
        argv[n++] = (char *)"-E";
        argv[n++] = preload;
        unsetenv("LD_PRELOAD");
    }
    argv[n++] = (char *)self_exe;
    argv[n++] = (char *)test;
    argv[n] = NULL;
    execvp(argv[0], argv);
}

/* Run this program again with `env` changes, capture stderr. */
static int run_self(const char *test, const char *lock, const char *stats, char *err, size_t errsz)
{
    int pfd[2];
    CHECK(pipe(pfd) == 0, "pipe");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        if (lock)
            setenv("CLOF_LOCK", lock, 1);
        else
            unsetenv("CLOF_LOCK");
        if (stats)
            setenv("CLOF_STATS", stats, 1);
        else
            unsetenv("CLOF_STATS");
        exec_self(test);
        _exit(127);
    }
    close(pfd[1]);
    size_t n = 0;
    ssize_t r;
    while ((r = read(pfd[0], err + n, errsz - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = 0;
    close(pfd[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* the child of t_stats: a known number of acquisitions */
static void t_stats_child(void)
{
    expect_lock(NULL);
    mutual_exclusion(&static_m, 4, 2500);
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&static_m);
        pthread_mutex_unlock(&static_m);
    }
    pthread_mutex_t ms[10];
    for (int i = 0; i < 10; i++) {
        pthread_mutex_init(&ms[i], NULL);
        pthread_mutex_lock(&ms[i]);
        pthread_mutex_unlock(&ms[i]);
    }
    exit(0);
}

static unsigned long long field(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    if (!p)
        FAIL("'%s' not in the statistics line: %s", key, s);
    return strtoull(p + strlen(key), NULL, 10);
}

static void t_stats(void)
{
    char err[8192];
    const char *lock = getenv("CLOF_LOCK");
    EQ(run_self("stats_child", lock, "1", err, sizeof err), 0);
    printf("%s", err);
    EQ(count_lines(err), 1);
    char want[64];
    snprintf(want, sizeof want, "lock=%s ", info().lock);
    CHECK(strstr(err, want), "no '%s' in: %s", want, err);
    unsigned long long acq = field(err, "acquisitions="), rep = field(err, "locks_replaced=");
    CHECK(acq >= 4 * 2500 + 1000 + 10 && acq < 4 * 2500 + 1000 + 10 + 100,
          "acquisitions=%llu, expected 11010 (+ a few)", acq);
    CHECK(rep >= 11, "locks_replaced=%llu, expected at least 11", rep);
    field(err, "contended=");
    field(err, "parks=");
    field(err, "handovers[system]=");
    /* statistics off: silent */
    EQ(run_self("stats_child", lock, "0", err, sizeof err), 0);
    EQ(strlen(err), 0);
    EQ(run_self("stats_child", lock, NULL, err, sizeof err), 0);
    EQ(strlen(err), 0);
}

/* the child of t_config: runs on glibc, silently from here on */
static void t_glibc_child(void)
{
    expect_lock("glibc");
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    EQ(pthread_mutex_lock(&m), 0);
    CHECK(!held_fn(&m), "glibc mode, yet held through clof");
    EQ(m.__data.__lock, 1); /* glibc's lock word */
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    pthread_t t[2];
    cv_start(&v, t, 2);
    pthread_cond_broadcast(&v.c);
    join(t[0]);
    join(t[1]);
    exit(0);
}

static void t_config(void)
{
    char err[8192];
    EQ(run_self("glibc_child", "bogus-lock", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=bogus-lock: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "bogus-lock") && strstr(err, "unknown"), "message does not name the problem");
    CHECK(strstr(err, "mcs") && strstr(err, "clh") && strstr(err, "hemlock") && strstr(err, "ticket"),
          "message does not list the known locks");
    CHECK(strstr(err, "glibc"), "message does not say it runs on glibc");
    CHECK(strstr(err, "hmcs") && strstr(err, "cna") && strstr(err, "c-bo-mcs") &&
              strstr(err, "c-tkt-tkt") && strstr(err, "c-ptl-tkt") && strstr(err, "a-c-bo-bo") &&
              strstr(err, "clof:<"),
          "message does not list the NUMA locks");
    /* a withdrawn lock (pl_internal.h, PL_WITHDRAWN_NAMES) is not listed,
     * and naming it runs the program on glibc with one line saying why */
    CHECK(!strstr(err, "a-c-bo-clh"), "the withdrawn a-c-bo-clh is listed");
    unsetenv("CLOF_ALLOW_WITHDRAWN");
    EQ(run_self("glibc_child", "a-c-bo-clh", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=a-c-bo-clh: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "a-c-bo-clh") && strstr(err, "withdrawn") && strstr(err, "glibc"),
          "the withdrawn lock is not refused with its reason");
    EQ(run_self("glibc_child", "asl:a-c-bo-clh", NULL, err, sizeof err), 0);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "withdrawn"), "asl: over the withdrawn lock is not refused");
    /* asl:<lock>, LibASL's reorderable lock over any lock: an unknown base
     * is reported like an unknown lock; the base may be spelled any way
     * CLOF_LOCK accepts */
    EQ(run_self("glibc_child", "asl:mcss", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=asl:mcss: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "asl:mcss") && strstr(err, "unknown") && strstr(err, "asl:<"),
          "bad asl: base not reported with the known names");
    EQ(run_self("asl_child", "asl:clof:ticket-mcs", NULL, err, sizeof err), 0);
    EQ(strlen(err), 0);
    EQ(run_self("glibc_child", "clof:tkt-foo", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=clof:tkt-foo: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "clof:tkt-foo") && strstr(err, "composition"), "bad composition not reported");
    /* a bad hierarchy for a NUMA lock: one line, glibc's locks */
    setenv("CLOF_TOPOLOGY", "/nonexistent/hierarchy.topo", 1);
    EQ(run_self("glibc_child", "hmcs", NULL, err, sizeof err), 0);
    unsetenv("CLOF_TOPOLOGY");
    printf("stderr with CLOF_LOCK=hmcs CLOF_TOPOLOGY=/nonexistent/...: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "/nonexistent/hierarchy.topo") && strstr(err, "glibc"),
          "bad hierarchy file not reported");
    const char *emu = getenv("CLOF_EMULATE");
    setenv("CLOF_EMULATE", "numa:2,nonsense", 1);
    EQ(run_self("glibc_child", "clof:tkt-mcs-clh", NULL, err, sizeof err), 0);
    if (emu)
        setenv("CLOF_EMULATE", emu, 1);
    else
        unsetenv("CLOF_EMULATE");
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "nonsense") && strstr(err, "glibc"), "bad emulated hierarchy not reported");
    /* spellings of the same composition */
    EQ(run_self("comp_child", "clof:ticket-mcs-hemlock", NULL, err, sizeof err), 0);
    EQ(strlen(err), 0);
    EQ(run_self("glibc_child", "glibc", NULL, err, sizeof err), 0);
    EQ(strlen(err), 0); /* asked for: no message */
    /* a bad CLOF_STATS: one line, the lock still runs */
    const char *lock = getenv("CLOF_LOCK");
    EQ(run_self("stats_child", lock, "maybe", err, sizeof err), 0);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "CLOF_STATS"), "message does not name CLOF_STATS");
    /* CLOF_LOCK unset: the default lock, silently */
    EQ(run_self("default_child", NULL, NULL, err, sizeof err), 0);
    EQ(strlen(err), 0);
}
static void t_comp_child(void)
{
    expect_lock("clof:tkt-mcs-hem");
    mutual_exclusion(&static_m, 4, 2000);
    exit(0);
}
static void t_asl_child(void)
{
    expect_lock("asl:clof:tkt-mcs");
    mutual_exclusion(&static_m, 4, 2000);
    exit(0);
}
static void t_default_child(void)
{
    info_fn = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    CHECK(info_fn, "not loaded");
    CHECK(strcmp(info().lock, "glibc") != 0, "no lock by default");
    exit(0);
}

/* Symbol versions: every version glibc has resolves to the library, and
 * calls through the old ones are interposed. */
static void t_symbols(void)
{
    /* glibc's versions: its first on the architecture (x86-64 2.2.5,
     * aarch64 2.17), the condition variables' new ABI (x86-64 only: aarch64
     * began with it), 2.30 and 2.34 (tests/preload/symvers.sh compares the
     * whole version table with glibc's) */
#if defined(__aarch64__)
#define PL_BASE "GLIBC_2.17"
#define PL_COND PL_BASE
#else
#define PL_BASE "GLIBC_2.2.5"
#define PL_COND "GLIBC_2.3.2"
#endif
    static const struct {
        const char *name, *version;
    } syms[] = {
        {"pthread_mutex_lock", PL_BASE},         {"pthread_mutex_unlock", PL_BASE},
        {"pthread_mutex_init", PL_BASE},         {"pthread_mutex_destroy", PL_BASE},
        {"pthread_mutex_trylock", "GLIBC_2.34"}, {"pthread_mutex_trylock", PL_BASE},
        {"pthread_mutex_timedlock", "GLIBC_2.34"}, {"pthread_mutex_timedlock", PL_BASE},
        {"pthread_mutex_clocklock", "GLIBC_2.34"}, {"pthread_mutex_clocklock", "GLIBC_2.30"},
        {"pthread_cond_init", PL_COND},          {"pthread_cond_destroy", PL_COND},
        {"pthread_cond_wait", PL_COND},          {"pthread_cond_timedwait", PL_COND},
        {"pthread_cond_signal", PL_COND},        {"pthread_cond_broadcast", PL_COND},
#if !defined(__aarch64__)
        {"pthread_cond_init", "GLIBC_2.2.5"},      {"pthread_cond_destroy", "GLIBC_2.2.5"},
        {"pthread_cond_wait", "GLIBC_2.2.5"},      {"pthread_cond_timedwait", "GLIBC_2.2.5"},
        {"pthread_cond_signal", "GLIBC_2.2.5"},    {"pthread_cond_broadcast", "GLIBC_2.2.5"},
#endif
        {"pthread_cond_clockwait", "GLIBC_2.34"},  {"pthread_cond_clockwait", "GLIBC_2.30"},
        {"__pthread_mutex_lock", PL_BASE},       {"__pthread_mutex_unlock", PL_BASE},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *p = dlvsym(RTLD_DEFAULT, syms[i].name, syms[i].version);
        CHECK(p, "%s@%s not found", syms[i].name, syms[i].version);
        Dl_info di;
        CHECK(dladdr(p, &di) && di.dli_fname, "dladdr");
        CHECK(strstr(di.dli_fname, "libclof-preload"), "%s@%s resolves to %s, not the preload library",
              syms[i].name, syms[i].version, di.dli_fname);
    }
    /* the default (unversioned) lookup */
    void *p = dlsym(RTLD_DEFAULT, "pthread_cond_wait");
    Dl_info di;
    CHECK(p && dladdr(p, &di) && strstr(di.dli_fname, "libclof-preload"), "pthread_cond_wait default");
    /* calls through the old versions (this binary links them, pl_oldabi.c) */
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    EQ(compat_pthread_mutex_lock(&m), 0);
    CHECK(held_fn(&m), "__pthread_mutex_lock@" PL_BASE " not interposed");
    EQ(trylock_in_thread(&m), EBUSY);
    EQ(old_mutex_trylock(&m), EBUSY);
    EQ(compat_pthread_mutex_unlock(&m), 0);
    EQ(old_mutex_trylock(&m), 0);
    CHECK(held_fn(&m), "pthread_mutex_trylock@" PL_BASE " not interposed");
    EQ(pthread_mutex_unlock(&m), 0);
    pthread_cond_t c;
    EQ(old_cond_init(&c, NULL), 0);
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    (void)v;
    EQ(pthread_mutex_lock(&m), 0);
    struct timespec abs = ts_in(CLOCK_REALTIME, 0.05);
    EQ(pthread_cond_timedwait(&c, &m, &abs), ETIMEDOUT); /* new-ABI wait on an old-ABI init: same object */
    EQ(old_cond_signal(&c), 0);
    EQ(old_cond_broadcast(&c), 0);
    EQ(pthread_mutex_unlock(&m), 0);
    EQ(old_cond_destroy(&c), 0);
}

/* A library constructor that runs before ours uses mutexes and conds
 * (libpl_early.so, preloaded after libclof-preload.so). */
static void t_early(void)
{
    int (*early)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "pl_early_result");
    if (!early)
        FAIL("libpl_early.so not loaded (LD_PRELOAD=libclof-preload.so:libpl_early.so)");
    int r = early();
    CHECK(r == 1, "the early constructor's mutex was not held through clof (result %d)", r);
    CHECK(info().early_start, "the library was configured by its own constructor: "
                              "the early constructor did not run first");
}

/* ========================================================================= */
/* LibASL: CLOF_LOCK=asl:<lock> (include/clof/asl.h)                          */
/* ========================================================================= */
typedef void (*epoch_start_fn)(int);
typedef void (*epoch_end_fn)(int, uint64_t);
typedef uint64_t (*window_fn)(int);
typedef uint64_t (*cur_window_fn)(void);
typedef void (*core_type_fn)(int);
static core_type_fn asl_set_core_type;

/* a symbol of the library itself (not of a libclof.so beside it) */
static void *lib_sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    CHECK(p, "%s is not exported", name);
    Dl_info a, b;
    CHECK(dladdr(p, &a) && dladdr((void *)info_fn, &b), "dladdr");
    CHECK(strcmp(a.dli_fname, b.dli_fname) == 0, "%s resolves to %s, not to %s", name,
          a.dli_fname, b.dli_fname);
    return p;
}

/* The epoch calls of the program reach the preloaded layer: on a little
 * core an epoch that always misses its SLO drives its window to 0 (the
 * lock then falls back to the base's FIFO acquire), one that meets it makes
 * it grow again; a big core adjusts nothing. */
static void t_asl_epochs(void)
{
    epoch_start_fn start = (epoch_start_fn)lib_sym("clof_epoch_start");
    epoch_end_fn end = (epoch_end_fn)lib_sym("clof_epoch_end");
    window_fn win = (window_fn)lib_sym("clof_asl_epoch_window");
    cur_window_fn cur = (cur_window_fn)lib_sym("clof_asl_current_window");
    asl_set_core_type = (core_type_fn)lib_sym("clof_asl_set_thread_core_type");
    asl_set_core_type(1); /* CLOF_CORE_LITTLE */
    start(5);
    EQ(pthread_mutex_lock(&static_m), 0);
    EQ(pthread_mutex_unlock(&static_m), 0);
    uint64_t w0 = win(5);
    CHECK(w0 > 0, "an epoch's first window is 0");
    EQ(cur(), w0); /* inside the epoch: its window */
    end(5, 0);     /* an impossible SLO: halved */
    uint64_t w1 = win(5);
    CHECK(w1 == w0 / 2, "window %llu after a miss, expected %llu", (unsigned long long)w1,
          (unsigned long long)(w0 / 2));
    for (int i = 0; i < 64; i++) {
        start(5);
        EQ(pthread_mutex_lock(&static_m), 0);
        EQ(pthread_mutex_unlock(&static_m), 0);
        end(5, 0);
    }
    EQ(win(5), 0);
    start(5);
    mutual_exclusion(&static_m, 3, 2000); /* window 0 here: FIFO acquire */
    end(5, 60ull * 1000000000ull);        /* met: grows */
    CHECK(win(5) > 0, "the window did not grow after an epoch met its SLO");
    /* a big core does not adjust */
    asl_set_core_type(0);
    uint64_t wb = win(5);
    start(5);
    end(5, 0);
    EQ(win(5), wb);
    asl_set_core_type(-1);
}

/* tids of the reorder test's threads, their state from /proc */
typedef struct {
    int little;
    char label;
    atomic_int tid;
    char *order;
    atomic_int *pos;
} ro_arg_t;
static void *ro_worker(void *p)
{
    ro_arg_t *a = p;
    asl_set_core_type(a->little ? 1 : 0);
    atomic_store(&a->tid, (int)syscall(SYS_gettid));
    EQ(pthread_mutex_lock(&static_m), 0);
    a->order[atomic_fetch_add(a->pos, 1)] = a->label;
    EQ(pthread_mutex_unlock(&static_m), 0);
    return NULL;
}
static char task_state(int tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *e = strrchr(buf, ')'); /* "tid (comm) S ..." */
    return e && e[1] == ' ' ? e[2] : '?';
}
static void await_sleeping(int tid, const char *who)
{
    double end = now_s(CLOCK_MONOTONIC) + 60;
    while (task_state(tid) != 'S') {
        if (now_s(CLOCK_MONOTONIC) > end)
            FAIL("%s never went to sleep in pthread_mutex_lock", who);
        sleep_ms(1);
    }
}
/* One round: the main thread holds the mutex; thread 1 (little or big)
 * calls lock, then thread 2 (big) does and sleeps in the queue; the main
 * thread releases.  Returns the order in which they got the mutex. */
static void reorder_round(int first_little, char order[3])
{
    atomic_int pos = 0;
    ro_arg_t a1 = {first_little, first_little ? 'L' : '1', 0, order, &pos};
    ro_arg_t a2 = {0, '2', 0, order, &pos};
    order[0] = order[1] = order[2] = 0;
    EQ(pthread_mutex_lock(&static_m), 0);
    pthread_t t1 = spawn(ro_worker, &a1);
    await_at_least(&a1.tid, 1, 60, "thread 1 started");
    if (!first_little)
        await_sleeping(a1.tid, "the big thread 1"); /* queued first */
    else
        sleep_ms(20); /* standing by, outside the queue */
    pthread_t t2 = spawn(ro_worker, &a2);
    await_at_least(&a2.tid, 1, 60, "thread 2 started");
    await_sleeping(a2.tid, "the big thread 2");
    EQ(pthread_mutex_unlock(&static_m), 0);
    join(t1);
    join(t2);
}
/* LibASL's reordering, through pthread_mutex_lock: a little-core thread
 * outside any epoch stands by for its (long) window outside the queue, so a
 * big-core thread that came later but queued gets the mutex first; two big
 * threads keep the base lock's FIFO order.  (For FIFO base locks.) */
static void t_asl_reorder(void)
{
    asl_set_core_type = (core_type_fn)lib_sym("clof_asl_set_thread_core_type");
    asl_set_core_type(0);
    char order[3];
    reorder_round(1, order);
    CHECK(strcmp(order, "2L") == 0,
          "order %s: the later big thread 2 should have got the mutex before the standing-by "
          "little thread L", order);
    reorder_round(0, order);
    CHECK(strcmp(order, "12") == 0, "order %s: two big threads out of FIFO order", order);
}

/* ========================================================================= */
static const struct {
    const char *name;
    void (*fn)(void);
    int self_check; /* 0: expect CLOF_LOCK, 1: the test checks itself */
} tests[] = {
    {"mutex_static", t_mutex_static, 0},
    {"static_many", t_static_many, 0},
    {"mutex_init", t_mutex_init, 0},
    {"trylock", t_trylock, 0},
    {"timedlock", t_timedlock, 0},
    {"mixed", t_mixed, 0},
    {"errorcheck", t_errorcheck, 0},
    {"recursive", t_recursive, 0},
    {"pshared", t_pshared, 0},
    {"robust", t_robust, 0},
    {"oblivious", t_oblivious, 0},
    {"handoverhand", t_handoverhand, 0},
    {"threads_10k", t_threads_10k, 0},
    {"cond_signal", t_cond_signal, 0},
    {"cond_broadcast", t_cond_broadcast, 0},
    {"cond_pc", t_cond_pc, 0},
    {"cond_timed", t_cond_timed, 0},
    {"cond_timed_signal", t_cond_timed_signal, 0},
    {"cond_destroy", t_cond_destroy, 0},
    {"cond_cancel", t_cond_cancel, 0},
    {"cond_types", t_cond_types, 0},
    {"cond_pshared", t_cond_pshared, 0},
    {"fork", t_fork, 0},
    {"sched_fifo", t_sched_fifo, 0},
    {"stats", t_stats, 0},
    {"config", t_config, 0},
    {"symbols", t_symbols, 0},
    {"early", t_early, 0},
    {"stats_child", t_stats_child, 1},
    {"glibc_child", t_glibc_child, 1},
    {"default_child", t_default_child, 1},
    {"comp_child", t_comp_child, 1},
    {"asl_child", t_asl_child, 1},
    {"asl_epochs", t_asl_epochs, 0},
    {"asl_reorder", t_asl_reorder, 0},
};

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: watchdog: the test hung\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc != 2) {
        fprintf(stderr, "usage: %s TEST\ntests:", argv[0]);
        for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
            fprintf(stderr, " %s", tests[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    self_exe = argv[0];
    signal(SIGALRM, on_alarm);
    alarm(120);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (strcmp(argv[1], tests[i].name) != 0)
            continue;
        test_name = tests[i].name;
        if (!tests[i].self_check)
            expect_lock(NULL);
        tests[i].fn();
        printf("PASS %s (CLOF_LOCK=%s)\n", test_name, getenv("CLOF_LOCK") ? getenv("CLOF_LOCK") : "");
        return 0;
    }
    fprintf(stderr, "unknown test %s\n", argv[1]);
    return 2;
}
