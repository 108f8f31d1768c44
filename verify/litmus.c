/* SPDX-License-Identifier: MIT */
/*
 * verify/litmus.c -- the checker checks itself: small programs with known
 * verdicts under SC, TSO and C11, written against the clof atomics shim (so
 * the `check` backend's mapping is exercised too).  Each program states the
 * verdict it must get under each model: "" = no violation, otherwise the
 * property that must be reported.  `clof-verify --selftest` runs them all
 * exhaustively and fails if any verdict differs.
 *
 * lb: RC11 forbids load buffering (po u rf is acyclic) and so does vc (a load
 * reads only stores already made).  2+2w: RC11 allows it, and vc's free
 * modification order produces it.  The litmus catalogue at the end of this
 * file covers the classic shapes with their published verdicts.
 */
#include "litmus.h"

#include <clof/await.h>

#include <stdlib.h>
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

/* ---- load buffering (forbidden by RC11) and 2+2W (allowed) ---- */
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
    {"lb", "load buffering (RC11 forbids it: po u rf acyclic)", 2, lb_thr, lb_final, {"", "", ""}},
    {"2+2w", "2+2W (RC11 allows it: free modification order)", 2, w22_thr, w22_final, {"", "", ASRT}},
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

/* ======================================================================
 * The litmus catalogue: the classic shapes of the memory-model literature,
 * each with the outcome it asks about and whether SC, x86-TSO and RC11
 * allow it.  A program is written in a small notation, interpreted by one
 * thread function through the atomics shim:
 *
 *   threads are separated by "||", instructions by ";"
 *   W<mo> L V        store V to L            (mo: rlx, rel, sc)
 *   R<mo> L r        load L into register r  (mo: rlx, acq, sc)
 *   X<mo> L V r      exchange                (mo: rlx, acq, rel, sc)
 *   A<mo> L V r      fetch_add
 *   C<mo> L E D r    compare-exchange E -> D, r = the old value
 *   F<mo>            fence                   (mo: acq, rel, sc)
 *   L: x y z w (32-bit words, 0 at start); r: r0 .. r7 (0 at start)
 *
 * The outcome is a conjunction "r0=1 & x=2" of final register and memory
 * values.  expect[m] is 'A' (allowed: the checker must show it, as an
 * assertion violation of its final check) or 'F' (forbidden: the
 * exhaustive search must not show it) for SC, TSO and RC11.  src says
 * where the verdicts come from (docs/verification.md lists the works):
 *   RC11   Lahav, Vafeiadis, Kang, Hur, Dreyer, "Repairing sequential
 *          consistency in C/C++11", PLDI'17 (the model vc's C11 mode
 *          implements, load buffering excluded by its po u rf axiom)
 *   C11    Batty, Owens, Sarkar, Sewell, Weber, "Mathematizing C++
 *          concurrency", POPL'11 (coherence, release sequences)
 *   herd   the shapes of the diy/herd7 test families (Alglave, Maranget,
 *          Tautschnig, "Herding cats", TOPLAS'14), whose rc11.cat gives
 *          the same verdicts
 *   TSO    Owens, Sarkar, Sewell, "A better x86 memory model: x86-TSO",
 *          TPHOLs'09, with the C11 mapping of Batty et al., POPL'12
 *          (seq_cst store = xchg, seq_cst fence = mfence, RMW = locked)
 * ====================================================================== */

#define CAT_MAXI 8
#define CAT_MAXT 4

typedef struct {
    char op, mo; /* op: W R X A C F; mo: 'r'lx 'a'cq 'l' (rel) 's'c */
    int loc, reg;
    uint32_t v, e;
} cat_ins_t;

typedef struct {
    int nthreads;
    int nins[CAT_MAXT];
    cat_ins_t ins[CAT_MAXT][CAT_MAXI];
    int ncond;
    struct {
        int reg, loc; /* one of them >= 0 */
        uint32_t v;
    } cond[8];
} cat_prog_t;

static clof_atomic32_t cat_mem[4];
static uint32_t cat_reg[8];
static const char *const cat_locname[4] = {"x", "y", "z", "w"};

static int cat_loc(char c)
{
    switch (c) {
    case 'x': return 0;
    case 'y': return 1;
    case 'z': return 2;
    case 'w': return 3;
    default: return -1;
    }
}

static const char *cat_skip(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Parse a program; false (with *err) if malformed. */
static bool cat_parse(const vc_catalogue_t *c, cat_prog_t *p, const char **err)
{
    memset(p, 0, sizeof *p);
    const char *s = c->prog;
    int t = 0;
    *err = NULL;
    for (;;) {
        s = cat_skip(s);
        if (!*s)
            break;
        if (s[0] == '|' && s[1] == '|') {
            t++;
            s += 2;
            continue;
        }
        if (*s == ';') {
            s++;
            continue;
        }
        if (t >= CAT_MAXT || p->nins[t] >= CAT_MAXI) {
            *err = "too many threads or instructions";
            return false;
        }
        cat_ins_t *in = &p->ins[t][p->nins[t]++];
        in->op = *s++;
        if (!strncmp(s, "rlx", 3))
            in->mo = 'r';
        else if (!strncmp(s, "acq", 3))
            in->mo = 'a';
        else if (!strncmp(s, "rel", 3))
            in->mo = 'l';
        else if (!strncmp(s, "sc", 2))
            in->mo = 's';
        else {
            *err = "unknown memory order";
            return false;
        }
        s += in->mo == 's' ? 2 : 3;
        if (in->op == 'F')
            continue;
        s = cat_skip(s);
        in->loc = cat_loc(*s++);
        if (in->loc < 0) {
            *err = "unknown location";
            return false;
        }
        char *end;
        if (in->op == 'C') {
            in->e = (uint32_t)strtoul(cat_skip(s), &end, 10);
            s = end;
        }
        if (in->op != 'R') {
            in->v = (uint32_t)strtoul(cat_skip(s), &end, 10);
            s = end;
        }
        if (in->op != 'W') {
            s = cat_skip(s);
            if (*s != 'r') {
                *err = "register expected";
                return false;
            }
            in->reg = (int)strtol(s + 1, &end, 10);
            s = end;
        }
        if (!strchr("WRXACF", in->op)) {
            *err = "unknown instruction";
            return false;
        }
    }
    p->nthreads = t + 1;
    for (s = c->cond; *s;) {
        s = cat_skip(s);
        if (*s == '&') {
            s++;
            continue;
        }
        if (!*s)
            break;
        if (p->ncond >= 8) {
            *err = "outcome too long";
            return false;
        }
        char *end;
        p->cond[p->ncond].reg = -1;
        p->cond[p->ncond].loc = -1;
        if (*s == 'r') {
            p->cond[p->ncond].reg = (int)strtol(s + 1, &end, 10);
            s = end;
        } else {
            p->cond[p->ncond].loc = cat_loc(*s++);
            if (p->cond[p->ncond].loc < 0) {
                *err = "unknown location in the outcome";
                return false;
            }
        }
        if (*s++ != '=') {
            *err = "'=' expected in the outcome";
            return false;
        }
        p->cond[p->ncond].v = (uint32_t)strtoul(s, &end, 10);
        s = end;
        p->ncond++;
    }
    return true;
}

static void cat_setup(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        clof_atomic32_write_rlx(&cat_mem[i], 0);
        vc_name(&cat_mem[i], 4, cat_locname[i]);
    }
    memset(cat_reg, 0, sizeof cat_reg);
}

static uint32_t cat_exec(const cat_ins_t *in)
{
    clof_atomic32_t *a = in->op == 'F' ? NULL : &cat_mem[in->loc];
    switch (in->op) {
    case 'W':
        if (in->mo == 's')
            clof_atomic32_write(a, in->v);
        else if (in->mo == 'l')
            clof_atomic32_write_rel(a, in->v);
        else
            clof_atomic32_write_rlx(a, in->v);
        return 0;
    case 'R':
        return in->mo == 's'   ? clof_atomic32_read(a)
               : in->mo == 'a' ? clof_atomic32_read_acq(a)
                               : clof_atomic32_read_rlx(a);
    case 'X':
        return in->mo == 's'   ? clof_atomic32_xchg(a, in->v)
               : in->mo == 'a' ? clof_atomic32_xchg_acq(a, in->v)
               : in->mo == 'l' ? clof_atomic32_xchg_rel(a, in->v)
                               : clof_atomic32_xchg_rlx(a, in->v);
    case 'A':
        return in->mo == 's'   ? clof_atomic32_get_add(a, in->v)
               : in->mo == 'a' ? clof_atomic32_get_add_acq(a, in->v)
               : in->mo == 'l' ? clof_atomic32_get_add_rel(a, in->v)
                               : clof_atomic32_get_add_rlx(a, in->v);
    case 'C':
        return in->mo == 's'   ? clof_atomic32_cmpxchg(a, in->e, in->v)
               : in->mo == 'a' ? clof_atomic32_cmpxchg_acq(a, in->e, in->v)
               : in->mo == 'l' ? clof_atomic32_cmpxchg_rel(a, in->e, in->v)
                               : clof_atomic32_cmpxchg_rlx(a, in->e, in->v);
    default: /* F */
        if (in->mo == 's')
            clof_fence();
        else if (in->mo == 'a')
            clof_fence_acq();
        else
            clof_fence_rel();
        return 0;
    }
}

static void cat_thread(void *arg, int t)
{
    const cat_prog_t *p = (const cat_prog_t *)arg;
    for (int i = 0; i < p->nins[t]; i++) {
        const cat_ins_t *in = &p->ins[t][i];
        uint32_t r = cat_exec(in);
        if (in->op != 'W' && in->op != 'F')
            cat_reg[in->reg & 7] = r;
    }
}

static void cat_final(void *arg)
{
    const cat_prog_t *p = (const cat_prog_t *)arg;
    for (int i = 0; i < p->ncond; i++) {
        uint32_t v = p->cond[i].reg >= 0
                         ? cat_reg[p->cond[i].reg & 7]
                         : clof_atomic32_read_rlx(&cat_mem[p->cond[i].loc]);
        if (v != p->cond[i].v)
            return;
    }
    vc_assert(0, "the outcome was observed");
}

/* rel/acq: release stores/RMWs, acquire loads/RMWs; sc: every access
 * seq_cst; fsc: seq_cst fences between the accesses; rmw: exchanges or
 * fetch_adds in place of stores or loads. */
const vc_catalogue_t vc_catalogue[] = {
    /* message passing: data then flag; flag seen, data not */
    {"MP+rlx", "Wrlx x 1; Wrlx y 1 || Rrlx y r0; Rrlx x r1", "r0=1 & r1=0", "FFA", "RC11 §2; herd MP"},
    {"MP+rel+acq", "Wrlx x 1; Wrel y 1 || Racq y r0; Rrlx x r1", "r0=1 & r1=0", "FFF", "RC11 §2; C11"},
    {"MP+rel+rlx", "Wrlx x 1; Wrel y 1 || Rrlx y r0; Rrlx x r1", "r0=1 & r1=0", "FFA", "RC11 (no acquire, no sw)"},
    {"MP+rlx+acq", "Wrlx x 1; Wrlx y 1 || Racq y r0; Rrlx x r1", "r0=1 & r1=0", "FFA", "RC11 (no release, no sw)"},
    {"MP+sc", "Wsc x 1; Wsc y 1 || Rsc y r0; Rsc x r1", "r0=1 & r1=0", "FFF", "RC11 (SC-only programs are SC)"},
    {"MP+frel+facq", "Wrlx x 1; Frel; Wrlx y 1 || Rrlx y r0; Facq; Rrlx x r1", "r0=1 & r1=0", "FFF", "RC11 (fence sw); C11 §29.8"},
    {"MP+frel+acq", "Wrlx x 1; Frel; Wrlx y 1 || Racq y r0; Rrlx x r1", "r0=1 & r1=0", "FFF", "RC11 (fence sw)"},
    {"MP+rel+facq", "Wrlx x 1; Wrel y 1 || Rrlx y r0; Facq; Rrlx x r1", "r0=1 & r1=0", "FFF", "RC11 (fence sw)"},
    {"MP+fsc", "Wrlx x 1; Fsc; Wrlx y 1 || Rrlx y r0; Fsc; Rrlx x r1", "r0=1 & r1=0", "FFF", "RC11 (an SC fence is rel+acq)"},
    {"MP+xrel+aacq", "Wrlx x 1; Xrel y 1 r2 || Aacq y 0 r0; Rrlx x r1", "r0=1 & r1=0", "FFF", "RC11 (RMWs synchronise)"},
    {"MP+rmw-rlx", "Wrlx x 1; Xrlx y 1 r2 || Arlx y 0 r0; Rrlx x r1", "r0=1 & r1=0", "FFA", "RC11; TSO (locked RMWs)"},
    {"MP+rseq", "Wrlx x 1; Wrel y 1 || Arlx y 1 r2 || Racq y r0; Rrlx x r1", "r0=2 & r1=0", "FFF", "RC11/C11 (release sequence: rf;rmw)"},
    {"MP+rseq-broken", "Wrlx x 1; Wrel y 1 || Rrlx y r2; Wrlx y 2 || Racq y r0; Rrlx x r1", "r2=1 & r0=2 & r1=0", "FFA", "RC11/C11 (a store of another thread ends it)"},
    /* store buffering: both loads read 0 */
    {"SB+rlx", "Wrlx x 1; Rrlx y r0 || Wrlx y 1; Rrlx x r1", "r0=0 & r1=0", "FAA", "RC11 §2; TSO"},
    {"SB+rel+acq", "Wrel x 1; Racq y r0 || Wrel y 1; Racq x r1", "r0=0 & r1=0", "FAA", "RC11 §2; TSO"},
    {"SB+sc", "Wsc x 1; Rsc y r0 || Wsc y 1; Rsc x r1", "r0=0 & r1=0", "FFF", "RC11 §2; TSO (xchg)"},
    {"SB+fsc", "Wrlx x 1; Fsc; Rrlx y r0 || Wrlx y 1; Fsc; Rrlx x r1", "r0=0 & r1=0", "FFF", "RC11 (psc_F); TSO (mfence)"},
    {"SB+fsc+rlx", "Wrlx x 1; Fsc; Rrlx y r0 || Wrlx y 1; Rrlx x r1", "r0=0 & r1=0", "FAA", "RC11 (one fence orders nothing); TSO"},
    {"SB+frel-facq", "Wrlx x 1; Frel; Facq; Rrlx y r0 || Wrlx y 1; Frel; Facq; Rrlx x r1", "r0=0 & r1=0", "FAA", "RC11 (rel/acq fences are not SC); TSO"},
    {"SB+scw+rlxr", "Wsc x 1; Rrlx y r0 || Wsc y 1; Rrlx x r1", "r0=0 & r1=0", "FFA", "RC11 (psc has no rlx reads); TSO (xchg)"},
    {"SB+rlxw+scr", "Wrlx x 1; Rsc y r0 || Wrlx y 1; Rsc x r1", "r0=0 & r1=0", "FAA", "RC11 (psc has no rlx writes); TSO"},
    {"SB+rmw-rlx", "Xrlx x 1 r2; Rrlx y r0 || Xrlx y 1 r3; Rrlx x r1", "r0=0 & r1=0", "FFA", "RC11 (a rlx RMW is no fence); TSO (locked)"},
    {"SB+rmw-sc", "Xsc x 1 r2; Rsc y r0 || Xsc y 1 r3; Rsc x r1", "r0=0 & r1=0", "FFF", "RC11 (SC-only); TSO"},
    /* load buffering: both loads read the other thread's later store */
    {"LB+rlx", "Rrlx x r0; Wrlx y 1 || Rrlx y r1; Wrlx x 1", "r0=1 & r1=1", "FFF", "RC11 (po u rf acyclic; C11 of Batty et al. allows it)"},
    {"LB+acq+rel", "Racq x r0; Wrel y 1 || Racq y r1; Wrel x 1", "r0=1 & r1=1", "FFF", "RC11; C11"},
    {"LB+sc", "Rsc x r0; Wsc y 1 || Rsc y r1; Wsc x 1", "r0=1 & r1=1", "FFF", "RC11; C11"},
    {"LB+rmw", "Arlx x 0 r0; Xrlx y 1 r2 || Arlx y 0 r1; Xrlx x 1 r3", "r0=1 & r1=1", "FFF", "RC11 (po u rf acyclic)"},
    /* S: the reader's store goes before the writer's first store in mo */
    {"S+rlx", "Wrlx x 2; Wrlx y 1 || Rrlx y r0; Wrlx x 1", "r0=1 & x=2", "FFA", "RC11; herd S"},
    {"S+rel+acq", "Wrlx x 2; Wrel y 1 || Racq y r0; Wrlx x 1", "r0=1 & x=2", "FFF", "RC11 (hb;mo coherence)"},
    {"S+rel+rlx", "Wrlx x 2; Wrel y 1 || Rrlx y r0; Wrlx x 1", "r0=1 & x=2", "FFA", "RC11 (MCS's relaxed link: no sw)"},
    {"S+rlx+acq", "Wrlx x 2; Wrlx y 1 || Racq y r0; Wrlx x 1", "r0=1 & x=2", "FFA", "RC11 (no sw)"},
    {"S+sc", "Wsc x 2; Wsc y 1 || Rsc y r0; Wsc x 1", "r0=1 & x=2", "FFF", "RC11 (SC-only)"},
    {"S+frel+facq", "Wrlx x 2; Frel; Wrlx y 1 || Rrlx y r0; Facq; Wrlx x 1", "r0=1 & x=2", "FFF", "RC11 (fence sw)"},
    {"S+rmw", "Wrlx x 2; Wrlx y 1 || Rrlx y r0; Xrlx x 1 r1", "r0=1 & x=2", "FFA", "RC11; TSO"},
    {"S+rel+aacq", "Wrlx x 2; Wrel y 1 || Aacq y 0 r0; Wrlx x 1", "r0=1 & x=2", "FFF", "RC11 (RMW acquire)"},
    /* R: the reader's store last in mo, its load misses the first store */
    {"R+rlx", "Wrlx x 1; Wrlx y 1 || Wrlx y 2; Rrlx x r0", "y=2 & r0=0", "FAA", "RC11; herd R; TSO"},
    {"R+rel+acq", "Wrlx x 1; Wrel y 1 || Wrel y 2; Racq x r0", "y=2 & r0=0", "FAA", "RC11 (no read of y: no sw); TSO"},
    {"R+sc", "Wsc x 1; Wsc y 1 || Wsc y 2; Rsc x r0", "y=2 & r0=0", "FFF", "RC11 (SC-only); TSO (xchg)"},
    {"R+fsc", "Wrlx x 1; Fsc; Wrlx y 1 || Wrlx y 2; Fsc; Rrlx x r0", "y=2 & r0=0", "FFF", "RC11 (psc_F); TSO"},
    {"R+rlx+fsc", "Wrlx x 1; Wrlx y 1 || Wrlx y 2; Fsc; Rrlx x r0", "y=2 & r0=0", "FFA", "RC11 (one fence); TSO (mfence, stores in order)"},
    /* 2+2W: both first stores last in mo */
    {"2+2W+rlx", "Wrlx x 1; Wrlx y 2 || Wrlx y 1; Wrlx x 2", "x=1 & y=1", "FFA", "RC11; herd 2+2W; TSO"},
    {"2+2W+rel", "Wrel x 1; Wrel y 2 || Wrel y 1; Wrel x 2", "x=1 & y=1", "FFA", "RC11 (no reads: no sw)"},
    {"2+2W+sc", "Wsc x 1; Wsc y 2 || Wsc y 1; Wsc x 2", "x=1 & y=1", "FFF", "RC11 (SC-only)"},
    {"2+2W+fsc", "Wrlx x 1; Fsc; Wrlx y 2 || Wrlx y 1; Fsc; Wrlx x 2", "x=1 & y=1", "FFF", "RC11 (psc_F)"},
    {"2+2W+frel", "Wrlx x 1; Frel; Wrlx y 2 || Wrlx y 1; Frel; Wrlx x 2", "x=1 & y=1", "FFA", "RC11 (no acquire side)"},
    {"2+2W+rmw", "Xrlx x 1 r0; Xrlx y 2 r1 || Xrlx y 1 r2; Xrlx x 2 r3", "x=1 & y=1", "FFF", "RC11 (RMW atomicity + po u rf acyclic)"},
    /* IRIW: the readers disagree on the order of two independent stores */
    {"IRIW+rlx", "Wrlx x 1 || Wrlx y 1 || Rrlx x r0; Rrlx y r1 || Rrlx y r2; Rrlx x r3", "r0=1 & r1=0 & r2=1 & r3=0", "FFA", "RC11; C11; TSO (multi-copy atomic)"},
    {"IRIW+rel+acq", "Wrel x 1 || Wrel y 1 || Racq x r0; Racq y r1 || Racq y r2; Racq x r3", "r0=1 & r1=0 & r2=1 & r3=0", "FFA", "RC11 §2 (rel/acq is not MCA)"},
    {"IRIW+sc", "Wsc x 1 || Wsc y 1 || Rsc x r0; Rsc y r1 || Rsc y r2; Rsc x r3", "r0=1 & r1=0 & r2=1 & r3=0", "FFF", "RC11 §2"},
    {"IRIW+fsc", "Wrlx x 1 || Wrlx y 1 || Rrlx x r0; Fsc; Rrlx y r1 || Rrlx y r2; Fsc; Rrlx x r3", "r0=1 & r1=0 & r2=1 & r3=0", "FFF", "RC11 (psc_F)"},
    {"IRIW+facq", "Wrlx x 1 || Wrlx y 1 || Rrlx x r0; Facq; Rrlx y r1 || Rrlx y r2; Facq; Rrlx x r3", "r0=1 & r1=0 & r2=1 & r3=0", "FFA", "RC11 (acquire fences are not SC)"},
    /* WRC: write-to-read causality */
    {"WRC+rlx", "Wrlx x 1 || Rrlx x r0; Wrlx y 1 || Rrlx y r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFA", "RC11; herd WRC"},
    {"WRC+rel+acq", "Wrlx x 1 || Racq x r0; Wrel y 1 || Racq y r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (hb;eco coherence)"},
    {"WRC+rlx-rel+acq", "Wrlx x 1 || Rrlx x r0; Wrel y 1 || Racq y r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (read-read coherence along hb)"},
    {"WRC+rel+rlx", "Wrlx x 1 || Racq x r0; Wrel y 1 || Rrlx y r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFA", "RC11 (no acquire in T2)"},
    {"WRC+frel+facq", "Wrlx x 1 || Rrlx x r0; Frel; Wrlx y 1 || Rrlx y r1; Facq; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (fence sw)"},
    {"WRC+sc", "Wsc x 1 || Rsc x r0; Wsc y 1 || Rsc y r1; Rsc x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (SC-only)"},
    /* ISA2: a chain of two hand-overs */
    {"ISA2+rlx", "Wrlx x 1; Wrlx y 1 || Rrlx y r0; Wrlx z 1 || Rrlx z r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFA", "RC11; herd ISA2"},
    {"ISA2+rel+acq", "Wrlx x 1; Wrel y 1 || Racq y r0; Wrel z 1 || Racq z r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (hb transitive)"},
    {"ISA2+rel+acq+rlx", "Wrlx x 1; Wrel y 1 || Racq y r0; Wrlx z 1 || Racq z r1; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFA", "RC11 (the second link has no release)"},
    {"ISA2+fences", "Wrlx x 1; Frel; Wrlx y 1 || Rrlx y r0; Facq; Frel; Wrlx z 1 || Rrlx z r1; Facq; Rrlx x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (fence sw)"},
    {"ISA2+sc", "Wsc x 1; Wsc y 1 || Rsc y r0; Wsc z 1 || Rsc z r1; Rsc x r2", "r0=1 & r1=1 & r2=0", "FFF", "RC11 (SC-only)"},
    /* RWC: read-to-write causality */
    {"RWC+rlx", "Wrlx x 1 || Rrlx x r0; Rrlx y r1 || Wrlx y 1; Rrlx x r2", "r0=1 & r1=0 & r2=0", "FAA", "RC11; herd RWC; TSO"},
    {"RWC+rel+acq", "Wrel x 1 || Racq x r0; Racq y r1 || Wrel y 1; Racq x r2", "r0=1 & r1=0 & r2=0", "FAA", "RC11; TSO"},
    {"RWC+sc", "Wsc x 1 || Rsc x r0; Rsc y r1 || Wsc y 1; Rsc x r2", "r0=1 & r1=0 & r2=0", "FFF", "RC11 (SC-only); TSO"},
    {"RWC+fsc", "Wrlx x 1 || Rrlx x r0; Fsc; Rrlx y r1 || Wrlx y 1; Fsc; Rrlx x r2", "r0=1 & r1=0 & r2=0", "FFF", "RC11 (psc_F); TSO"},
    {"RWC+rlx+fsc", "Wrlx x 1 || Rrlx x r0; Rrlx y r1 || Wrlx y 1; Fsc; Rrlx x r2", "r0=1 & r1=0 & r2=0", "FFA", "RC11 (one fence); TSO (loads in order)"},
    /* W+RWC */
    {"W+RWC+rlx", "Wrlx x 1; Wrlx y 1 || Rrlx y r0; Rrlx z r1 || Wrlx z 1; Rrlx x r2", "r0=1 & r1=0 & r2=0", "FAA", "RC11; herd W+RWC; TSO"},
    {"W+RWC+rel+acq", "Wrlx x 1; Wrel y 1 || Racq y r0; Racq z r1 || Wrel z 1; Racq x r2", "r0=1 & r1=0 & r2=0", "FAA", "RC11; TSO"},
    {"W+RWC+sc", "Wsc x 1; Wsc y 1 || Rsc y r0; Rsc z r1 || Wsc z 1; Rsc x r2", "r0=1 & r1=0 & r2=0", "FFF", "RC11 (SC-only); TSO"},
    {"W+RWC+rel+fsc", "Wrlx x 1; Wrel y 1 || Racq y r0; Fsc; Rrlx z r1 || Wrlx z 1; Fsc; Rrlx x r2", "r0=1 & r1=0 & r2=0", "FFF", "RC11 (psc_F over hb;eco;hb)"},
    /* the Z6 family: three threads, one or two mo edges in the cycle */
    {"Z6.0+rlx", "Wrlx x 1; Wrlx y 1 || Rrlx y r0; Wrlx z 1 || Wrlx z 2; Rrlx x r1", "r0=1 & z=2 & r1=0", "FAA", "RC11; herd Z6.0; TSO"},
    {"Z6.0+rel+acq", "Wrlx x 1; Wrel y 1 || Racq y r0; Wrel z 1 || Wrel z 2; Racq x r1", "r0=1 & z=2 & r1=0", "FAA", "RC11 (mo gives no hb); TSO"},
    {"Z6.0+sc", "Wsc x 1; Wsc y 1 || Rsc y r0; Wsc z 1 || Wsc z 2; Rsc x r1", "r0=1 & z=2 & r1=0", "FFF", "RC11 (SC-only); TSO"},
    {"Z6.1+rlx", "Wrlx x 2; Wrlx y 1 || Wrlx y 2; Wrlx z 1 || Rrlx z r0; Wrlx x 1", "y=2 & r0=1 & x=2", "FFA", "RC11; herd Z6.1"},
    {"Z6.1+rel+acq", "Wrlx x 2; Wrel y 1 || Wrlx y 2; Wrel z 1 || Racq z r0; Wrlx x 1", "y=2 & r0=1 & x=2", "FFA", "RC11 (mo gives no hb)"},
    {"Z6.1+sc", "Wsc x 2; Wsc y 1 || Wsc y 2; Wsc z 1 || Rsc z r0; Wsc x 1", "y=2 & r0=1 & x=2", "FFF", "RC11 (SC-only)"},
    {"Z6.2+rlx", "Wrlx x 2; Wrlx y 1 || Rrlx y r0; Wrlx z 1 || Rrlx z r1; Wrlx x 1", "r0=1 & r1=1 & x=2", "FFA", "RC11; herd Z6.2"},
    {"Z6.2+rel+acq", "Wrlx x 2; Wrel y 1 || Racq y r0; Wrel z 1 || Racq z r1; Wrlx x 1", "r0=1 & r1=1 & x=2", "FFF", "RC11 (hb;mo coherence)"},
    {"Z6.2+sc", "Wsc x 2; Wsc y 1 || Rsc y r0; Wsc z 1 || Rsc z r1; Wsc x 1", "r0=1 & r1=1 & x=2", "FFF", "RC11 (SC-only)"},
    {"Z6.3+rlx", "Wrlx x 1; Wrlx y 1 || Wrlx y 2; Wrlx z 1 || Rrlx z r0; Rrlx x r1", "y=2 & r0=1 & r1=0", "FFA", "RC11; herd Z6.3"},
    {"Z6.3+rel+acq", "Wrlx x 1; Wrel y 1 || Wrlx y 2; Wrel z 1 || Racq z r0; Rrlx x r1", "y=2 & r0=1 & r1=0", "FFA", "RC11 (mo gives no hb)"},
    {"Z6.3+sc", "Wsc x 1; Wsc y 1 || Wsc y 2; Wsc z 1 || Rsc z r0; Rsc x r1", "y=2 & r0=1 & r1=0", "FFF", "RC11 (SC-only)"},
    /* 3.2W: three threads, three mo edges */
    {"3.2W+rlx", "Wrlx x 2; Wrlx y 1 || Wrlx y 2; Wrlx z 1 || Wrlx z 2; Wrlx x 1", "x=2 & y=2 & z=2", "FFA", "RC11; herd 3.2W"},
    {"3.2W+rel", "Wrel x 2; Wrel y 1 || Wrel y 2; Wrel z 1 || Wrel z 2; Wrel x 1", "x=2 & y=2 & z=2", "FFA", "RC11 (no reads: no sw)"},
    {"3.2W+sc", "Wsc x 2; Wsc y 1 || Wsc y 2; Wsc z 1 || Wsc z 2; Wsc x 1", "x=2 & y=2 & z=2", "FFF", "RC11 (SC-only)"},
    {"3.2W+fsc", "Wrlx x 2; Fsc; Wrlx y 1 || Wrlx y 2; Fsc; Wrlx z 1 || Wrlx z 2; Fsc; Wrlx x 1", "x=2 & y=2 & z=2", "FFF", "RC11 (psc_F)"},
    /* coherence: one total mo per location that every thread respects */
    {"CoRR", "Wrlx x 1 || Rrlx x r0; Rrlx x r1", "r0=1 & r1=0", "FFF", "C11 (CoRR); RC11"},
    {"CoRR2", "Wrlx x 1 || Wrlx x 2 || Rrlx x r0; Rrlx x r1 || Rrlx x r2; Rrlx x r3", "r0=1 & r1=2 & r2=2 & r3=1", "FFF", "C11 (one mo); RC11"},
    {"CoRR+ww", "Wrlx x 1; Wrlx x 2 || Rrlx x r0; Rrlx x r1", "r0=2 & r1=1", "FFF", "C11 (CoWW, CoRR); RC11"},
    {"CoWR", "Wrlx x 1; Rrlx x r0 || Wrlx x 2", "r0=2 & x=1", "FFF", "C11 (CoWR); RC11"},
    {"CoWR0", "Wrlx x 1; Rrlx x r0 || Wrlx x 2", "r0=0", "FFF", "C11 (CoWR); RC11"},
    {"CoRW", "Rrlx x r0; Wrlx x 1 || Wrlx x 2", "r0=2 & x=2", "FFF", "C11 (CoRW); RC11"},
    {"CoRW1", "Rrlx x r0; Wrlx x 1", "r0=1", "FFF", "C11 (CoRW); RC11"},
    {"CoWW", "Wrlx x 1; Wrlx x 2 || Rrlx y r0", "x=1", "FFF", "C11 (CoWW); RC11"},
    {"CoWW+sc", "Wsc x 1; Wrlx x 2 || Wsc x 3", "x=1", "FFF", "C11 (CoWW); RC11"},
    /* atomicity of read-modify-writes */
    {"RMW+add", "Arlx x 1 r0 || Arlx x 1 r1", "x=1", "FFF", "RC11 (rmw atomicity)"},
    {"RMW+cas", "Crlx x 0 1 r0 || Crlx x 0 2 r1", "r0=0 & r1=0", "FFF", "RC11 (rmw atomicity)"},
    {"RMW+store", "Arlx x 1 r0 || Wrlx x 5", "r0=0 & x=1", "FFF", "RC11 (nothing between an RMW and what it read)"},
    {"RMW+store2", "Arlx x 1 r0 || Wrlx x 5", "r0=0 & x=5", "AAA", "RC11 (the store may follow the RMW)"},
    {"RMW+stale", "Wrlx x 1; Wrlx y 1 || Rrlx y r1; Arlx x 2 r0", "r1=1 & r0=0 & x=1", "FFA", "RC11 (an RMW may read a non-last store: S shape)"},
    {NULL, NULL, NULL, NULL, NULL},
};

/* one parsed program per entry; a client that runs one program (GenMC's,
 * verify/genmc/litmus_client.c) sets CAT_PROG_SLOTS 1 */
#ifndef CAT_PROG_SLOTS
#define CAT_PROG_SLOTS (sizeof vc_catalogue / sizeof vc_catalogue[0])
#endif
static cat_prog_t cat_progs[CAT_PROG_SLOTS];

bool vc_catalogue_prog(const vc_catalogue_t *c, vc_prog_t *p, const char **err)
{
    cat_prog_t *cp = &cat_progs[(size_t)(c - vc_catalogue) % CAT_PROG_SLOTS];
    if (!cat_parse(c, cp, err))
        return false;
    if (cp->nthreads > CAT_MAXT) {
        *err = "too many threads";
        return false;
    }
    memset(p, 0, sizeof *p);
    p->name = c->name;
    p->nthreads = cp->nthreads;
    p->setup = cat_setup;
    p->thread = cat_thread;
    p->final = cat_final;
    p->arg = cp;
    return true;
}
