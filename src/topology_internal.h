/* SPDX-License-Identifier: MIT */
/*
 * topology_internal.h -- shared by the src/topology*.c files (not installed).
 */
#ifndef CLOF_TOPOLOGY_INTERNAL_H
#define CLOF_TOPOLOGY_INTERNAL_H

#include <clof/topology.h>

#include <stdarg.h>

/* What every source hands to the builder: per level, a label per cpu (any
 * value < ncpus; cpus with the same label at a level form one cohort).  The
 * levels must nest; the builder numbers cohorts canonically. */
typedef struct topo_spec {
    uint32_t ncpus;
    const uint8_t *present; /* [ncpus] */
    uint32_t nlevels;       /* the last one must be CLOF_LEVEL_SYSTEM */
    clof_level_kind_t kind[CLOF_TOPO_MAX_LEVELS];
    uint32_t threshold[CLOF_TOPO_MAX_LEVELS];
    const uint32_t *label[CLOF_TOPO_MAX_LEVELS]; /* [ncpus]; NULL at system */
    const uint8_t *core_type;                    /* [ncpus] or NULL */
    const uint32_t *capacity;                    /* [ncpus] or NULL */
} topo_spec_t;

/* Build t from s (t is overwritten; on failure it is zeroed).  0, or -1 when
 * out of memory or when s is invalid (levels out of order or not nesting). */
int clof_topo_build_(clof_topology_t *t, const topo_spec_t *s);

/* Does the partition `lo` nest in `hi` over the present cpus?  (NULL = the
 * single system cohort.)  Labels are < ncpus. */
bool clof_topo_nests_(uint32_t ncpus, const uint8_t *present,
                      const uint32_t *lo, const uint32_t *hi);

/* Same partition? */
bool clof_topo_same_partition_(uint32_t ncpus, const uint8_t *present,
                               const uint32_t *a, const uint32_t *b);

/* printf into err (file, line and msg "file:line: ..."); returns -1. */
int clof_topo_fail_(clof_topo_error_t *err, const char *file, unsigned line,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* bounded string copy that always terminates */
void clof_topo_strlcpy_(char *dst, const char *src, size_t size);

/* the number of cpus configured on this machine (>= 1) */
uint32_t clof_topo_configured_cpus_(void);

#endif
