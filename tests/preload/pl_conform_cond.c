/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_cond.c -- conformance tests of libclof-preload.so: condition variables
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

void *cv_waiter(void *p)
{
    cv_t *v = p;
    EQ(pthread_mutex_lock(&v->m), 0);
    atomic_fetch_add(&v->waiting, 1);
    while (!v->stop) {
        EQ(pthread_cond_wait(&v->c, &v->m), 0);
        atomic_fetch_add(&v->returns, 1);
        CHECK(held_fn(&v->m) || !strncmp(info().lock, "glibc", 5), "mutex not held after the wait");
        break; /* count one return per waiter */
    }
    EQ(pthread_mutex_unlock(&v->m), 0);
    return NULL;
}

/* All waiters are queued once the main thread can take the mutex after
 * each of them announced itself under it. */
void cv_start(cv_t *v, pthread_t *t, int n)
{
    for (int i = 0; i < n; i++)
        t[i] = spawn(cv_waiter, v);
    await_at_least(&v->waiting, n, 60, "waiters");
    EQ(pthread_mutex_lock(&v->m), 0);
    EQ(pthread_mutex_unlock(&v->m), 0);
}

/* signal wakes one; broadcast wakes all */
void t_cond_signal(void)
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

void t_cond_broadcast(void)
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
void t_cond_pc(void)
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

void t_cond_timed(void)
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

void t_cond_timed_signal(void)
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
void t_cond_destroy(void)
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
void t_cond_cancel(void)
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
void t_cond_types(void)
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
void t_cond_pshared(void)
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
