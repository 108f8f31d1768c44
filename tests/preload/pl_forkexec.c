/* SPDX-License-Identifier: MIT */
/*
 * tests/preload/pl_forkexec.c -- fork and exec from a threaded program
 * under libclof-preload.so.
 *
 *   LD_PRELOAD=libclof-preload.so CLOF_LOCK=NAME pl_forkexec [ROUNDS]
 *
 * Four threads hammer two mutexes and a condition variable (a counter per
 * mutex, checked at the end) while two other threads -- the main thread and
 * a worker -- fork ROUNDS times each (default 10), each time holding one of
 * the mutexes across the fork.  Every child (only the forking thread exists
 * in it) unlocks the mutex it inherited held, contends on it with two new
 * threads, then execs this program again (`pl_forkexec --child`), which runs
 * under the preloaded library in a fresh image: threads, a mutex and a
 * condition variable, its own counter checked.  Every fourth round the
 * child uses posix_spawn instead of exec (glibc's spawn runs in a vfork-like
 * child).  Every child must exit 0; a child that hangs is killed after 60 s
 * and fails the test.  Exit 0 pass, 1 fail.
 *
 * It is also one of the programs of tests/preload/soak.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* the shared test helpers (tests/common/clof_test.h): FAIL reports
 * "FAIL %s: ..." with the program's name, set first thing in main */
#include "clof_test.h"
#define FAIL(...) CLOF_TEST_CHECK(0, __VA_ARGS__)
#define EQ(a, b)                                                               \
    do {                                                                       \
        long a_ = (long)(a), b_ = (long)(b);                                   \
        if (a_ != b_)                                                          \
            FAIL("%s:%d: %s = %ld, expected %ld", __FILE__, __LINE__, #a, a_, b_); \
    } while (0)

static pthread_mutex_t mx[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long count[2];
static atomic_int stop;
static atomic_long per_thread_done;
static const char *self;

/* ---- a small contention: nthreads x iters on m, counter checked ---- */
typedef struct {
    pthread_mutex_t *m;
    long *counter;
    int iters;
} small_t;

static void *small_worker(void *p)
{
    small_t *s = p;
    for (int i = 0; i < s->iters; i++) {
        EQ(pthread_mutex_lock(s->m), 0);
        long v = *s->counter;
        if ((i & 31) == 0)
            sched_yield();
        *s->counter = v + 1;
        pthread_cond_signal(&cv);
        EQ(pthread_mutex_unlock(s->m), 0);
    }
    return NULL;
}

static void small_contention(pthread_mutex_t *m, long *counter, int nthreads, int iters)
{
    pthread_t t[4];
    small_t s = {m, counter, iters};
    long before;
    EQ(pthread_mutex_lock(m), 0);
    before = *counter;
    EQ(pthread_mutex_unlock(m), 0);
    for (int i = 0; i < nthreads; i++)
        EQ(pthread_create(&t[i], NULL, small_worker, &s), 0);
    for (int i = 0; i < nthreads; i++)
        EQ(pthread_join(t[i], NULL), 0);
    EQ(pthread_mutex_lock(m), 0);
    EQ(*counter, before + (long)nthreads * iters);
    EQ(pthread_mutex_unlock(m), 0);
}

/* the image that an exec'd child runs */
static int child_main(void)
{
    pthread_mutex_t m;
    long c = 0;
    EQ(pthread_mutex_init(&m, NULL), 0);
    small_contention(&m, &c, 3, 2000);
    /* a timed condition wait with a deadline already passed */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    EQ(pthread_mutex_lock(&m), 0);
    EQ(pthread_cond_timedwait(&cv, &m, &ts), ETIMEDOUT);
    EQ(pthread_mutex_unlock(&m), 0);
    EQ(pthread_mutex_destroy(&m), 0);
    return 0;
}

/* ---- the parent: hammering threads ---- */
static void *hammer(void *p)
{
    int k = (int)(long)p;
    long mine = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_mutex_t *m = &mx[k & 1];
        EQ(pthread_mutex_lock(m), 0);
        count[k & 1]++;
        if ((mine & 255) == 0) { /* now and then, wait on the condvar */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            int r = pthread_cond_timedwait(&cv, m, &ts);
            if (r != 0 && r != ETIMEDOUT)
                FAIL("pthread_cond_timedwait: %d", r);
        }
        EQ(pthread_mutex_unlock(m), 0);
        mine++;
        k++;
    }
    atomic_fetch_add(&per_thread_done, mine);
    return NULL;
}

/* Fork holding mx[which]; the child execs or spawns this program again. */
static void fork_once(int which, int round)
{
    EQ(pthread_mutex_lock(&mx[which]), 0);
    pid_t pid = fork();
    if (pid < 0)
        FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        /* only this thread exists here; mx[which] is ours, held */
        count[which]++;
        EQ(pthread_mutex_unlock(&mx[which]), 0);
        small_contention(&mx[which], &count[which], 2, 1000);
        if (round % 4 == 3) {
            pid_t c;
            char *argv[] = {(char *)self, (char *)"--child", NULL};
            if (posix_spawn(&c, self, NULL, NULL, argv, environ) != 0)
                _exit(3);
            int st;
            if (waitpid(c, &st, 0) != c)
                _exit(4);
            _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 5);
        }
        execl(self, self, "--child", (char *)NULL);
        _exit(127);
    }
    count[which]++;
    EQ(pthread_mutex_unlock(&mx[which]), 0);
    int st = 0;
    for (int waited = 0;; waited++) { /* bounded wait: a hung child fails */
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (waited > 60000) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            FAIL("child of round %d (mutex %d) still running after 60 s", round, which);
        }
        usleep(1000);
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        FAIL("child of round %d (mutex %d) ended with status 0x%x", round, which, st);
}

static int rounds = 10;
static atomic_long forks_done;

static void *forker(void *p)
{
    (void)p;
    for (int r = 0; r < rounds; r++) {
        fork_once(1, r);
        atomic_fetch_add(&forks_done, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    clof_test_name("%s", "pl_forkexec");
    self = "/proc/self/exe";
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
        path[n] = 0;
        self = path;
    }
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child_main();
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (rounds < 1)
        rounds = 1;

    pthread_t h[4], f;
    for (long i = 0; i < 4; i++)
        EQ(pthread_create(&h[i], NULL, hammer, (void *)i), 0);
    EQ(pthread_create(&f, NULL, forker, NULL), 0);
    for (int r = 0; r < rounds; r++) {
        fork_once(0, r);
        atomic_fetch_add(&forks_done, 1);
    }
    EQ(pthread_join(f, NULL), 0);
    atomic_store(&stop, 1);
    pthread_cond_broadcast(&cv);
    for (int i = 0; i < 4; i++)
        EQ(pthread_join(h[i], NULL), 0);
    /* every increment of the parent's counters went through the mutexes */
    EQ(count[0] + count[1], atomic_load(&per_thread_done) + atomic_load(&forks_done));
    printf("pl_forkexec: %ld forks (exec and posix_spawn), %ld hammer acquisitions: ok\n",
           atomic_load(&forks_done), atomic_load(&per_thread_done));
    return 0;
}
