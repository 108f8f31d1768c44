/* SPDX-License-Identifier: MIT */
/*
 * fiber/fiber.c -- the fiber runtime (see fiber.h for the API and model).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fiber.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* CLOF_FIBER_UCONTEXT forces the portable path (to test it on x86-64). */
#if defined(__x86_64__) && !defined(CLOF_FIBER_UCONTEXT)
#define FIBER_ASM 1
#else
#include <ucontext.h>
#endif

struct clof_fiber {
    void *sp; /* saved stack pointer (x86-64) */
    char *stack;
    size_t stack_size;
    clof_fiber_fn fn;
    void *arg;
    bool done;
#if !defined(FIBER_ASM)
    ucontext_t uc;
#endif
};

/* Per OS thread: the fiber running and the scheduler's saved context. */
static _Thread_local clof_fiber_t *cur;
#if defined(FIBER_ASM)
static _Thread_local void *sched_sp;
#else
static _Thread_local ucontext_t sched_uc;
#endif

static void die(const char *what)
{
    fprintf(stderr, "clof fiber: %s\n", what);
    abort();
}

#if defined(FIBER_ASM)
/* switch_(save, to): push the callee-saved registers, store rsp in *save,
 * load rsp from `to`, pop and return into the other context.  start_: the
 * first "return" of a new fiber lands here with the fiber in r12 and the
 * entry function in r13. */
__asm__(".text\n"
        ".p2align 4\n"
        ".type clof_fiber_switch_,@function\n"
        "clof_fiber_switch_:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size clof_fiber_switch_, .-clof_fiber_switch_\n"
        ".p2align 4\n"
        ".type clof_fiber_start_,@function\n"
        "clof_fiber_start_:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size clof_fiber_start_, .-clof_fiber_start_\n");
void clof_fiber_switch_(void **save, void *to) __asm__("clof_fiber_switch_");
void clof_fiber_start_(void) __asm__("clof_fiber_start_");
#endif

static void fiber_entry(void *arg)
{
    clof_fiber_t *f = (clof_fiber_t *)arg;
    f->fn(f->arg);
    f->done = true;
    clof_fiber_yield();
    die("a finished fiber was resumed");
}

#if !defined(FIBER_ASM)
static void fiber_entry_uc(int lo, int hi)
{
    uintptr_t a = (uintptr_t)(uint32_t)lo;
    if (sizeof(uintptr_t) > 4)
        a |= (uintptr_t)((uint64_t)(uint32_t)hi << 32);
    fiber_entry((void *)a);
}
#endif

void clof_fiber_restart(clof_fiber_t *f, clof_fiber_fn fn, void *arg)
{
    if (f == cur)
        die("restart of the running fiber");
    f->fn = fn;
    f->arg = arg;
    f->done = false;
#if defined(FIBER_ASM)
    uintptr_t top = ((uintptr_t)f->stack + f->stack_size) & ~(uintptr_t)15;
    /* 6 registers, the return address (start_), then padding so that
     * start_ runs with rsp 16-aligned and its call keeps the ABI. */
    uint64_t *sp = (uint64_t *)(top - 72);
    sp[0] = 0;                                /* r15 */
    sp[1] = 0;                                /* r14 */
    sp[2] = (uint64_t)(uintptr_t)fiber_entry; /* r13 */
    sp[3] = (uint64_t)(uintptr_t)f;           /* r12 */
    sp[4] = 0;                                /* rbx */
    sp[5] = 0;                                /* rbp */
    sp[6] = (uint64_t)(uintptr_t)clof_fiber_start_;
    sp[7] = 0;
    sp[8] = 0;
    f->sp = sp;
#else
    if (getcontext(&f->uc) != 0)
        die("getcontext failed");
    f->uc.uc_stack.ss_sp = f->stack;
    f->uc.uc_stack.ss_size = f->stack_size;
    f->uc.uc_link = NULL;
    uintptr_t a = (uintptr_t)f;
    makecontext(&f->uc, (void (*)(void))fiber_entry_uc, 2, (int)(uint32_t)a,
                (int)(uint32_t)((uint64_t)a >> 32));
#endif
}

clof_fiber_t *clof_fiber_create(clof_fiber_fn fn, void *arg,
                                size_t stack_size)
{
    if (stack_size == 0)
        stack_size = CLOF_FIBER_STACK;
    if (stack_size < 16 * 1024)
        stack_size = 16 * 1024;
    clof_fiber_t *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->stack = malloc(stack_size);
    if (!f->stack) {
        free(f);
        return NULL;
    }
    f->stack_size = stack_size;
    clof_fiber_restart(f, fn, arg);
    return f;
}

void clof_fiber_run(clof_fiber_t *f)
{
    if (cur)
        die("clof_fiber_run called from inside a fiber");
    if (f->done)
        die("clof_fiber_run of a finished fiber");
    cur = f;
#if defined(FIBER_ASM)
    clof_fiber_switch_(&sched_sp, f->sp);
#else
    if (swapcontext(&sched_uc, &f->uc) != 0)
        die("swapcontext failed");
#endif
    cur = NULL;
}

void clof_fiber_yield(void)
{
    clof_fiber_t *f = cur;
    if (!f)
        die("clof_fiber_yield outside a fiber");
#if defined(FIBER_ASM)
    clof_fiber_switch_(&f->sp, sched_sp);
#else
    if (swapcontext(&f->uc, &sched_uc) != 0)
        die("swapcontext failed");
#endif
}

clof_fiber_t *clof_fiber_self(void)
{
    return cur;
}

bool clof_fiber_done(const clof_fiber_t *f)
{
    return f->done;
}

void *clof_fiber_arg(const clof_fiber_t *f)
{
    return f->arg;
}

void clof_fiber_destroy(clof_fiber_t *f)
{
    if (!f)
        return;
    if (f == cur)
        die("destroy of the running fiber");
    free(f->stack);
    free(f);
}
