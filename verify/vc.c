/* SPDX-License-Identifier: MIT */
/*
 * verify/vc.c -- vc, a stateless model checker for C programs built on the
 * clof atomics shim.  See vc.h for the model; docs/verification.md for what
 * it covers and what it does not.
 *
 * Structure
 *   fibers        one fiber per thread (fiber/fiber.h, the fiber runtime
 *                 shared with the simulation backend); the scheduler runs
 *                 on the caller's stack.
 *   memory        SC: the program's own memory.  TSO: the program's memory
 *                 plus a FIFO buffer per thread.  C11: a message history per
 *                 location (value + view), written through to the program's
 *                 memory so that the latest value is always there.
 *   exploration   a stack of nodes, one per event of the current execution:
 *                 the enabled processes, the next event of each process,
 *                 the sleep set, the backtrack set (DPOR), the process
 *                 chosen, and for C11 loads the message read.  After each
 *                 execution the deepest node with an unexplored alternative
 *                 is advanced and the program is re-executed from scratch.
 *   DPOR          Flanagan-Godefroid (POPL'05) with vector clocks over
 *                 processes (threads and, under TSO, their store buffers)
 *                 and sleep sets.  Dependence: two events of different
 *                 processes touching the same location, one of them
 *                 writing (seq_cst accesses and fences also touch the
 *                 seq_cst view, see desc_of).  An await that a store made
 *                 enabled is not a race with that store (it cannot be
 *                 reordered before it).  With a preemption bound the
 *                 backtrack point is also added where the racing block
 *                 began (Coons et al., OOPSLA'13), and every alternative
 *                 the bound cuts is counted: a bounded search that cut
 *                 nothing is reported exhaustive.
 */
#define _GNU_SOURCE
#include "vc.h"
#include "fiber.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#define MAXT VC_MAX_THREADS
#define MAXP (2 * MAXT)
#define MAXLOC 160               /* locations (id 0 reserved) */
#define MAXDLOC (2 * MAXLOC)     /* DPOR locations: 2x real, 2x+1 seq_cst view */
#define DLOC_G 1                 /* the global seq_cst view (fences) */
#define MAXMSG 192               /* messages per location per execution */
#define MAXEV 8192               /* events per execution (hard limit) */
#define DEFAULT_STEPS 3000
#define STACK_SIZE (256 * 1024)
#define BUFMAX 64
#define MAXTRACE (4 * MAXEV)
#define VIEW_ARENA (1u << 21)
#define MAXNAMES 64
#define SITE_HASH 1024

/* ------------------------------------------------------------------ types */

typedef struct {
    uint16_t c[MAXP];
} vclock_t;

typedef struct {
    int16_t dloc[3];
    uint8_t w[3];
    uint8_t n;
} desc_t;

typedef struct {
    int kind, loc, size, mo;
    uint64_t val, exp;
    void *addr;
    const void *site;
} op_t;

typedef struct {
    uintptr_t addr;
    int size;
    int nmsg;
    uint32_t wakegen;
    uint64_t val[MAXMSG];
    uint16_t *view[MAXMSG]; /* [0] = length, then the entries */
    int16_t writer[MAXMSG];
    uint16_t wlidx[MAXMSG]; /* the writer's event: its local index (DPOR) */
    /* C11: message i is a read-modify-write that read message i - 1 (no
     * write may ever be placed between them: RMW atomicity) */
    uint8_t rmw[MAXMSG];
} loc_t;

typedef struct {
    int loc;
    uint64_t val;
    vclock_t clk;
    int tr;
} bentry_t;

typedef struct {
    clof_fiber_t *fib; /* kept across executions */
    bool started, done, pending;
    op_t op;
    uint64_t result;
    /* C11 */
    uint16_t V[MAXLOC], Vacq[MAXLOC], Vrel[MAXLOC];
    /* await filter */
    bool aw;
    int aw_loc;
    uint64_t aw_seen;
    /* TSO */
    bentry_t buf[BUFMAX];
    int bh, bt;
    /* futex (park mode) */
    bool fsleep;
    uint32_t fgen;
    /* DPOR */
    vclock_t C;
    int last_node;
} thr_t;

typedef struct {
    uint16_t enabled, backtrack, sleep, cut;
    int8_t proc, prev;
    uint8_t preempt;
    uint16_t rf_idx, rf_cnt;
    uint16_t lidx; /* local index of the event in its process */
    desc_t desc[MAXP];
} node_t;

typedef struct {
    int proc; /* thread, or MAXT + t for the store buffer of t */
    int kind, mo, loc, size;
    uint64_t val, res, exp;
    int rf, nmsg; /* C11: message read, messages then */
    uint8_t flags;
    const void *site;
} tr_t;
#define TR_INLINE 1
#define TR_PUSH 2
#define TR_FLUSH 4
#define TR_FAIL 8   /* failed CAS */
#define TR_SLEEP 16 /* futex: went to sleep */
#define TR_WOKE 32
#define TR_AWAIT 64

typedef struct {
    int node;
    int prev;
    uint8_t w;
} acc_t;

/* ------------------------------------------------------------------ state */

static const vc_prog_t *P;
static const vc_cfg_t *CF;
static vc_result_t *R;
static int N, MODEL;

static thr_t thr[MAXT];
static thr_t *g_cur; /* fiber running, NULL in the scheduler / plain mode */

static loc_t *locs; /* [MAXLOC] */
static int nloc;
static struct {
    uintptr_t addr;
    int id;
    unsigned gen;
} lhash[1024];
static unsigned lgen;
static uint16_t G[MAXLOC]; /* C11 seq_cst view */
static uint16_t *varena;
static size_t vtop;

static node_t *nodes;
static int ntop;  /* nodes valid in the stack */
static int depth; /* events executed in this execution */
static vclock_t FC[MAXT]; /* clocks of the store-buffer processes */
static vclock_t *lastW, *Rjoin; /* per DPOR location */
static int acc_head[MAXDLOC];
static acc_t *accs;
static int nacc;

static tr_t *trace;
static int ntrace;

static struct {
    uintptr_t lo, hi;
    char name[40];
} names[MAXNAMES];
static int nnames;

static int cs_owner = -1;
static bool g_failed, g_error;
static char g_prop[64], g_msg[256];
static int g_fail_trace;

/* sites */
static struct {
    const void *addr;
    int idx;
} shash[SITE_HASH];

/* ------------------------------------------------------------------ fibers */

static void fiber_main(void *arg);

static void fiber_init(thr_t *t)
{
    clof_fiber_restart(t->fib, fiber_main, t);
}

static void to_fiber(thr_t *t)
{
    if (P->resume)
        P->resume(P->arg, (int)(t - thr));
    g_cur = t;
    clof_fiber_run(t->fib);
    g_cur = NULL;
}

static void to_sched(void)
{
    clof_fiber_yield();
}

/* ------------------------------------------------------------------ helpers */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mask_of(int size)
{
    return size >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (size * 8)) - 1);
}

static uint64_t mem_read(uintptr_t a, int size)
{
    if (size == 8)
        return __atomic_load_n((uint64_t *)a, __ATOMIC_RELAXED);
    return __atomic_load_n((uint32_t *)a, __ATOMIC_RELAXED);
}

static void mem_write(uintptr_t a, int size, uint64_t v)
{
    if (size == 8)
        __atomic_store_n((uint64_t *)a, v, __ATOMIC_RELAXED);
    else
        __atomic_store_n((uint32_t *)a, (uint32_t)v, __ATOMIC_RELAXED);
}

static bool is_rmw(int k)
{
    return k == VC_XCHG || k == VC_CAS || (k >= VC_FADD && k <= VC_FXOR);
}

static uint64_t rmw_new(int k, uint64_t old, uint64_t v, int size)
{
    uint64_t r;
    switch (k) {
    case VC_XCHG: r = v; break;
    case VC_FADD: r = old + v; break;
    case VC_FSUB: r = old - v; break;
    case VC_FAND: r = old & v; break;
    case VC_FOR: r = old | v; break;
    case VC_FXOR: r = old ^ v; break;
    default: r = v; break;
    }
    return r & mask_of(size);
}

static void fail(const char *prop, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(const char *prop, const char *fmt, ...)
{
    if (g_failed)
        return;
    g_failed = true;
    snprintf(g_prop, sizeof g_prop, "%s", prop);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    g_fail_trace = ntrace;
}

static void internal_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static void internal_error(const char *fmt, ...)
{
    if (g_error)
        return;
    g_error = true;
    g_failed = true;
    snprintf(g_prop, sizeof g_prop, "checker error");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
}

/* Stop the current fiber for good after a violation. */
static void fiber_abort(void)
{
    if (g_cur) {
        to_sched();
        /* never resumed */
        abort();
    }
}

/* ------------------------------------------------------------------ locations */

static int loc_of(const void *addr, int size)
{
    uintptr_t a = (uintptr_t)addr;
    unsigned h = (unsigned)((a >> 2) * 2654435761u) & 1023u;
    for (;;) {
        if (lhash[h].gen != lgen)
            break;
        if (lhash[h].addr == a) {
            int id = lhash[h].id;
            if (locs[id].size != size) {
                internal_error("mixed-size accesses to %p (%d and %d bytes)",
                               addr, locs[id].size, size);
                fiber_abort();
            }
            return id;
        }
        h = (h + 1) & 1023u;
    }
    if (nloc >= MAXLOC) {
        internal_error("more than %d shared locations", MAXLOC - 1);
        fiber_abort();
        return 1;
    }
    int id = nloc++;
    lhash[h].gen = lgen;
    lhash[h].addr = a;
    lhash[h].id = id;
    loc_t *L = &locs[id];
    L->addr = a;
    L->size = size;
    L->wakegen = 0;
    L->nmsg = 1;
    L->val[0] = mem_read(a, size);
    L->view[0] = NULL;
    L->writer[0] = -1;
    L->wlidx[0] = 0;
    L->rmw[0] = 0;
    return id;
}

static const char *name_of(uintptr_t a, char *buf, size_t n)
{
    for (int i = 0; i < nnames; i++) {
        if (a >= names[i].lo && a < names[i].hi) {
            if (a == names[i].lo)
                snprintf(buf, n, "%s", names[i].name);
            else
                snprintf(buf, n, "%s+%lu", names[i].name,
                         (unsigned long)(a - names[i].lo));
            return buf;
        }
    }
    snprintf(buf, n, "%#lx", (unsigned long)a);
    return buf;
}

/* A value, or &name if it points into a named range. */
static const char *val_str(uint64_t v, char *buf, size_t n)
{
    if (v > 0x10000) {
        for (int i = 0; i < nnames; i++)
            if (v >= names[i].lo && v < names[i].hi && n >= 2) {
                /* '&' and the name behind it (no snprintf of one buffer
                 * into another of the same size: -Wformat-truncation) */
                buf[0] = '&';
                name_of((uintptr_t)v, buf + 1, n - 1);
                return buf;
            }
        snprintf(buf, n, "%#llx", (unsigned long long)v);
    } else {
        snprintf(buf, n, "%llu", (unsigned long long)v);
    }
    return buf;
}

void vc_name(const void *addr, size_t size, const char *name)
{
    if (nnames >= MAXNAMES)
        return;
    names[nnames].lo = (uintptr_t)addr;
    names[nnames].hi = (uintptr_t)addr + size;
    snprintf(names[nnames].name, sizeof names[nnames].name, "%s", name);
    nnames++;
}

uint64_t vc_clock;

int vc_self(void)
{
    return g_cur ? (int)(g_cur - thr) : -1;
}

/* ------------------------------------------------------------------ views */

static uint16_t *view_save(const uint16_t *src, int x, int idx)
{
    size_t len = (size_t)nloc;
    if (vtop + len + 1 > VIEW_ARENA) {
        internal_error("view arena exhausted");
        fiber_abort();
        return NULL;
    }
    uint16_t *v = varena + vtop;
    vtop += len + 1;
    v[0] = (uint16_t)len;
    memcpy(v + 1, src, len * sizeof(uint16_t));
    if (x >= 0 && v[1 + x] < idx)
        v[1 + x] = (uint16_t)idx;
    return v;
}

static void view_join(uint16_t *dst, const uint16_t *mv)
{
    if (!mv)
        return;
    int len = mv[0];
    for (int i = 0; i < len; i++)
        if (dst[i] < mv[1 + i])
            dst[i] = mv[1 + i];
}

static void view_join_full(uint16_t *dst, const uint16_t *src)
{
    for (int i = 0; i < nloc; i++)
        if (dst[i] < src[i])
            dst[i] = src[i];
}


/* ------------------------------------------------------------------ sites, mutation */

static const char *name_of(uintptr_t a, char *buf, size_t n);

static int site_mo(const void *site, int kind, int mo, const void *addr,
                   bool pub)
{
    if (CF->sites) {
        unsigned h = (unsigned)(((uintptr_t)site >> 1) * 2654435761u) &
                     (SITE_HASH - 1);
        for (;;) {
            if (shash[h].addr == NULL) {
                if (CF->nsites < CF->max_sites) {
                    vc_cfg_t *cf = (vc_cfg_t *)(uintptr_t)CF;
                    int i = cf->nsites++;
                    cf->sites[i].addr = site;
                    cf->sites[i].kind = kind;
                    cf->sites[i].mo = mo;
                    cf->sites[i].hits = 0;
                    cf->sites[i].pub = pub;
                    shash[h].addr = site;
                    shash[h].idx = i;
                    cf->sites[i].hits++;
                }
                break;
            }
            if (shash[h].addr == site) {
                CF->sites[shash[h].idx].hits++;
                break;
            }
            h = (h + 1) & (SITE_HASH - 1);
        }
    }
    const vc_mutation_t *m = CF->mutation;
    if (m && !pub) {
        for (int i = 0; i < m->nsites; i++)
            if (m->sites[i] == site)
                return m->site_mos ? m->site_mos[i] : m->mo;
        if (m->nsites == 0 && m->loc_match && kind == m->kind &&
            mo == m->from_mo && addr) {
            char nb[64];
            if (strstr(name_of((uintptr_t)addr, nb, sizeof nb), m->loc_match))
                return m->mo;
        }
    }
    return mo;
}

/* The order an access of this kind can have (C11 rules). */
static int norm_mo(int kind, int mo)
{
    if (kind == VC_LOAD || kind == VC_FUTEX_WAIT) {
        if (mo == VC_REL)
            return VC_RLX;
        if (mo == VC_AR)
            return VC_ACQ;
    } else if (kind == VC_STORE) {
        if (mo == VC_ACQ)
            return VC_RLX;
        if (mo == VC_AR)
            return VC_REL;
    }
    return mo;
}

static bool mo_acq(int mo)
{
    return mo == VC_ACQ || mo == VC_AR || mo == VC_SEQ;
}
static bool mo_rel(int mo)
{
    return mo == VC_REL || mo == VC_AR || mo == VC_SEQ;
}

/* ------------------------------------------------------------------ trace */

static tr_t *tr_new(int proc, const op_t *op)
{
    if (ntrace >= MAXTRACE)
        return NULL;
    tr_t *e = &trace[ntrace++];
    memset(e, 0, sizeof *e);
    e->proc = proc;
    if (op) {
        e->kind = op->kind;
        e->mo = op->mo;
        e->loc = op->loc;
        e->size = op->size;
        e->val = op->val;
        e->exp = op->exp;
        e->site = op->site;
    }
    e->rf = -1;
    return e;
}

/* ------------------------------------------------------------------ TSO buffer */

static bool buf_empty(const thr_t *t)
{
    return t->bh == t->bt;
}

static bool buf_lookup(const thr_t *t, int loc, uint64_t *v)
{
    for (int i = t->bt - 1; i >= t->bh; i--)
        if (t->buf[i % BUFMAX].loc == loc) {
            *v = t->buf[i % BUFMAX].val;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------------ C11 reads */

static int c11_floor(const thr_t *t, const op_t *op)
{
    int f = t->V[op->loc];
    if (op->mo == VC_SEQ && G[op->loc] > f)
        f = G[op->loc];
    return f;
}

/* Does the event that wrote message i of L happen before the next event of
 * t in the exploration's own order (the DPOR clocks: program order and
 * every earlier conflict)?  A store of t placed right before message i,
 * or an RMW of t reading message i - 1, is explored only then: when the
 * two writes are concurrent instead, they race, DPOR also runs t's write
 * first, and there it takes the same place in mo at the end (or after
 * i - 1) -- the same execution, so the choice here would repeat it. */
static bool c11_before(const thr_t *t, const loc_t *L, int i)
{
    int w = L->writer[i];
    return w < 0 || w == (int)(t - thr) || t->C.c[w] >= L->wlidx[i];
}

/* Message i of L has been read by a read-modify-write (placed right after
 * it in mo): no other read-modify-write may read it. */
static bool c11_taken(const loc_t *L, int i)
{
    return i + 1 < L->nmsg && L->rmw[i + 1];
}

/* The messages the pending op of t may read, latest first (in reverse with
 * cfg->reverse).  A load reads any message at or after its floor (its view
 * of the location, and for seq_cst the latest seq_cst access); a
 * read-modify-write reads such a message that no other read-modify-write
 * has read, and is placed right after it in mo; a CAS that reads the
 * expected value succeeds, one that reads another value fails (a load). */
static int c11_readable(const thr_t *t, const op_t *op, int *out,
                        bool restrict_)
{
    const loc_t *L = &locs[op->loc];
    int n = L->nmsg, k = 0;
    bool f = t->aw && t->aw_loc == op->loc;
    uint64_t seen = t->aw_seen;
    int floor = c11_floor(t, op);
    if (op->kind == VC_LOAD) {
        for (int i = n - 1; i >= floor; i--)
            if (!f || L->val[i] != seen)
                out[k++] = i;
    } else if (op->kind == VC_CAS) {
        if (!f || op->exp != seen)
            for (int i = n - 1; i >= floor; i--)
                if (L->val[i] == op->exp && !c11_taken(L, i))
                    out[k++] = i;
        for (int i = n - 1; i >= floor; i--)
            if (L->val[i] != op->exp && (!f || L->val[i] != seen))
                out[k++] = i;
    } else {
        for (int i = n - 1; i >= floor; i--)
            if (!c11_taken(L, i) && (!f || L->val[i] != seen))
                out[k++] = i;
    }
    if (restrict_ && op->kind != VC_LOAD) {
        /* a read-modify-write that succeeds goes between the message it
         * reads and the next one: only where the next one's writer
         * happens before it (see c11_before) */
        int j = 0;
        for (int i = 0; i < k; i++) {
            int m = out[i];
            bool writes = op->kind != VC_CAS || L->val[m] == op->exp;
            if (!writes || m == n - 1 || c11_before(t, L, m + 1))
                out[j++] = m;
        }
        if (j > 0) /* else keep them all: the await needs one to be enabled */
            k = j;
    }
    if (CF->reverse)
        for (int i = 0; i < k / 2; i++) {
            int tmp = out[i];
            out[i] = out[k - 1 - i];
            out[k - 1 - i] = tmp;
        }
    return k;
}

/* The positions in mo a store of t may take, latest first (in reverse with
 * cfg->reverse): position p puts it right before message p (p = nmsg: at
 * the end), after every message of its view (coherence: CoWW, CoRW, and
 * for seq_cst the latest seq_cst access), and never between a
 * read-modify-write and the message it read. */
static int c11_positions(const thr_t *t, const op_t *op, int *out)
{
    const loc_t *L = &locs[op->loc];
    int n = L->nmsg, k = 0;
    int floor = c11_floor(t, op);
    for (int p = n; p > floor; p--)
        if (p == n || (!L->rmw[p] && c11_before(t, L, p)))
            out[k++] = p;
    if (CF->reverse)
        for (int i = 0; i < k / 2; i++) {
            int tmp = out[i];
            out[i] = out[k - 1 - i];
            out[k - 1 - i] = tmp;
        }
    return k;
}

/* The value the pending op of t would read under SC / TSO. */
static uint64_t visible(const thr_t *t, const op_t *op)
{
    uint64_t v;
    if (MODEL == VC_TSO && op->kind == VC_LOAD && buf_lookup(t, op->loc, &v))
        return v;
    if (MODEL == VC_C11)
        return locs[op->loc].val[locs[op->loc].nmsg - 1];
    return mem_read(locs[op->loc].addr, op->size);
}

static bool needs_empty_buffer(const op_t *op)
{
    if (is_rmw(op->kind) || op->kind == VC_FUTEX_WAIT ||
        op->kind == VC_FUTEX_WAKE)
        return true;
    if ((op->kind == VC_STORE || op->kind == VC_FENCE) && op->mo == VC_SEQ)
        return true;
    return false;
}

static bool thread_enabled(const thr_t *t)
{
    if (t->done || !t->pending)
        return false;
    const op_t *op = &t->op;
    if (t->fsleep)
        return locs[op->loc].wakegen != t->fgen;
    if (MODEL == VC_TSO && needs_empty_buffer(op) && !buf_empty(t))
        return false;
    if (op->kind == VC_FENCE || op->kind == VC_STORE ||
        op->kind == VC_FUTEX_WAKE || op->kind == VC_FUTEX_WAIT)
        return true;
    if (!(t->aw && t->aw_loc == op->loc))
        return true;
    if (MODEL == VC_C11) {
        int tmp[MAXMSG];
        return c11_readable(t, op, tmp, false) > 0;
    }
    uint64_t v = visible(t, op);
    if (op->kind == VC_CAS && v == op->exp)
        return op->exp != t->aw_seen;
    return v != t->aw_seen;
}

static uint16_t enabled_set(void)
{
    uint16_t en = 0;
    for (int p = 0; p < N; p++)
        if (thread_enabled(&thr[p]))
            en |= (uint16_t)(1u << p);
    if (MODEL == VC_TSO)
        for (int t = 0; t < N; t++)
            if (!buf_empty(&thr[t]))
                en |= (uint16_t)(1u << (MAXT + t));
    return en;
}

/* ------------------------------------------------------------------ DPOR descriptors */

static void d_add(desc_t *d, int dloc, int w)
{
    d->dloc[d->n] = (int16_t)dloc;
    d->w[d->n] = (uint8_t)w;
    d->n++;
}

static void desc_of(int p, desc_t *d)
{
    d->n = 0;
    if (p >= MAXT) {
        const thr_t *t = &thr[p - MAXT];
        if (!buf_empty(t))
            d_add(d, 2 * t->buf[t->bh % BUFMAX].loc, 1);
        return;
    }
    const thr_t *t = &thr[p];
    if (p >= N || t->done || !t->pending)
        return;
    const op_t *op = &t->op;
    bool sc11 = MODEL == VC_C11 && op->mo == VC_SEQ;
    switch (op->kind) {
    case VC_FENCE:
        if (sc11)
            d_add(d, DLOC_G, 1);
        return;
    case VC_LOAD:
    case VC_FUTEX_WAIT:
        d_add(d, 2 * op->loc, 0);
        break;
    default:
        d_add(d, 2 * op->loc, 1);
        break;
    }
    if (sc11 && op->kind != VC_FUTEX_WAIT && op->kind != VC_FUTEX_WAKE) {
        d_add(d, 2 * op->loc + 1, 1);
        d_add(d, DLOC_G, 0);
    }
}

static bool dependent(const desc_t *a, const desc_t *b)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++)
            if (a->dloc[i] == b->dloc[j] && (a->w[i] || b->w[j]))
                return true;
    return false;
}

static void vc_join(vclock_t *a, const vclock_t *b)
{
    for (int i = 0; i < MAXP; i++)
        if (a->c[i] < b->c[i])
            a->c[i] = b->c[i];
}

static vclock_t *clock_of(int p)
{
    return p >= MAXT ? &FC[p - MAXT] : &thr[p].C;
}

/* Record the event of process p at node d: its clock and its accesses. */
static void dpor_event(int p, int d, const desc_t *de, const vclock_t *extra)
{
    vclock_t C = *clock_of(p);
    C.c[p]++;
    nodes[d].lidx = C.c[p];
    if (extra)
        vc_join(&C, extra);
    for (int i = 0; i < de->n; i++) {
        int dl = de->dloc[i];
        vc_join(&C, &lastW[dl]);
        if (de->w[i])
            vc_join(&C, &Rjoin[dl]);
    }
    for (int i = 0; i < de->n; i++) {
        int dl = de->dloc[i];
        if (de->w[i]) {
            lastW[dl] = C;
            memset(&Rjoin[dl], 0, sizeof Rjoin[dl]);
        } else {
            vc_join(&Rjoin[dl], &C);
        }
        if (nacc < 3 * MAXEV) {
            accs[nacc].node = d;
            accs[nacc].w = de->w[i];
            accs[nacc].prev = acc_head[dl];
            acc_head[dl] = nacc++;
        }
    }
    *clock_of(p) = C;
    if (p < MAXT)
        thr[p].last_node = d;
}

static int last_node_of(int p)
{
    if (p < MAXT)
        return thr[p].last_node;
    return -1; /* computed below when needed */
}

static int flusher_last[MAXT];

static void add_backtrack(int i, int p)
{
    node_t *n = &nodes[i];
    if (n->enabled & (1u << p))
        n->backtrack |= (uint16_t)(1u << p);
    else
        n->backtrack |= n->enabled;
}

/* Flanagan-Godefroid: for the next event of every process, find the last
 * event it races with and schedule the reversal there. */
static void dpor_races(int d)
{
    node_t *cur = &nodes[d];
    for (int p = 0; p < MAXP; p++) {
        const desc_t *e = &cur->desc[p];
        if (e->n == 0)
            continue;
        const vclock_t *Cp = clock_of(p);
        int lastp = p < MAXT ? last_node_of(p) : flusher_last[p - MAXT];
        int best = -1;
        for (int k = 0; k < e->n; k++) {
            int dl = e->dloc[k];
            for (int a = acc_head[dl]; a >= 0; a = accs[a].prev) {
                int i = accs[a].node;
                if (i <= best)
                    break;
                int q = nodes[i].proc;
                if (q == p)
                    continue;
                bool hb = Cp->c[q] >= nodes[i].lidx;
                if (!(e->w[k] || accs[a].w)) {
                    continue;
                }
                if (hb) {
                    if (accs[a].w)
                        break; /* everything earlier happens before it */
                    continue;
                }
                /* an event that enabled p's pending event is no race */
                if (!(nodes[i].enabled & (1u << p)) &&
                    (nodes[i + 1].enabled & (1u << p)) && lastp < i)
                    continue;
                best = i;
                break;
            }
        }
        if (best < 0)
            continue;
        add_backtrack(best, p);
        if (CF->bound >= 0) {
            int j = best;
            while (j > 0 && nodes[j - 1].proc == nodes[best].proc)
                j--;
            if (j != best)
                add_backtrack(j, p);
        }
    }
}

/* ------------------------------------------------------------------ executing events */

static void c11_read_effects(thr_t *t, int x, int ridx, int mo)
{
    loc_t *L = &locs[x];
    if (t->V[x] < ridx)
        t->V[x] = (uint16_t)ridx;
    if (mo_acq(mo))
        view_join(t->V, L->view[ridx]);
    view_join(t->Vacq, L->view[ridx]);
    if (t->Vacq[x] < ridx)
        t->Vacq[x] = (uint16_t)ridx;
    if (mo == VC_SEQ && G[x] < ridx)
        G[x] = (uint16_t)ridx;
}

/* Make room at position pos of x's mo: every message from pos on moves up
 * by one, and so does every view entry of x that names one of them (the
 * views of every message, of every thread, and the seq_cst view). */
static void c11_shift(int x, int pos)
{
    loc_t *L = &locs[x];
    for (int l = 1; l < nloc; l++) {
        loc_t *M = &locs[l];
        for (int i = 0; i < M->nmsg; i++) {
            uint16_t *v = M->view[i];
            if (v && x < v[0] && v[1 + x] >= pos)
                v[1 + x]++;
        }
    }
    for (int i = 0; i < N; i++) {
        thr_t *u = &thr[i];
        if (u->V[x] >= pos)
            u->V[x]++;
        if (u->Vacq[x] >= pos)
            u->Vacq[x]++;
        if (u->Vrel[x] >= pos)
            u->Vrel[x]++;
    }
    if (G[x] >= pos)
        G[x]++;
    int m = L->nmsg - pos;
    memmove(&L->val[pos + 1], &L->val[pos], (size_t)m * sizeof L->val[0]);
    memmove(&L->view[pos + 1], &L->view[pos], (size_t)m * sizeof L->view[0]);
    memmove(&L->writer[pos + 1], &L->writer[pos],
            (size_t)m * sizeof L->writer[0]);
    memmove(&L->rmw[pos + 1], &L->rmw[pos], (size_t)m * sizeof L->rmw[0]);
    memmove(&L->wlidx[pos + 1], &L->wlidx[pos],
            (size_t)m * sizeof L->wlidx[0]);
    L->nmsg++;
}

/* A store of v by t, placed at position pos of x's mo (ridx >= 0: a
 * read-modify-write that read message ridx, pos = ridx + 1).  Returns the
 * message's index. */
static int c11_insert(thr_t *t, int x, uint64_t v, int mo, int pos, int ridx)
{
    loc_t *L = &locs[x];
    if (L->nmsg >= MAXMSG) {
        internal_error("more than %d stores to one location", MAXMSG);
        return L->nmsg - 1;
    }
    int idx = pos;
    if (idx < L->nmsg)
        c11_shift(x, idx);
    else
        L->nmsg++;
    L->val[idx] = v;
    L->writer[idx] = (int16_t)(t - thr);
    L->wlidx[idx] = t->C.c[t - thr]; /* dpor_event has counted this event */
    L->rmw[idx] = ridx >= 0;
    t->V[x] = (uint16_t)idx;
    uint16_t *mv = view_save(mo_rel(mo) ? t->V : t->Vrel, x, idx);
    if (ridx >= 0 && mv) /* read-modify-write: continue the release sequence */
        view_join(mv + 1, L->view[ridx]), mv[1 + x] = (uint16_t)idx;
    L->view[idx] = mv;
    if (mo == VC_SEQ)
        G[x] = (uint16_t)idx;
    if (idx == L->nmsg - 1) /* memory holds the last store in mo */
        mem_write(L->addr, L->size, v);
    return idx;
}

static void c11_fence(thr_t *t, int mo)
{
    if (mo_acq(mo))
        view_join_full(t->V, t->Vacq);
    if (mo == VC_SEQ) {
        view_join_full(t->V, G);
        view_join_full(G, t->V);
    }
    if (mo_rel(mo))
        memcpy(t->Vrel, t->V, sizeof t->V);
}

/* Execute the pending op of thread t reading message `ridx` (C11) and
 * return its result; false if the thread went to sleep (futex). */
static bool exec_op(thr_t *t, int ridx, tr_t *e)
{
    op_t *op = &t->op;
    int x = op->loc;
    uint64_t res = 0;
    bool cont = true;
    if (t->aw && t->aw_loc == x && e)
        e->flags |= TR_AWAIT;
    if (op->kind == VC_FUTEX_WAIT) {
        if (t->fsleep) {
            t->fsleep = false;
            if (e)
                e->flags |= TR_WOKE;
        } else {
            uint64_t v = MODEL == VC_C11 ? locs[x].val[locs[x].nmsg - 1]
                                         : mem_read(locs[x].addr, 4);
            if (e)
                e->res = v;
            if (v == op->val) {
                t->fsleep = true;
                t->fgen = locs[x].wakegen;
                if (e)
                    e->flags |= TR_SLEEP;
                return false;
            }
        }
        t->result = 0;
        t->aw = false;
        return cont;
    }
    if (op->kind == VC_FUTEX_WAKE) {
        locs[x].wakegen++;
        t->result = 0;
        return cont;
    }
    if (MODEL == VC_C11) {
        switch (op->kind) {
        case VC_FENCE: c11_fence(t, op->mo); break;
        case VC_LOAD:
            res = locs[x].val[ridx];
            c11_read_effects(t, x, ridx, op->mo);
            break;
        case VC_STORE:
            ridx = c11_insert(t, x, op->val, op->mo, ridx, -1);
            break;
        case VC_CAS:
            res = locs[x].val[ridx];
            if (res == op->exp) {
                c11_read_effects(t, x, ridx, op->mo);
                c11_insert(t, x, op->val, op->mo, ridx + 1, ridx);
            } else {
                int fmo = op->mo == VC_REL ? VC_RLX
                          : op->mo == VC_AR ? VC_ACQ
                                            : op->mo;
                c11_read_effects(t, x, ridx, fmo);
                if (e)
                    e->flags |= TR_FAIL;
            }
            break;
        default: /* xchg, fetch-ops */
            res = locs[x].val[ridx];
            c11_read_effects(t, x, ridx, op->mo);
            c11_insert(t, x, rmw_new(op->kind, res, op->val, op->size),
                       op->mo, ridx + 1, ridx);
            break;
        }
        if (e) {
            e->rf = ridx;
            e->nmsg = locs[x >= 0 ? x : 0].nmsg;
        }
    } else {
        uintptr_t a = op->kind == VC_FENCE ? 0 : locs[x].addr;
        switch (op->kind) {
        case VC_FENCE: break;
        case VC_LOAD: res = visible(t, op); break;
        case VC_STORE:
            if (MODEL == VC_TSO && op->mo != VC_SEQ) {
                bentry_t *b = &t->buf[t->bt % BUFMAX];
                if (t->bt - t->bh >= BUFMAX) {
                    internal_error("store buffer overflow");
                    break;
                }
                b->loc = x;
                b->val = op->val;
                b->clk = t->C;
                b->tr = ntrace - 1;
                t->bt++;
                if (e)
                    e->flags |= TR_PUSH;
            } else {
                mem_write(a, op->size, op->val);
            }
            break;
        case VC_CAS:
            res = mem_read(a, op->size);
            if (res == op->exp)
                mem_write(a, op->size, op->val);
            else if (e)
                e->flags |= TR_FAIL;
            break;
        default:
            res = mem_read(a, op->size);
            mem_write(a, op->size, rmw_new(op->kind, res, op->val, op->size));
            break;
        }
    }
    if (e)
        e->res = res;
    t->result = res;
    t->aw = false;
    return cont;
}

static void flush_one(thr_t *t, tr_t *e)
{
    bentry_t *b = &t->buf[t->bh % BUFMAX];
    mem_write(locs[b->loc].addr, locs[b->loc].size, b->val);
    if (e) {
        e->kind = VC_STORE;
        e->loc = b->loc;
        e->size = locs[b->loc].size;
        e->val = b->val;
        e->flags |= TR_FLUSH;
        e->mo = VC_NOMO;
    }
    t->bh++;
}

/* ------------------------------------------------------------------ fiber side */

static void fiber_main(void *arg)
{
    thr_t *t = (thr_t *)arg;
    P->thread(P->arg, (int)(t - thr));
    t->done = true;
    t->pending = false;
    /* returning ends the fiber and switches to the scheduler */
}

static uint64_t plain_access(int kind, void *addr, int size, uint64_t val,
                             uint64_t exp)
{
    uintptr_t a = (uintptr_t)addr;
    uint64_t old;
    switch (kind) {
    case VC_FENCE:
    case VC_FUTEX_WAKE: return 0;
    case VC_FUTEX_WAIT:
        if (mem_read(a, 4) == (uint32_t)val) {
            internal_error("futex wait in plain (setup/final) code would "
                           "block");
        }
        return 0;
    case VC_LOAD: return mem_read(a, size);
    case VC_STORE: mem_write(a, size, val); return 0;
    case VC_CAS:
        old = mem_read(a, size);
        if (old == exp)
            mem_write(a, size, val);
        return old;
    default:
        old = mem_read(a, size);
        mem_write(a, size, rmw_new(kind, old, val, size));
        return old;
    }
}

/* Ops that touch nothing another process can see, and are enabled, run at
 * once without a scheduling point. */
static bool runs_inline(const thr_t *t, const op_t *op)
{
    if (op->kind == VC_FENCE) {
        if (MODEL == VC_SC)
            return true;
        if (MODEL == VC_TSO)
            return op->mo != VC_SEQ || buf_empty(t);
        return op->mo != VC_SEQ;
    }
    if (op->kind == VC_STORE && MODEL == VC_TSO && op->mo != VC_SEQ)
        return true;
    return false;
}

__attribute__((noinline)) uint64_t vc_access(int kind, void *addr, int size,
                                             uint64_t val, uint64_t exp,
                                             int mo)
{
    const void *site = __builtin_return_address(0);
    uint64_t m = mask_of(size);
    val &= m;
    exp &= m;
    thr_t *t = g_cur;
    bool pub = (mo & VC_PUB) != 0;
    mo &= ~VC_PUB;
    if (!t)
        return plain_access(kind, addr, size, val, exp);
    mo = site_mo(site, kind, mo, addr, pub);
    if (kind == VC_FENCE && mo == VC_NOMO)
        return 0; /* mutation: fence removed */
    if (mo == VC_NOMO)
        mo = VC_RLX;
    if (kind != VC_FENCE && (uintptr_t)addr < 4096) {
        /* a NULL or tagged pointer dereferenced (a lock that lost track of
         * its queue, e.g. under a weakened order): a violation, not a crash
         * of the checker */
        fail("invalid pointer", "T%d: access to address %p",
             (int)(t - thr), addr);
        fiber_abort();
    }
    op_t *op = &t->op;
    op->kind = kind;
    op->addr = addr;
    op->size = size;
    op->val = val;
    op->exp = exp;
    op->mo = norm_mo(kind, mo);
    op->site = site;
    op->loc = kind == VC_FENCE ? 0 : loc_of(addr, size);
    if (t->aw && t->aw_loc != op->loc)
        t->aw = false; /* the awaited location is not the next accessed */
    if (runs_inline(t, op)) {
        tr_t *e = tr_new((int)(t - thr), op);
        if (e)
            e->flags |= TR_INLINE;
        exec_op(t, -1, e);
        if (g_failed)
            fiber_abort();
        return t->result;
    }
    t->pending = true;
    to_sched();
    return t->result;
}

void vc_await_change(const void *addr, int size, uint64_t seen)
{
    thr_t *t = g_cur;
    seen &= mask_of(size);
    if (!t) {
        if (mem_read((uintptr_t)addr, size) == seen)
            internal_error("await in plain (setup/final) code would block");
        return;
    }
    t->aw = true;
    t->aw_loc = loc_of(addr, size);
    t->aw_seen = seen;
}

void vc_assert_fail(const char *msg, const char *file, int line)
{
    int self = vc_self();
    if (self >= 0)
        fail("assertion", "T%d: %s (%s:%d)", self, msg, file, line);
    else
        fail("assertion", "final state: %s (%s:%d)", msg, file, line);
    fiber_abort();
}

void vc_cs_enter(void)
{
    int self = vc_self();
    if (cs_owner >= 0) {
        fail("mutual exclusion",
             "T%d entered the critical section while T%d is in it", self,
             cs_owner);
        fiber_abort();
    }
    cs_owner = self;
}

void vc_cs_exit(void)
{
    cs_owner = -1;
}

/* ------------------------------------------------------------------ one execution */

enum { EX_DONE, EX_FAIL, EX_PRUNED };

static int preempt_cost(int k, int c)
{
    int prev = nodes[k].prev;
    if (prev < 0 || prev >= MAXT)
        return 0;
    if (!(nodes[k].enabled & (1u << prev)))
        return 0;
    return c != prev;
}

static int pick(int k, uint16_t cand)
{
    int prev = nodes[k].prev;
    if (prev >= 0 && (cand & (1u << prev)))
        return prev;
    if (CF->reverse) {
        for (int p = MAXP - 1; p >= 0; p--)
            if (cand & (1u << p))
                return p;
        return -1;
    }
    for (int p = 0; p < MAXP; p++)
        if (cand & (1u << p))
            return p;
    return -1;
}

/* choose among cand respecting the bound; -1 if none */
static int choose(int k, uint16_t cand)
{
    while (cand) {
        int c = pick(k, cand);
        if (CF->bound >= 0 && nodes[k].preempt + preempt_cost(k, c) > CF->bound) {
            if (!(nodes[k].cut & (1u << c))) {
                nodes[k].cut |= (uint16_t)(1u << c);
                R->bound_cuts++;
            }
            cand &= (uint16_t)~(1u << c);
            continue;
        }
        return c;
    }
    return -1;
}

static void reset_execution(void)
{
    lgen++;
    nloc = 1; /* id 0 reserved */
    vtop = 0;
    ntrace = 0;
    nnames = 0;
    cs_owner = -1;
    nacc = 0;
    for (int i = 0; i < MAXDLOC; i++)
        acc_head[i] = -1;
    memset(lastW, 0, sizeof(vclock_t) * MAXDLOC);
    memset(Rjoin, 0, sizeof(vclock_t) * MAXDLOC);
    memset(G, 0, sizeof G);
    memset(FC, 0, sizeof FC);
    for (int i = 0; i < MAXT; i++)
        flusher_last[i] = -1;
    for (int i = 0; i < N; i++) {
        thr_t *t = &thr[i];
        clof_fiber_t *fib = t->fib;
        memset(t, 0, sizeof *t);
        t->fib = fib;
        t->last_node = -1;
    }
}

static int run_execution(void)
{
    reset_execution();
    P->setup(P->arg);
    if (g_failed)
        return EX_FAIL;
    for (int i = 0; i < N; i++) {
        fiber_init(&thr[i]);
        thr[i].started = true;
        to_fiber(&thr[i]);
        if (g_failed)
            return EX_FAIL;
    }
    int max_steps = CF->max_steps > 0 ? CF->max_steps : DEFAULT_STEPS;
    if (max_steps > MAXEV - 1)
        max_steps = MAXEV - 1;
    for (depth = 0;; depth++) {
        uint16_t en = enabled_set();
        if (en == 0) {
            bool all_done = true;
            for (int i = 0; i < N; i++)
                if (!thr[i].done)
                    all_done = false;
            if (all_done)
                break;
            char b[512];
            int off = 0;
            for (int i = 0; i < N; i++) {
                thr_t *t = &thr[i];
                if (t->done)
                    continue;
                char nb[64];
                const char *what = t->fsleep ? "sleeps in futex_wait on"
                                   : t->aw   ? "awaits a change of"
                                             : "waits (store buffer) at";
                off += snprintf(b + off, sizeof b - (size_t)off,
                                "%sT%d %s %s", off ? "; " : "", i, what,
                                name_of(locs[t->op.loc].addr, nb, sizeof nb));
                if (t->aw && !t->fsleep && off < (int)sizeof b - 40)
                    off += snprintf(b + off, sizeof b - (size_t)off,
                                    " (still %llu)",
                                    (unsigned long long)t->aw_seen);
                if (off >= (int)sizeof b - 1)
                    break;
            }
            fail("hang (spinloop non-termination)",
                 "every live thread is blocked: %s", b);
            return EX_FAIL;
        }
        if (depth >= max_steps) {
            fail("non-termination (step bound)",
                 "an execution exceeded %d events (livelock or unbounded "
                 "loop)",
                 max_steps);
            return EX_FAIL;
        }
        node_t *nd = &nodes[depth];
        if (depth < ntop) {
            if (nd->enabled != en) {
                internal_error("replay diverged at event %d (nondeterministic "
                               "program?)",
                               depth);
                return EX_FAIL;
            }
        } else {
            nd->enabled = en;
            nd->cut = 0;
            nd->prev = (int8_t)(depth ? nodes[depth - 1].proc : -1);
            nd->preempt = (uint8_t)(depth ? nodes[depth - 1].preempt +
                                                preempt_cost(depth - 1,
                                                             nodes[depth - 1].proc)
                                          : 0);
            for (int p = 0; p < MAXP; p++)
                desc_of(p, &nd->desc[p]);
            nd->sleep = 0;
            if (depth && !CF->no_dpor) {
                node_t *pa = &nodes[depth - 1];
                uint16_t s = pa->sleep & (uint16_t)~(1u << pa->proc);
                for (int q = 0; q < MAXP; q++)
                    if ((s & (1u << q)) &&
                        !dependent(&pa->desc[q], &pa->desc[pa->proc]))
                        nd->sleep |= (uint16_t)(1u << q);
            }
            if (!CF->no_dpor)
                dpor_races(depth);
            uint16_t cand = en & (uint16_t)~nd->sleep;
            if (cand == 0) {
                R->blocked++;
                return EX_PRUNED;
            }
            int c = choose(depth, cand);
            if (c < 0) {
                R->blocked++;
                return EX_PRUNED;
            }
            nd->proc = (int8_t)c;
            nd->backtrack = CF->no_dpor ? en : (uint16_t)(1u << c);
            nd->rf_idx = 0;
            nd->rf_cnt = 0;
            ntop = depth + 1;
        }
        int p = nd->proc;
        R->events++;
        if (p >= MAXT) {
            thr_t *t = &thr[p - MAXT];
            vclock_t push = t->buf[t->bh % BUFMAX].clk;
            tr_t *e = tr_new(p, NULL);
            dpor_event(p, depth, &nd->desc[p], &push);
            flusher_last[p - MAXT] = depth;
            flush_one(t, e);
            continue;
        }
        thr_t *t = &thr[p];
        int ridx = -1;
        if (MODEL == VC_C11 && t->op.kind != VC_FENCE &&
            t->op.kind != VC_FUTEX_WAIT && t->op.kind != VC_FUTEX_WAKE) {
            /* the choice of the event: the message read, or for a store
             * its position in mo */
            int rs[MAXMSG + 1];
            int cnt = t->op.kind == VC_STORE ? c11_positions(t, &t->op, rs)
                                             : c11_readable(t, &t->op, rs, true);
            if (nd->rf_cnt == 0)
                nd->rf_cnt = (uint16_t)cnt;
            else if (nd->rf_cnt != cnt) {
                internal_error("replay diverged at event %d (reads)", depth);
                return EX_FAIL;
            }
            if (cnt == 0) {
                internal_error("no readable message at event %d", depth);
                return EX_FAIL;
            }
            ridx = rs[nd->rf_idx];
        } else if (nd->rf_cnt == 0) {
            nd->rf_cnt = 1;
        }
        const vclock_t *extra = NULL;
        if (MODEL == VC_TSO && needs_empty_buffer(&t->op))
            extra = &FC[p];
        dpor_event(p, depth, &nd->desc[p], extra);
        tr_t *e = tr_new(p, &t->op);
        bool cont = exec_op(t, ridx, e);
        if (g_failed)
            return EX_FAIL;
        if (cont) {
            t->pending = false;
            to_fiber(t);
            if (g_failed)
                return EX_FAIL;
        }
    }
    if (depth > R->max_depth)
        R->max_depth = depth;
    /* complete: the final check, in plain mode */
    P->final(P->arg);
    if (g_failed)
        return EX_FAIL;
    return EX_DONE;
}

/* Advance the deepest node with an unexplored alternative. */
static bool next_alternative(void)
{
    for (int k = ntop - 1; k >= 0; k--) {
        node_t *n = &nodes[k];
        if (n->rf_idx + 1 < n->rf_cnt) {
            n->rf_idx++;
            ntop = k + 1;
            return true;
        }
        n->sleep |= (uint16_t)(1u << n->proc);
        uint16_t cand = n->backtrack & n->enabled & (uint16_t)~n->sleep &
                        (uint16_t)~n->cut;
        int c = choose(k, cand);
        if (c >= 0) {
            n->proc = (int8_t)c;
            n->rf_idx = 0;
            n->rf_cnt = 0;
            ntop = k + 1;
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------ trace printing */

const char *vc_model_name(int m)
{
    return m == VC_SC ? "sc" : m == VC_TSO ? "tso" : m == VC_C11 ? "c11" : "?";
}

int vc_model_parse(const char *s)
{
    if (!strcmp(s, "sc"))
        return VC_SC;
    if (!strcmp(s, "tso"))
        return VC_TSO;
    if (!strcmp(s, "c11"))
        return VC_C11;
    return -1;
}

const char *vc_mo_name(int mo)
{
    static const char *n[] = {"rlx", "acq", "rel", "acq_rel", "seq_cst", "none"};
    return mo >= 0 && mo <= VC_NOMO ? n[mo] : "?";
}

const char *vc_kind_name(int k)
{
    static const char *n[] = {"load", "store", "xchg", "cmpxchg", "fetch_add",
                              "fetch_sub", "fetch_and", "fetch_or",
                              "fetch_xor", "fence", "futex_wait",
                              "futex_wake"};
    return k >= 0 && k < VC_NKINDS ? n[k] : "?";
}

static void print_trace(FILE *o)
{
    fprintf(o, "  execution (%d entries; T<n> = thread, T<n>.sb = its store "
               "buffer; stores into a store buffer are marked 'buffered'):\n",
            ntrace);
    for (int i = 0; i < ntrace; i++) {
        const tr_t *e = &trace[i];
        char who[16], nb[64], vb[64], xb[64];
        if (e->proc >= MAXT)
            snprintf(who, sizeof who, "T%d.sb", e->proc - MAXT);
        else
            snprintf(who, sizeof who, "T%d", e->proc);
        fprintf(o, "  %4d %-6s ", i, who);
        if (e->flags & TR_FLUSH) {
            fprintf(o, "flush   %-22s := %s\n",
                    name_of(locs[e->loc].addr, nb, sizeof nb),
                    val_str(e->val, vb, sizeof vb));
            continue;
        }
        const char *loc = e->kind == VC_FENCE
                              ? ""
                              : name_of(locs[e->loc].addr, nb, sizeof nb);
        fprintf(o, "%-10s %-7s %-22s", vc_kind_name(e->kind),
                vc_mo_name(e->mo), loc);
        switch (e->kind) {
        case VC_FENCE: break;
        case VC_LOAD: fprintf(o, " -> %s", val_str(e->res, vb, sizeof vb)); break;
        case VC_STORE: fprintf(o, " := %s", val_str(e->val, vb, sizeof vb)); break;
        case VC_CAS:
            fprintf(o, " %s ? %s -> %s%s", val_str(e->exp, xb, sizeof xb),
                    val_str(e->val, vb, sizeof vb),
                    val_str(e->res, nb, sizeof nb),
                    (e->flags & TR_FAIL) ? " (fails)" : " (succeeds)");
            break;
        case VC_FUTEX_WAIT:
            if (e->flags & TR_WOKE)
                fprintf(o, " woken");
            else
                fprintf(o, " (word %llu, expects %llu)%s",
                        (unsigned long long)e->res,
                        (unsigned long long)e->val,
                        (e->flags & TR_SLEEP) ? " sleeps" : " returns");
            break;
        case VC_FUTEX_WAKE: break;
        default:
            fprintf(o, " %s -> old %s", val_str(e->val, vb, sizeof vb),
                    val_str(e->res, xb, sizeof xb));
            break;
        }
        if (e->flags & TR_PUSH)
            fprintf(o, " (buffered)");
        if (e->kind == VC_STORE && e->rf >= 0 && e->rf < e->nmsg - 1)
            fprintf(o, "  [mo: store #%d of %d, before %d store%s made "
                       "earlier]",
                    e->rf, e->nmsg, e->nmsg - 1 - e->rf,
                    e->nmsg - 1 - e->rf > 1 ? "s" : "");
        if (e->rf >= 0 && e->nmsg > 0 && e->kind != VC_STORE) {
            if (e->rf < e->nmsg - 1 - (is_rmw(e->kind) && !(e->flags & TR_FAIL)))
                fprintf(o, "  [stale: store #%d of %d]", e->rf,
                        e->nmsg - (is_rmw(e->kind) && !(e->flags & TR_FAIL)));
        }
        if (e->flags & TR_AWAIT)
            fprintf(o, "  (after await)");
        fprintf(o, "\n");
    }
}

/* ------------------------------------------------------------------ driver */

int vc_check(const vc_prog_t *prog, const vc_cfg_t *cfg, vc_result_t *res)
{
    memset(res, 0, sizeof *res);
    if (prog->nthreads < 1 || prog->nthreads > MAXT) {
        res->verdict = VC_ERROR;
        snprintf(res->message, sizeof res->message,
                 "1..%d threads supported", MAXT);
        return VC_ERROR;
    }
    P = prog;
    CF = cfg;
    R = res;
    N = prog->nthreads;
    MODEL = cfg->model;
    FILE *out = cfg->out ? cfg->out : stderr;
    if (!locs) {
        locs = calloc(MAXLOC, sizeof *locs);
        nodes = calloc(MAXEV, sizeof *nodes);
        lastW = calloc(MAXDLOC, sizeof *lastW);
        Rjoin = calloc(MAXDLOC, sizeof *Rjoin);
        accs = calloc(3 * MAXEV, sizeof *accs);
        trace = calloc(MAXTRACE, sizeof *trace);
        varena = calloc(VIEW_ARENA, sizeof *varena);
        for (int i = 0; i < MAXT; i++) {
            thr[i].fib = clof_fiber_create(fiber_main, &thr[i], STACK_SIZE);
            if (!thr[i].fib) {
                fprintf(stderr, "vc: out of memory\n");
                exit(2);
            }
        }
        if (!locs || !nodes || !lastW || !Rjoin || !accs || !trace ||
            !varena) {
            fprintf(stderr, "vc: out of memory\n");
            exit(2);
        }
    }
    for (int i = 0; i < MAXT; i++) {
        clof_fiber_t *fib = thr[i].fib;
        memset(&thr[i], 0, sizeof thr[i]);
        thr[i].fib = fib;
    }
    memset(shash, 0, sizeof shash);
    if (cfg->sites)
        ((vc_cfg_t *)(uintptr_t)cfg)->nsites = 0;
    g_failed = g_error = false;
    g_prop[0] = g_msg[0] = 0;
    ntop = 0;
    double t0 = now_s(), last_report = t0;
    int verdict = VC_OK;
    for (;;) {
        int r = run_execution();
        g_cur = NULL;
        if (r == EX_DONE)
            res->execs++;
        if (r == EX_FAIL) {
            res->execs++;
            verdict = g_error ? VC_ERROR : VC_VIOLATION;
            snprintf(res->property, sizeof res->property, "%s", g_prop);
            snprintf(res->message, sizeof res->message, "%s", g_msg);
            if (verdict == VC_VIOLATION || cfg->verbose) {
                fprintf(out, "%s: %s under %s: %s\n", prog->name, g_prop,
                        vc_model_name(MODEL), g_msg);
                print_trace(out);
            }
            break;
        }
        if (cfg->verbose >= 2)
            fprintf(out, "  execution %ld: %s, %d events\n",
                    res->execs + res->blocked,
                    r == EX_DONE ? "complete" : "pruned", depth);
        if (!next_alternative())
            break;
        if (cfg->max_execs && res->execs + res->blocked >= cfg->max_execs) {
            res->limit_hit = true;
            break;
        }
        if (((res->execs + res->blocked) & 63) == 0) {
            double t = now_s();
            if (cfg->time_limit > 0 && t - t0 > cfg->time_limit) {
                res->limit_hit = true;
                break;
            }
            if (cfg->verbose && t - last_report > 2.0) {
                fprintf(out, "  ... %ld executions, %ld pruned, %.1f s\n",
                        res->execs, res->blocked, t - t0);
                last_report = t;
            }
        }
    }
    res->seconds = now_s() - t0;
    res->verdict = verdict;
    res->exhaustive = verdict == VC_OK && !res->limit_hit && res->bound_cuts == 0;
    return verdict;
}
