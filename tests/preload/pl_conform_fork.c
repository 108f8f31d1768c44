/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_fork.c -- conformance tests of libclof-preload.so: fork
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

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

void t_fork(void)
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
