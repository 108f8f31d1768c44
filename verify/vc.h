/* SPDX-License-Identifier: MIT */
/*
 * verify/vc.h -- vc, the stateless model checker of clof.
 *
 * A checked program is a fixed number of threads that run as fibers of one
 * OS thread.  Every shared-memory access goes through vc_access() (the clof
 * `check` backend, verify/backend_check.h, maps the atomics shim onto it), and
 * every such access is a scheduling point.  The checker re-executes the
 * program from scratch once per explored execution, following a stack of
 * choices (which thread or store buffer moves next; for C11, which store a
 * load reads from), and prunes the search with dynamic partial-order
 * reduction (Flanagan-Godefroid persistent sets + sleep sets).  Quick mode
 * adds a preemption bound.
 *
 * Memory models
 *   VC_SC   sequential consistency: one memory, orders ignored.
 *   VC_TSO  x86-TSO: a FIFO store buffer per thread, drained by a separate
 *           schedulable "flusher" process; loads forward from their own
 *           buffer; read-modify-writes, seq_cst stores and seq_cst fences
 *           wait for an empty buffer (the x86 mapping of C11).
 *   VC_C11  C11 release/acquire/relaxed/seq_cst: per-location message
 *           histories with views.  A load reads any message at or after its
 *           view of the location (a choice point); acquire joins the
 *           message's view; relaxed loads keep it for a later acquire fence;
 *           release stores carry the thread's view, relaxed stores the view
 *           of its last release fence; read-modify-writes carry the view of
 *           the message they read (release sequences).
 *           seq_cst accesses of x never read below the latest seq_cst access
 *           of x; seq_cst fences join and publish a global view.
 *           Free modification order: a store takes any position in its
 *           location's mo after every message of its view (a choice point,
 *           like the message a load reads); a read-modify-write reads any
 *           message its view allows that no other RMW has read and goes
 *           right after it.  Events run in program order and a load reads
 *           only stores already made, so po u rf is acyclic: no load
 *           buffering (RC11's axiom, as in GenMC's RC11 mode).
 *
 * Awaits.  vc_await_change(p, seen) does not execute anything: it marks the
 * thread's next access of p as "must read a value other than seen", and that
 * access is disabled until such a value is readable.  A loop iteration that
 * would change nothing is therefore never executed (the reference checkers'
 * spin-assume).  When every live thread is disabled the execution is a
 * spinloop non-termination (hang).
 *
 * Properties: vc_assert() (user assertions), vc_cs_enter()/vc_cs_exit()
 * (mutual exclusion, a ghost counter outside the memory model), termination
 * (hang, or an execution longer than the step bound), and the program's
 * final() check on every complete execution.
 */
#ifndef VC_H
#define VC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum vc_model { VC_SC = 0, VC_TSO = 1, VC_C11 = 2 };

/* memory orders (the backend maps CLOF_MO_* onto these) */
enum vc_mo { VC_RLX = 0, VC_ACQ = 1, VC_REL = 2, VC_AR = 3, VC_SEQ = 4, VC_NOMO = 5 };
/* Or'ed into the order of a publication access (atomic.h's *_pub: its order
 * protects plain memory, which vc does not model): vc_access strips it and
 * never applies a mutation to such a site; the mutation tools skip it. */
#define VC_PUB 16

/* access kinds */
enum vc_kind {
    VC_LOAD,
    VC_STORE,
    VC_XCHG,
    VC_CAS,
    VC_FADD,
    VC_FSUB,
    VC_FAND,
    VC_FOR,
    VC_FXOR,
    VC_FENCE,
    VC_FUTEX_WAIT, /* park mode: val = expected word */
    VC_FUTEX_WAKE,
    VC_NKINDS
};

#define VC_MAX_THREADS 6

/* One shared access of the current thread (or a plain access outside the
 * exploration, during setup and final).  size is 4 or 8.  Returns the value
 * read (old value for read-modify-writes; for VC_CAS the old value, equal to
 * exp on success).  noinline: its return address names the call site. */
uint64_t vc_access(int kind, void *addr, int size, uint64_t val, uint64_t exp,
                   int mo);
void vc_await_change(const void *addr, int size, uint64_t seen);

/* Properties. */
void vc_assert_fail(const char *msg, const char *file, int line);
#define vc_assert(cond, msg)                                                   \
    do {                                                                       \
        if (!(cond))                                                           \
            vc_assert_fail(msg, __FILE__, __LINE__);                           \
    } while (0)
void vc_cs_enter(void);
void vc_cs_exit(void);
/* A client's ghost counters (checks, not data of the program): plain here,
 * since vc switches threads only at shared accesses; GenMC's interface
 * (genmc/vc_genmc.h) makes them relaxed atomics, which race legally.
 * vc_plain_write/vc_plain_read: a critical section's plain (non-atomic)
 * data, written by writers and read by readers -- GenMC reports a data race
 * on it when the lock does not order the sections; vc does not model plain
 * memory, so here they are nothing. */
#define vc_ghost_add(p, d) ((void)(*(p) += (d)))
#define vc_ghost_read(p) (*(p))
#define vc_plain_write() ((void)0)
#define vc_plain_read() ((void)0)

/* Name a memory range for traces ("lock", "ctx[1]", ...).  Call from setup. */
void vc_name(const void *addr, size_t size, const char *name);
int vc_self(void); /* current thread id, -1 outside the exploration */

/* The logical clock of the check backend's VC_CLOCK mode (backend_check.h):
 * a shared word like any other; a client's ghost thread advances it. */
extern uint64_t vc_clock;

/* A checked program. */
typedef struct vc_prog {
    const char *name;
    int nthreads;
    void (*setup)(void *arg);          /* plain; runs before every execution */
    void (*thread)(void *arg, int tid); /* body of thread tid */
    void (*final)(void *arg);          /* plain; after a complete execution */
    void *arg;
    /* optional: called (plain) each time thread tid is resumed, to restore
     * per-thread state the fibers share, such as a virtual cpu */
    void (*resume)(void *arg, int tid);
} vc_prog_t;

/* Mutation: weaken the accesses whose call site is in `sites`, or, with
 * nsites == 0 and loc_match set, the accesses of kind `kind` with order
 * `from_mo` to the locations whose name (vc_name) contains loc_match (a
 * named bug such as "every acquire load of a status field is relaxed"). */
typedef struct vc_mutation {
    const void *const *sites; /* return addresses */
    int nsites;
    int mo; /* new order (VC_NOMO with a fence: the fence is removed) */
    const char *loc_match;
    int kind;
    int from_mo;
    const int *site_mos; /* non-NULL: site i gets order site_mos[i] */
} vc_mutation_t;

/* A call site seen during an exploration (for the mutation tool). */
typedef struct vc_site {
    const void *addr;
    int kind;
    int mo;
    long hits;
    bool pub; /* a publication access (VC_PUB): never weakened */
} vc_site_t;

typedef struct vc_cfg {
    int model;
    int bound;          /* preemption bound; < 0: none (exhaustive DPOR) */
    long max_execs;     /* 0: none */
    double time_limit;  /* seconds; 0: none */
    int max_steps;      /* events per execution (0: default 2000) */
    bool no_dpor;       /* explore every interleaving (for measurements) */
    bool reverse;       /* explore threads and C11 choices in the reverse
                           order (the verdict must not change) */
    int verbose;        /* 1: progress; 2: every execution */
    FILE *out;          /* traces and progress (default stderr) */
    const vc_mutation_t *mutation;
    vc_site_t *sites; /* if non-NULL, filled with the sites seen */
    int max_sites;
    int nsites; /* out */
} vc_cfg_t;

enum vc_verdict { VC_OK = 0, VC_VIOLATION = 1, VC_ERROR = 2 };

typedef struct vc_result {
    int verdict;
    char property[64];  /* "mutual exclusion", "assertion", "hang", ... */
    char message[256];
    long execs;         /* complete executions checked */
    long blocked;       /* executions cut by the sleep sets (redundant) */
    long bound_cuts;    /* alternatives not explored because of the bound */
    long events;        /* events executed in total */
    int max_depth;      /* longest execution (events) */
    double seconds;
    bool exhaustive;    /* no bound, execution cap or time limit cut */
    bool limit_hit;     /* max_execs or time_limit stopped the search */
} vc_result_t;

int vc_check(const vc_prog_t *prog, const vc_cfg_t *cfg, vc_result_t *res);

const char *vc_model_name(int model);
int vc_model_parse(const char *s); /* -1 if unknown */
const char *vc_mo_name(int mo);
const char *vc_kind_name(int kind);

#ifdef __cplusplus
}
#endif

#endif /* VC_H */
