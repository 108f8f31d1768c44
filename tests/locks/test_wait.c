/* SPDX-License-Identifier: MIT */
/*
 * Tests of the waiting policy (wait.h) and the await helpers (atomic.h).
 *
 *   test_wait park        a waiter that outlasts its spin and yield budget
 *                         parks (counted by the CLOF_WAIT_ON_PARK hook) and a
 *                         waking write wakes it
 *   test_wait pingpong    20000 hand-offs between two threads with a spin
 *                         budget of 1 and no yields, so nearly every wait parks:
 *                         a lost wake-up hangs and the watchdog fails the test
 *   test_wait types       64-bit and typed-pointer awaits return the value
 *                         that satisfied them
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_parks;
#define CLOF_WAIT_ON_PARK() __atomic_fetch_add(&g_parks, 1, __ATOMIC_RELAXED)
#ifdef TEST_TINY_BUDGET
#define CLOF_WAIT_SPINS 1u
#define CLOF_WAIT_YIELDS 0u
#endif
#include <clof/await.h>

#include "clof_test.h"

static clof_atomic32_t word;
static clof_atomic32_t turn;

static void *park_waiter(void *a)
{
    (void)a;
    uint32_t v = clof_atomic32_await_eq_acq(&word, 42);
    if (v != 42)
        clof_test_fail("await_eq returned a value other than the awaited one");
    return NULL;
}

static void test_park(void)
{
#ifdef CLOF_WAIT_SPIN_PARK
    pthread_t th;
    pthread_create(&th, NULL, park_waiter, NULL);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (__atomic_load_n(&g_parks, __ATOMIC_RELAXED) == 0) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (t1.tv_sec - t0.tv_sec > 10)
            clof_test_fail("the waiter never parked");
        usleep(1000);
    }
    usleep(20000); /* let it sleep in the kernel */
    clof_atomic32_write_wake(&word, 42);
    pthread_join(th, NULL);
    printf("parked %d time(s), woken\n", g_parks);
#else
    printf("SKIP: policy %s does not park\n", CLOF_WAIT_POLICY_NAME);
#endif
}

enum { ROUNDS = 20000 };
static void *pong(void *a)
{
    uint32_t me = (uint32_t)(uintptr_t)a;
    for (uint32_t i = 0; i < ROUNDS; i++) {
        clof_atomic32_await_eq_acq(&turn, 2 * i + me);
        clof_atomic32_write_wake(&turn, 2 * i + me + 1);
    }
    return NULL;
}

static void test_pingpong(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, pong, (void *)0);
    pthread_create(&b, NULL, pong, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (clof_atomic32_read(&turn) != 2 * ROUNDS)
        clof_test_fail("ping-pong ended at the wrong turn");
    printf("%d hand-offs, %d parks\n", 2 * ROUNDS, g_parks);
}

struct node {
    int payload;
};
static CLOF_ATOMICPTR(struct node) ptr;
static clof_atomic64_t big;
static struct node the_node = {7};

static void *types_writer(void *a)
{
    (void)a;
    usleep(5000);
    clof_atomic64_write_wake(&big, 1ull << 40);
    usleep(5000);
    clof_atomicptr_write_wake(&ptr, &the_node);
    return NULL;
}

static void test_types(void)
{
    pthread_t th;
    pthread_create(&th, NULL, types_writer, NULL);
    if (clof_atomic64_await_neq_acq(&big, 0) != 1ull << 40)
        clof_test_fail("64-bit await returned the wrong value");
    struct node *n = clof_atomicptr_await_neq_acq(&ptr, (struct node *)NULL);
    if (n != &the_node || n->payload != 7)
        clof_test_fail("pointer await returned the wrong pointer");
    pthread_join(th, NULL);
    struct node *old = clof_atomicptr_xchg(&ptr, (struct node *)NULL);
    if (old != &the_node || clof_atomicptr_read(&ptr) != NULL)
        clof_test_fail("pointer xchg");
    if (clof_atomicptr_cmpxchg(&ptr, (struct node *)NULL, &the_node) != NULL ||
        clof_atomicptr_cmpxchg(&ptr, (struct node *)NULL, &the_node) !=
            &the_node)
        clof_test_fail("pointer cmpxchg must return the old value");
    clof_atomic32_t x = CLOF_ATOMIC32_INIT(5);
    if (clof_atomic32_get_add(&x, 3) != 5 || clof_atomic32_get_inc_rlx(&x) != 8 ||
        clof_atomic32_cmpxchg_acq(&x, 9, 1) != 9 || clof_atomic32_read(&x) != 1 ||
        clof_atomic32_get_or(&x, 6) != 1 || clof_atomic32_get_and(&x, 3) != 7 ||
        clof_atomic32_get_xor(&x, 1) != 3 || clof_atomic32_xchg_rel(&x, 0) != 2)
        clof_test_fail("integer read-modify-writes");
    printf("types ok\n");
}

int main(int argc, char **argv)
{
    clof_test_watchdog(60, 1, "FAIL: watchdog expired (lost wake-up or hang)\n");
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "park"))
        test_park();
    else if (!strcmp(argv[1], "pingpong"))
        test_pingpong();
    else if (!strcmp(argv[1], "types"))
        test_types();
    else
        return 2;
    printf("PASS %s (policy %s)\n", argv[1], CLOF_WAIT_POLICY_NAME);
    return 0;
}
