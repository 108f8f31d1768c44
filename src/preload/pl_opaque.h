/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_opaque.h -- PL_LOCKFN: the attribute of the library's own
 * lock functions (the global lock of the pools, pl_core.c; the free lists'
 * lock of the rwlocks, pl_rwlock.c).
 *
 * Why: GCC 12's ipa-reference pass records which file-local (static)
 * variables a function reads and writes, and treats a call as touching only
 * those -- ignoring that the function *acquires a lock* (an acquire
 * compare-exchange, even an asm with a "memory" clobber).  The scheduler
 * then moved the load of the pool head `pl_box_pool` in pl_box_give_back
 * above the call to pl_glock_acquire (aarch64-linux-gnu-gcc 12.2 -O2:
 * `ldr x23, [pl_box_pool]` ... `bl pl_glock_acquire` ... `str x23,
 * [last->next_free]`): the thread spliced its boxes in front of a pool head
 * read before it held the lock, so a box popped meanwhile by another thread
 * went back into the pool while in use -- two threads with one MCS node, two
 * owners of one mutex, hangs, and free lists with cycles (docs/arm.md, "The
 * pool head read outside its lock").  tests/preload/opaque_lock.sh shows
 * the same hoisting in a 30-line program (x86-64 gcc 12 too).
 *
 * `noipa` makes the callers see the call as an opaque function, which may
 * read and write anything: no load of a static is moved above it, no store
 * below it.  (noinline, noclone and the rest come with it.)  Compilers
 * without the attribute (clang) do not have this analysis of statics.
 */
#ifndef CLOF_PRELOAD_OPAQUE_H
#define CLOF_PRELOAD_OPAQUE_H

#if defined(__has_attribute)
#if __has_attribute(noipa)
#define PL_LOCKFN static __attribute__((noipa))
#endif
#endif
#ifndef PL_LOCKFN
#define PL_LOCKFN static __attribute__((noinline))
#endif

#endif /* CLOF_PRELOAD_OPAQUE_H */
