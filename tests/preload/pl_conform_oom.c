/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_oom.c -- conformance tests of libclof-preload.so: out of
 * memory (pl_conform.h; run as pl_conform oom).
 *
 * Open POSIX pthread_mutex_init/5-1 lowers RLIMIT_AS, allocates what it
 * can, then inits and uses mutexes; the library used to end the process
 * there ("out of memory (mmap failed); aborting") whenever a box, a lock
 * block or a tree had to be mapped.  That test leaves whatever malloc could
 * not use (up to a megabyte), so whether the library found memory was luck;
 * here a child process takes every page of address space under its limit
 * (mmap of single pages until ENOMEM), and then two threads (the second
 * created before) take 64 nested mutexes of each type, contend one mutex
 * with a counter that detects a lost mutual exclusion, wait on a condition
 * variable and take rwlocks.  Nothing may end the process, and every
 * answer must be POSIX's (pthread_mutex_init may say ENOMEM; nothing else
 * may fail).
 */
#include "pl_conform.h"

#define OOM_N 64
#define OOM_ITERS 2000
static pthread_mutex_t oom_m[4][OOM_N];
static pthread_mutex_t oom_shared = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t oom_cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t oom_rw[8];
static volatile long oom_count;
static atomic_int oom_go, oom_signalled;

/* what one thread does once memory is gone */
static void oom_work(int who)
{
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < OOM_N; i++)
            EQ(pthread_mutex_lock(&oom_m[t][i]), 0);
        for (int i = OOM_N; i-- > 0;)
            EQ(pthread_mutex_unlock(&oom_m[t][i]), 0);
    }
    for (int k = 0; k < OOM_ITERS; k++) {
        EQ(pthread_mutex_lock(&oom_shared), 0);
        long c = oom_count;
        if ((k & 63) == 0)
            sched_yield();
        oom_count = c + 1;
        EQ(pthread_mutex_unlock(&oom_shared), 0);
    }
    for (int i = 0; i < 8; i++) {
        EQ(pthread_rwlock_rdlock(&oom_rw[i]), 0);
        EQ(pthread_rwlock_unlock(&oom_rw[i]), 0);
        EQ(pthread_rwlock_wrlock(&oom_rw[i]), 0);
        EQ(pthread_rwlock_unlock(&oom_rw[i]), 0);
    }
    if (who == 1) { /* the second thread signals the first */
        EQ(pthread_mutex_lock(&oom_shared), 0);
        atomic_store(&oom_signalled, 1);
        EQ(pthread_cond_signal(&oom_cv), 0);
        EQ(pthread_mutex_unlock(&oom_shared), 0);
    } else {
        EQ(pthread_mutex_lock(&oom_shared), 0);
        while (!atomic_load(&oom_signalled)) {
            struct timespec ts = ts_in(CLOCK_REALTIME, 0.05);
            int r = pthread_cond_timedwait(&oom_cv, &oom_shared, &ts);
            CHECK(r == 0 || r == ETIMEDOUT, "pthread_cond_timedwait: %d", r);
        }
        EQ(pthread_mutex_unlock(&oom_shared), 0);
    }
}

static void *oom_second(void *p)
{
    (void)p;
    while (!atomic_load(&oom_go))
        sleep_ms(1);
    oom_work(1);
    return NULL;
}

static void oom_child(void)
{
    pthread_t t = spawn(oom_second, NULL);
    /* the limit: what the process maps now and 8 MiB more, then every page
     * of that taken */
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    CHECK(f != NULL && fscanf(f, "%lu", &pages) == 1, "reading /proc/self/statm");
    fclose(f);
    long pg = sysconf(_SC_PAGESIZE);
    struct rlimit rl = {(rlim_t)pages * (rlim_t)pg + (8u << 20), (rlim_t)pages * (rlim_t)pg + (8u << 20)};
    CHECK(setrlimit(RLIMIT_AS, &rl) == 0, "setrlimit: %s", strerror(errno));
    unsigned long taken = 0;
    while (mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED)
        taken++;
    CHECK(taken > 0 && mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
                           MAP_FAILED, "the address space is not full (%lu pages taken)", taken);
    /* mutexes of every type, initialised with memory gone */
    static const int types[4] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
                                 PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_DEFAULT};
    for (int ty = 0; ty < 4; ty++) {
        pthread_mutexattr_t a;
        EQ(pthread_mutexattr_init(&a), 0);
        EQ(pthread_mutexattr_settype(&a, types[ty]), 0);
        for (int i = 0; i < OOM_N; i++) {
            int r = pthread_mutex_init(&oom_m[ty][i], &a);
            CHECK(r == 0 || r == ENOMEM, "pthread_mutex_init: %d", r);
            if (r == ENOMEM) /* POSIX allows it; the test needs the mutex */
                oom_m[ty][i] = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
        }
        pthread_mutexattr_destroy(&a);
    }
    for (int i = 0; i < 8; i++) {
        int r = pthread_rwlock_init(&oom_rw[i], NULL);
        CHECK(r == 0 || r == ENOMEM, "pthread_rwlock_init: %d", r);
        if (r == ENOMEM)
            oom_rw[i] = (pthread_rwlock_t)PTHREAD_RWLOCK_INITIALIZER;
    }
    atomic_store(&oom_go, 1);
    oom_work(0);
    join(t);
    CHECK(oom_count == 2 * OOM_ITERS, "mutual exclusion lost: %ld increments of %d",
          oom_count, 2 * OOM_ITERS);
    for (int ty = 0; ty < 4; ty++)
        for (int i = 0; i < OOM_N; i++)
            EQ(pthread_mutex_destroy(&oom_m[ty][i]), 0);
    _exit(0);
}

void t_oom(void)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0)
        oom_child();
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
    CHECK(!WIFSIGNALED(st), "the child, out of memory, was killed by signal %d", WTERMSIG(st));
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child, out of memory, failed (status %d)",
          WEXITSTATUS(st));
}
