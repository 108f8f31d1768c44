/*
 * verify/litmus.c -- the checker checks itself: small programs with known
 * verdicts under SC, TSO and C11, written against the clof atomics shim (so
 * the `check` backend's mapping is exercised too).  Each program states the
 * verdict it must get under each model: "" = no violation, otherwise the
 * property that must be reported.  `clof-verify --selftest` runs them all
 * exhaustively and fails if any verdict differs.
 *
 * Two programs document blind spots (lb, 2+2w): C11 allows their outcome but
 * vc cannot produce it (stores go to the end of the modification order, loads
 * read only stores already made).  Their expected verdict is "no violation"
 * under C11 so that a change of the checker's power is noticed and the
 * documentation updated.
 */
#include "litmus.h"

#include <clof/atomic.h>

#include <string.h>

static clof_atomic32_t x, y, z, flag, data;
static uint32_t r[8];

static void names(void)
{
    vc_name(&x, 4, "x");
    vc_name(&y, 4, "y");
    vc_name(&z, 4, "z");
    vc_name(&flag, 4, "flag");
    vc_name(&data, 4, "data");
}

static void setup0(void *arg)
{
    (void)arg;
    clof_atomic32_write_rlx(&x, 0);
    clof_atomic32_write_rlx(&y, 0);
    clof_atomic32_write_rlx(&z, 0);
    clof_atomic32_write_rlx(&flag, 0);
    clof_atomic32_write_rlx(&data, 0);
    memset(r, 0, sizeof r);
    names();
}

static void final_none(void *arg)
{
    (void)arg;
}

/* ---- store buffering ---- */
#define SB(name, ST, LD, FENCE)                                                \
    static void name##_thr(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        clof_atomic32_t *mine = t == 0 ? &x : &y, *other = t == 0 ? &y : &x;   \
        ST(mine, 1);                                                           \
        FENCE;                                                                 \
        r[t] = LD(other);                                                      \
    }
static void sb_final(void *arg)
{
    (void)arg;
    vc_assert(!(r[0] == 0 && r[1] == 0), "store buffering: both loads read 0");
}
SB(sb_rlx, clof_atomic32_write_rlx, clof_atomic32_read_rlx, (void)0)
SB(sb_ra, clof_atomic32_write_rel, clof_atomic32_read_acq, (void)0)
SB(sb_sc, clof_atomic32_write, clof_atomic32_read, (void)0)
SB(sb_fence, clof_atomic32_write_rlx, clof_atomic32_read_rlx, clof_fence())

/* ---- message passing ---- */
#define MP(name, STD, STF, LDF, LDD, F1, F2)                                   \
    static void name##_thr(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        if (t == 0) {                                                          \
            STD(&data, 1);                                                     \
            F1;                                                                \
            STF(&flag, 1);                                                     \
        } else {                                                               \
            r[0] = LDF(&flag);                                                 \
            F2;                                                                \
            r[1] = LDD(&data);                                                 \
        }                                                                      \
    }
static void mp_final(void *arg)
{
    (void)arg;
    vc_assert(!(r[0] == 1 && r[1] == 0), "message passing: flag seen, data not");
}
MP(mp_rlx, clof_atomic32_write_rlx, clof_atomic32_write_rlx,
   clof_atomic32_read_rlx, clof_atomic32_read_rlx, (void)0, (void)0)
MP(mp_ra, clof_atomic32_write_rlx, clof_atomic32_write_rel,
   clof_atomic32_read_acq, clof_atomic32_read_rlx, (void)0, (void)0)
MP(mp_fences, clof_atomic32_write_rlx, clof_atomic32_write_rlx,
   clof_atomic32_read_rlx, clof_atomic32_read_rlx, clof_fence_rel(),
   clof_fence_acq())

/* message passing through an await (the lock hand-over pattern) */
static void mp_await_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rlx(&data, 1);
        clof_atomic32_write_rlx(&flag, 1); /* bug: should be release */
    } else {
        clof_atomic32_await_eq_acq(&flag, 1);
        vc_assert(clof_atomic32_read_rlx(&data) == 1,
                  "flag handed over, data not visible");
    }
}
static void mp_await_ok_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rlx(&data, 1);
        clof_atomic32_write_rel(&flag, 1);
    } else {
        clof_atomic32_await_eq_acq(&flag, 1);
        vc_assert(clof_atomic32_read_rlx(&data) == 1,
                  "flag handed over, data not visible");
    }
}

/* ---- coherence: two reads of one location never go backwards ---- */
static void corr_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rlx(&x, 1);
        clof_atomic32_write_rlx(&x, 2);
    } else {
        r[0] = clof_atomic32_read_rlx(&x);
        r[1] = clof_atomic32_read_rlx(&x);
    }
}
static void corr_final(void *arg)
{
    (void)arg;
    vc_assert(!(r[0] == 2 && r[1] == 1), "coherence: read 2 then 1");
    vc_assert(!(r[0] > 0 && r[1] == 0), "coherence: read new then initial");
}

/* ---- IRIW: independent reads of independent writes ---- */
#define IRIW(name, ST, LD)                                                     \
    static void name##_thr(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        if (t == 0)                                                            \
            ST(&x, 1);                                                         \
        else if (t == 1)                                                       \
            ST(&y, 1);                                                         \
        else if (t == 2) {                                                     \
            r[0] = LD(&x);                                                     \
            r[1] = LD(&y);                                                     \
        } else {                                                               \
            r[2] = LD(&y);                                                     \
            r[3] = LD(&x);                                                     \
        }                                                                      \
    }
static void iriw_final(void *arg)
{
    (void)arg;
    vc_assert(!(r[0] == 1 && r[1] == 0 && r[2] == 1 && r[3] == 0),
              "IRIW: the readers disagree on the order of the writes");
}
IRIW(iriw_ra, clof_atomic32_write_rel, clof_atomic32_read_acq)
IRIW(iriw_sc, clof_atomic32_write, clof_atomic32_read)

/* ---- release sequences ---- */
static void rseq_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rlx(&data, 1);
        clof_atomic32_write_rel(&flag, 1);
    } else if (t == 1) {
        clof_atomic32_await_eq_rlx(&flag, 1);
        clof_atomic32_inc_rlx(&flag); /* an RMW continues the sequence */
    } else {
        clof_atomic32_await_eq_acq(&flag, 2);
        vc_assert(clof_atomic32_read_rlx(&data) == 1,
                  "release sequence through an RMW lost");
    }
}
static void rseq_broken_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rlx(&data, 1);
        clof_atomic32_write_rel(&flag, 1);
    } else if (t == 1) {
        clof_atomic32_await_eq_rlx(&flag, 1);
        clof_atomic32_write_rlx(&flag, 2); /* a plain store ends it */
    } else {
        clof_atomic32_await_eq_acq(&flag, 2);
        vc_assert(clof_atomic32_read_rlx(&data) == 1,
                  "data not visible after a broken release sequence");
    }
}

/* ---- write-to-read causality with release/acquire ---- */
static void wrc_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rel(&x, 1);
    } else if (t == 1) {
        clof_atomic32_await_eq_acq(&x, 1);
        clof_atomic32_write_rel(&y, 1);
    } else {
        r[0] = clof_atomic32_read_acq(&y);
        r[1] = clof_atomic32_read_rlx(&x);
        vc_assert(!(r[0] == 1 && r[1] == 0), "WRC: causality broken");
    }
}

/* ---- atomicity of read-modify-writes ---- */
static void rmw_thr(void *arg, int t)
{
    (void)arg;
    (void)t;
    clof_atomic32_inc_rlx(&x);
}
static void rmw_final(void *arg)
{
    (void)arg;
    vc_assert(clof_atomic32_read_rlx(&x) == 2, "a fetch_add was lost");
}

/* ---- a lock built from loads and stores only: not mutually exclusive ---- */
static void badlock_thr(void *arg, int t)
{
    (void)arg;
    (void)t;
    clof_atomic32_await_eq_acq(&flag, 0);
    clof_atomic32_write(&flag, 1);
    vc_cs_enter();
    clof_atomic32_write_rlx(&data, clof_atomic32_read_rlx(&data) + 1);
    vc_cs_exit();
    clof_atomic32_write_rel(&flag, 0);
}

/* ---- an exchange lock, with correct and with relaxed orders ---- */
#define XLOCK(name, XCHG, ST)                                                  \
    static void name##_thr(void *arg, int t)                                   \
    {                                                                          \
        (void)arg;                                                             \
        (void)t;                                                               \
        uint32_t seen;                                                         \
        clof_wait_t w = CLOF_WAIT_INIT;                                        \
        while ((seen = XCHG(&flag, 1)) != 0)                                   \
            clof_atomic32_wait(&w, &flag, seen);                               \
        vc_cs_enter();                                                         \
        clof_atomic32_write_rlx(&data, clof_atomic32_read_rlx(&data) + 1);     \
        vc_cs_exit();                                                          \
        ST(&flag, 0);                                                          \
    }
XLOCK(xlock, clof_atomic32_xchg_acq, clof_atomic32_write_rel)
XLOCK(xlock_rlx, clof_atomic32_xchg_rlx, clof_atomic32_write_rlx)
static void count_final(void *arg)
{
    (void)arg;
    vc_assert(clof_atomic32_read_rlx(&data) == 2, "data != 2: an update was lost");
}

/* ---- a lost wake-up: the waiter checks, then sleeps on a stale decision ---- */
static void lost_wakeup_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        if (clof_atomic32_read(&flag) == 0) {  /* no work yet: go to sleep */
            clof_atomic32_write(&y, 1);          /* "I am sleeping" */
            clof_atomic32_await_neq(&x, 0);      /* wait for a wake-up */
        }
    } else {
        clof_atomic32_write(&flag, 1);           /* post work */
        if (clof_atomic32_read(&y) == 1)         /* anybody sleeping? */
            clof_atomic32_write(&x, 1);          /* wake it */
    }
}
/* the fixed protocol: announce first, then re-check (a Dekker handshake) */
static void wakeup_ok_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write(&y, 1);
        if (clof_atomic32_read(&flag) == 0)
            clof_atomic32_await_neq(&x, 0);
    } else {
        clof_atomic32_write(&flag, 1);
        if (clof_atomic32_read(&y) == 1)
            clof_atomic32_write(&x, 1);
    }
}
/* the same handshake with release/acquire only: the Dekker needs seq_cst */
static void wakeup_ra_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rel(&y, 1);
        if (clof_atomic32_read_acq(&flag) == 0)
            clof_atomic32_await_neq_acq(&x, 0);
    } else {
        clof_atomic32_write_rel(&flag, 1);
        if (clof_atomic32_read_acq(&y) == 1)
            clof_atomic32_write_rel(&x, 1);
    }
}

/* ---- a wait for a value nobody writes ---- */
static void never_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0)
        clof_atomic32_await_eq_acq(&x, 2);
    else
        clof_atomic32_write_rel(&x, 1);
}

/* ---- a spin loop that does not use the await helpers ---- */
static void rawspin_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0)
        while (clof_atomic32_read_acq(&x) != 1) {
        }
    else
        clof_atomic32_write_rel(&x, 2);
}

/* ---- blind spots: load buffering and 2+2W ---- */
static void lb_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        r[0] = clof_atomic32_read_rlx(&x);
        clof_atomic32_write_rlx(&y, 1);
    } else {
        r[1] = clof_atomic32_read_rlx(&y);
        clof_atomic32_write_rlx(&x, 1);
    }
}
static void lb_final(void *arg)
{
    (void)arg;
    vc_assert(!(r[0] == 1 && r[1] == 1), "load buffering observed");
}
static void w22_thr(void *arg, int t)
{
    (void)arg;
    if (t == 0) {
        clof_atomic32_write_rlx(&x, 1);
        clof_atomic32_write_rlx(&y, 2);
    } else {
        clof_atomic32_write_rlx(&y, 1);
        clof_atomic32_write_rlx(&x, 2);
    }
}
static void w22_final(void *arg)
{
    (void)arg;
    vc_assert(!(clof_atomic32_read_rlx(&x) == 1 && clof_atomic32_read_rlx(&y) == 1),
              "2+2W: both first stores last in modification order");
}

#define ASRT "assertion"
#define MUTEX "mutual exclusion"
#define HANG "hang (spinloop non-termination)"
#define STEP "non-termination (step bound)"

const vc_litmus_t vc_litmus[] = {
    {"sb_rlx", "store buffering, relaxed", 2, sb_rlx_thr, sb_final, {"", ASRT, ASRT}},
    {"sb_relacq", "store buffering, release/acquire", 2, sb_ra_thr, sb_final, {"", ASRT, ASRT}},
    {"sb_sc", "store buffering, seq_cst accesses", 2, sb_sc_thr, sb_final, {"", "", ""}},
    {"sb_fence", "store buffering, seq_cst fences", 2, sb_fence_thr, sb_final, {"", "", ""}},
    {"mp_rlx", "message passing, relaxed", 2, mp_rlx_thr, mp_final, {"", "", ASRT}},
    {"mp_relacq", "message passing, release/acquire", 2, mp_ra_thr, mp_final, {"", "", ""}},
    {"mp_fences", "message passing, release/acquire fences", 2, mp_fences_thr, mp_final, {"", "", ""}},
    {"mp_await_rlx", "hand-over through an await, relaxed store", 2, mp_await_thr, final_none, {"", "", ASRT}},
    {"mp_await", "hand-over through an await, release store", 2, mp_await_ok_thr, final_none, {"", "", ""}},
    {"corr", "coherence of two reads", 2, corr_thr, corr_final, {"", "", ""}},
    {"iriw_relacq", "IRIW, release/acquire (not multi-copy atomic)", 4, iriw_ra_thr, iriw_final, {"", "", ASRT}},
    {"iriw_sc", "IRIW, seq_cst", 4, iriw_sc_thr, iriw_final, {"", "", ""}},
    {"rseq", "release sequence through an RMW", 3, rseq_thr, final_none, {"", "", ""}},
    {"rseq_broken", "release sequence broken by a plain store", 3, rseq_broken_thr, final_none, {"", "", ASRT}},
    {"wrc", "write-to-read causality, release/acquire", 3, wrc_thr, final_none, {"", "", ""}},
    {"rmw", "atomicity of fetch_add", 2, rmw_thr, rmw_final, {"", "", ""}},
    {"badlock", "a lock from a load and a store", 2, badlock_thr, count_final, {MUTEX, MUTEX "|" ASRT, MUTEX "|" ASRT}},
    {"xlock", "exchange lock, acquire/release", 2, xlock_thr, count_final, {"", "", ""}},
    {"xlock_rlx", "exchange lock, relaxed", 2, xlock_rlx_thr, count_final, {"", "", ASRT}},
    {"lost_wakeup", "check-then-sleep loses the wake-up", 2, lost_wakeup_thr, final_none, {HANG, HANG, HANG}},
    {"wakeup_sc", "announce-then-check (Dekker), seq_cst", 2, wakeup_ok_thr, final_none, {"", "", ""}},
    {"wakeup_relacq", "announce-then-check, release/acquire only", 2, wakeup_ra_thr, final_none, {"", HANG, HANG}},
    {"never", "await of a value nobody writes", 2, never_thr, final_none, {HANG, HANG, HANG}},
    {"rawspin", "spin loop outside the await helpers", 2, rawspin_thr, final_none, {STEP, STEP, STEP}},
    {"lb", "load buffering (C11 allows it; vc cannot produce it)", 2, lb_thr, lb_final, {"", "", ""}},
    {"2+2w", "2+2W (C11 allows it; vc cannot produce it)", 2, w22_thr, w22_final, {"", "", ""}},
    {NULL, NULL, 0, NULL, NULL, {NULL, NULL, NULL}},
};

void vc_litmus_prog(const vc_litmus_t *l, vc_prog_t *p)
{
    memset(p, 0, sizeof *p);
    p->name = l->name;
    p->nthreads = l->nthreads;
    p->setup = setup0;
    p->thread = l->thread;
    p->final = l->final;
}
