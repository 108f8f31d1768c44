/* SPDX-License-Identifier: MIT */
/*
 * tests/preload/opaque_lock.c -- the shape of pl_box_give_back (pl_core.c)
 * in 30 lines, for tests/preload/opaque_lock.sh: a list detached from a
 * thread's free list, then spliced in front of a static pool under a lock
 * taken by a static function.  Compiled with LOCKFN = PL_LOCKFN
 * (src/preload/pl_opaque.h), the pool head must be read after the call
 * that takes the lock; compiled with a plain static noinline function, GCC
 * 12's ipa-reference lets the scheduler read it before the call (the bug
 * that corrupted the preload library's pool under qemu-aarch64).
 */
#include "pl_opaque.h"

#ifndef LOCKFN
#define LOCKFN PL_LOCKFN
#endif

struct node {
    struct node *next;
};
static struct node *pool; /* protected by lk */
static unsigned lk;

LOCKFN void acq(void)
{
    unsigned e = 0;
    while (!__atomic_compare_exchange_n(&lk, &e, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        e = 0;
}
LOCKFN void rel(void)
{
    __atomic_store_n(&lk, 0, __ATOMIC_RELEASE);
}

void give_back(struct node **l, unsigned n);
void give_back(struct node **l, unsigned n)
{
    struct node *first = 0, *last = 0;
    while (n-- > 0) {
        struct node *b = *l;
        *l = b->next;
        b->next = first;
        if (!last)
            last = b;
        first = b;
    }
    acq();
    last->next = pool; /* read under the lock */
    pool = first;
    rel();
}
