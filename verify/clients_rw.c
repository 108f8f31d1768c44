/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_rw.c -- clients of the RW locks (include/clof/rw/, family
 * "rw"): rw-central, the cohort RW lock of Calciu et al. over a ticket
 * writer lock in each preference, and BRAVO over rw-central and over the
 * writer-preferring cohort lock.  The lock sources are the ones the native
 * build and the preload library compile, through the `check` backend.
 *
 * The client: 3 threads on an emulated two-node machine ("numa:2,core:2";
 * T0 and T1 on node 0, T2 on node 1: the reader indicator has two slots in
 * use).  T0 writes twice, T1 reads then writes, T2 tries a read (and a
 * timed write with deadline 0 -- a try) then reads.  A write section
 * increments the shared counter with relaxed accesses; a read section reads
 * it.  Ghost state (plain variables: the checker switches threads only at
 * shared accesses) checks that a writer is alone (no reader, no writer) and
 * that a reader sees no writer; the final check counter == writes catches
 * a writer not ordered after the previous one, and each read checks that it
 * sees at least the writes whose sections ended before its own began
 * (ghost: writes completed when the reader entered -- a reader not ordered
 * after a writer reads a stale counter).
 * CLOF_RW_SLOTS 2 and CLOF_BRAVO_SLOTS 4 keep the scans small.
 */
#define CLOF_RW_SLOTS 2u
#define CLOF_BRAVO_SLOTS 4u
#include "clients.h"

/* The workload's bounds (clof-verify: the defaults; GenMC's bounded
 * 3-thread runs lower them, verify/genmc): T0's writes, T1's writes after
 * its read, and whether T2 tries a read and a timed write first. */
#ifndef VC_RW_T0_WRITES
#define VC_RW_T0_WRITES 2
#endif
#ifndef VC_RW_T1_WRITES
#define VC_RW_T1_WRITES 1
#endif
#ifndef VC_RW_T2_TRIES
#define VC_RW_T2_TRIES 1
#endif

#include <clof/rw/bravo.h>
#include <clof/rw/central.h>
#include <clof/rw/cohort.h>
#include <clof/lock/ticket.h>

CLOF_RW_COHORT(vc_rw_tkt, ticket)
CLOF_RW_BRAVO(vc_bravo_central, rw_central)
CLOF_RW_BRAVO(vc_bravo_tkt, vc_rw_tkt)

static bool machine_ready;
static void machine(void)
{
    if (machine_ready)
        return;
    clof_topo_opts_t o;
    memset(&o, 0, sizeof o);
    o.emulate = "numa:2,core:2";
    o.flags = CLOF_TOPO_NO_ENV | CLOF_TOPO_QUIET;
    clof_topo_error_t err;
    if (clof_topology_install(&o, &err) != 0) {
        fprintf(stderr, "clof-verify: topology: %s\n", err.msg);
        exit(2);
    }
    machine_ready = true;
}
static const int32_t rw_cpus[3] = {0, 1, 2};
VC_RESUME_CPUS(rw_resume, rw_cpus)

/* ghost state (vc.h's vc_ghost_*: plain for vc, relaxed atomics under
 * GenMC), and the sections' plain data (vc_plain_*: a data race under
 * GenMC when a writer overlaps another holder) */
static uint32_t g_writers, g_readers;
static uint32_t g_writes_done;

static void rw_setup_common(void)
{
    machine();
    vc_client_setup_common();
    g_writers = g_readers = 0;
    g_writes_done = 0;
    memset(clof_bravo_table, 0, sizeof clof_bravo_table);
    vc_name(clof_bravo_table, sizeof clof_bravo_table, "bravo_table");
}

static void rw_write_cs(void)
{
    vc_assert(vc_ghost_read(&g_writers) == 0 && vc_ghost_read(&g_readers) == 0,
              "a writer entered beside another holder");
    vc_ghost_add(&g_writers, 1);
    uint32_t v = clof_atomic32_read_rlx(&vc_counter);
    clof_atomic32_write_rlx(&vc_counter, v + 1);
    vc_plain_write();
    vc_acquired++;
    vc_ghost_add(&g_writes_done, 1);
    vc_ghost_add(&g_writers, (uint32_t)-1);
}

static void rw_read_cs(void)
{
    vc_assert(vc_ghost_read(&g_writers) == 0, "a reader entered beside a writer");
    vc_ghost_add(&g_readers, 1);
    uint32_t before = vc_ghost_read(&g_writes_done);
    uint32_t v = clof_atomic32_read_rlx(&vc_counter);
    vc_plain_read();
    vc_assert(v >= before, "a reader saw a counter older than the writes before it "
                           "(the lock did not order the reader after the writer)");
    vc_ghost_add(&g_readers, (uint32_t)-1);
}

static void rw_final(void *arg)
{
    (void)arg;
    vc_assert(clof_atomic32_read_rlx(&vc_counter) == vc_ghost_read(&g_writes_done),
              "counter != writes: an update was lost");
    vc_assert(vc_ghost_read(&g_writes_done) >= VC_RW_T0_WRITES + VC_RW_T1_WRITES,
              "a write went missing");
}

#define VC_RW_CLIENT_(N, PREF)                                                 \
    static clof_##N##_t N##_lock;                                              \
    static clof_##N##_ctx_t N##_ctx[3];                                        \
    static void N##_setup(void *arg)                                           \
    {                                                                          \
        (void)arg;                                                             \
        memset(&N##_lock, 0, sizeof N##_lock);                                 \
        memset(N##_ctx, 0, sizeof N##_ctx);                                    \
        clof_##N##_init(&N##_lock, *(const uint32_t *)arg);                    \
        rw_setup_common();                                                     \
        vc_name(&N##_lock, sizeof N##_lock, "lock");                           \
        vc_name(N##_ctx, sizeof N##_ctx, "ctx");                               \
    }                                                                          \
    static void N##_thread(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        clof_##N##_ctx_t *c = &N##_ctx[t];                                     \
        if (t == 0) {                                                          \
            for (int i = 0; i < VC_RW_T0_WRITES; i++) {                        \
                clof_##N##_write_acquire(&N##_lock, c);                        \
                rw_write_cs();                                                 \
                clof_##N##_write_release(&N##_lock, c);                        \
            }                                                                  \
        } else if (t == 1) {                                                   \
            clof_##N##_read_acquire(&N##_lock, c);                             \
            rw_read_cs();                                                      \
            clof_##N##_read_release(&N##_lock, c);                             \
            for (int i = 0; i < VC_RW_T1_WRITES; i++) {                        \
                clof_##N##_write_acquire(&N##_lock, c);                        \
                rw_write_cs();                                                 \
                clof_##N##_write_release(&N##_lock, c);                        \
            }                                                                  \
        } else {                                                               \
            if (VC_RW_T2_TRIES && clof_##N##_read_tryacquire(&N##_lock, c)) {  \
                rw_read_cs();                                                  \
                clof_##N##_read_release(&N##_lock, c);                         \
            }                                                                  \
            if (VC_RW_T2_TRIES && clof_##N##_write_acquire_until(&N##_lock, c, 0)) { \
                rw_write_cs();                                                 \
                clof_##N##_write_release(&N##_lock, c);                        \
            }                                                                  \
            clof_##N##_read_acquire(&N##_lock, c);                             \
            rw_read_cs();                                                      \
            clof_##N##_read_release(&N##_lock, c);                             \
        }                                                                      \
    }

VC_RW_CLIENT_(rw_central, 0)
VC_RW_CLIENT_(vc_rw_tkt, 0)
VC_RW_CLIENT_(vc_bravo_central, 0)
VC_RW_CLIENT_(vc_bravo_tkt, 0)

static const uint32_t pref_r = CLOF_RW_PREF_READER, pref_w = CLOF_RW_PREF_WRITER,
                      pref_n = CLOF_RW_PREF_NEUTRAL;

/* the setup hook gets no argument of its own: one wrapper per preference */
#define VC_RW_SETUP_(N, P, sfx)                                                \
    static void N##_setup_##sfx(void *arg)                                     \
    {                                                                          \
        (void)arg;                                                             \
        N##_setup((void *)&P);                                                 \
    }
VC_RW_SETUP_(rw_central, pref_r, r)
VC_RW_SETUP_(rw_central, pref_w, w)
VC_RW_SETUP_(vc_rw_tkt, pref_r, r)
VC_RW_SETUP_(vc_rw_tkt, pref_w, w)
VC_RW_SETUP_(vc_rw_tkt, pref_n, n)
VC_RW_SETUP_(vc_bravo_central, pref_r, r)
VC_RW_SETUP_(vc_bravo_tkt, pref_r, r)
VC_RW_SETUP_(vc_bravo_tkt, pref_w, w)

#define VC_RW_ENTRY_(name, N, sfx, what)                                       \
    {name, "rw", what, 3, N##_setup_##sfx, N##_thread, rw_final, rw_resume, "", 1},

const vc_client_t vc_clients_rw[] = {
    VC_RW_ENTRY_("rw.central", rw_central, r, "rw-central, reader preference")
    VC_RW_ENTRY_("rw.central.wp", rw_central, w, "rw-central, writer preference")
    VC_RW_ENTRY_("rw.cohort.rp", vc_rw_tkt, r, "cohort RW (C-RW-RP) over ticket")
    VC_RW_ENTRY_("rw.cohort.wp", vc_rw_tkt, w, "cohort RW (C-RW-WP) over ticket")
    VC_RW_ENTRY_("rw.cohort.np", vc_rw_tkt, n, "cohort RW (C-RW-NP) over ticket")
    VC_RW_ENTRY_("rw.bravo.central", vc_bravo_central, r, "BRAVO over rw-central")
    VC_RW_ENTRY_("rw.bravo.cohort.rp", vc_bravo_tkt, r, "BRAVO over C-RW-RP/ticket")
    /* writer preference keeps BRAVO unbiased (rw/bravo.h): B itself */
    VC_RW_ENTRY_("rw.bravo.cohort.wp", vc_bravo_tkt, w, "BRAVO over C-RW-WP/ticket (never biased)")
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}};
