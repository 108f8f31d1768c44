/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_config.c -- conformance tests of libclof-preload.so: configuration, statistics, symbols
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

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
void t_stats_child(void)
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

void t_stats(void)
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

/* two waiters on a condition variable, woken by a broadcast */
static void cv_two_waiters(cv_t *v)
{
    pthread_t t[2];
    cv_start(v, t, 2);
    pthread_cond_broadcast(&v->c);
    join(t[0]);
    join(t[1]);
}

/* the child of t_config: runs on glibc, silently from here on */
void t_glibc_child(void)
{
    expect_lock("glibc");
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    EQ(pthread_mutex_lock(&m), 0);
    CHECK(!held_fn(&m), "glibc mode, yet held through clof");
    EQ(m.__data.__lock, 1); /* glibc's lock word */
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    cv_two_waiters(&v);
    exit(0);
}

/* CLOF_LOCK=glibc-adaptive: glibc's own mutexes, every default one made
 * PTHREAD_MUTEX_ADAPTIVE_NP before glibc sees it (a static one at its first
 * lock, an initialised one at its init), every other kind left as it is */
void t_glibc_adaptive(void)
{
    expect_lock("glibc-adaptive");
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    EQ(m.__data.__kind, PTHREAD_MUTEX_TIMED_NP);
    EQ(pthread_mutex_lock(&m), 0);
    EQ(m.__data.__kind, PTHREAD_MUTEX_ADAPTIVE_NP);
    CHECK(!held_fn(&m), "glibc-adaptive, yet held through clof");
    EQ(m.__data.__lock, 1); /* glibc's lock word */
    EQ(pthread_mutex_trylock(&m), EBUSY);
    EQ(pthread_mutex_unlock(&m), 0);
    mutual_exclusion(&m, 4, 5000);
    pthread_mutex_t d;
    EQ(pthread_mutex_init(&d, NULL), 0);
    EQ(d.__data.__kind, PTHREAD_MUTEX_ADAPTIVE_NP);
    EQ(pthread_mutex_destroy(&d), 0);
    /* the other kinds keep their semantics */
    pthread_mutexattr_t a;
    EQ(pthread_mutexattr_init(&a), 0);
    EQ(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK), 0);
    pthread_mutex_t e;
    EQ(pthread_mutex_init(&e, &a), 0);
    EQ(pthread_mutex_lock(&e), 0);
    EQ(pthread_mutex_lock(&e), EDEADLK);
    EQ(e.__data.__kind, PTHREAD_MUTEX_ERRORCHECK_NP);
    EQ(pthread_mutex_unlock(&e), 0);
    EQ(pthread_mutex_unlock(&e), EPERM);
    EQ(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE), 0);
    pthread_mutex_t r;
    EQ(pthread_mutex_init(&r, &a), 0);
    EQ(pthread_mutex_lock(&r), 0);
    EQ(pthread_mutex_lock(&r), 0);
    EQ(r.__data.__kind, PTHREAD_MUTEX_RECURSIVE_NP);
    EQ(pthread_mutex_unlock(&r), 0);
    EQ(pthread_mutex_unlock(&r), 0);
    pthread_mutex_t r2 = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    EQ(pthread_mutex_lock(&r2), 0);
    EQ(pthread_mutex_lock(&r2), 0);
    EQ(r2.__data.__kind, PTHREAD_MUTEX_RECURSIVE_NP);
    EQ(pthread_mutex_unlock(&r2), 0);
    EQ(pthread_mutex_unlock(&r2), 0);
    EQ(pthread_mutexattr_destroy(&a), 0);
    /* a condition variable over an adaptive mutex */
    cv_t v = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    cv_two_waiters(&v);
    EQ(v.m.__data.__kind, PTHREAD_MUTEX_ADAPTIVE_NP);
}

void t_config(void)
{
    char err[8192];
    EQ(run_self("glibc_child", "bogus-lock", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=bogus-lock: %s", err);
    EQ(count_lines(err), 1);
    /* one short line, the key phrase first, where to see every name
     * (docs/locks.md) */
    static const char key[] = "clof-preload: running on glibc's pthread mutexes";
    CHECK(strncmp(err, key, sizeof key - 1) == 0,
          "the key phrase is not first: %s", err);
    CHECK(strstr(err, "bogus-lock") && strstr(err, "unknown") && strstr(err, "clof locks"),
          "message does not name the problem and where to see the names");
    CHECK(strlen(err) <= 200, "message of %zu characters", strlen(err));
    EQ(run_self("glibc_child", "mcss", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=mcss: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "did you mean mcs"), "no did-you-mean: %s", err);
    CHECK(strlen(err) <= 200, "message of %zu characters", strlen(err));
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
    CHECK(strstr(err, "asl:mcss") && strstr(err, "unknown") && strstr(err, "did you mean asl:mcs"),
          "bad asl: base not reported with the closest names");
    EQ(run_self("asl_child", "asl:clof:ticket-mcs", NULL, err, sizeof err), 0);
    EQ(strlen(err), 0);
    EQ(run_self("glibc_child", "clof:tkt-foo", NULL, err, sizeof err), 0);
    printf("stderr with CLOF_LOCK=clof:tkt-foo: %s", err);
    EQ(count_lines(err), 1);
    CHECK(strstr(err, "clof:tkt-foo") && strstr(err, "unknown") && strstr(err, "did you mean tkt-"),
          "bad composition not reported");
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
    EQ(run_self("comp_child", "tkt-mcs-hem", NULL, err, sizeof err), 0); /* without clof: */
    EQ(strlen(err), 0);
    EQ(run_self("comp_child", "CLOF:Tkt-MCS-hemlock_ctr", NULL, err, sizeof err), 0);
    EQ(strlen(err), 0);
    EQ(run_self("asl_child", "ASL:tkt-mcs", NULL, err, sizeof err), 0);
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
void t_comp_child(void)
{
    expect_lock("tkt-mcs-hem"); /* clof:ticket-mcs-hemlock spelled canonically */
    mutual_exclusion(&static_m, 4, 2000);
    exit(0);
}
void t_asl_child(void)
{
    expect_lock("asl:tkt-mcs");
    mutual_exclusion(&static_m, 4, 2000);
    exit(0);
}
void t_default_child(void)
{
    info_fn = (clof_preload_info_fn)dlsym(RTLD_DEFAULT, "clof_preload_info");
    CHECK(info_fn, "not loaded");
    CHECK(strcmp(info().lock, "glibc") != 0, "no lock by default");
    exit(0);
}

/* Symbol versions: every version glibc has resolves to the library, and
 * calls through the old ones are interposed. */
void t_symbols(void)
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
void t_early(void)
{
    int (*early)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "pl_early_result");
    if (!early)
        FAIL("libpl_early.so not loaded (LD_PRELOAD=libclof-preload.so:libpl_early.so)");
    int r = early();
    CHECK(r == 1, "the early constructor's mutex was not held through clof (result %d)", r);
    CHECK(info().early_start, "the library was configured by its own constructor: "
                              "the early constructor did not run first");
}
