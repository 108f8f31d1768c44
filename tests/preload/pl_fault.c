/* SPDX-License-Identifier: MIT */
/*
 * pl_fault.c -- a fault injector for libclof-preload.so (test-only, never
 * installed): preloaded before the library,
 *
 *   LD_PRELOAD=libpl_fault.so:libclof-preload.so CLOF_FAULT=N program
 *
 * it fails the library's Nth allocation (mmap, aligned_alloc, calloc,
 * malloc called from code of libclof-preload.so: the caller's address is
 * looked up with dladdr), CLOF_FAULT=N+ the Nth and every one after.
 * Calls from anywhere else pass through untouched, and the library itself
 * is the production build: the injector costs its fast path nothing.  At
 * exit one line on stderr counts the library's allocations and the
 * failures (tests/preload/fault_sweep.sh reads it).
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long long fault_n, fault_calls, fault_failed;
static int fault_mode = -1; /* -1 not read, 0 off, 1 the Nth, 2 from the Nth on */

static bool from_library(const void *ret)
{
    Dl_info di;
    return dladdr(ret, &di) != 0 && di.dli_fname != NULL &&
           strstr(di.dli_fname, "libclof-preload") != NULL;
}

static bool fault_hit(const void *ret)
{
    if (__atomic_load_n(&fault_mode, __ATOMIC_ACQUIRE) < 0) {
        const char *v = getenv("CLOF_FAULT");
        char *end = NULL;
        unsigned long long n = v ? strtoull(v, &end, 10) : 0;
        fault_n = n;
        /* unset: 0, off; CLOF_FAULT=0: count only (3) */
        __atomic_store_n(&fault_mode, v == NULL ? 0 : n == 0 ? 3 : (end && *end == '+') ? 2 : 1,
                         __ATOMIC_RELEASE);
    }
    if (fault_mode == 0 || !from_library(ret))
        return false;
    unsigned long long k = __atomic_add_fetch(&fault_calls, 1, __ATOMIC_RELAXED);
    bool hit = (fault_mode == 1 && k == fault_n) || (fault_mode == 2 && k >= fault_n);
    if (hit)
        __atomic_add_fetch(&fault_failed, 1, __ATOMIC_RELAXED);
    return hit;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (fault_hit(__builtin_return_address(0))) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* glibc's allocator under its own names (these are not interposed) */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n)
{
    if (fault_hit(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    if (fault_hit(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(a, b);
}
void *aligned_alloc(size_t al, size_t n)
{
    if (fault_hit(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(al, n);
}

__attribute__((destructor)) static void fault_report(void)
{
    if (getenv("CLOF_FAULT") == NULL)
        return;
    char buf[160];
    int n = snprintf(buf, sizeof buf, "pl_fault[%d]: allocations=%llu failed=%llu\n",
                     (int)getpid(), fault_calls, fault_failed);
    if (n > 0)
        (void)!write(2, buf, (size_t)n);
}
