/* SPDX-License-Identifier: MIT */
/*
 * libclof: emulated machines.
 *
 *   SHAPE   := UNIT:COUNT {,UNIT:COUNT} [;little=CPULIST]
 *   UNIT    := package | numa | cache | core | cpu
 *              (aliases: pack socket -> package, node -> numa, l3 -> cache,
 *               pu thread -> cpu)
 *
 * Units go from the top down; COUNT is how many of that unit each parent
 * holds (the first unit's parent is the system).  "cpu:N" is the number of
 * cpus in each innermost unit (default 1), so "package:2,numa:2,cache:8,core:4"
 * is a Kunpeng 920 (128 cpus, one per core) and
 * "package:2,cache:8,core:3,cpu:2" an EPYC 7352 (96 cpus) -- numbered
 * depth first, not like the real machine's ids.
 *
 * A SHAPE that contains '/' or '.' is the path of a hierarchy file instead:
 * the machine it describes is emulated.
 */
#include "topology_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int unit_rank(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int rank; /* clof_level_kind_t, -1 = cpu */
    } units[] = {{"package", CLOF_LEVEL_PACKAGE}, {"pack", CLOF_LEVEL_PACKAGE},
                 {"socket", CLOF_LEVEL_PACKAGE},  {"numa", CLOF_LEVEL_NUMA},
                 {"node", CLOF_LEVEL_NUMA},       {"cache", CLOF_LEVEL_CACHE},
                 {"l3", CLOF_LEVEL_CACHE},        {"core", CLOF_LEVEL_CORE},
                 {"cpu", -1},                     {"pu", -1},
                 {"thread", -1}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == n && strncmp(units[i].name, s, n) == 0)
            return units[i].rank;
    return -2;
}

/* the shape, in body (a copy of shape that this may cut) */
static int emulate_shape(clof_topology_t *t, const char *shape, char *body, unsigned flags,
                         clof_topo_error_t *err)
{
    const char *src = "--emulate";
    char *opts = strchr(body, ';');
    if (opts)
        *opts++ = '\0';

    int nunits = 0, rank[CLOF_TOPO_MAX_LEVELS + 1];
    uint64_t count[CLOF_TOPO_MAX_LEVELS + 1];
    uint64_t cpus_per_leaf = 1, total = 1;
    bool have_cpu = false;
    const char *p = body;
    if (!*p)
        return clof_topo_fail_(err, src, 0,
                               "empty shape: expected UNIT:COUNT,... such as "
                               "package:2,numa:2,cache:8,core:4");
    while (*p) {
        const char *colon = strchr(p, ':');
        const char *comma = strchr(p, ',');
        if (!comma)
            comma = p + strlen(p);
        if (!colon || colon > comma)
            return clof_topo_fail_(err, src, 0,
                                   "'%s': at '%.*s': expected UNIT:COUNT (such as cache:8)",
                                   shape, (int)(comma - p), p);
        if (colon == p)
            return clof_topo_fail_(err, src, 0, "'%s': at '%.*s': expected a unit name "
                                   "before ':'", shape, (int)(comma - p), p);
        if (isdigit((unsigned char)*p))
            return clof_topo_fail_(err, src, 0,
                                   "'%s': at '%.*s': expected a unit name (package, numa, "
                                   "cache, core, cpu), got a number",
                                   shape, (int)(comma - p), p);
        int r = unit_rank(p, (size_t)(colon - p));
        if (r == -2)
            return clof_topo_fail_(err, src, 0,
                                   "'%s': unknown unit '%.*s': expected package, numa, cache, "
                                   "core or cpu", shape, (int)(colon - p), p);
        const char *q = colon + 1;
        uint64_t v = 0;
        if (q == comma)
            return clof_topo_fail_(err, src, 0, "'%s': expected a count after '%.*s'", shape,
                                   (int)(q - p), p);
        for (; q < comma; q++) {
            if (!isdigit((unsigned char)*q))
                return clof_topo_fail_(err, src, 0,
                                       "'%s': at '%.*s': expected a count (a positive number) "
                                       "after ':'", shape, (int)(comma - p), p);
            v = v * 10 + (uint64_t)(*q - '0');
            if (v > CLOF_TOPO_MAX_CPUS)
                break;
        }
        if (v == 0 || v > CLOF_TOPO_MAX_CPUS)
            return clof_topo_fail_(err, src, 0, "'%s': at '%.*s': expected a count from 1 to %u",
                                   shape, (int)(comma - p), p, CLOF_TOPO_MAX_CPUS);
        if (have_cpu)
            return clof_topo_fail_(err, src, 0, "'%s': '%.*s' after cpu: cpu:N comes last",
                                   shape, (int)(comma - p), p);
        if (r >= 0 && nunits > 0 && rank[nunits - 1] <= r)
            return clof_topo_fail_(err, src, 0,
                                   "'%s': '%.*s' after %s: units go from the top down "
                                   "(package, numa, cache, core, cpu), each once",
                                   shape, (int)(colon - p), p,
                                   clof_topo_level_name((clof_level_kind_t)rank[nunits - 1]));
        total *= v;
        if (total > CLOF_TOPO_MAX_CPUS)
            return clof_topo_fail_(err, src, 0, "'%s': more than %u cpus", shape,
                                   CLOF_TOPO_MAX_CPUS);
        if (r == -1) {
            have_cpu = true;
            cpus_per_leaf = v;
        } else {
            rank[nunits] = r;
            count[nunits] = v;
            nunits++;
        }
        p = *comma ? comma + 1 : comma;
        if (*comma && !*p)
            return clof_topo_fail_(err, src, 0, "'%s': a trailing ',': expected UNIT:COUNT",
                                   shape);
    }
    uint32_t n = (uint32_t)total;

    /* core types */
    uint8_t *type = calloc(n, 1);
    uint8_t *present = malloc(n);
    uint8_t *set = calloc(CLOF_TOPO_MAX_CPUS, 1);
    uint32_t *lab = malloc((size_t)n * CLOF_TOPO_MAX_LEVELS * sizeof *lab);
    if (!type || !present || !set || !lab) {
        free(type), free(present), free(set), free(lab);
        return clof_topo_fail_(err, src, 0, "out of memory");
    }
    memset(present, 1, n);
    int rc = 0;
    while (opts && *opts && rc == 0) {
        char *next = strchr(opts, ';');
        if (next)
            *next++ = '\0';
        if (strncmp(opts, "little=", 7) == 0) {
            int k = clof_topo_cpulist_parse(opts + 7, set, CLOF_TOPO_MAX_CPUS);
            if (k < 0)
                rc = clof_topo_fail_(err, src, 0, "'%s': little=%s: expected a cpu list such "
                                     "as 4-7", shape, opts + 7);
            for (uint32_t c = n; rc == 0 && c < CLOF_TOPO_MAX_CPUS; c++)
                if (set[c])
                    rc = clof_topo_fail_(err, src, 0, "'%s': little=%s: cpu %u is beyond the "
                                         "%u emulated cpus", shape, opts + 7, c, n);
            for (uint32_t c = 0; rc == 0 && c < n; c++)
                if (set[c])
                    type[c] = CLOF_CORE_LITTLE;
        } else {
            rc = clof_topo_fail_(err, src, 0, "'%s': unknown option '%s': expected "
                                 "little=CPULIST", shape, opts);
        }
        opts = next;
    }
    if (rc == 0) {
        topo_spec_t s;
        memset(&s, 0, sizeof s);
        s.ncpus = n;
        s.present = present;
        s.core_type = type;
        /* unit i (top down) holds cpus_in[i] consecutive cpus */
        for (int i = nunits - 1; i >= 0; i--) {
            uint64_t in = cpus_per_leaf;
            for (int j = i + 1; j < nunits; j++)
                in *= count[j];
            uint32_t k = s.nlevels++;
            uint32_t *l = lab + (size_t)k * n;
            for (uint32_t c = 0; c < n; c++)
                l[c] = (uint32_t)(c / in);
            s.kind[k] = (clof_level_kind_t)rank[i];
            s.label[k] = l;
        }
        s.kind[s.nlevels++] = CLOF_LEVEL_SYSTEM;
        if (clof_topo_build_(t, &s) != 0)
            rc = clof_topo_fail_(err, src, 0, "out of memory");
    }
    free(type), free(present), free(set), free(lab);
    if (rc != 0)
        return -1;
    t->source = CLOF_TOPO_SRC_EMULATED;
    t->emulated = true;
    clof_topo_strlcpy_(t->origin, shape, sizeof t->origin);
    if (!(flags & CLOF_TOPO_KEEP_ALL) && clof_topology_prune(t) < 0) {
        clof_topology_free(t);
        return clof_topo_fail_(err, src, 0, "out of memory");
    }
    return 0;
}

int clof_topology_emulate(clof_topology_t *t, const char *shape, unsigned flags,
                          clof_topo_error_t *err)
{
    memset(t, 0, sizeof *t);
    if (err)
        memset(err, 0, sizeof *err);
    if (!shape)
        shape = "";
    if (strchr(shape, '/') || strchr(shape, '.')) {
        if (clof_topology_load_file(t, shape, err) != 0)
            return -1;
        t->source = CLOF_TOPO_SRC_EMULATED;
        t->emulated = true;
        return 0;
    }
    /* a copy of any length: a long little= list once was cut at 255
     * characters, silently emulating another machine */
    size_t n = strlen(shape) + 1;
    char *body = malloc(n);
    if (body)
        memcpy(body, shape, n);
    if (!body)
        return clof_topo_fail_(err, "--emulate", 0, "out of memory");
    int rc = emulate_shape(t, shape, body, flags, err);
    free(body);
    return rc;
}
