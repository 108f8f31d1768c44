/* SPDX-License-Identifier: MIT */
/*
 * verify/bugs.h -- the named memory-order bugs, one table for both checkers:
 * `clof-verify --bug NAME` (vc; verify/clof_verify.c) and
 * `clof-relacy --bug NAME` (the Relacy cross-check; verify/relacy/).
 *
 * A bug weakens the accesses of kind `kind` (VC_LOAD, VC_STORE, ...; -1:
 * every access that writes with release semantics) done with order
 * `from_mo` to `to_mo`, either at locations whose name (vc_name) contains
 * `loc_match`, or inside the lock function `site_fn` (vc finds its call
 * sites by source line; the Relacy driver wraps that function).  Each must
 * be caught under C11.  A bug marked vc_only needs a behaviour Relacy cannot
 * produce (a store placed before an older one in modification order): the
 * Relacy driver does not offer it.
 */
#ifndef CLOF_VERIFY_BUGS_H
#define CLOF_VERIFY_BUGS_H

#include "vc.h"

#include <stdio.h>
#include <string.h>

typedef struct vc_bug {
    const char *name, *client, *what;
    int kind, from_mo, to_mo;
    const char *loc_match; /* NULL: any location */
    const char *site_fn;   /* NULL: any function */
    int vc_only;           /* 1: only vc (free modification order) sees it */
} vc_bug_t;

static const vc_bug_t vc_bugs[] = {
    {"hmcs-status-acquire", "hmcs3",
     "HMCS with the status awaits relaxed (the HMCS paper's missing acquire)",
     VC_LOAD, VC_ACQ, VC_RLX, "status", NULL, 0},
    {"mcs-handoff-release", "mcs",
     "MCS whose release hands over with a relaxed store (no release)",
     VC_STORE, VC_REL, VC_RLX, NULL, "clof_mcs_release", 0},
    {"ticket-release-rlx", "ticket",
     "ticket lock whose release writes `owner` relaxed", -1, VC_REL, VC_RLX, NULL,
     "clof_ticket_release", 0},
    {"twa-notify-relaxed", "twa",
     "TWA whose release increments the waiting-array slot relaxed: a "
     "long-term waiter reads the new slot value but the old grant and waits "
     "on a slot that no one will change",
     VC_FADD, VC_REL, VC_RLX, NULL, "clof_twa_release", 0},
    {"fissile-release-relaxed", "fissile",
     "Fissile lock whose release clears HELD with a relaxed subtraction: "
     "the next owner's acquire does not synchronize with it and its "
     "critical section races with the one before",
     VC_FSUB, VC_REL, VC_RLX, NULL, "clof_fissile_release", 0},
    {"mutexee-release-relaxed", "mutexee",
     "MUTEXEE whose release clears the word with a relaxed store: the next "
     "owner's compare-exchange does not synchronize with it and its "
     "critical section races with the one before",
     VC_STORE, VC_REL, VC_RLX, NULL, "clof_mutexee_release", 0},
    {"array-handover-relaxed", "array",
     "array lock whose release stores the next flag and head relaxed: the "
     "next ticket enters without synchronizing with the release, and its "
     "critical section races with the one before",
     VC_STORE, VC_REL, VC_RLX, NULL, "clof_array_release", 0},
    {"recip-arrive-relaxed", "recip",
     "Reciprocating lock whose arrival exchange on `arrivals` is relaxed: an "
     "arrival that finds the lock free (NULL) does not synchronize with the "
     "release that freed it and misses its critical section",
     VC_XCHG, VC_SEQ, VC_RLX, NULL, "clof_recip_acquire", 0},
    {"recip-detach-relaxed", "recip",
     "Reciprocating lock whose release detaches the arrival stack with a "
     "relaxed exchange: the newest arrival's reset of its gate may follow "
     "the hand-over in mo, and it waits forever",
     VC_XCHG, VC_ACQ, VC_RLX, NULL, "clof_recip_pass_", 1},
    {"acohort-fast-take-acquire", "a-c-bo-bo.timed.fast",
     "A-C-BO-BO whose global lock's owner takes HELD with a relaxed CAS (the "
     "fast owner's critical section is not ordered before its own)",
     VC_CAS, VC_ACQ, VC_RLX, NULL, "clof_compose_fast_take_until_", 0},
    {"mcs-link-relaxed", "mcs",
     "MCS whose waiter links itself to its predecessor (pred->next = c) with "
     "a relaxed store: its locked = 1 may follow the hand-over's locked = 0 "
     "in mo (the S shape), and it waits forever",
     VC_STORE, VC_REL, VC_RLX, NULL, "clof_mcs_enqueue_", 1},
    {"rw-wactive-release", "rw.cohort.wp",
     "cohort RW lock whose writer raises wactive with a release store instead "
     "of seq_cst: the Dekker pair with the readers' arrival breaks (a reader "
     "and the writer each miss the other); caught under TSO at once (the C11 "
     "search takes minutes: not in CI); no Relacy client",
     VC_STORE, VC_SEQ, VC_REL, NULL, "clof_rw_writer_enter_until_", 1},
    {"bravo-rbias-relaxed", "rw.bravo.cohort.rp",
     "BRAVO whose slow reader biases the lock again (rbias = 1) with a relaxed "
     "store: a fast reader that finds the bias is not ordered after the last "
     "writer's section and reads stale data (the shipped bug until "
     "2026-11-25); caught under C11 at once (BRAVO over C-RW-RP: 248 "
     "executions), after the shipped client's C11 run (minutes: not in CI); no "
     "Relacy client",
     VC_STORE, VC_REL, VC_RLX, NULL, "clof_bravo_read_slow_done_", 1},
    {"rw-central-read-add-relaxed", "rw.central",
     "rw-central whose reader enters with a relaxed fetch-and-add instead of "
     "an acquire one: a reader is not ordered after the last writer's "
     "section and reads stale data; caught under C11 (x86's RMWs are full "
     "barriers, so not under TSO); no Relacy client",
     VC_FADD, VC_ACQ, VC_RLX, NULL, "clof_rw_central_arrive_", 1},
    {"cr-passive-rlx", "cr.mcs",
     "cr: whose passive thread joins `npassive` with a relaxed increment (the "
     "Dekker pair with the release's decrement of `active` is gone: the idle "
     "grant can miss it while it parks, and it waits forever)",
     VC_FADD, VC_SEQ, VC_RLX, "cr.npassive", NULL, 1},
    {NULL, NULL, NULL, 0, 0, 0, NULL, NULL, 0},
};

/* The bug called `name`; NULL after listing the known ones on stderr
 * (prog: the program's name, for the message). */
static inline const vc_bug_t *vc_bug_find(const char *name, const char *prog)
{
    const vc_bug_t *b;
    for (b = vc_bugs; b->name; b++)
        if (!strcmp(b->name, name))
            return b;
    fprintf(stderr, "%s: unknown bug '%s'; known:", prog, name);
    for (b = vc_bugs; b->name; b++)
        fprintf(stderr, " %s", b->name);
    fprintf(stderr, "\n");
    return NULL;
}

#endif /* CLOF_VERIFY_BUGS_H */
