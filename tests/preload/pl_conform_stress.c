/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_stress.c -- conformance tests of libclof-preload.so: waits
 * interrupted by signals, and cancellation of condition waits, stressed
 * (pl_conform.h; run as pl_conform TEST).  The fork stress test is in
 * pl_conform_fork.c, the rwlock ones in pl_conform_rwlock.c.
 *
 *   sig_waits      threads blocked in pthread_mutex_lock, _timedlock,
 *                  pthread_cond_wait and _timedwait get SIGUSR2 (a handler
 *                  without SA_RESTART, so every futex sleep returns EINTR)
 *                  from the main thread every ~100 us: every handler runs,
 *                  no wait returns an error (POSIX allows no EINTR there),
 *                  a plain counter adds up, every ticket is taken
 *   cancel_stress  50 rounds of 3 threads blocked in pthread_cond_wait or
 *                  _timedwait, at the head of the queue, cancelled while
 *                  tickets are posted: each cleanup handler runs holding the
 *                  mutex (an errorcheck mutex's unlock says EPERM
 *                  otherwise), the mutex is free afterwards, and no signal
 *                  is lost to a cancellation: the tickets left are taken by
 *                  the waiter queued behind them with no further signal
 * A watchdog of 30 s fails a hang (SIGALRM, not the ctest timeout).
 */
#include "pl_conform.h"

#include "clof_test.h"

static void stress_watchdog(void)
{
    static char msg[160];
    snprintf(msg, sizeof msg, "FAIL %s: watchdog: hung for 30 s\n", test_name);
    clof_test_watchdog(30, 1, msg);
}

/* ---- sig_waits ---------------------------------------------------------------------- */
enum { SW_LOCK0, SW_LOCK1, SW_TIMED0, SW_TIMED1, SW_WAIT, SW_TWAIT, SW_PRODUCER, SW_N };

static _Thread_local long sw_mine; /* handler runs in this thread */
static atomic_long sw_handled;
static void sw_handler(int s)
{
    int e = errno;
    (void)s;
    sw_mine++;
    atomic_fetch_add_explicit(&sw_handled, 1, memory_order_relaxed);
    errno = e;
}

static struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    atomic_int inside;
    long counter; /* plain: a lost mutual exclusion loses increments */
    long tickets, posted, taken;
    atomic_int stop;
} sw = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0};

typedef struct {
    int role;
    long mine, signals;
} sw_arg_t;

static void sleep_us(long us)
{
    struct timespec d = {0, us * 1000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
}

/* the critical section: alone, a counter, sometimes a sleep inside so that
 * the others block */
static void sw_cs(sw_arg_t *a)
{
    CHECK(atomic_exchange(&sw.inside, 1) == 0, "two threads inside the mutex");
    sw.counter++;
    a->mine++;
    if ((a->mine & 3) == 0)
        sleep_us(100);
    atomic_store(&sw.inside, 0);
}

static void *sw_thread(void *p)
{
    sw_arg_t *a = p;
    while (!atomic_load(&sw.stop)) {
        int r;
        switch (a->role) {
        case SW_TIMED0:
        case SW_TIMED1: {
            struct timespec abs = ts_in(a->role == SW_TIMED0 ? CLOCK_REALTIME : CLOCK_MONOTONIC, 20);
            r = a->role == SW_TIMED0 ? pthread_mutex_timedlock(&sw.m, &abs)
                                     : pthread_mutex_clocklock(&sw.m, CLOCK_MONOTONIC, &abs);
            CHECK(r == 0, "pthread_mutex_%slock returned %d (%s) with a 20 s deadline",
                  a->role == SW_TIMED0 ? "timed" : "clock", r, strerror(r));
            break;
        }
        case SW_PRODUCER:
            EQ(pthread_mutex_lock(&sw.m), 0);
            sw.tickets++;
            sw.posted++;
            EQ(pthread_cond_signal(&sw.c), 0);
            EQ(pthread_mutex_unlock(&sw.m), 0);
            sleep_us(50);
            EQ(pthread_mutex_lock(&sw.m), 0);
            break;
        case SW_WAIT:
        case SW_TWAIT:
            EQ(pthread_mutex_lock(&sw.m), 0);
            while (sw.tickets == 0 && !atomic_load(&sw.stop)) {
                if (a->role == SW_WAIT) {
                    r = pthread_cond_wait(&sw.c, &sw.m);
                } else {
                    struct timespec abs = ts_in(CLOCK_REALTIME, 20);
                    r = pthread_cond_timedwait(&sw.c, &sw.m, &abs);
                }
                /* a spurious wake-up is a 0 (the loop re-checks); an error is not */
                CHECK(r == 0, "pthread_cond_%swait returned %d (%s)",
                      a->role == SW_WAIT ? "" : "timed", r, strerror(r));
                CHECK(held_fn(&sw.m) || !strcmp(info().lock, "glibc"),
                      "mutex not held after the wait");
            }
            if (sw.tickets > 0) {
                sw.tickets--;
                sw.taken++;
            }
            break;
        default:
            EQ(pthread_mutex_lock(&sw.m), 0);
            break;
        }
        sw_cs(a);
        EQ(pthread_mutex_unlock(&sw.m), 0);
    }
    a->signals = sw_mine;
    return NULL;
}

void t_sig_waits(void)
{
    stress_watchdog();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sw_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: interrupted futex sleeps return EINTR */
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
    pthread_t t[SW_N];
    sw_arg_t a[SW_N];
    for (int i = 0; i < SW_N; i++) {
        a[i] = (sw_arg_t){i, 0, 0};
        t[i] = spawn(sw_thread, &a[i]);
    }
    double end = now_s(CLOCK_MONOTONIC) + 0.6;
    long sent = 0;
    while (now_s(CLOCK_MONOTONIC) < end) {
        for (int i = 0; i < SW_N; i++) {
            EQ(pthread_kill(t[i], SIGUSR2), 0);
            sent++;
        }
        sleep_us(100);
    }
    EQ(pthread_mutex_lock(&sw.m), 0);
    atomic_store(&sw.stop, 1);
    EQ(pthread_cond_broadcast(&sw.c), 0);
    EQ(pthread_mutex_unlock(&sw.m), 0);
    long sum = 0;
    for (int i = 0; i < SW_N; i++) {
        join(t[i]);
        sum += a[i].mine;
        CHECK(a[i].signals > 0, "thread %d (role %d) never ran the handler", i, a[i].role);
    }
    printf("%ld signals sent, %ld handled; %ld critical sections, %ld tickets posted, %ld taken\n",
           sent, atomic_load(&sw_handled), sum, sw.posted, sw.taken);
    EQ(sw.counter, sum);
    EQ(sw.taken + sw.tickets, sw.posted);
    CHECK(atomic_load(&sw_handled) > 0, "no handler ran");
    for (int i = 0; i < SW_N; i++)
        CHECK(a[i].mine > 0, "thread %d (role %d) never entered", i, a[i].role);
    EQ(trylock_in_thread(&sw.m), 0);
}

/* ---- cancel_stress --------------------------------------------------------------------- */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int errorcheck;
    atomic_int inside;
    long tickets, taken;
    int stop;
    atomic_int cleanups, bad_cleanups, waiting;
} cs_t;

static void cs_cleanup(void *p)
{
    cs_t *k = p;
    /* POSIX: the mutex is held again before the cleanup handlers run */
    if (!k->errorcheck && !held_fn(&k->m) && strcmp(info().lock, "glibc") != 0)
        atomic_fetch_add(&k->bad_cleanups, 1);
    if (atomic_exchange(&k->inside, 1) != 0)
        atomic_fetch_add(&k->bad_cleanups, 1);
    atomic_store(&k->inside, 0);
    atomic_fetch_add(&k->cleanups, 1);
    if (pthread_mutex_unlock(&k->m) != 0) /* EPERM: errorcheck, not held */
        atomic_fetch_add(&k->bad_cleanups, 1);
}

/* take tickets until cancelled (kind 0: cond_wait, 1: cond_timedwait) or,
 * for the waiters that stay (kind 2, 3), until stop */
typedef struct {
    cs_t *k;
    int kind;
} cs_arg_t;
static void *cs_waiter(void *p)
{
    cs_arg_t *a = p;
    cs_t *k = a->k;
    EQ(pthread_mutex_lock(&k->m), 0);
    pthread_cleanup_push(cs_cleanup, k);
    atomic_fetch_add(&k->waiting, 1);
    for (;;) {
        while (k->tickets == 0 && !k->stop) {
            int r;
            if ((a->kind & 1) == 0) {
                r = pthread_cond_wait(&k->c, &k->m);
            } else {
                struct timespec abs = ts_in(CLOCK_REALTIME, 20);
                r = pthread_cond_timedwait(&k->c, &k->m, &abs);
            }
            CHECK(r == 0, "pthread_cond_%swait returned %d (%s)", (a->kind & 1) ? "timed" : "",
                  r, strerror(r));
        }
        if (k->tickets == 0)
            break; /* stop */
        CHECK(atomic_exchange(&k->inside, 1) == 0, "two threads inside the mutex");
        k->tickets--;
        k->taken++;
        atomic_store(&k->inside, 0);
    }
    pthread_cleanup_pop(0);
    EQ(pthread_mutex_unlock(&k->m), 0);
    return NULL;
}

/* Each round: three victims queue first, then one waiter that stays; 1-3
 * tickets are posted with a signal each and the victims cancelled at once
 * (or after up to 0.5 ms): a FIFO condition variable hands those signals to
 * the victims, so a victim is often cancelled after a signal chose it and
 * before it woke.  Then, with no further signal, the waiter that stayed must
 * take every ticket left: a signal a cancelled victim consumed and did not
 * pass on would leave a ticket and the waiter asleep. */
static void cancel_rounds(int errorcheck)
{
    cs_t k;
    memset(&k, 0, sizeof k);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    if (errorcheck)
        pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
    EQ(pthread_mutex_init(&k.m, &ma), 0);
    pthread_mutexattr_destroy(&ma);
    EQ(pthread_cond_init(&k.c, NULL), 0);
    k.errorcheck = errorcheck;
    unsigned seed = 777u + (unsigned)errorcheck;
    long posted = 0;
    enum { ROUNDS = 25, VICTIMS = 3 };
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t v[VICTIMS];
        cs_arg_t va[VICTIMS], sa = {&k, 2 + (round & 1)};
        for (int i = 0; i < VICTIMS; i++) {
            va[i] = (cs_arg_t){&k, (round + i) & 1};
            v[i] = spawn(cs_waiter, &va[i]);
            /* queued in this order: announced under the mutex, released it */
            await_at_least(&k.waiting, round * (VICTIMS + 1) + i + 1, 20, "victims waiting");
            EQ(pthread_mutex_lock(&k.m), 0);
            EQ(pthread_mutex_unlock(&k.m), 0);
        }
        pthread_t stay = spawn(cs_waiter, &sa);
        await_at_least(&k.waiting, (round + 1) * (VICTIMS + 1), 20, "waiter");
        EQ(pthread_mutex_lock(&k.m), 0);
        EQ(pthread_mutex_unlock(&k.m), 0);
        seed = seed * 1103515245u + 12345u;
        int n = 1 + (int)(seed >> 16) % 3;
        for (int i = 0; i < n; i++) { /* tickets racing the cancellations */
            EQ(pthread_mutex_lock(&k.m), 0);
            k.tickets++;
            posted++;
            EQ(pthread_cond_signal(&k.c), 0);
            EQ(pthread_mutex_unlock(&k.m), 0);
        }
        if (seed & 0x100)
            sleep_us((seed >> 20) % 500);
        for (int i = 0; i < VICTIMS; i++)
            EQ(pthread_cancel(v[i]), 0);
        for (int i = 0; i < VICTIMS; i++) {
            void *ret;
            EQ(pthread_join(v[i], &ret), 0);
            CHECK(ret == PTHREAD_CANCELED, "a victim was not cancelled");
        }
        EQ(atomic_load(&k.cleanups), (round + 1) * VICTIMS);
        EQ(atomic_load(&k.bad_cleanups), 0);
        double end = now_s(CLOCK_MONOTONIC) + 5;
        for (;;) { /* no further signal */
            EQ(pthread_mutex_lock(&k.m), 0);
            long left = k.tickets;
            EQ(pthread_mutex_unlock(&k.m), 0);
            if (left == 0)
                break;
            if (now_s(CLOCK_MONOTONIC) > end)
                FAIL("round %d: %ld of %d tickets never taken: a wake-up was lost to a "
                     "cancellation", round, left, n);
            sleep_ms(1);
        }
        EQ(pthread_mutex_lock(&k.m), 0);
        k.stop = 1;
        EQ(pthread_cond_broadcast(&k.c), 0);
        EQ(pthread_mutex_unlock(&k.m), 0);
        join(stay);
        EQ(trylock_in_thread(&k.m), 0); /* free after the cleanups */
        k.stop = 0;
    }
    EQ(k.taken, posted);
    EQ(pthread_cond_destroy(&k.c), 0);
    EQ(pthread_mutex_destroy(&k.m), 0);
    printf("%s mutex: %d cancellations, %ld tickets posted and taken\n",
           errorcheck ? "errorcheck" : "default", ROUNDS * VICTIMS, posted);
}

void t_cancel_stress(void)
{
    stress_watchdog();
    cancel_rounds(0);
    cancel_rounds(1);
}

/* ---- async_cancel_lock ------------------------------------------------------------
 * A thread with asynchronous cancellation on blocks in pthread_mutex_lock of
 * a mutex the main thread holds, and is cancelled there (the Open POSIX
 * suite's pthread_mutex_init/1-2 and 3-2 do this; POSIX leaves it undefined,
 * glibc survives it).  Its cleanup handler runs; the main thread's unlock
 * returns, and the mutex is free and usable afterwards (a queue lock that
 * kept the cancelled waiter's node stayed locked, or Hemlock's release
 * waited for it forever).  20 rounds, under the watchdog. */
static pthread_mutex_t ac_m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int ac_started, ac_cleaned;
static void ac_cleanup(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ac_cleaned, 1);
}
static void *ac_thread(void *arg)
{
    (void)arg;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    pthread_cleanup_push(ac_cleanup, NULL);
    atomic_fetch_add(&ac_started, 1);
    pthread_mutex_lock(&ac_m); /* held by main: cancelled while waiting */
    pthread_mutex_unlock(&ac_m);
    pthread_cleanup_pop(0);
    return NULL;
}
void t_async_cancel_lock(void)
{
    stress_watchdog();
    for (int round = 0; round < 20; round++) {
        atomic_store(&ac_started, 0);
        atomic_store(&ac_cleaned, 0);
        EQ(pthread_mutex_lock(&ac_m), 0);
        pthread_t t = spawn(ac_thread, NULL);
        while (atomic_load(&ac_started) == 0)
            sleep_ms(1);
        sleep_ms(5); /* let it wait in the lock */
        EQ(pthread_cancel(t), 0);
        void *ret;
        EQ(pthread_join(t, &ret), 0);
        CHECK(ret == PTHREAD_CANCELED, "round %d: the thread was not cancelled", round);
        EQ(atomic_load(&ac_cleaned), 1);
        EQ(pthread_mutex_unlock(&ac_m), 0);
        EQ(pthread_mutex_trylock(&ac_m), 0); /* free again */
        EQ(pthread_mutex_unlock(&ac_m), 0);
    }
    printf("ok %s: 20 waiters cancelled asynchronously in pthread_mutex_lock, the mutex "
           "free after each\n", test_name);
}
