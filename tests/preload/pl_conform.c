/* SPDX-License-Identifier: MIT */
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
 *
 * This file: the table of tests and main.  The tests, by area:
 *   pl_conform_mutex.c     mutual exclusion
 *   pl_conform_timed.c     trylock, timedlock, clocklock
 *   pl_conform_types.c     mutex types
 *   pl_conform_threads.c   10,000 threads over the process's life
 *   pl_conform_cond.c      condition variables
 *   pl_conform_fork.c      fork
 *   pl_conform_stress.c    signals interrupting waits, cancellation, stressed
 *   pl_conform_sched.c     SCHED_FIFO: waiters park; the order of real-time waiters
 *   pl_conform_config.c    configuration, statistics, symbols
 *   pl_conform_asl.c       LibASL: CLOF_LOCK=asl:<lock>
 */
#include "pl_conform.h"

#include "clof_test.h"

const char *test_name = "?";
clof_preload_info_fn info_fn;
clof_preload_mutex_held_fn held_fn;
const char *self_exe;

static const struct {
    const char *name;
    void (*fn)(void);
    int self_check; /* 0: expect CLOF_LOCK, 1: the test checks itself */
} tests[] = {
    {"mutex_static", t_mutex_static, 0},
    {"static_many", t_static_many, 0},
    {"mutex_init", t_mutex_init, 0},
    {"mutex_moved", t_mutex_moved, 0},
    {"trylock", t_trylock, 0},
    {"timedlock", t_timedlock, 0},
    {"mixed", t_mixed, 0},
    {"errorcheck", t_errorcheck, 0},
    {"recursive", t_recursive, 0},
    {"cr_number", t_cr_number, 0},
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
    {"fork_stress", t_fork_stress, 0},
    {"sig_waits", t_sig_waits, 0},
    {"cancel_stress", t_cancel_stress, 0},
    {"async_cancel_lock", t_async_cancel_lock, 0},
    {"sched_fifo", t_sched_fifo, 0},
    {"sched_order", t_sched_order, 0},
    {"oom", t_oom, 0},
    {"stats", t_stats, 0},
    {"config", t_config, 0},
    {"symbols", t_symbols, 0},
    {"early", t_early, 0},
    {"stats_child", t_stats_child, 1},
    {"glibc_child", t_glibc_child, 1},
    {"glibc_adaptive", t_glibc_adaptive, 0},
    {"default_child", t_default_child, 1},
    {"comp_child", t_comp_child, 1},
    {"asl_child", t_asl_child, 1},
    {"asl_epochs", t_asl_epochs, 0},
    {"asl_reorder", t_asl_reorder, 0},
};

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
    clof_test_watchdog(120, 1, "FAIL: watchdog: the test hung\n");
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
