/*
 * verify/litmus.h -- the self-test programs of vc (see litmus.c).
 */
#ifndef CLOF_VERIFY_LITMUS_H
#define CLOF_VERIFY_LITMUS_H

#include "vc.h"

typedef struct vc_litmus {
    const char *name;
    const char *what;
    int nthreads;
    void (*thread)(void *arg, int tid);
    void (*final)(void *arg);
    const char *expect[3]; /* per model (sc, tso, c11): "" or the property */
} vc_litmus_t;

extern const vc_litmus_t vc_litmus[]; /* ends with name == NULL */
void vc_litmus_prog(const vc_litmus_t *l, vc_prog_t *p);

#endif
