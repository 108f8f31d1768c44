/* SPDX-License-Identifier: MIT */
/*
 * verify/genmc/litmus_client.c -- one program of vc's litmus catalogue
 * (verify/litmus.c, vc_catalogue) under GenMC: the program LITMUS_INDEX
 * (its index in the catalogue, chosen at compile time, or set in the IR:
 * the global litmus_index), parsed and
 * interpreted by litmus.c's own code through the atomics shim's genmc
 * backend.  Its final check asserts that the outcome was not observed, so
 * GenMC reports an error (exit 42) exactly when the model allows the
 * outcome ('A' in the catalogue) and verifies when it forbids it ('F').
 *   genmc -rc11|-imm -- -I<genmc>/include -Iinclude -Iverify -Iverify/genmc
 *     -DCLOF_BACKEND_HEADER='"backend_genmc.h"' -include vc_genmc.h
 *     -DLITMUS_INDEX=n verify/genmc/litmus_client.c
 * (verify/genmc/litmus.sh runs them all).
 */
#include <pthread.h>

/* vc.h's program record (vc_genmc.h, which takes vc.h's place, has none) */
typedef struct vc_prog {
    const char *name;
    int nthreads;
    void (*setup)(void *arg);
    void (*thread)(void *arg, int tid);
    void (*final)(void *arg);
    void *arg;
    void (*resume)(void *arg, int tid);
} vc_prog_t;

/* GenMC runs no external function: the few of libc that litmus.c's parser
 * calls (in main, before any thread) are written out here */
#include <stdlib.h>
#include <string.h>
static int litmus_strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++)
        if (*a != *b || !*a)
            return (unsigned char)*a - (unsigned char)*b;
    return 0;
}
static char *litmus_strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}
static unsigned long litmus_strtoul(const char *s, char **end, int base)
{
    unsigned long v = 0;
    (void)base; /* the catalogue's numbers are decimal */
    while (*s == ' ')
        s++;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (unsigned long)(*s++ - '0');
    *end = (char *)s;
    return v;
}
static long litmus_strtol(const char *s, char **end, int base)
{
    return (long)litmus_strtoul(s, end, base);
}
#define strncmp litmus_strncmp
#define strchr litmus_strchr
#define strtoul litmus_strtoul
#define strtol litmus_strtol

/* one parsed program, not one per catalogue entry (litmus.c) */
#define CAT_PROG_SLOTS 1
#include "litmus.c"

#ifndef LITMUS_INDEX
#define LITMUS_INDEX 0
#endif
/* the program's index: a global, so that litmus.sh compiles once and sets
 * it in the IR for each program (`@litmus_index = ... global i32 N`) */
int litmus_index = LITMUS_INDEX;

static vc_prog_t litmus_prog;

static void *litmus_thread(void *arg)
{
    litmus_prog.thread(litmus_prog.arg, (int)(intptr_t)arg);
    return NULL;
}

int main(void)
{
    const char *err = NULL;
    bool ok = vc_catalogue_prog(&vc_catalogue[litmus_index], &litmus_prog, &err);
    assert(ok && "the catalogue's program does not parse");
    litmus_prog.setup(litmus_prog.arg);
    pthread_t th[CAT_MAXT];
    for (int t = 0; t < litmus_prog.nthreads; t++)
        pthread_create(&th[t], NULL, litmus_thread, (void *)(intptr_t)t);
    for (int t = 0; t < litmus_prog.nthreads; t++)
        pthread_join(th[t], NULL);
    litmus_prog.final(litmus_prog.arg);
    return 0;
}
