/* SPDX-License-Identifier: MIT */
/*
 * fiber/fiber.h -- fibers: cooperative user-space threads on their own
 * stacks, switched by hand.  The one fiber runtime of clof: the model checker
 * (verify/vc.c) and the simulation backend both run the threads of a checked
 * or simulated program as fibers of one OS thread.  No dependency on vc.
 *
 * Model.  An OS thread that uses fibers is their *scheduler*: it runs on its
 * own stack and switches into one fiber at a time with clof_fiber_run(); the
 * fiber runs until it calls clof_fiber_yield() (or its function returns), and
 * clof_fiber_run() then returns in the scheduler.  A fiber never switches to
 * another fiber directly.  Each OS thread has its own scheduler state
 * (thread-local), so several OS threads may each run their own fibers.
 *
 *   clof_fiber_t *f = clof_fiber_create(fn, arg, 0);  // 0: default stack
 *   while (!clof_fiber_done(f))
 *       clof_fiber_run(f);          // runs fn(arg) up to its next yield
 *   clof_fiber_restart(f, fn, arg); // run fn(arg) again from the start,
 *                                   // on the same stack (also abandons a
 *                                   // fiber stopped in the middle)
 *   clof_fiber_destroy(f);
 *
 * Inside fn: clof_fiber_yield() returns to the scheduler; the next
 * clof_fiber_run(f) resumes right after it.  clof_fiber_self() is the fiber
 * running (NULL in the scheduler).  A fiber that is never resumed again is
 * simply abandoned: nothing on its stack is unwound (no destructors, no
 * cleanup), so restart or destroy it when convenient.
 *
 * Implementation: on x86-64 a hand-written switch that saves the callee-saved
 * registers (rbx, rbp, r12-r15) and the stack pointer -- a few nanoseconds;
 * the floating-point control words are not switched (fibers must not change
 * the rounding mode).  Elsewhere POSIX ucontext (swapcontext), slower since
 * it saves the signal mask with a system call.  Stacks are malloc'ed; there
 * is no guard page: keep deep recursion and large locals off fibers (the
 * default stack is CLOF_FIBER_STACK bytes).
 *
 * Errors: running a finished fiber, yielding outside a fiber or running a
 * fiber from inside a fiber print a message and abort() (programming errors).
 * Creation returns NULL when memory runs out.
 */
#ifndef CLOF_VERIFY_FIBER_H
#define CLOF_VERIFY_FIBER_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLOF_FIBER_STACK (256 * 1024)

typedef struct clof_fiber clof_fiber_t;
typedef void (*clof_fiber_fn)(void *arg);

/* A fiber that will run fn(arg) on a fresh stack of stack_size bytes
 * (0: CLOF_FIBER_STACK) at its first clof_fiber_run(); NULL if out of
 * memory. */
clof_fiber_t *clof_fiber_create(clof_fiber_fn fn, void *arg,
                                size_t stack_size);

/* Make f start fn(arg) from the beginning at its next run, reusing its
 * stack, whatever state it is in (not running). */
void clof_fiber_restart(clof_fiber_t *f, clof_fiber_fn fn, void *arg);

/* From the scheduler: switch into f until it yields or returns. */
void clof_fiber_run(clof_fiber_t *f);

/* From a fiber: switch back to the scheduler. */
void clof_fiber_yield(void);

/* The fiber running on this OS thread; NULL in the scheduler. */
clof_fiber_t *clof_fiber_self(void);

/* true once fn has returned (until a restart). */
bool clof_fiber_done(const clof_fiber_t *f);

/* The arg given at create/restart (handy to find one's own state). */
void *clof_fiber_arg(const clof_fiber_t *f);

/* Free f and its stack (not while it runs). */
void clof_fiber_destroy(clof_fiber_t *f);

#ifdef __cplusplus
}
#endif

#endif /* CLOF_VERIFY_FIBER_H */
