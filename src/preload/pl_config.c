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

#include <stdio.h>
#include <string.h>

static const struct {
    const char *alias, *name;
} pl_aliases[] = {
    {"tkt", "ticket"},         {"hem", "hemlock"},          {"hemctr", "hemlock_ctr"},
    {"hem_ctr", "hemlock_ctr"}, {"hemlock-ctr", "hemlock_ctr"}, {"c_bo_mcs", "c-bo-mcs"},
    {"c_tkt_tkt", "c-tkt-tkt"}, {"c_ptl_tkt", "c-ptl-tkt"},
};

/* the basic-lock names of a composition, as the paper abbreviates them */
static const struct {
    const char *word, *abbr;
} pl_parts[] = {
    {"ticket", "tkt"}, {"hemlock", "hem"}, {"hemlock_ctr", "hem"}, {"hemlock-ctr", "hem"},
    {"hemctr", "hem"},
};

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

/* clof:a-b-c with the parts spelled as the paper abbreviates them */
static void pl_normalise_composition(const char *v, char *out, size_t size)
{
    size_t o = (size_t)snprintf(out, size, "clof:");
    const char *p = v + 5;
    while (*p && o + 1 < size) {
        size_t len = strcspn(p, "-");
        const char *w = p;
        size_t wl = len;
        for (size_t i = 0; i < sizeof pl_parts / sizeof pl_parts[0]; i++)
            if (strlen(pl_parts[i].word) == len && strncmp(p, pl_parts[i].word, len) == 0) {
                w = pl_parts[i].abbr;
                wl = strlen(w);
            }
        o += (size_t)snprintf(out + o, size - o, "%.*s%s", (int)wl, w, p[len] ? "-" : "");
        p += len + (p[len] ? 1 : 0);
    }
}

/* v as the table spells it: aliases resolved, a composition's parts
 * abbreviated; asl:<lock> and cr:<lock> with <lock> spelled so */
static void pl_canonical(const char *v, char *out, size_t size)
{
    const char *pre = "";
    if (strncmp(v, "asl:", 4) == 0) {
        pre = "asl:";
        v += 4;
    } else if (strncmp(v, "cr:", 3) == 0) {
        pre = "cr:";
        v += 3;
    }
    if (strncmp(v, "clof:", 5) == 0) {
        char norm[128];
        pl_normalise_composition(v, norm, sizeof norm);
        snprintf(out, size, "%s%s", pre, norm);
        return;
    }
    for (size_t i = 0; i < sizeof pl_aliases / sizeof pl_aliases[0]; i++)
        if (strcmp(v, pl_aliases[i].alias) == 0)
            v = pl_aliases[i].name;
    snprintf(out, size, "%s%s", pre, v);
}

static const pl_lockdef_t *pl_find(const char *v)
{
    char name[160];
    pl_canonical(v, name, sizeof name);
    for (size_t i = 0; i < pl_nlockdefs; i++)
        if (strcmp(name, pl_lockdefs[i].name) == 0)
            return &pl_lockdefs[i];
    return NULL;
}

/* every name but the compositions' (summarised) */
static void pl_known_names(char *buf, size_t size)
{
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < pl_nlockdefs && off < size; i++) {
        if (strncmp(pl_lockdefs[i].name, "clof:", 5) == 0 ||
            strncmp(pl_lockdefs[i].name, "asl:", 4) == 0 ||
            strncmp(pl_lockdefs[i].name, "cr:", 3) == 0 || pl_is_withdrawn(pl_lockdefs[i].name))
            continue;
        int n = snprintf(buf + off, size - off, "%s%s", i ? " " : "", pl_lockdefs[i].name);
        if (n < 0)
            break;
        off += (size_t)n;
    }
    if (off < size)
        snprintf(buf + off, size - off,
                 " clof:<%s, 2 to %d of them joined by '-', lowest level first>"
                 " asl:<any of these> cr:<any of these>",
                 PL_COMPOSITION_PARTS, PL_COMPOSITION_MAX_LEVELS);
}

/* v: CLOF_LOCK's value (the default already put in its place), st:
 * CLOF_STATS's (or NULL) */
void pl_config_parse(const char *v, const char *st, pl_config_t *out)
{
    out->lock = NULL;
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
    if (strcmp(v, "glibc") == 0 || strcmp(v, "pthread") == 0 || strcmp(v, "none") == 0)
        return;
    const pl_lockdef_t *d = pl_find(v);
    if (d == NULL) {
        char known[768];
        pl_known_names(known, sizeof known);
        if (strncmp(v, "clof:", 5) == 0)
            snprintf(out->lock_msg, sizeof out->lock_msg,
                     "clof-preload: CLOF_LOCK='%s' is not a composition this build has; "
                     "known locks: %s; running on glibc's pthread mutexes",
                     v, known);
        else
            snprintf(out->lock_msg, sizeof out->lock_msg,
                     "clof-preload: unknown lock CLOF_LOCK='%s'; known locks: %s "
                     "(aliases: tkt hem hemctr; glibc = no replacement); "
                     "running on glibc's pthread mutexes",
                     v, known);
        return;
    }
    out->lock = d;
}
