/* SPDX-License-Identifier: MIT */
/*
 * src/preload/pl_config.c -- what CLOF_LOCK and CLOF_STATS select.
 *
 * String work only, no side effect and no allocation: pl_configure
 * (pl_core.c) calls pl_config_parse at start-up with the environment's
 * values, and tests/fuzz/fuzz_preload_env.c calls it with any bytes -- the
 * values come from someone else's environment, so every buffer here is
 * bounded and every message is cut to its buffer.
 */
#include "pl_internal.h"
#include "lockname.h"

#include <stdio.h>
#include <string.h>

/* name (as the table spells it; asl: or cr: over it too) is in
 * PL_WITHDRAWN_NAMES */
bool pl_is_withdrawn(const char *name)
{
    if (strncmp(name, "asl:", 4) == 0)
        name += 4;
    else if (strncmp(name, "cr:", 3) == 0)
        name += 3;
    const char *p = PL_WITHDRAWN_NAMES;
    size_t n = strlen(name);
    while (*p) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* v's lock in the table: v spelled canonically by the one grammar of lock
 * names (src/lockname, docs/locks.md), looked up by that spelling */
static const pl_lockdef_t *pl_find(const char *v)
{
    char name[CLOF_LOCKNAME_MAX];
    if (!clof_lockname_canon(v, name, sizeof name))
        return NULL;
    for (size_t i = 0; i < pl_nlockdefs; i++)
        if (strcmp(name, pl_lockdefs[i].name) == 0)
            return &pl_lockdefs[i];
    return NULL;
}

/* v: CLOF_LOCK's value (the default already put in its place), st:
 * CLOF_STATS's (or NULL) */
void pl_config_parse(const char *v, const char *st, pl_config_t *out)
{
    out->lock = NULL;
    out->glibc_adaptive = false;
    out->stats = false;
    out->stats_msg[0] = 0;
    out->lock_msg[0] = 0;
    if (st != NULL && *st != 0) {
        if (strcmp(st, "1") == 0 || strcmp(st, "yes") == 0 || strcmp(st, "on") == 0)
            out->stats = true;
        else if (strcmp(st, "0") != 0 && strcmp(st, "no") != 0 && strcmp(st, "off") != 0)
            snprintf(out->stats_msg, sizeof out->stats_msg,
                     "clof-preload: CLOF_STATS='%s' is not 0 or 1; statistics are off", st);
    }

    out->value = v;
    char canon[CLOF_LOCKNAME_MAX];
    if (clof_lockname_canon(v, canon, sizeof canon) && strcmp(canon, "pthread") == 0)
        return; /* glibc, pthread, none: no replacement */
    if (clof_lockname_canon(v, canon, sizeof canon) && strcmp(canon, "glibc-adaptive") == 0) {
        out->glibc_adaptive = true; /* glibc's adaptive mutex: no replacement either */
        return;
    }
    const pl_lockdef_t *d = pl_find(v);
    if (d == NULL) {
        /* the key phrase first: what the program runs on */
        char near[256];
        int k = clof_lockname_suggest(v,
                                      (clof_lockset_t){&pl_lockdefs[0].name, pl_nlockdefs,
                                                       sizeof pl_lockdefs[0]},
                                      3, near, sizeof near);
        bool named = clof_lockname_canon(v, canon, sizeof canon);
        snprintf(out->lock_msg, sizeof out->lock_msg,
                 "clof-preload: running on glibc's pthread mutexes: %s CLOF_LOCK='%.60s'%s%s%s "
                 "(%s)",
                 named ? "this library has no lock" : "unknown lock", v,
                 k ? "; did you mean " : "", near, k ? "?" : "",
                 named ? "it has the basic and NUMA locks, compositions of 2-3 levels and "
                         "cr:/asl: over them: docs/locks.md"
                       : "clof locks lists the names");
        return;
    }
    out->lock = d;
}
