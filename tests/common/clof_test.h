/* SPDX-License-Identifier: MIT */
/*
 * tests/common/clof_test.h -- the helpers every lock test shares: failing
 * with a message, the watchdog that turns a hang into a failure, and the
 * critical section whose invariant (LINES cache lines that always hold the
 * same value) breaks when two threads are inside at once.
 *
 *   clof_test_name(fmt, ...)     what a failure message names (lock, test)
 *   clof_test_fail(what)         "FAIL <name>: <what>" on stderr, exit(1)
 *   CLOF_TEST_CHECK(cond, fmt, ...)  fail with a formatted message
 *   clof_test_watchdog(s, code, msg)  after s seconds: msg, _exit(code)
 *   clof_test_line_t, clof_test_critical(lines, n, yield_inside)
 *                                the invariant: check, then increment all
 *
 * Header-only, static functions (a test uses what it needs); plain C11 and
 * POSIX, no clof header (the preload tests are ordinary pthread programs).
 */
#ifndef CLOF_TEST_H
#define CLOF_TEST_H

#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char clof_test_name_[256];

__attribute__((format(printf, 1, 2), unused)) static void
clof_test_name(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(clof_test_name_, sizeof clof_test_name_, fmt, ap);
    va_end(ap);
}

__attribute__((noreturn, unused)) static void clof_test_fail(const char *what)
{
    if (clof_test_name_[0])
        fprintf(stderr, "FAIL %s: %s\n", clof_test_name_, what);
    else
        fprintf(stderr, "FAIL: %s\n", what);
    exit(1);
}

#define CLOF_TEST_CHECK(c, ...)                                                \
    do {                                                                       \
        if (!(c)) {                                                            \
            char m_[512];                                                      \
            snprintf(m_, sizeof m_, __VA_ARGS__);                              \
            clof_test_fail(m_);                                                \
        }                                                                      \
    } while (0)

static const char *clof_test_watchdog_msg_ = "FAIL: watchdog expired (hang)\n";
static int clof_test_watchdog_code_ = 1;

static void clof_test_on_alarm_(int sig)
{
    (void)sig;
    const char *m = clof_test_watchdog_msg_;
    if (write(2, m, strlen(m)) < 0) {
    }
    _exit(clof_test_watchdog_code_);
}

/* A hang is a failure, not a stuck CI: after `seconds`, write msg (NULL: the
 * default) and exit with `code`. */
__attribute__((unused)) static void
clof_test_watchdog(unsigned seconds, int code, const char *msg)
{
    if (msg)
        clof_test_watchdog_msg_ = msg;
    clof_test_watchdog_code_ = code;
    signal(SIGALRM, clof_test_on_alarm_);
    alarm(seconds);
}

/* One cache line of protected data. */
typedef struct {
    volatile uint64_t v;
    char pad[64 - sizeof(uint64_t)];
} __attribute__((aligned(64))) clof_test_line_t;

/* The critical section: every line holds the same value (else two threads
 * are inside: fail), then every line is incremented.  With `yield_inside`,
 * the thread yields half-way through the increments (the lines disagree
 * meanwhile: widens the window for a second thread).  Returns the value
 * found. */
__attribute__((unused)) static uint64_t
clof_test_critical(clof_test_line_t *d, int n, int yield_inside)
{
    uint64_t v0 = d[0].v;
    for (int k = 1; k < n; k++)
        if (d[k].v != v0)
            clof_test_fail("mutual exclusion: invariant broken inside the "
                           "critical section");
    for (int k = 0; k < n; k++) {
        d[k].v = v0 + 1;
        if (yield_inside && k == 0)
            sched_yield();
    }
    return v0;
}

#endif /* CLOF_TEST_H */
