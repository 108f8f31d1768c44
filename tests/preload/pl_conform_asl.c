/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_asl.c -- conformance tests of libclof-preload.so: LibASL: CLOF_LOCK=asl:<lock>
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

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
void t_asl_epochs(void)
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
void t_asl_reorder(void)
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
