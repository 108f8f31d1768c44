/* SPDX-License-Identifier: MIT */
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

/* The litmus catalogue (litmus.c): a program in a small notation, the
 * outcome it asks about, whether SC, TSO and RC11 allow it ('A') or
 * forbid it ('F'), and where that comes from. */
typedef struct vc_catalogue {
    const char *name;
    const char *prog;   /* "Wrlx x 1; Wrlx y 1 || Rrlx y r0; Rrlx x r1" */
    const char *cond;   /* "r0=1 & r1=0" */
    const char *expect; /* "FFA": SC, TSO, RC11 */
    const char *src;
} vc_catalogue_t;

extern const vc_catalogue_t vc_catalogue[]; /* ends with name == NULL */
/* false (and *err) when the program text is malformed */
bool vc_catalogue_prog(const vc_catalogue_t *c, vc_prog_t *p, const char **err);

#endif
