/* SPDX-License-Identifier: MIT */
/*
 * bench/arm_disasm.c -- the locks' acquire, release and tryacquire as
 * separate functions, for bench/arm_disasm.py to disassemble (x86-64 and Armv8, LSE
 * and LL/SC): one noinline wrapper per operation, the lock's fast path
 * inlined into it, its slow paths (CLOF_SLOW) out of line.
 *
 *   (default)             every basic lock, HMCS (with its fast path, as
 *                         shipped) and a 3-level CLoF composition
 *                         (ticket over MCS over CLH leaves)
 *   -DARM_DISASM_MAIN     with a main() that runs one uncontended acquire and
 *                         release of each lock between calls of
 *                         arm_mark(): arm_disasm.py counts the
 *                         instructions executed between the marks (qemu
 *                         -singlestep -d exec trace), static binary
 *   -DARM_DISASM_HMCS     the HMCS paper's lock alone (acquire and release
 *                         of the tree: Fig. 2's AcqReal and RelReal), for
 *                         the barrier variants of numa/hmcs.h
 *                         (-DCLOF_HMCS_SC, ...; with
 *                         -DCLOF_COMPOSE_NO_FAST_PATH)
 */
#include <clof/clof.h>
#include <clof/numa/hmcs.h>

#define ARM_NOINLINE __attribute__((noinline, used))

#if defined(ARM_DISASM_HMCS)

ARM_NOINLINE void arm_hmcs_acquire(clof_hmcs_t *l, clof_hmcs_tree_t *tr, clof_hmcs_ctx_t *c)
{
    clof_hmcs_acquire_tree_(l, tr, c);
}
ARM_NOINLINE void arm_hmcs_release(clof_hmcs_t *l, clof_hmcs_ctx_t *c)
{
    clof_hmcs_release_tree_(l, c);
}

#else

#include <clof/compose.h>

#define ARM_WRAP_(name, NAME)                                                  \
    ARM_NOINLINE void arm_##name##_acquire(clof_##name##_t *l,                 \
                                           clof_##name##_ctx_t *c)             \
    {                                                                          \
        clof_##name##_acquire(l, c);                                           \
    }                                                                          \
    ARM_NOINLINE void arm_##name##_release(clof_##name##_t *l,                 \
                                           clof_##name##_ctx_t *c)             \
    {                                                                          \
        clof_##name##_release(l, c);                                           \
    }                                                                          \
    ARM_NOINLINE bool arm_##name##_tryacquire(clof_##name##_t *l,              \
                                              clof_##name##_ctx_t *c)          \
    {                                                                          \
        return clof_##name##_tryacquire(l, c);                                 \
    }
CLOF_BASIC_LOCKS(ARM_WRAP_)
ARM_WRAP_(hmcs, HMCS)
/* the 3-level composition "tkt-mcs-clh": ticket (system) over MCS over CLH */
CLOF_LOCK(tkt_mcs_clh, ticket, mcs, clh)
ARM_WRAP_(tkt_mcs_clh, TKT_MCS_CLH)


#if defined(ARM_DISASM_MAIN)
#include <stdio.h>
#include <string.h>

/* The marks: the trace between two calls is one operation. */
ARM_NOINLINE void arm_mark(const char *what)
{
    __asm__ __volatile__("" ::"r"(what) : "memory");
}

/* Warm up (lazy trees, the thread's cpu lookup), then one measured pair. */
#define ARM_RUN_(name, NAME)                                                   \
    {                                                                          \
        static clof_##name##_t l;                                              \
        static clof_##name##_ctx_t c;                                          \
        memset(&l, 0, sizeof l);                                               \
        memset(&c, 0, sizeof c);                                               \
        for (int i = 0; i < 3; i++) {                                          \
            arm_##name##_acquire(&l, &c);                                      \
            arm_##name##_release(&l, &c);                                      \
        }                                                                      \
        arm_mark("begin " #name);                                              \
        arm_##name##_acquire(&l, &c);                                          \
        arm_mark("acquired " #name);                                           \
        arm_##name##_release(&l, &c);                                          \
        arm_mark("end " #name);                                                \
    }

int main(void)
{
    CLOF_BASIC_LOCKS(ARM_RUN_)
    ARM_RUN_(hmcs, HMCS)
    ARM_RUN_(tkt_mcs_clh, TKT_MCS_CLH)
    puts("arm_disasm: done");
    return 0;
}
#endif /* ARM_DISASM_MAIN */

#endif
