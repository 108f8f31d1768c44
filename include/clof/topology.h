/* SPDX-License-Identifier: MIT */
/*
 * clof/topology.h -- the runtime hierarchy of the machine (libclof).
 *
 * A hierarchy is an ordered list of levels from the leaves up, any subset of
 *
 *     core < cache < numa < package < system          (system always last)
 *
 * Level l partitions the cpus into cohorts (CLoF paper, section 3.1: a cohort
 * is a group of cpus at one level -- a core, a cache group, a NUMA node...);
 * every cohort of level l lies inside exactly one cohort of level l+1 (the
 * levels nest).  Level 0 is the lowest level a lock uses ("the leaf"), level
 * nlevels-1 is always the system level with a single cohort.
 *
 * Cohorts are numbered canonically, top down: at each level by (index of the
 * parent cohort, lowest cpu), so the children of a cohort are contiguous.
 * For every cpu, the cohort index at every level is one table read
 * (clof_topo_cohort); cohorts know their parent, their children and their
 * cpus.  Every level has a keep-local threshold (default 128) that the CLoF
 * generator reads, and every cpu a core type (big or little) for the
 * asymmetric layer.
 *
 * Sources, first that applies (clof_topology_load):
 *   1. a hierarchy file (docs/topology.md "The hierarchy file"):
 *      opts->file, else the environment variable CLOF_TOPOLOGY;
 *   2. an emulated machine: opts->emulate, else CLOF_EMULATE.  Either a
 *      shape such as "package:2,numa:2,cache:8,core:4" (children per parent,
 *      from the top; "cpu:N" gives cpus per innermost unit, default 1), or
 *      the path of a hierarchy file (anything containing '/' or '.');
 *      clof_current_cpu() then returns virtual cpus (see below);
 *   3. sysfs under opts->sysfs_root, else CLOF_SYSFS_ROOT, else "/sys";
 *   4. a flat machine (one system level over the configured cpus), with one
 *      warning on stderr.
 * When opts->file or opts->emulate is set, the environment variables
 * CLOF_TOPOLOGY and CLOF_EMULATE are ignored (explicit beats environment).
 * A malformed file or shape is an error (clof_topo_error_t, "file:line:
 * what was expected"); the topology is then left empty -- nothing runs on a
 * half-read hierarchy.
 *
 * Levels kept.  From sysfs and from shapes, a level is dropped when its
 * cohorts all hold one cpu (core on a machine without SMT), when it has one
 * cohort (the system's), or when it has the same cohorts as the kept level
 * below it (package on a machine with one NUMA node per package: numa stays,
 * as in the CLoF paper's x86 hierarchy; everything below system on a
 * one-socket VM).  Pass CLOF_TOPO_KEEP_ALL to keep them.  A hierarchy file
 * is taken as written.
 *
 * The current cpu.  clof_current_cpu() is what a lock calls at acquire to
 * find its leaf.  If the calling thread has a virtual cpu (set explicitly
 * with clof_topo_set_vcpu, or assigned automatically because the process
 * topology is emulated), it returns it (a thread-local read); otherwise it
 * returns sched_getcpu() (glibc >= 2.35 reads it from rseq, no system call).
 * Automatic assignment happens at a thread's first call, in registration
 * order, by the policy of clof_topo_set_assign (default packed: fill the
 * lowest cohort first, in hierarchy order).
 *
 * All functions are thread-safe except the ones that modify a topology the
 * caller owns.  The header compiles as C11 and C++17.
 */
/** \file
 * The runtime hierarchy of the machine (libclof): its levels, their cohorts
 * and the cpu-to-cohort table, loaded from a hierarchy file, an emulated
 * shape, sysfs or a flat fallback; the current cpu and virtual cpus.  The
 * comment at the top of the header explains levels, cohorts, the sources
 * and their order (docs/topology.md has the file format). */
#ifndef CLOF_TOPOLOGY_H
#define CLOF_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLOF_TOPO_MAX_LEVELS 5        /**< core cache numa package system */
#define CLOF_TOPO_STRIDE 8            /**< row length of the cohort table */
#define CLOF_TOPO_MAX_CPUS 8192       /**< cpu ids are below this */
#define CLOF_TOPO_DEFAULT_THRESHOLD 128u /**< keep-local threshold of a level */

/** The kind of a level, lowest first. */
typedef enum clof_level_kind {
    CLOF_LEVEL_CORE = 0,    /**< hardware threads of one core */
    CLOF_LEVEL_CACHE = 1,   /**< a cache group: cores sharing a cache slice */
    CLOF_LEVEL_NUMA = 2,    /**< a NUMA node */
    CLOF_LEVEL_PACKAGE = 3, /**< a socket */
    CLOF_LEVEL_SYSTEM = 4   /**< the whole machine */
} clof_level_kind_t;

/** The type of a core, for the asymmetric layer. */
typedef enum clof_core_type {
    CLOF_CORE_BIG = 0,   /**< big; also every core of a symmetric machine */
    CLOF_CORE_LITTLE = 1 /**< a little (efficiency) core */
} clof_core_type_t;

/** Where a topology came from. */
typedef enum clof_topo_source {
    CLOF_TOPO_SRC_NONE = 0, /**< an empty (zeroed or freed) topology */
    CLOF_TOPO_SRC_FILE,     /**< a hierarchy file */
    CLOF_TOPO_SRC_EMULATED, /**< an emulated shape (or file) */
    CLOF_TOPO_SRC_SYSFS,    /**< sysfs */
    CLOF_TOPO_SRC_FLAT      /**< the flat fallback: one system level */
} clof_topo_source_t;

/** One level.  All arrays are owned by the topology. */
typedef struct clof_topo_level {
    clof_level_kind_t kind;   /**< what the level's cohorts are */
    uint32_t ncohorts;        /**< cohorts of this level */
    uint32_t threshold;       /**< keep-local threshold of its cohorts */
    uint32_t *parent;         /**< [ncohorts] cohort at level+1 (0 at system) */
    uint32_t *size;           /**< [ncohorts] cpus in the cohort */
    uint32_t *cpu_start;      /**< [ncohorts+1] where cohort c's cpus start */
    /** cohort c has cpus[cpu_start[c] .. cpu_start[c+1]-1], ascending */
    uint32_t *cpus;
    uint32_t *child_start;    /**< [ncohorts+1] children at level-1 are the
                                 cohorts child_start[c] .. child_start[c+1]-1;
                                 NULL at level 0 */
} clof_topo_level_t;

/** Size of the text fields of clof_topology_t and clof_topo_error_t. */
#define CLOF_TOPO_TEXT_MAX 256

/** A hierarchy: its levels from the leaves up and the cpu-to-cohort table. */
typedef struct clof_topology {
    uint32_t ncpus;    /**< table size: highest cpu id + 1 */
    uint32_t npresent; /**< cpus that exist (ids may have holes) */
    uint32_t nlevels;  /**< 1..MAX_LEVELS; level[nlevels-1] is system */
    /** the levels, lowest first */
    clof_topo_level_t level[CLOF_TOPO_MAX_LEVELS];
    /** cohort[cpu * CLOF_TOPO_STRIDE + l]: cohort of cpu at level l.  A cpu id
     * that is not present has the cohorts of the lowest present cpu. */
    uint32_t *cohort;
    uint8_t *present;     /**< [ncpus] 1 if the cpu exists */
    uint8_t *core_type;   /**< [ncpus] clof_core_type_t */
    uint32_t *capacity;   /**< [ncpus] sysfs cpu_capacity, 0 when unknown */
    uint32_t *order_packed; /**< [npresent] cpus in depth-first order */
    uint32_t *order_spread; /**< [npresent] round robin over cohorts, top down */
    clof_topo_source_t source; /**< where it came from */
    bool emulated;        /**< clof_current_cpu() hands out virtual cpus */
    char origin[CLOF_TOPO_TEXT_MAX];  /**< file path, shape, or sysfs root */
    char name[CLOF_TOPO_TEXT_MAX];    /**< the file's "name" line, or "" */
    char warning[CLOF_TOPO_TEXT_MAX]; /**< why sysfs was incomplete, or "" */
    void *mem_;                       /* one allocation behind every array */
} clof_topology_t;

/** An error: msg is the whole message, "file:line: what was expected". */
typedef struct clof_topo_error {
    char msg[512];                 /**< the whole message */
    char file[CLOF_TOPO_TEXT_MAX]; /**< file, `--emulate` or sysfs root */
    unsigned line;                 /**< 1-based; 0 when not about a line */
} clof_topo_error_t;

/* flags of clof_topo_opts_t */
/** flag: keep levels that add nothing (see "Levels kept") */
#define CLOF_TOPO_KEEP_ALL 1u /* keep levels that add nothing (see above) */
/** flag: do not print the fallback warning on stderr */
#define CLOF_TOPO_QUIET 2u
/** flag: ignore CLOF_TOPOLOGY, CLOF_EMULATE, CLOF_SYSFS_ROOT */
#define CLOF_TOPO_NO_ENV 4u
/** flag: fail instead of falling back to flat */
#define CLOF_TOPO_NO_FLAT 8u

/** Options of clof_topology_load; all-zero (or NULL) = the defaults. */
typedef struct clof_topo_opts {
    const char *file;       /**< hierarchy file */
    const char *emulate;    /**< shape or hierarchy file to emulate */
    const char *sysfs_root; /**< default "/sys" */
    unsigned flags;         /**< CLOF_TOPO_KEEP_ALL, CLOF_TOPO_QUIET, ... */
} clof_topo_opts_t;

/* ---- loading and freeing ----------------------------------------------- */

/** Load t from the first source that applies: file, emulated machine,
 * sysfs, flat (see "Sources"; opts NULL: the defaults).  0 on success;
 * -1 with *err filled (t is then empty).  err may be NULL. */
int clof_topology_load(clof_topology_t *t, const clof_topo_opts_t *opts,
                       clof_topo_error_t *err);
/* One source each.  flags: CLOF_TOPO_KEEP_ALL where it applies. */
/** Load t from the hierarchy file at path: 0, or -1 with *err filled. */
int clof_topology_load_file(clof_topology_t *t, const char *path,
                            clof_topo_error_t *err);
/** Load t from the hierarchy-file text text[0..len-1], named filename in
 * the errors: 0, or -1 with *err filled. */
int clof_topology_parse(clof_topology_t *t, const char *text, size_t len,
                        const char *filename, clof_topo_error_t *err);
/** Load t as an emulated machine: a shape ("numa:2,core:4") or the path
 * of a hierarchy file; flags: CLOF_TOPO_KEEP_ALL.  0, or -1 with *err
 * filled. */
int clof_topology_emulate(clof_topology_t *t, const char *shape,
                          unsigned flags, clof_topo_error_t *err);
/** Load t from the sysfs tree under root (flags: CLOF_TOPO_KEEP_ALL): 0, or
 * -1 when the tree is missing or inconsistent (err says what); a tree
 * with some levels missing loads, with t->warning naming them. */
int clof_topology_from_sysfs(clof_topology_t *t, const char *root,
                             unsigned flags, clof_topo_error_t *err);
/** Make t one system level over cpus 0..ncpus-1 (ncpus 0: the configured
 * cpus); 0, or -1 when memory is short. */
int clof_topology_flat(clof_topology_t *t, uint32_t ncpus);
/** Free the tables and zero *t.  Safe on a zeroed topology. */
void clof_topology_free(clof_topology_t *t);
/** Make dst a deep copy of src (free dst with clof_topology_free); 0, or -1
 * when memory is short. */
int clof_topology_copy(clof_topology_t *dst, const clof_topology_t *src);
/** Drop levels that add nothing (see "Levels kept" in the header's opening
 * comment); returns the number of levels dropped, -1 on allocation
 * failure. */
int clof_topology_prune(clof_topology_t *t);
/** Keep only the levels whose kinds are in mask (bit 1u << kind); the system
 * level is always kept.  -1 on allocation failure. */
int clof_topology_select(clof_topology_t *t, unsigned mask);

/* ---- output -------------------------------------------------------------- */

/** Write t to f in the hierarchy-file form (parses back to the same
 * topology). */
int clof_topology_write(const clof_topology_t *t, FILE *f);
/** Write t to f as one JSON object (see docs/topology.md). */
int clof_topology_write_json(const clof_topology_t *t, FILE *f);
/** Write s to f as a JSON string literal (quotes included), escaped; used
 * by every program of clof that prints JSON. */
void clof_json_str(FILE *f, const char *s);

/* ---- names and cpu lists ------------------------------------------------ */

/** The name of a level kind: "core", "cache", "numa", "package", "system". */
const char *clof_topo_level_name(clof_level_kind_t kind); /* "core" ... */
/** The level kind (a clof_level_kind_t) of a name, -1 if unknown. */
int clof_topo_level_from_name(const char *name);         /* -1 if unknown */
/** The name of a source: "sysfs", "file"... */
const char *clof_topo_source_name(clof_topo_source_t s);  /* "sysfs" ... */
/** The name of a core type: "big" or "little". */
const char *clof_topo_core_type_name(clof_core_type_t c); /* "big"/"little" */
/** Parse "0-3,8,10-11" into set[0..max-1] (set is cleared first).  Returns the
 * number of cpus, or -1 on a syntax error or a cpu >= max. */
int clof_topo_cpulist_parse(const char *s, uint8_t *set, uint32_t max);
/** Format set[0..n-1] as a cpu list into buf[0..size-1]; returns the
 * length it needs (like snprintf). */
size_t clof_topo_cpulist_format(char *buf, size_t size, const uint8_t *set,
                                uint32_t n);

/* ---- the process topology ---------------------------------------------- */

/** The topology of this process: loaded at the first call with the default
 * options (environment, sysfs, flat); never NULL; never freed. */
const clof_topology_t *clof_topology(void);
/** Load with opts and make it the process topology.  Call it before creating
 * locks (locks made earlier keep the topology they were built on).  0 or -1
 * with *err filled (the process topology is then unchanged). */
int clof_topology_install(const clof_topo_opts_t *opts, clof_topo_error_t *err);

/* ---- the current cpu and virtual cpus ----------------------------------- */

/** How threads get virtual cpus on an emulated process topology. */
typedef enum clof_vcpu_assign {
    CLOF_VCPU_PACKED = 0, /**< k-th thread -> order_packed[k % npresent] */
    CLOF_VCPU_SPREAD = 1, /**< k-th thread -> order_spread[k % npresent] */
    CLOF_VCPU_LINEAR = 2  /**< k-th thread -> k-th present cpu by id */
} clof_vcpu_assign_t;

/* The calling thread's virtual cpu, -1 when it has none. */
extern __thread int32_t clof_topo_vcpu_tls_;
/* 1 when the process topology is known and not emulated (real cpus). */
extern int clof_topo_real_cpus_;
uint32_t clof_current_cpu_slow_(void);

/** The cpu the calling thread runs on (virtual when it has a virtual cpu).
 * Without a virtual cpu it reads the kernel's rseq area that glibc (>= 2.35)
 * registers for every thread: a few instructions, no call, no system call;
 * sched_getcpu() otherwise. */
#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/rseq.h>) && (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#define CLOF_TOPO_HAVE_RSEQ 1
#endif
#endif
static inline uint32_t clof_current_cpu(void)
{
    int32_t v = clof_topo_vcpu_tls_;
    if (__builtin_expect(v >= 0, 1))
        return (uint32_t)v;
#ifdef CLOF_TOPO_HAVE_RSEQ
    if (__builtin_expect(clof_topo_real_cpus_ && __rseq_size > 0, 1)) {
        const struct rseq *rs =
            (const struct rseq *)(const void *)((const char *)__builtin_thread_pointer() +
                                                __rseq_offset);
        int32_t c = (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);
        if (__builtin_expect(c >= 0, 1))
            return (uint32_t)c;
    }
#endif
    return clof_current_cpu_slow_();
}

/** Give the calling thread virtual cpu vcpu (-1: none).  Works on any
 * topology; 0, or -1 when vcpu >= CLOF_TOPO_MAX_CPUS. */
int clof_topo_set_vcpu(int32_t vcpu);
/** The calling thread's virtual cpu, -1 when it has none. */
int32_t clof_topo_get_vcpu(void);
/** Policy of automatic assignment on an emulated process topology; also read
 * from CLOF_EMULATE_ASSIGN=packed|spread|linear at first use. */
void clof_topo_set_assign(clof_vcpu_assign_t policy);
/** The policy (a clof_vcpu_assign_t) of a name: "packed", "spread" or
 * "linear"; -1 if unknown. */
int clof_topo_assign_from_name(const char *name); /* -1 if unknown */
/** Restart the registration order (the next new thread is thread 0). */
void clof_topo_assign_reset(void);
/** The virtual cpu the k-th registered thread gets on topology t. */
uint32_t clof_topo_assign_vcpu(const clof_topology_t *t,
                               clof_vcpu_assign_t policy, uint32_t k);

/* ---- O(1) lookups --------------------------------------------------------- */

/** Cohort of cpu at level l.  A cpu id >= ncpus (a cpu brought online after
 * loading) is folded into range. */
static inline uint32_t clof_topo_cohort(const clof_topology_t *t, uint32_t cpu,
                                        uint32_t l)
{
    if (__builtin_expect(cpu >= t->ncpus, 0))
        cpu %= t->ncpus;
    return t->cohort[(size_t)cpu * CLOF_TOPO_STRIDE + l];
}

/** The row of cohorts of cpu, index by level. */
static inline const uint32_t *clof_topo_cohorts_of(const clof_topology_t *t,
                                                   uint32_t cpu)
{
    if (__builtin_expect(cpu >= t->ncpus, 0))
        cpu %= t->ncpus;
    return &t->cohort[(size_t)cpu * CLOF_TOPO_STRIDE];
}

/** The number of levels of t (the last one is the system level). */
static inline uint32_t clof_topo_nlevels(const clof_topology_t *t)
{
    return t->nlevels;
}

/** The number of cohorts of level l. */
static inline uint32_t clof_topo_ncohorts(const clof_topology_t *t, uint32_t l)
{
    return t->level[l].ncohorts;
}

/** The kind of level l. */
static inline clof_level_kind_t clof_topo_level_kind(const clof_topology_t *t,
                                                     uint32_t l)
{
    return t->level[l].kind;
}

/** The keep-local threshold of level l's cohorts. */
static inline uint32_t clof_topo_threshold(const clof_topology_t *t, uint32_t l)
{
    return t->level[l].threshold;
}

/** Index of the level of that kind, -1 when the hierarchy has none. */
static inline int clof_topo_level_index(const clof_topology_t *t,
                                        clof_level_kind_t kind)
{
    for (uint32_t l = 0; l < t->nlevels; l++)
        if (t->level[l].kind == kind)
            return (int)l;
    return -1;
}

/** The core type of cpu (folded into range as in clof_topo_cohort). */
static inline clof_core_type_t clof_topo_core_type(const clof_topology_t *t,
                                                   uint32_t cpu)
{
    if (__builtin_expect(cpu >= t->ncpus, 0))
        cpu %= t->ncpus;
    return (clof_core_type_t)t->core_type[cpu];
}

/** Whether cpu is a little core. */
static inline bool clof_topo_is_little(const clof_topology_t *t, uint32_t cpu)
{
    return clof_topo_core_type(t, cpu) == CLOF_CORE_LITTLE;
}

#ifdef __cplusplus
}
#endif

#endif /* CLOF_TOPOLOGY_H */
