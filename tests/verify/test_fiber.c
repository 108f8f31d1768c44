/* SPDX-License-Identifier: MIT */
/*
 * tests/verify/test_fiber.c -- the fiber runtime (fiber/fiber.h): fibers
 * interleave as the scheduler decides, keep their locals across switches,
 * can be restarted on the same stack (also when abandoned half-way), and
 * report when they are done.
 */
#include "fiber.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #c);                                                       \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static char log_[256];
static int nlog;

typedef struct {
    char tag;
    int steps;
    clof_fiber_t *self;
    double acc; /* exercises callee-saved/FP state across switches */
} job_t;

static void worker(void *arg)
{
    job_t *j = (job_t *)arg;
    volatile int local = 1000 * (j->tag - 'a');
    for (int i = 0; i < j->steps; i++) {
        CHECK(clof_fiber_self() == j->self);
        CHECK(clof_fiber_arg(j->self) == j);
        log_[nlog++] = (char)(j->tag + i);
        local += i;
        j->acc = j->acc * 1.5 + i;
        clof_fiber_yield();
    }
    CHECK(local == 1000 * (j->tag - 'a') + j->steps * (j->steps - 1) / 2);
}

static int depth_reached;
static int recurse(int n)
{
    volatile char pad[512];
    memset((char *)pad, n, sizeof pad);
    if (n == 0) {
        clof_fiber_yield();
        return pad[0];
    }
    depth_reached++;
    return recurse(n - 1) + pad[1] - n + 1;
}
static void deep(void *arg)
{
    *(int *)arg = recurse(100);
}

static void forever(void *arg)
{
    int *n = (int *)arg;
    for (;;) {
        (*n)++;
        clof_fiber_yield();
    }
}

int main(void)
{
    CHECK(clof_fiber_self() == NULL);
    job_t a = {'a', 3, NULL, 1}, b = {'k', 2, NULL, 1};
    a.self = clof_fiber_create(worker, &a, 0);
    b.self = clof_fiber_create(worker, &b, 64 * 1024);
    CHECK(a.self && b.self);
    /* the scheduler decides the interleaving: a b a a b (then both end) */
    const char *order = "abaab";
    for (const char *o = order; *o; o++)
        clof_fiber_run(*o == 'a' ? a.self : b.self);
    CHECK(!clof_fiber_done(a.self) && !clof_fiber_done(b.self));
    clof_fiber_run(a.self);
    clof_fiber_run(b.self);
    CHECK(clof_fiber_done(a.self) && clof_fiber_done(b.self));
    log_[nlog] = 0;
    CHECK(strcmp(log_, "akbcl") == 0);
    CHECK(a.acc == ((1 * 1.5 + 0) * 1.5 + 1) * 1.5 + 2);

    /* restart on the same stack, running to completion again */
    nlog = 0;
    a.steps = 4;
    clof_fiber_restart(a.self, worker, &a);
    CHECK(!clof_fiber_done(a.self));
    while (!clof_fiber_done(a.self))
        clof_fiber_run(a.self);
    log_[nlog] = 0;
    CHECK(strcmp(log_, "abcd") == 0);

    /* an abandoned fiber (never finished) restarts cleanly */
    int n = 0;
    clof_fiber_restart(b.self, forever, &n);
    for (int i = 0; i < 5; i++)
        clof_fiber_run(b.self);
    CHECK(n == 5);
    clof_fiber_restart(b.self, forever, &n);
    clof_fiber_run(b.self);
    CHECK(n == 6);

    /* a deep stack (about 60 KiB) yields from the bottom and comes back */
    int r = -1;
    clof_fiber_restart(a.self, deep, &r);
    clof_fiber_run(a.self);
    CHECK(depth_reached == 100 && !clof_fiber_done(a.self));
    clof_fiber_run(a.self);
    CHECK(clof_fiber_done(a.self) && r == 100);

    /* many switches: the context switch keeps the state of both sides */
    n = 0;
    clof_fiber_restart(b.self, forever, &n);
    long sum = 0;
    for (int i = 0; i < 100000; i++) {
        clof_fiber_run(b.self);
        sum += i;
    }
    CHECK(n == 100000 && sum == 100000L * 99999 / 2);
    CHECK(clof_fiber_self() == NULL);

    clof_fiber_destroy(a.self);
    clof_fiber_destroy(b.self);
    if (failures) {
        fprintf(stderr, "test_fiber: %d failures\n", failures);
        return 1;
    }
    printf("test_fiber: ok\n");
    return 0;
}
