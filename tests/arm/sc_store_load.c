/* SPDX-License-Identifier: MIT */
/*
 * tests/arm/sc_store_load.c -- the store->load handshake that parking rests
 * on, checked where it runs.
 *
 * Every wake-up of the waiting policy (include/clof/wait.h, spin-park) is a
 * Dekker handshake: the waker stores the lock word with seq_cst and then
 * loads the parking bucket's `waiters` with seq_cst; the waiter registers in
 * `waiters` and then loads the word.  If the store and the later load could
 * be reordered (the SB litmus shape: x = 1; r0 = y || y = 1; r1 = x with
 * r0 = r1 = 0), a waker would miss a waiter that is about to sleep: a lost
 * wake-up, a hang.  C11 forbids that outcome for seq_cst accesses, and so
 * does Armv8 for STLR followed by LDAR; qemu-user's translation of STLR and
 * LDAR does not (include/clof/backend/native.h says why clof's seq_cst store
 * is an exchange on aarch64).
 *
 * The test runs ROUNDS rounds of SB with the atomics shim's seq_cst store
 * and load (clof_be_store_u32 / clof_be_load_u32, what the waking writes
 * use) and fails on any forbidden outcome.  For comparison it also runs SB
 * with the compiler's own seq_cst store (__atomic_store_n: STLR on aarch64,
 * XCHG on x86-64) and prints, without judging, how often that was seen: a
 * non-zero count there names an emulator or machine that does not order
 * the compiler's store before a later seq_cst load.
 *
 * Usage: test_sc_store_load [rounds]   (default 20000)
 */
#include <clof/atomic.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/clof_test.h"

enum { MODE_SHIM, MODE_COMPILER };

typedef struct {
    uint32_t x, y; /* the two locations, each round's own */
} round_t;

static round_t *rounds_;
static uint32_t *r0_, *r1_;
static unsigned nrounds_;
static int mode_;
static uint32_t go_[2]; /* round each thread may start (barrier per round) */

static void sb_store(uint32_t *p)
{
    if (mode_ == MODE_SHIM)
        clof_be_store_u32(p, 1, CLOF_MO_SEQ);
    else
        __atomic_store_n(p, 1, __ATOMIC_SEQ_CST);
}

/* Both threads start round i together: each announces it reached round i
 * and waits (spinning a little, then yielding: 2 threads may share 1 cpu)
 * for the other. */
static void meet(int me, unsigned i)
{
    __atomic_store_n(&go_[me], i + 1, __ATOMIC_SEQ_CST);
    unsigned n = 0;
    while (__atomic_load_n(&go_[!me], __ATOMIC_ACQUIRE) < i + 1)
        if (++n > 64)
            sched_yield();
}

static void *thread(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (unsigned i = 0; i < nrounds_; i++) {
        round_t *r = &rounds_[i];
        meet(me, i);
        if (me == 0) {
            sb_store(&r->x);
            r0_[i] = clof_be_load_u32(&r->y, CLOF_MO_SEQ);
        } else {
            sb_store(&r->y);
            r1_[i] = clof_be_load_u32(&r->x, CLOF_MO_SEQ);
        }
    }
    return NULL;
}

static unsigned run(int mode)
{
    mode_ = mode;
    go_[0] = go_[1] = 0;
    for (unsigned i = 0; i < nrounds_; i++)
        rounds_[i].x = rounds_[i].y = 0;
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        if (pthread_create(&t[k], NULL, thread, (void *)(intptr_t)k) != 0)
            clof_test_fail("pthread_create");
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    unsigned both_zero = 0;
    for (unsigned i = 0; i < nrounds_; i++)
        both_zero += r0_[i] == 0 && r1_[i] == 0;
    return both_zero;
}

int main(int argc, char **argv)
{
    clof_test_name("arm.sc_store_load");
    nrounds_ = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20000u;
    if (nrounds_ == 0)
        clof_test_fail("rounds must be a positive number");
    clof_test_watchdog(240, 1, "FAIL arm.sc_store_load: watchdog: the test hung\n");
    rounds_ = calloc(nrounds_, sizeof *rounds_);
    r0_ = calloc(nrounds_, sizeof *r0_);
    r1_ = calloc(nrounds_, sizeof *r1_);
    if (!rounds_ || !r0_ || !r1_)
        clof_test_fail("out of memory");

    unsigned compiler = run(MODE_COMPILER);
    unsigned shim = run(MODE_SHIM);
    printf("SB, %u rounds, seq_cst store then seq_cst load:\n", nrounds_);
    printf("  compiler's seq_cst store (__atomic_store_n): %u forbidden outcomes%s\n",
           compiler, compiler ? " (this machine or emulator does not order it)" : "");
    printf("  clof's seq_cst store (clof_be_store_u32, %s): %u forbidden outcomes\n",
           CLOF_BE_SC_STORE_NAME, shim);
    CLOF_TEST_CHECK(shim == 0,
                    "%u of %u SB rounds saw r0 = r1 = 0 with clof's seq_cst store "
                    "and load: parking would lose wake-ups here",
                    shim, nrounds_);
    free(rounds_);
    free(r0_);
    free(r1_);
    return 0;
}
