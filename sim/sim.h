/* SPDX-License-Identifier: MIT */
/*
 * sim/sim.h -- the simulator behind the `sim` backend of the atomics shim
 * (sim/backend_sim.h): simulated cpus run a program's threads in virtual
 * time under a cache-coherence cost model of a declared machine.  See
 * docs/simulation.md for the model, the profiles and what it is good for.
 *
 * Machine profiles (sim_profile_load): a hierarchy file (docs/topology.md)
 * plus the cost, in ns, of moving a cache line between two cpus whose
 * closest common level is core, cache, numa, package or system, the cost of
 * a local hit, of an atomic read-modify-write, of a fence, of a pause, and a
 * per-cpu speed factor that scales the cpu's local work.
 *
 * The model (sim.c):
 *   - a directory entry per 64-byte line: the cpu that holds it modified
 *     (if any) and the set of cpus that hold it shared (MESI-like);
 *   - every shim access is charged by the line's state: a hit costs `hit`;
 *     a miss costs the transfer from the closest holder (the modifier, else
 *     the nearest sharer, else `memory`); a write also invalidates every
 *     other sharer and costs at least the farthest invalidation; an RMW adds
 *     `rmw`.  Transfers of one line are serialised (the line is busy until
 *     the previous transfer completes), which is what makes a line that many
 *     cpus fight over slow;
 *   - every thread has a virtual clock; the runnable thread with the
 *     smallest clock (ties: lowest thread index) runs next, so accesses take
 *     effect in virtual-time order;
 *   - a thread that awaits a change of a word sleeps until some other cpu
 *     writes that word's line, then wakes at the time of that write and
 *     re-reads (a miss) -- a spin costs what a real spin costs (the misses
 *     after each invalidation) without simulating every iteration;
 *   - local work (non-critical sections, backoff delays, pauses) advances
 *     the clock, divided by the cpu's speed.
 * Deterministic: the same program, profile, thread placement and seed give
 * the same run (the seed only drives the transfer-cost jitter here; the
 * benchmark draws its non-critical work from its own seeded generator).
 */
#ifndef CLOF_SIM_H
#define CLOF_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <clof/topology.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_MAX_CPUS 256    /* cpus of a simulated machine */
#define SIM_MAX_THREADS 1024
#define SIM_LINE 64         /* bytes per cache line */
#define SIM_NKINDS 5        /* core cache numa package system */
/* Defaults of the time-sharing statements (assumptions, docs/simulation.md):
 * a context switch about 2 us, a futex wake system call 1 us to the waker,
 * a 3 ms slice (Linux's EEVDF base slice on 8 or more cpus). */
#define SIM_DEFAULT_SWITCH_NS 2000.0
#define SIM_DEFAULT_WAKE_NS 1000.0
#define SIM_DEFAULT_SLICE_NS 3e6

/* ---- profiles ------------------------------------------------------------ */

typedef struct sim_profile {
    char name[128];        /* "kunpeng920", or the file's base name */
    char path[1024];       /* the profile file */
    char hierarchy[1024];  /* its hierarchy file (resolved path) */
    char description[256]; /* the `description` line */
    char source[256];      /* the `source` line: where the costs come from */
    double hit_ns, rmw_ns, fence_ns, pause_ns, memory_ns, jitter;
    /* time-sharing (more threads than cpus): the cost of a switch between
     * two threads on a cpu (`cost switch`), of a futex wake to the waker
     * (`cost wake`), and the time slice (`slice`) */
    double switch_ns, wake_ns, slice_ns;
    double level_ns[SIM_NKINDS]; /* by clof_level_kind_t; <0: not given */
    double speed[SIM_MAX_CPUS];  /* local-work speed per cpu (1 = nominal) */
    clof_topology_t topo;        /* the machine's full hierarchy */
    /* derived: the kind of the closest common level of every pair
     * (SIM_NKINDS for the same cpu) and its transfer cost */
    uint8_t *pair_kind;  /* [ncpus * ncpus] */
    double *pair_ns;     /* [ncpus * ncpus] */
} sim_profile_t;

/* Load a profile by name (looked up in $CLOF_SIM_PROFILES, then the
 * installed/source profile directory) or by path (anything with '/' or
 * ending in ".profile").  0, or -1 with "file:line: what was expected" (or
 * "unknown profile 'x'; known profiles: ...") in err. */
int sim_profile_load(sim_profile_t *p, const char *name_or_path, char *err,
                     size_t errlen);
/* The same from text in memory (tests/fuzz/fuzz_sim_profile.c); path names
 * it in messages and locates a relative 'hierarchy FILE'. */
int sim_profile_parse(sim_profile_t *p, const char *path, const char *text,
                      size_t len, char *err, size_t errlen);
void sim_profile_free(sim_profile_t *p);
/* The directory searched for profile names. */
const char *sim_profile_dir(void);
/* Known profile names, separated by sep, into buf. */
void sim_profile_list(char *buf, size_t n, const char *sep);

/* ---- running a simulation -------------------------------------------------- */

typedef void (*sim_fn)(void *arg);

typedef struct sim_stats {
    double now_ns;                     /* virtual time */
    uint64_t accesses;                 /* shim accesses charged */
    uint64_t transfers[SIM_NKINDS];    /* line transfers between cpus, by the
                                          kind of their closest common level */
    uint64_t invalidations[SIM_NKINDS];/* sharers invalidated by writes */
    uint64_t memory_fills;             /* misses served by memory */
    uint64_t switches;                 /* fiber switches (simulator cost) */
    uint64_t wakeups;                  /* awaits woken by a write */
    /* time-sharing runs (0 otherwise) */
    uint64_t ctx_switches;             /* a cpu passed from one thread to
                                          another (each costs `switch`) */
    uint64_t preemptions;              /* ... at the end of a slice */
    uint64_t yields;                   /* yields of the waiting policy */
    uint64_t parks;                    /* futex parks of the waiting policy */
    uint64_t park_wakes;               /* parked threads woken (`wake`) */
    uint64_t migrations;               /* woken onto another, idle cpu */
} sim_stats_t;

/* Run fn(args[i]) for i < nthreads as simulated threads on cpus[i] of the
 * profile's machine, all starting at virtual time 0.  Several threads may
 * share a cpu: they then time-share it (a run queue per cpu, the profile's
 * slice and switch cost; docs/simulation.md "Time-sharing").  Returns 0
 * when every thread returned; -1 with err filled on a deadlock (every live
 * thread awaits a line that nobody can write) or a bad argument. */
int sim_run(const sim_profile_t *p, int nthreads, const uint32_t *cpus,
            sim_fn fn, void *const *args, uint64_t seed, char *err,
            size_t errlen);

/* How waits behave (set before sim_run):
 *   SIM_WAIT_AUTO    the waiting policy (spin, yield, park) when threads
 *                    share cpus, else spin only (the papers' machines; the
 *                    model of every run before time-sharing existed);
 *   SIM_WAIT_SPIN    spin only: a waiter keeps its cpu until a write or the
 *                    end of its slice;
 *   SIM_WAIT_POLICY  the waiting policy, even with a cpu per thread. */
enum { SIM_WAIT_AUTO = 0, SIM_WAIT_SPIN = 1, SIM_WAIT_POLICY = 2 };
void sim_set_wait_model(int model);

/* The cpus of the current run (its cpu set), SIM_MAX_CPUS outside a run:
 * what a simulated process may run on (cr.h sizes its active set by it). */
uint32_t sim_ncpus(void);
/* The calling simulated thread's parks so far (the waiting policy's, on
 * time-shared cpus; 0 outside a run). */
uint32_t sim_parks(void);
/* A key of the current simulated thread, salted with the run's seed, the
 * same in every process (BRAVO's slot hash: backend_sim.h); 0 outside a
 * run. */
uint64_t sim_thread_key(void);

/* The statistics so far (inside or after a run). */
void sim_stats_get(sim_stats_t *s);

/* ---- inside a simulated thread ----------------------------------------------
 * (The backend calls these; a benchmark calls sim_now_ns and sim_work_ns.) */

/* SIM_WRITE: a plain, relaxed or release store (it may wait in the store
 * buffer); SIM_WRITE_SC: a seq_cst store (it drains the store buffer, as
 * x86's xchg/mov+mfence and a store followed by a full barrier). */
enum { SIM_READ = 0, SIM_WRITE = 1, SIM_RMW = 2, SIM_WRITE_SC = 3 };

/* Charge one access of kind SIM_READ/SIM_WRITE/SIM_RMW to the line of
 * addr, in virtual-time order (may switch to another simulated thread
 * first).  Outside a simulation: a no-op. */
void sim_access(const void *addr, int kind);
/* The waiting policy's parameters (wait.h: CLOF_WAIT_SPINS, ..._MIN,
 * CLOF_WAIT_YIELDS, CLOF_WAIT_YIELDS_WOKEN; spin_only: CLOF_WAIT_SPIN). */
typedef struct sim_wait_params {
    uint32_t spins, spins_min, yields, yields_woken;
    bool spin_only;
} sim_wait_params_t;
/* One waiting step on the word at p (size 4 or 8 bytes), last seen holding
 * `seen`: returns at once when it differs; else, with a cpu per thread,
 * sleeps until another cpu writes its line; on time-shared cpus, follows
 * the waiting policy wp (spin, yield, park: sim.c await_policy) and may
 * return before a change (the caller re-reads).  sim_await_change: wp
 * NULL, spin only. */
void sim_await(const void *p, int size, uint64_t seen,
               const sim_wait_params_t *wp);
void sim_await_change(const void *p, int size, uint64_t seen);
/* The same for a wait until the word holds `want`: a parked waiter (off
 * its cpu) is woken only by a write of `want` to its word (keyed parking,
 * wait.h); a spinning one by any write of the line. */
void sim_await_for(const void *p, int size, uint64_t seen, uint64_t want,
                   const sim_wait_params_t *wp);
/* After the write of every shim store or RMW (backend_sim.h): wakes the
 * parked waiters whose word it wrote (a park waits for its word, not its
 * line: a futex). */
extern bool sim_pending_;
void sim_pending_wake_(void);
static inline void sim_written(void)
{
    if (__builtin_expect(sim_pending_, 0))
        sim_pending_wake_();
}
/* Local work of ns nanoseconds at nominal speed (scaled by the cpu's
 * speed).  fence: the profile's fence cost; pause: pause_ns * n. */
void sim_work_ns(double ns);
void sim_fence(void);
void sim_pause(uint32_t n);
/* Virtual time of the calling thread (ns; 0 outside a run). */
double sim_now_ns(void);
/* Whether the caller is a simulated thread. */
bool sim_active(void);

#ifdef __cplusplus
}
#endif

#endif /* CLOF_SIM_H */
