/* SPDX-License-Identifier: MIT */
/*
 * verify/clof_verify.c -- clof-verify: model-check the locks of clof with vc
 * (vc.h) under SC, TSO and C11.  `clof verify` (tools/clof_cmd_verify.py)
 * runs it; docs/verification.md explains the output.
 *
 *   clof-verify [--lock NAME]... [--model sc|tso|c11|all] [--quick|--full]
 *               [--bound K] [--max-execs N] [--time-limit S] [--markdown]
 *               [--check-expected] [-v]
 *   clof-verify --selftest [--model ...]      the checker checks itself
 *   clof-verify --mutate [--lock NAME]... [--model ...]   weaken each order
 *   clof-verify --mutate --sites ...          only list the orders --mutate
 *                                             would weaken (no checks)
 *   clof-verify --optimize LOCK               the weakest orders that verify
 *                                             together (C11, every client,
 *                                             park mode too)
 *   clof-verify-park --check-orders FILE --clients A,B   (what --optimize
 *                                             asks the park-mode binary)
 *   clof-verify --bug NAME                    a named memory-order bug
 *   clof-verify --list
 *
 * --lock NAME takes every name of the lock grammar (`clof locks`) and runs
 * what covers it, ending with one verdict line per name (cover, below).
 *
 * Exit status: 0 every run verified (with --check-expected: every run got
 * the verdict its client expects), 1 a property was violated (the trace is
 * printed), 2 usage or checker error.
 */
#define _GNU_SOURCE
#include "clients.h"
#include "litmus.h"
#include "bugs.h"
#include "vc.h"
#include "lockname.h"

#include <dlfcn.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXSEL 256

#include <time.h>

static double now_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const vc_client_t *all[MAXSEL];
static int nall;

static void collect(const vc_client_t *tab)
{
    for (; tab->name; tab++)
        if (nall < MAXSEL)
            all[nall++] = tab;
}

/* "clof verify" when the clof command ran this program (CLOF_PROG) */
static const char *prog_name(void)
{
    const char *p = getenv("CLOF_PROG");
    return p != NULL && *p != 0 ? p : "clof-verify";
}

static void usage(FILE *o)
{
    const char *p = prog_name();
    fprintf(o,
            "usage: %s [--lock NAME | --client PAT]... [--model sc|tso|c11|all]\n"
            "           [--quick | --full | --bound K] [--max-execs N] [--time-limit S]\n"
            "           [--markdown] [--check-expected] [--no-dpor] [-v]\n"
            "       %s --mutate [--sites] [--lock NAME | --client PAT]... [--model M]\n"
            "       %s --selftest [--model M] [--markdown]\n"
            "       %s --optimize CLIENT [--full] [-v]\n"
            "       %s --bug NAME [--model M]\n"
            "       %s --check-orders FILE --clients A,B [--bound K]\n"
            "       %s --list\n",
            p, p, p, p, p, p, p);
    fputs("\n"
          "Model-checks the locks' clients (small programs of 2-4 threads) under\n"
          "the memory models; docs/verification.md.\n"
          "  --lock NAME       a lock, any name or spelling `clof locks` takes\n"
          "                    (docs/locks.md): runs what covers it and ends with one\n"
          "                    verdict line for it.  A basic or NUMA lock: its\n"
          "                    clients; a composition (tkt-mcs, lowest level first):\n"
          "                    each part's clients and the CLoF induction step's\n"
          "                    (clof.ticket+ticket, clof.<part>+ticket for each level\n"
          "                    below the top, clof.tkt3* from 3 levels, the preload\n"
          "                    library's layout *.index); cr:X, asl:X, rw:X, bravo:X:\n"
          "                    the layer's clients and X's; a peer (pthread, ck-*,\n"
          "                    vsync-*) is not clof's: nothing to verify, exit 2.\n"
          "                    Repeatable.  Default: every client that must verify\n"
          "  --client PAT      clients by name (clof verify --list), family (basic,\n"
          "                    numa, clof, cr, rw, regression, hmcs-variants, deep,\n"
          "                    plain), shell pattern (\"clof.*\") or all; repeatable.\n"
          "                    --lock takes these too when NAME is not a lock name\n"
          "  --model M         sc, tso, c11 or all (default all)\n"
          "  --quick           each client's preemption bound (default; 2 for most)\n"
          "  --full            exhaustive: no preemption bound\n"
          "  --bound K         preemption bound K (0 and up) for every client\n"
          "  --max-execs N     stop a check after N executions (default: no limit)\n"
          "  --time-limit S    stop a check after S seconds (default: no limit)\n"
          "  --markdown        the results as a Markdown table\n"
          "  --check-expected  the must-fail clients must fail (exit 1 otherwise)\n"
          "  --no-dpor         explore every interleaving (no partial-order reduction)\n"
          "  -v                print each execution's verdict as it runs\n"
          "  --mutate          weaken each memory order in turn; report the ones a\n"
          "                    client catches and the ones no client needs\n"
          "  --sites           with --mutate: list the accesses and weakenings it\n"
          "                    would check (after one check of the unmutated\n"
          "                    client), without checking them\n"
          "  --selftest        the checker's own litmus suite\n"
          "  --optimize CLIENT the weakest orders that still verify together\n"
          "  --bug NAME        a named memory-order bug (must be caught)\n"
          "  --check-orders FILE --clients A,B  check the orders of FILE on clients A,B\n"
          "  --list            the clients, their families, the named bugs\n"
          "exit status: 0 every check verified, 1 a property violated (the\n"
          "execution is printed as a trace), 2 bad usage or a checker error\n"
          "example: clof verify --lock tkt-mcs --model c11\n",
          o);
}

/* the number of option opt (value v) in [lo, hi], or exit 2 */
static double number_arg(const char *opt, const char *v, double lo, double hi)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end != 0 || !(x >= lo && x <= hi)) {
        fprintf(stderr, "%s: %s %s: expected a number from %g to %g%s\n", prog_name(), opt, v,
                lo, hi, !strcmp(opt, "--time-limit") ? " (seconds)" : "");
        exit(2);
    }
    return x;
}

static const char *bound_str(const vc_result_t *r, int bound, char *b,
                             size_t n)
{
    if (r->verdict == VC_VIOLATION)
        snprintf(b, n, "counterexample in execution %ld", r->execs);
    else if (r->verdict == VC_ERROR)
        snprintf(b, n, "checker error");
    else if (r->limit_hit)
        snprintf(b, n, "stopped by a limit (%s)",
                 bound >= 0 ? "bounded" : "not exhaustive");
    else if (r->exhaustive)
        snprintf(b, n, "exhaustive%s",
                 bound >= 0 ? " (the bound cut nothing)" : "");
    else
        snprintf(b, n, "bounded: preemption bound %d (%ld alternatives cut)",
                 bound, r->bound_cuts);
    return b;
}

static const char *verdict_str(const vc_result_t *r)
{
    return r->verdict == VC_OK          ? "verified"
           : r->verdict == VC_VIOLATION ? "VIOLATED"
                                        : "ERROR";
}

/* ---------------------------------------------------------------- selftest */

/* Is property p one of the '|'-separated list (or is the list "*")? */
static bool prop_in(const char *p, const char *list)
{
    if (!strcmp(list, "*"))
        return true;
    size_t n = strlen(p);
    for (const char *s = list; s && *s;) {
        const char *e = strchr(s, '|');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == n && !strncmp(s, p, n))
            return true;
        s = e ? e + 1 : NULL;
    }
    return false;
}

/* One program under one model, three exhaustive searches: with DPOR, with
 * DPOR exploring threads and choices in the reverse order, and without
 * DPOR (every interleaving).  All three must give the same verdict. */
typedef struct {
    vc_result_t r, rv, rn;
    bool same;
} self_run_t;

static void self_run(const vc_prog_t *p, int m, int verbose, self_run_t *s)
{
    vc_cfg_t cf;
    memset(&cf, 0, sizeof cf);
    cf.model = m;
    cf.bound = -1;
    cf.max_steps = 400;
    FILE *sink = verbose ? stdout : fopen("/dev/null", "w");
    cf.out = sink;
    vc_check(p, &cf, &s->r);
    cf.reverse = true;
    vc_check(p, &cf, &s->rv);
    cf.reverse = false;
    cf.no_dpor = true;
    vc_check(p, &cf, &s->rn);
    if (!verbose)
        fclose(sink);
    s->same = s->rn.verdict == s->r.verdict && s->rv.verdict == s->r.verdict;
}


static int selftest(int mmask, int verbose, bool markdown)
{
    int bad = 0, n = 0;
    if (!markdown)
        printf("vc self-test: litmus programs, exhaustive search, expected "
               "verdict per model\n");
    for (const vc_litmus_t *l = markdown ? NULL : vc_litmus; l && l->name;
         l++) {
        for (int m = 0; m < 3; m++) {
            if (!(mmask & (1 << m)))
                continue;
            vc_prog_t p;
            vc_litmus_prog(l, &p);
            self_run_t sr;
            self_run(&p, m, verbose, &sr);
            vc_result_t r = sr.r;
            const char *exp = l->expect[m];
            bool ok = *exp ? (r.verdict == VC_VIOLATION &&
                              prop_in(r.property, exp))
                           : (r.verdict == VC_OK && r.exhaustive);
            if (!sr.same) {
                ok = false;
                printf("      without DPOR: %s %s (%ld execs); reverse "
                       "order: %s %s\n",
                       verdict_str(&sr.rn), sr.rn.property, sr.rn.execs,
                       verdict_str(&sr.rv), sr.rv.property);
            }
            n++;
            if (!ok)
                bad++;
            printf("  %-14s %-4s %-10s %-34s %6ld execs (%ld without "
                   "DPOR)  %s\n",
                   l->name, vc_model_name(m),
                   r.verdict == VC_OK ? "ok" : verdict_str(&r),
                   r.verdict == VC_OK ? "(no violation)" : r.property,
                   r.execs, sr.rn.execs, ok ? "as expected" : "UNEXPECTED");
            if (!ok)
                printf("      expected: %s; got: %s %s\n",
                       *exp ? exp : "no violation", verdict_str(&r),
                       r.message);
        }
    }
    /* the catalogue: 'A' must be shown (the final check's assertion),
     * 'F' must not be shown by an exhaustive search */
    if (markdown) {
        printf("| program | threads | outcome | SC | TSO | RC11 | source |\n");
        printf("|---|---|---|---|---|---|---|\n");
    } else {
        printf("litmus catalogue: A = the outcome is allowed (must be "
               "shown), F = forbidden (must not be)\n");
    }
    int ncat = 0;
    for (const vc_catalogue_t *c = vc_catalogue; c->name; c++) {
        vc_prog_t p;
        const char *err;
        ncat++;
        if (!vc_catalogue_prog(c, &p, &err)) {
            printf("  %s: malformed program (%s): %s\n", c->name, err,
                   c->prog);
            bad++;
            n++;
            continue;
        }
        char cell[3][64];
        for (int m = 0; m < 3; m++) {
            snprintf(cell[m], sizeof cell[m], "-");
            if (!(mmask & (1 << m)))
                continue;
            self_run_t sr;
            self_run(&p, m, verbose, &sr);
            char want = c->expect[m];
            char got = sr.r.verdict == VC_VIOLATION &&
                               !strcmp(sr.r.property, "assertion")
                           ? 'A'
                       : sr.r.verdict == VC_OK && sr.r.exhaustive ? 'F'
                                                                  : '?';
            bool ok = got == want && sr.same;
            n++;
            if (!ok)
                bad++;
            snprintf(cell[m], sizeof cell[m], "%c / %c%s", want, got,
                     ok ? "" : " **UNEXPECTED**");
            if (!markdown)
                printf("  %-18s %-4s expected %c, got %c  %6ld execs (%ld "
                       "reverse, %ld without DPOR)  %s\n",
                       c->name, vc_model_name(m), want, got, sr.r.execs,
                       sr.rv.execs, sr.rn.execs,
                       ok ? "as expected" : "UNEXPECTED");
            if (!ok && !markdown)
                printf("      %s; reverse order: %s; without DPOR: %s "
                       "(%s)\n",
                       verdict_str(&sr.r), verdict_str(&sr.rv),
                       verdict_str(&sr.rn), sr.r.message);
        }
        if (markdown) {
            /* the program, one thread per line */
            char prog[512];
            size_t k = 0;
            for (const char *q = c->prog; *q && k + 8 < sizeof prog; q++) {
                if (q[0] == '|' && q[1] == '|') {
                    k += (size_t)snprintf(prog + k, sizeof prog - k,
                                          " \\|\\| ");
                    q++;
                } else {
                    prog[k++] = *q;
                }
            }
            prog[k] = 0;
            printf("| %s | `%s` | %s | %s | %s | %s | %s |\n", c->name, prog,
                   c->cond, cell[0], cell[1], cell[2], c->src);
        }
    }
    if (markdown)
        printf("\n%d programs; each cell: expected / got; %d of %d "
               "verdicts as expected\n",
               ncat, n - bad, n);
    else
        printf("self-test: %d of %d verdicts as expected (%d catalogue "
               "programs)\n",
               n - bad, n, ncat);
    return bad ? 1 : 0;
}

/* ---------------------------------------------------------------- one run */

typedef struct {
    int bound_override; /* -2: none */
    bool full;
    long max_execs;
    double time_limit;
    int verbose;
    bool markdown;
    bool no_dpor;
} opts_t;

static void client_prog(const vc_client_t *c, vc_prog_t *p)
{
    memset(p, 0, sizeof *p);
    p->name = c->name;
    p->nthreads = c->nthreads;
    p->setup = c->setup;
    p->thread = c->thread;
    p->final = c->final;
    p->resume = c->resume;
}

static int bound_of(const vc_client_t *c, const opts_t *o)
{
    if (o->bound_override != -2)
        return o->bound_override;
    return o->full ? -1 : c->quick_bound;
}

/* The checker's configuration for client c under model and the options'
 * bound and limits (callers add output, mutation, sites). */
static void cfg_init_(vc_cfg_t *cf, const vc_client_t *c, int model,
                      const opts_t *o)
{
    memset(cf, 0, sizeof *cf);
    cf->model = model;
    cf->bound = bound_of(c, o);
    cf->max_execs = o->max_execs;
    cf->time_limit = o->time_limit;
}

static int run_one(const vc_client_t *c, int model, const opts_t *o,
                   const vc_mutation_t *mut, FILE *trace_out, vc_result_t *r)
{
    vc_prog_t p;
    client_prog(c, &p);
    vc_cfg_t cf;
    cfg_init_(&cf, c, model, o);
    cf.verbose = o->verbose;
    cf.out = trace_out;
    cf.mutation = mut;
    cf.no_dpor = o->no_dpor;
    return vc_check(&p, &cf, r);
}

static bool matches(const vc_client_t *c, const char *pat)
{
    if (!strcmp(pat, "all"))
        return true;
    if (!strcmp(pat, c->family))
        return true;
    return fnmatch(pat, c->name, 0) == 0;
}

/* ---------------------------------------------------------------- lock names */

/* What covers a lock named by the one grammar of lock names (src/lockname,
 * docs/locks.md, `clof locks`; docs/verification.md, "Verifying a lock by
 * its name"): requirements, each a client name or shell pattern that also
 * takes the client's variants (NAME.*), every one of which must match a
 * client of this program (an optional one need not).
 *
 *   basic lock L        L (clh: clh and clh.first-outside)
 *   NUMA lock           its clients: hmcs -> hmcs3*, hmcs2*; cna; c-bo-mcs*;
 *                       a-c-bo-bo* (the timed ones too) ...
 *   composition         the CLoF paper's induction (§4.2): the base step,
 *   p1-p2-...-pn        every part's own clients (a basic lock each), and the
 *   (lowest first)      induction step: CLoF(ticket, ticket) (both locks as
 *                       abstract fair locks, the paper's GenMC check), and
 *                       CLoF(pi, ticket) for each level below the top (the
 *                       step with that level's real lock); 3 levels or more:
 *                       clof.tkt3* too (the generated code at depth 3); the
 *                       layout the preload library gives it (the fast word
 *                       in the lock, the tree by index: clof.mcs+ticket.index,
 *                       clof.tkt3.index); and a client of this composition
 *                       itself where one exists (mcs-clh-tkt, tkt-tkt-tkt)
 *   cr:X, asl:X         the layer's clients (cr.*, asl.*) and X's coverage
 *   rw:X                the cohort RW lock's clients (rw.cohort*, over a
 *                       ticket lock) and X's coverage
 *   bravo:R             BRAVO's clients (rw.bravo.*) and R's coverage
 *   rw-central          rw.central*
 *   peers (pthread,     not clof's: nothing to verify (a layer over one:
 *   ck-*, vsync-*,      the layer's clients, the peer named as not verified)
 *   pthread-rwlock)
 *
 * The must-fail, slow (deep) and barrier-variant clients are left to
 * --client (lock_client_ok). */
#define COVER_MAX 40

typedef struct {
    struct {
        char pat[64];
        const char *role; /* "layer", "lock" or "step", for the listing */
        bool optional;
    } req[COVER_MAX];
    int nreq;
    char peer[4][CLOF_LOCKNAME_MAX]; /* the parts that are not clof's */
    int npeer;
    char err[400]; /* not empty: no lock clof verify can check */
} cover_t;

static const char *const cover_roles[] = {"layer", "lock", "step"};
static const char *const cover_role_names[] = {
    "layer", "locks", "composition step (the CLoF induction step)"};

static void cover_add(cover_t *cv, const char *role, bool optional, const char *pat)
{
    for (int i = 0; i < cv->nreq; i++)
        if (!strcmp(cv->req[i].pat, pat)) {
            cv->req[i].optional = cv->req[i].optional && optional;
            return;
        }
    if (cv->nreq < COVER_MAX) {
        snprintf(cv->req[cv->nreq].pat, sizeof cv->req[cv->nreq].pat, "%s", pat);
        cv->req[cv->nreq].role = role;
        cv->req[cv->nreq].optional = optional;
        cv->nreq++;
    }
}

static const clof_lockname_t *lock_entry(const char *canon)
{
    for (size_t i = 0; i < clof_nlocknames; i++)
        if (!strcmp(clof_locknames[i].name, canon))
            return &clof_locknames[i];
    return NULL;
}

/* a lock of another library (glibc's rwlock is in family rw) */
static bool lock_is_peer(const clof_lockname_t *e)
{
    return !strcmp(e->family, "peer") || !strcmp(e->name, "pthread-rwlock");
}

/* canon (canonical) names a reader-writer lock, not a mutex */
static bool lock_is_rw(const char *canon)
{
    if (!strncmp(canon, "rw:", 3) || !strncmp(canon, "bravo:", 6))
        return true;
    if (!strncmp(canon, "cr:", 3) || !strncmp(canon, "asl:", 4))
        return false;
    const clof_lockname_t *e = lock_entry(canon);
    return e != NULL && !strcmp(e->family, "rw");
}

/* the basic lock (and client name) a composition's part stands for (the
 * registry of basic locks, through lockname.c's parts) */
static const char *part_lock(const char *abbr)
{
    for (size_t i = 0; i < clof_nlockparts; i++)
        if (!strcmp(abbr, clof_lockparts[i].name))
            return clof_lockparts[i].lock;
    return abbr;
}

static void cover(const char *canon, cover_t *cv, const char *whole)
{
    static const struct {
        const char *pre, *pat, *over;
        bool rw_inner;
    } layers[] = {{"cr:", "cr.*", "a mutex", false},
                  {"asl:", "asl.*", "a mutex", false},
                  {"rw:", "rw.cohort", "a mutex", false},
                  {"bravo:", "rw.bravo.*", "an RW lock", true}};
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        size_t n = strlen(layers[i].pre);
        if (strncmp(canon, layers[i].pre, n))
            continue;
        const char *inner = canon + n;
        if (lock_is_rw(inner) != layers[i].rw_inner) {
            snprintf(cv->err, sizeof cv->err,
                     "lock %s: %s goes over %s (%s), and %s is %s: no such lock", whole,
                     layers[i].pre, layers[i].over,
                     layers[i].rw_inner ? "rw-central, rw:<lock>, bravo:<rwlock>, pthread-rwlock"
                                        : "a basic, NUMA or composed lock, or a layer over one",
                     inner, layers[i].rw_inner ? "a mutex" : "an RW lock");
            return;
        }
        cover_add(cv, "layer", false, layers[i].pat);
        cover(inner, cv, whole);
        return;
    }
    const clof_lockname_t *e = lock_entry(canon);
    if (e != NULL && lock_is_peer(e)) {
        if (cv->npeer < 4)
            snprintf(cv->peer[cv->npeer++], sizeof cv->peer[0], "%s", e->name);
    } else if (e != NULL && !strcmp(e->name, "hmcs")) {
        cover_add(cv, "lock", false, "hmcs3"); /* depth 3, the paper's client */
        cover_add(cv, "lock", false, "hmcs2");
    } else if (e != NULL && !strcmp(e->name, "rw-central")) {
        cover_add(cv, "lock", false, "rw.central");
    } else if (e != NULL) {
        cover_add(cv, "lock", false, e->name);
    } else {
        /* a composition, lowest level first (canonical: the parts'
         * abbreviations, none with a '-') */
        const char *part[8];
        char buf[CLOF_LOCKNAME_MAX];
        int np = 0;
        snprintf(buf, sizeof buf, "%s", canon);
        for (char *p = strtok(buf, "-"); p && np < 8; p = strtok(NULL, "-"))
            part[np++] = part_lock(p);
        char own[128] = "clof.";
        bool all_tkt = true;
        for (int i = 0; i < np; i++) {
            cover_add(cv, "lock", false, part[i]);
            all_tkt = all_tkt && !strcmp(part[i], "ticket");
            size_t o = strlen(own);
            snprintf(own + o, sizeof own - o, "%s%s", i ? "+" : "", part[i]);
        }
        char pat[64];
        cover_add(cv, "step", false, "clof.ticket+ticket");
        for (int i = 0; i + 1 < np; i++) {
            snprintf(pat, sizeof pat, "clof.%s+ticket", part[i]);
            cover_add(cv, "step", false, pat);
        }
        if (np >= 3)
            cover_add(cv, "step", false, "clof.tkt3");
        cover_add(cv, "step", false, np >= 3 ? "clof.tkt3.index" : "clof.mcs+ticket.index");
        cover_add(cv, "step", true, all_tkt && np == 3 ? "clof.tkt3" : own);
    }
}

/* client c may run for a lock name (not a must-fail, slow or barrier-variant one) */
static bool lock_client_ok(const vc_client_t *c)
{
    return !*c->expect && strcmp(c->family, "deep") && strcmp(c->family, "regression") &&
           strcmp(c->family, "hmcs-variants");
}

/* client c is requirement pat's: pat itself or one of its variants */
static bool cover_match(const char *pat, const vc_client_t *c)
{
    char v[80];
    snprintf(v, sizeof v, "%s.*", pat);
    return lock_client_ok(c) && (fnmatch(pat, c->name, 0) == 0 || fnmatch(v, c->name, 0) == 0);
}

/* one lock name of --lock: what it ran, for its verdict */
typedef struct {
    char canon[CLOF_LOCKNAME_MAX];
    int client[MAXSEL]; /* indexes into the run list */
    int n;
    cover_t cv;
} lock_sel_t;

static lock_sel_t lk[MAXSEL];

/* each run client's result per model, for the lock names' verdicts */
static struct {
    bool ran, exhaustive, limit_hit;
    int verdict;
    char property[64];
} run_res[MAXSEL][3];

/* c's index in run[], added at the end when not there */
static int add_run(const vc_client_t **run, int *nrun, const vc_client_t *c)
{
    int k;
    for (k = 0; k < *nrun; k++)
        if (run[k] == c)
            return k;
    if (*nrun >= MAXSEL)
        return -1;
    run[(*nrun)++] = c;
    return k;
}

/* --lock NAME (canon: its canonical spelling): the clients that cover it
 * into run[] and L, and the line that says what they are; 2 (with a
 * message) when nothing of clof's covers it */
static int select_lock(const char *canon, const vc_client_t **run, int *nrun, lock_sel_t *L)
{
    memset(L, 0, sizeof *L);
    snprintf(L->canon, sizeof L->canon, "%s", canon);
    cover_t *cv = &L->cv;
    cover(canon, cv, canon);
    if (cv->err[0]) {
        fprintf(stderr, "%s: %s\n", prog_name(), cv->err);
        return 2;
    }
    if (cv->nreq == 0) {
        const clof_lockname_t *e = lock_entry(cv->peer[0]);
        fprintf(stderr,
                "%s: lock %s is not a lock of clof (%s): %s checks clof's own lock "
                "sources, nothing of it to verify\n",
                prog_name(), canon, e ? e->about : "another library's", prog_name());
        return 2;
    }
    const char *role[MAXSEL];
    for (int q = 0; q < cv->nreq; q++) {
        int hit = 0;
        for (int i = 0; i < nall; i++) {
            if (!cover_match(cv->req[q].pat, all[i]))
                continue;
            hit++;
            int k = add_run(run, nrun, all[i]);
            int j;
            for (j = 0; j < L->n; j++)
                if (L->client[j] == k)
                    break;
            if (j == L->n && k >= 0) {
                role[L->n] = cv->req[q].role;
                L->client[L->n++] = k;
            }
        }
        if (!hit && !cv->req[q].optional) {
            fprintf(stderr,
                    "%s: lock %s: this program has no client %s, which its %s needs "
                    "(%s --list shows the clients)\n",
                    prog_name(), canon, cv->req[q].pat,
                    !strcmp(cv->req[q].role, "step") ? "composition step"
                    : !strcmp(cv->req[q].role, "layer") ? "layer" : "coverage",
                    prog_name());
            return 2;
        }
    }
    printf("lock %s: %d client%s", canon, L->n, L->n == 1 ? "" : "s");
    const char *sep = " -- ";
    for (size_t r = 0; r < sizeof cover_roles / sizeof cover_roles[0]; r++) {
        int shown = 0;
        for (int j = 0; j < L->n; j++)
            if (!strcmp(role[j], cover_roles[r])) {
                printf("%s%s%s", shown ? ", " : sep, shown ? "" : cover_role_names[r],
                       shown ? "" : ": ");
                printf("%s", run[L->client[j]]->name);
                shown++;
                sep = "; ";
            }
    }
    for (int p = 0; p < cv->npeer; p++)
        printf("; %s: not clof's lock, not verified", cv->peer[p]);
    printf("\n");
    return 0;
}

/* The verdict of lock name L, one line: verified (under which models, how
 * complete the search was), or VIOLATED / ERROR (where first), and the
 * clients it ran. */
static void print_verdict(const lock_sel_t *L, const vc_client_t **run, int mmask,
                          const opts_t *o, bool blank_first)
{
    int bad_k = -1, bad_m = -1, nbad = 0, verdict = VC_OK;
    bool all_exh = true, limit = false;
    for (int j = 0; j < L->n; j++)
        for (int m = 0; m < 3; m++) {
            const int k = L->client[j];
            if (!(mmask & (1 << m)) || !run_res[k][m].ran)
                continue;
            all_exh = all_exh && run_res[k][m].exhaustive;
            limit = limit || run_res[k][m].limit_hit;
            if (run_res[k][m].verdict != VC_OK) {
                if (bad_k < 0 || (run_res[k][m].verdict == VC_VIOLATION && verdict != VC_VIOLATION)) {
                    bad_k = k;
                    bad_m = m;
                    verdict = run_res[k][m].verdict;
                }
                nbad++;
            }
        }
    if (blank_first)
        printf("\n");
    printf("%s: ", L->canon);
    if (bad_k >= 0) {
        printf("%s under %s in %s: %s", verdict == VC_VIOLATION ? "VIOLATED" : "ERROR (checker)",
               vc_model_name(bad_m), run[bad_k]->name,
               *run_res[bad_k][bad_m].property ? run_res[bad_k][bad_m].property : "error");
        if (nbad > 1)
            printf(" (and %d more)", nbad - 1);
    } else {
        printf("%sverified under", L->cv.npeer ? "clof's part " : "");
        for (int m = 0, c = 0; m < 3; m++)
            if (mmask & (1 << m))
                printf("%s %s", c++ ? "," : "", vc_model_name(m));
        if (limit)
            printf(", stopped by a limit (not a complete search)");
        else if (all_exh)
            printf(", exhaustive");
        else if (o->bound_override != -2)
            printf(", preemption bound %d", o->bound_override);
        else
            printf(", %s", o->full ? "no preemption bound" : "each client's preemption bound (--quick)");
    }
    if (L->cv.npeer) {
        printf("; not clof's, not verified:");
        for (int p = 0; p < L->cv.npeer; p++)
            printf(" %s", L->cv.peer[p]);
    }
    printf(" (%d client%s:", L->n, L->n == 1 ? "" : "s");
    for (int j = 0; j < L->n; j++)
        printf("%s %s", j ? "," : "", run[L->client[j]]->name);
    printf(")\n");
}

/* ---------------------------------------------------------------- mutation */

typedef struct {
    char where[1024]; /* lock-level source position (file:line function) */
    int kind, mo;
    const void *addr[32];
    int naddr;
    long hits;
} group_t;

/* file:line of the first inline frame of addr outside the shim (atomic.h,
 * await.h, wait.h and the checking backend). */
static void site_where(const void *addr, char *out, size_t n)
{
    snprintf(out, n, "%p", addr);
    Dl_info di;
    if (!dladdr(addr, &di) || !di.dli_fname)
        return;
    uintptr_t off = (uintptr_t)addr - (uintptr_t)di.dli_fbase - 1;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "addr2line -i -f -e '%s' %#lx 2>/dev/null",
             di.dli_fname, (unsigned long)off);
    FILE *f = popen(cmd, "r");
    if (!f)
        return;
    char fn[256], fl[512];
    char best[1024] = "", last[1024] = "";
    while (fgets(fn, sizeof fn, f) && fgets(fl, sizeof fl, f)) {
        fn[strcspn(fn, "\n")] = 0;
        fl[strcspn(fl, "\n (")] = 0;
        const char *base = strrchr(fl, '/');
        base = base ? base + 1 : fl;
        if (strncmp(base, "??", 2))
            snprintf(last, sizeof last, "%s %s (shared helper)", base, fn);
        size_t bl = strcspn(base, ":");
        if ((bl == 8 && !strncmp(base, "atomic.h", 8)) ||
            (bl == 6 && !strncmp(base, "wait.h", 6)) ||
            (bl == 7 && !strncmp(base, "await.h", 7)) ||
            (bl == 15 && !strncmp(base, "backend_check.h", 15)) ||
            !strncmp(base, "??", 2))
            continue;
        /* keep the directory that says which family (lock/, numa/) */
        const char *inc = strstr(fl, "include/clof/");
        snprintf(best, sizeof best, "%s %s", inc ? inc + 13 : base, fn);
        break;
    }
    pclose(f);
    if (best[0])
        snprintf(out, n, "%s", best);
    else if (last[0])
        snprintf(out, n, "%s", last);
}

/* The next weaker order: seq_cst -> acq_rel/acq/rel -> rlx; fence -> none. */
static int weaken(int kind, int mo)
{
    if (kind == VC_FENCE)
        return VC_NOMO;
    if (mo == VC_SEQ)
        return kind == VC_LOAD ? VC_ACQ : kind == VC_STORE ? VC_REL : VC_AR;
    if (mo == VC_AR || mo == VC_ACQ || mo == VC_REL)
        return VC_RLX;
    return -1;
}

/* Run c once collecting its call sites, and group them by lock-level
 * source position, kind and order.  -1 if the unmutated client fails. */
static group_t groups[256];
static int collect_groups(const vc_client_t *c, int model, const opts_t *o,
                          FILE *sink, bool all_orders)
{
    static vc_site_t sites[512];
    vc_prog_t p;
    client_prog(c, &p);
    vc_cfg_t cf;
    cfg_init_(&cf, c, model, o);
    cf.sites = sites;
    cf.max_sites = 512;
    cf.out = sink;
    vc_result_t r;
    vc_check(&p, &cf, &r);
    if (r.verdict != VC_OK) {
        printf("%s %s: the unmutated lock does not verify (%s); skipped\n",
               c->name, vc_model_name(model), r.property);
        return -1;
    }
    int ng = 0;
    for (int i = 0; i < cf.nsites; i++) {
        vc_site_t *s = &sites[i];
        if (s->kind == VC_FUTEX_WAIT || s->kind == VC_FUTEX_WAKE)
            continue;
        if (s->pub)
            continue; /* a publication access: its order protects plain
                         memory, which vc does not model (atomic.h) */
        if (!all_orders && weaken(s->kind, s->mo) < 0 && s->kind != VC_FENCE)
            continue; /* already relaxed */
        char w[1024];
        site_where(s->addr, w, sizeof w);
        int j;
        for (j = 0; j < ng; j++)
            if (!strcmp(groups[j].where, w) && groups[j].kind == s->kind &&
                groups[j].mo == s->mo)
                break;
        if (j == ng) {
            if (ng == 256)
                continue;
            memset(&groups[ng], 0, sizeof groups[ng]);
            snprintf(groups[ng].where, sizeof groups[ng].where, "%s", w);
            groups[ng].kind = s->kind;
            groups[ng].mo = s->mo;
            ng++;
        }
        if (groups[j].naddr < 32)
            groups[j].addr[groups[j].naddr++] = s->addr;
        groups[j].hits += s->hits;
    }
    return ng;
}

/* One weakened order for the park-mode check of --mutate (when `where` is
 * set, optimize_park_ok asks about it instead of the --optimize set). */
static struct {
    const char *where;
    int kind, from, to;
} park_single;
static bool optimize_park_ok(const vc_client_t **cl, int ncl,
                             const char **failed, char *prop, size_t np);

static int mutate(const vc_client_t *c, int model, const opts_t *o,
                  int *caught_out, int *safe_out)
{
    FILE *sink = fopen("/dev/null", "w");
    int ng = collect_groups(c, model, o, sink, false);
    if (ng < 0) {
        fclose(sink);
        return 1;
    }
    group_t *g = groups;
    int caught = 0, safe = 0;
    for (int j = 0; j < ng; j++) {
        int mo = g[j].mo;
        while (1) {
            int w = weaken(g[j].kind, mo);
            if (w < 0)
                break;
            vc_mutation_t m;
            memset(&m, 0, sizeof m);
            m.sites = g[j].addr;
            m.nsites = g[j].naddr;
            m.mo = w;
            vc_result_t mr;
            run_one(c, model, o, &m, sink, &mr);
            /* under C11, a weakening the await mode calls safe is asked of
             * the production waiting policy too (clof-verify-park: parks
             * and wake-ups; the clients it has that reach the order) */
            if (mr.verdict == VC_OK && model == VC_C11) {
                park_single.where = g[j].where;
                park_single.kind = g[j].kind;
                park_single.from = g[j].mo;
                park_single.to = w;
                const char *failed = NULL;
                char prop[64] = "";
                if (!optimize_park_ok(&c, 1, &failed, prop, sizeof prop)) {
                    mr.verdict = VC_VIOLATION;
                    snprintf(mr.property, sizeof mr.property, "%s (park mode)",
                             prop);
                }
                park_single.where = NULL;
            }
            char from[32], to[32];
            snprintf(from, sizeof from, "%s", vc_mo_name(mo));
            snprintf(to, sizeof to, "%s",
                     w == VC_NOMO ? "removed" : vc_mo_name(w));
            if (o->markdown)
                printf("| %s | %s | `%s` | %s %s -> %s | %s | %ld |\n",
                       c->name, vc_model_name(model), g[j].where,
                       vc_kind_name(g[j].kind), from, to,
                       mr.verdict == VC_VIOLATION ? mr.property
                       : mr.verdict == VC_OK     ? "safe (proposed relaxation)"
                                                 : "checker error",
                       mr.execs);
            else
                printf("  %-10s %-4s %-44s %-9s %-7s -> %-7s : %s\n",
                       c->name, vc_model_name(model), g[j].where,
                       vc_kind_name(g[j].kind), from, to,
                       mr.verdict == VC_VIOLATION ? mr.property
                       : mr.verdict == VC_OK     ? "safe"
                                                 : "checker error");
            if (mr.verdict == VC_VIOLATION) {
                caught++;
                break; /* a weaker order fails as well */
            }
            if (mr.verdict == VC_OK)
                safe++;
            mo = w;
            if (w == VC_NOMO)
                break;
        }
    }
    fclose(sink);
    *caught_out += caught;
    *safe_out += safe;
    return 0;
}

/* --mutate --sites: the groups mutate() would weaken and the weakenings it
 * would try first, without checking them (1 if the unmutated client fails) */
static int list_sites(const vc_client_t *c, int model, const opts_t *o,
                      int *nsites_out)
{
    FILE *sink = fopen("/dev/null", "w");
    int ng = collect_groups(c, model, o, sink, false);
    fclose(sink);
    if (ng < 0)
        return 1;
    for (int j = 0; j < ng; j++) {
        int w = weaken(groups[j].kind, groups[j].mo);
        if (w < 0)
            continue;
        printf("  %-10s %-4s %-44s %-9s %-7s -> %s\n", c->name,
               vc_model_name(model), groups[j].where,
               vc_kind_name(groups[j].kind), vc_mo_name(groups[j].mo),
               w == VC_NOMO ? "removed" : vc_mo_name(w));
        (*nsites_out)++;
    }
    return 0;
}

/* ---------------------------------------------------------------- named bugs */

static const vc_client_t *find_client(const char *name)
{
    for (int i = 0; i < nall; i++)
        if (!strcmp(all[i]->name, name))
            return all[i];
    return NULL;
}

/* The lines [*first, *last] of the definition of function fn in header
 * `rel` (a path under include/clof/, as site_where prints it); false when
 * not found.  Used when the compiler's debug information names an inlined
 * lock function's code after its caller (clang does, for some sites), so
 * that a bug's site_fn still finds its accesses by their lines. */
static bool fn_lines(const char *rel, const char *fn, int *first, int *last)
{
    char path[1024];
    const char *me = __FILE__; /* .../verify/clof_verify.c */
    const char *v = strstr(me, "verify/clof_verify.c");
    if (!v)
        return false;
    snprintf(path, sizeof path, "%.*sinclude/clof/%s", (int)(v - me), me, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    size_t fl = strlen(fn);
    int n = 0;
    *first = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        if (!*first) {
            const char *h = strstr(line, fn);
            if (h && h[fl] == '(' && line[0] != ' ' && !strchr(line, ';'))
                *first = n;
        } else if (line[0] == '}') {
            *last = n;
            fclose(f);
            return true;
        }
    }
    fclose(f);
    return false;
}

/* Does a group's position ("lock/mcs.h:99 fn") lie in site_fn's lines? */
static bool where_in_fn(const char *where, const char *fn)
{
    char rel[512];
    int line;
    if (sscanf(where, "%511[^:]:%d", rel, &line) != 2)
        return false;
    int a, b;
    return fn_lines(rel, fn, &a, &b) && line >= a && line <= b;
}

static int run_bug(const char *name, int mmask, const opts_t *o)
{
    const vc_bug_t *b = vc_bug_find(name, "clof-verify");
    if (!b)
        return 2;
    const vc_client_t *c = find_client(b->client);
    if (!c) {
        fprintf(stderr, "clof-verify: client %s not built\n", b->client);
        return 2;
    }
    int bad = 0;
    for (int m = 0; m < 3; m++) {
        if (!(mmask & (1 << m)))
            continue;
        vc_mutation_t mut = {NULL, 0, b->to_mo, b->loc_match, b->kind,
                             b->from_mo, NULL};
        const void *addrs[256];
        if (b->site_fn) {
            FILE *sink = fopen("/dev/null", "w");
            int ng = collect_groups(c, m, o, sink, true);
            fclose(sink);
            int na = 0;
            for (int j = 0; j < ng; j++) {
                if (!strstr(groups[j].where, b->site_fn) &&
                    !where_in_fn(groups[j].where, b->site_fn))
                    continue;
                if (b->kind >= 0 && (groups[j].kind != b->kind ||
                                       groups[j].mo != b->from_mo))
                    continue;
                /* kind -1: every write with release semantics */
                if (b->kind < 0 &&
                    (groups[j].kind == VC_LOAD || groups[j].kind == VC_FENCE ||
                     !(groups[j].mo == VC_REL || groups[j].mo == VC_AR ||
                       groups[j].mo == VC_SEQ)))
                    continue;
                for (int k = 0; k < groups[j].naddr && na < 256; k++)
                    addrs[na++] = groups[j].addr[k];
            }
            if (na == 0) {
                printf("bug %s: no matching access in %s found (is the "
                       "build without debug information?)\n",
                       b->name, b->site_fn);
                return 2;
            }
            mut.sites = addrs;
            mut.nsites = na;
        }
        vc_result_t r;
        run_one(c, m, o, &mut, o->verbose ? stdout : NULL, &r);
        char bb[128];
        printf("bug %s (%s) under %s: %s%s%s, %ld execs, %.2f s, %s\n",
               b->name, b->what, vc_model_name(m), verdict_str(&r),
               r.verdict == VC_VIOLATION ? ": " : "",
               r.verdict == VC_VIOLATION ? r.property : "", r.execs,
               r.seconds, bound_str(&r, bound_of(c, o), bb, sizeof bb));
        if (m == VC_C11 && r.verdict != VC_VIOLATION)
            bad = 1;
    }
    return bad;
}


/* ---------------------------------------------------------------- optimize */

/* The clients of lock `name`: the one called name, its variants (name.*),
 * and the CLoF composition step with it at the low level (clof.name+*). */
static int optimize_clients(const char *name, const vc_client_t **out)
{
    int n = 0;
    size_t len = strlen(name);
    for (int i = 0; i < nall && n < 32; i++) {
        const char *c = all[i]->name;
        if (*all[i]->expect || !strcmp(all[i]->family, "deep") ||
            !strcmp(all[i]->family, "regression") ||
            !strcmp(all[i]->family, "hmcs-variants"))
            continue; /* must-fail variants; the slow deep clients; the
                         HMCS paper's barrier placements (some fail C11) */
        bool mine = !strcmp(c, name) ||
                    (!strncmp(c, name, len) && c[len] == '.');
        bool step = !strncmp(c, "clof.", 5) && !strncmp(c + 5, name, len) &&
                    c[5 + len] == '+';
        if (mine || step)
            out[n++] = all[i];
    }
    return n;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n)
        k = n - 1;
    memcpy(dst, src, k);
    dst[k] = 0;
}

/* The header file of a group's position ("lock/mcs.h:60 fn" -> "lock/mcs.h") */
static void where_file(const char *where, char *out, size_t n)
{
    size_t k = strcspn(where, ":");
    if (k >= n)
        k = n - 1;
    memcpy(out, where, k);
    out[k] = 0;
}

typedef struct {
    char where[1024];
    int kind, mo, cur; /* shipped order, order now */
    const void *addr[64];
    int naddr;
} ogroup_t;

static ogroup_t og[128];
static int nog;
static const void *oaddr[2048];
static int omo[2048];

/* "lock/ttas.h:56 fn" and "lock/ttas.h:56 other_fn" are the same place:
 * compare up to the first blank (the two binaries may name an inlined
 * access after different callers). */
static bool same_place(const char *a, const char *b)
{
    size_t ka = strcspn(a, " "), kb = strcspn(b, " ");
    return ka == kb && !strncmp(a, b, ka);
}

/* --check-orders FILE --clients A,B,...: run the named clients of this
 * binary (those it has), and every other client of it that reaches one of
 * the orders of FILE, under C11 with the orders of FILE applied; FILE has
 * one line per weakened order, "PLACE<TAB>KIND<TAB>FROM<TAB>TO" (PLACE as
 * site_where prints it, the others vc's enum values).  Prints "ok N" or
 * "fail CLIENT: PROPERTY"; exit 0 when every client verifies.  This is how
 * `clof-verify --optimize` asks clof-verify-park (the production waiting
 * policy: parks and wake-ups, which the await mode does not model) about
 * the orders it weakens. */
static int check_orders(const char *file, const char *clients,
                        const opts_t *o)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "clof-verify: --check-orders: cannot open %s\n", file);
        return 2;
    }
    static char place[128][1024];
    static int okind[128], ofrom[128], oto[128];
    int nl = 0;
    char line[1200];
    while (nl < 128 && fgets(line, sizeof line, f)) {
        char *t1 = strchr(line, '\t');
        if (!t1)
            continue;
        *t1 = 0;
        if (sscanf(t1 + 1, "%d\t%d\t%d", &okind[nl], &ofrom[nl], &oto[nl]) != 3)
            continue;
        copy_str(place[nl], sizeof place[nl], line);
        nl++;
    }
    fclose(f);
    int nrun = 0;
    for (int i = 0; i < nall; i++) {
        const vc_client_t *c = all[i];
        if (*c->expect)
            continue; /* a must-fail variant */
        bool named = false;
        size_t len = strlen(c->name);
        for (const char *q = clients; (q = strstr(q, c->name)) != NULL; q++)
            if ((q == clients || q[-1] == ',') && (q[len] == ',' || !q[len]))
                named = true;
        const char *fam = c->family;
        if (!named && strcmp(fam, "basic") && strcmp(fam, "numa") &&
            strcmp(fam, "clof") && strcmp(fam, "cr"))
            continue; /* the slow families (rw, deep, ...) only by name */
        FILE *sink = fopen("/dev/null", "w");
        int ng = collect_groups(c, VC_C11, o, sink, false);
        fclose(sink);
        if (ng < 0) {
            if (!named)
                continue;
            printf("fail %s: the unmutated lock does not verify\n", c->name);
            return 1;
        }
        /* the named clients, and every other client of this binary that
         * reaches a weakened order (shared code: the fast word, the
         * composition generator, the basic locks under cr:) */
        int na = 0;
        for (int j = 0; j < ng; j++)
            for (int k = 0; k < nl; k++)
                if (same_place(groups[j].where, place[k]) &&
                    groups[j].kind == okind[k] && groups[j].mo == ofrom[k])
                    for (int a = 0; a < groups[j].naddr && na < 2048; a++) {
                        oaddr[na] = groups[j].addr[a];
                        omo[na++] = oto[k];
                    }
        if (!named && na == 0)
            continue;
        vc_mutation_t m;
        memset(&m, 0, sizeof m);
        m.sites = oaddr;
        m.nsites = na;
        m.site_mos = omo;
        vc_result_t r;
        sink = fopen("/dev/null", "w");
        run_one(c, VC_C11, o, &m, sink, &r);
        fclose(sink);
        nrun++;
        if (r.verdict != VC_OK) {
            printf("fail %s: %s\n", c->name,
                   r.verdict == VC_VIOLATION ? r.property : "checker error");
            return 1;
        }
    }
    printf("ok %d\n", nrun);
    return 0;
}

/* the most clients a park-mode check ran (for the summary line) */
static int park_clients_max = -1;

/* The park-mode binary beside this one (clof-verify-park), or NULL. */
static const char *park_binary(void)
{
#if defined(VC_PARK_MODE)
    return NULL;
#else
    static char path[1024];
    static int state; /* 0 unknown, 1 found, -1 absent */
    if (state == 0) {
        ssize_t k = readlink("/proc/self/exe", path, sizeof path - 32);
        state = -1;
        if (k > 0) {
            path[k] = 0;
            char *sl = strrchr(path, '/');
            if (sl) {
                strcpy(sl + 1, "clof-verify-park");
                if (access(path, X_OK) == 0)
                    state = 1;
            }
        }
    }
    return state == 1 ? path : NULL;
#endif
}

/* The weakened orders so far also hold under the production waiting policy:
 * clof-verify-park runs the same clients (those it has: the basic locks,
 * their composition step, cr) with parks and wake-ups, C11, preemption
 * bound 1 (its CI configuration).  True when it has none of them. */
static bool optimize_park_ok(const vc_client_t **cl, int ncl,
                             const char **failed, char *prop, size_t np)
{
    const char *bin = park_binary();
    if (!bin)
        return true;
    char tmp[] = "/tmp/clof-optimize-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return true;
    FILE *f = fdopen(fd, "w");
    if (park_single.where)
        fprintf(f, "%s\t%d\t%d\t%d\n", park_single.where, park_single.kind,
                park_single.from, park_single.to);
    else
        for (int j = 0; j < nog; j++)
            if (og[j].cur != og[j].mo)
                fprintf(f, "%s\t%d\t%d\t%d\n", og[j].where, og[j].kind,
                        og[j].mo, og[j].cur);
    fclose(f);
    char names[2048] = "";
    size_t used = 0;
    for (int i = 0; i < ncl; i++) {
        int w = snprintf(names + used, sizeof names - used, "%s%s",
                         i ? "," : "", cl[i]->name);
        if (w < 0 || (size_t)w >= sizeof names - used)
            break;
        used += (size_t)w;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' --check-orders '%s' --clients '%s' --bound 1", bin, tmp,
             names);
    FILE *p = popen(cmd, "r");
    bool ok = true;
    char out[256] = "";
    if (p) {
        if (!fgets(out, sizeof out, p))
            out[0] = 0;
        int st = pclose(p);
        ok = st == 0;
        int n;
        if (ok && sscanf(out, "ok %d", &n) == 1 && n > park_clients_max)
            park_clients_max = n;
    }
    unlink(tmp);
    if (!ok) {
        static char who[128];
        char *c = strchr(out, ':');
        if (!strncmp(out, "fail ", 5) && c) {
            snprintf(who, sizeof who, "%.*s (park mode)", (int)(c - out - 5),
                     out + 5);
            snprintf(prop, np, "%s", c + 2);
            prop[strcspn(prop, "\n")] = 0;
        } else {
            snprintf(who, sizeof who, "clof-verify-park");
            snprintf(prop, np, "%s", "checker error");
        }
        *failed = who;
    }
    return ok;
}

/* Every client verifies (C11, quick) with the orders of og[].cur, and so
 * do the park-mode clients. */
static bool optimize_ok(const vc_client_t **cl, int ncl, const opts_t *o,
                        long *runs, const char **failed, char *prop,
                        size_t np)
{
    int na = 0;
    for (int j = 0; j < nog; j++)
        if (og[j].cur != og[j].mo)
            for (int k = 0; k < og[j].naddr && na < 2048; k++) {
                oaddr[na] = og[j].addr[k];
                omo[na++] = og[j].cur;
            }
    vc_mutation_t m;
    memset(&m, 0, sizeof m);
    m.sites = oaddr;
    m.nsites = na;
    m.site_mos = omo;
    FILE *sink = fopen("/dev/null", "w");
    bool ok = true;
    for (int i = 0; i < ncl && ok; i++) {
        vc_result_t r;
        run_one(cl[i], VC_C11, o, &m, sink, &r);
        (*runs)++;
        if (r.verdict != VC_OK) {
            ok = false;
            *failed = cl[i]->name;
            snprintf(prop, np, "%s", r.verdict == VC_VIOLATION ? r.property
                                                               : "checker error");
        }
    }
    fclose(sink);
    if (ok) {
        (*runs)++;
        ok = optimize_park_ok(cl, ncl, failed, prop, np);
    }
    return ok;
}

/* The orders one step below mo, the weakest first: an RMW's acq_rel may
 * lose both halves (relaxed) or one of them (acquire, release -- on Armv8
 * SWPA / LDAXR-STXR instead of SWPAL / LDAXR-STLXR), so its step is tried
 * three ways.  0 when mo is already the weakest. */
static int weaker_steps(int kind, int mo, int out[3])
{
    bool rmw = kind != VC_LOAD && kind != VC_STORE && kind != VC_FENCE;
    if (rmw && mo == VC_AR) {
        out[0] = VC_RLX;
        out[1] = VC_ACQ;
        out[2] = VC_REL;
        return 3;
    }
    int w = weaken(kind, mo);
    if (w < 0)
        return 0;
    out[0] = w;
    return 1;
}

/* VSync-style: weaken the orders of lock `name`'s own header one step at a
 * time, keep a step only if every client of the lock still verifies with
 * all the steps kept so far, and print the maximal set found. */
static int optimize(const char *name, const opts_t *o)
{
    const vc_client_t *cl[32];
    int ncl = optimize_clients(name, cl);
    if (ncl == 0) {
        fprintf(stderr, "clof-verify: --optimize: no client named '%s'; "
                        "known locks:\n ", name);
        for (int i = 0; i < nall; i++)
            if (!*all[i]->expect)
                fprintf(stderr, " %s", all[i]->name);
        fprintf(stderr, "\n");
        return 2;
    }
    /* the lock's own header files: those of the first client's sites */
    char files[8][64];
    int nfiles = 0;
    nog = 0;
    double t0 = now_wall();
    for (int i = 0; i < ncl; i++) {
        FILE *sink = fopen("/dev/null", "w");
        int ng = collect_groups(cl[i], VC_C11, o, sink, false);
        fclose(sink);
        if (ng < 0)
            return 1;
        for (int j = 0; j < ng; j++) {
            group_t *g = &groups[j];
            if (strstr(g->where, "(shared helper)") || strchr(g->where, '/') == NULL)
                continue;
            char f[64];
            where_file(g->where, f, sizeof f);
            int k;
            if (i == 0) {
                for (k = 0; k < nfiles; k++)
                    if (!strcmp(files[k], f))
                        break;
                if (k == nfiles && nfiles < 8)
                    snprintf(files[nfiles++], sizeof files[0], "%s", f);
            }
            for (k = 0; k < nfiles; k++)
                if (!strcmp(files[k], f))
                    break;
            if (k == nfiles)
                continue; /* another lock's header (the composition's high
                             lock, compose.h) */
            for (k = 0; k < nog; k++)
                if (!strcmp(og[k].where, g->where) && og[k].kind == g->kind &&
                    og[k].mo == g->mo)
                    break;
            if (k == nog) {
                if (nog == 128)
                    continue;
                memset(&og[nog], 0, sizeof og[nog]);
                copy_str(og[nog].where, sizeof og[nog].where, g->where);
                og[nog].kind = g->kind;
                og[nog].mo = og[nog].cur = g->mo;
                nog++;
            }
            for (int a = 0; a < g->naddr && og[k].naddr < 64; a++)
                og[k].addr[og[k].naddr++] = g->addr[a];
        }
        if (i == 0) {
            /* a header of another lock (lock/X.h, as ticket.h in a cohort
             * lock): X's own clients must verify with its weakened orders
             * too */
            for (int k = 0; k < nfiles; k++) {
                const char *b = strrchr(files[k], '/');
                char other[64];
                copy_str(other, sizeof other, b ? b + 1 : files[k]);
                char *dot = strrchr(other, '.');
                if (dot)
                    *dot = 0;
                if (!strcmp(other, name))
                    continue;
                const vc_client_t *more[32];
                int nm = optimize_clients(other, more);
                for (int m = 0; m < nm && ncl < 32; m++) {
                    int d;
                    for (d = 0; d < ncl; d++)
                        if (cl[d] == more[m])
                            break;
                    if (d == ncl)
                        cl[ncl++] = more[m];
                }
            }
        }
    }
    /* Orders in code that other locks share (the fast word, hier/; the
     * generator, compose.h): every client that reaches one of them must
     * verify with the weakened order, not only this lock's. */
    bool shared = false;
    for (int j = 0; j < nog; j++)
        if (!strncmp(og[j].where, "hier/", 5) ||
            !strncmp(og[j].where, "compose.h", 9))
            shared = true;
    for (int i = 0; shared && i < nall && ncl < 32; i++) {
        const vc_client_t *c = all[i];
        const char *fam = c->family;
        if (*c->expect || (strcmp(fam, "basic") && strcmp(fam, "numa") &&
                           strcmp(fam, "clof") && strcmp(fam, "cr")))
            continue;
        int d;
        for (d = 0; d < ncl; d++)
            if (cl[d] == c)
                break;
        if (d < ncl)
            continue;
        FILE *sink = fopen("/dev/null", "w");
        int ng = collect_groups(c, VC_C11, o, sink, false);
        fclose(sink);
        bool reaches = false;
        for (int j = 0; j < ng && !reaches; j++)
            for (int k = 0; k < nog && !reaches; k++)
                if (same_place(groups[j].where, og[k].where) &&
                    groups[j].kind == og[k].kind && groups[j].mo == og[k].mo &&
                    (!strncmp(og[k].where, "hier/", 5) ||
                     !strncmp(og[k].where, "compose.h", 9)))
                    reaches = true;
        if (reaches)
            cl[ncl++] = c;
    }
    printf("optimize %s: %d orders in", name, nog);
    for (int k = 0; k < nfiles; k++)
        printf(" %s", files[k]);
    printf("; clients (C11, %s):", o->full ? "no bound" : "quick: each "
                                                           "client's bound");
    for (int i = 0; i < ncl; i++)
        printf(" %s", cl[i]->name);
    printf("\n");
    long runs = 0;
    for (int j = 0; j < nog; j++) {
        for (;;) {
            int cand[3];
            int nc = weaker_steps(og[j].kind, og[j].cur, cand);
            if (nc == 0)
                break;
            int before = og[j].cur, took = -1;
            for (int k = 0; k < nc && took < 0; k++) {
                og[j].cur = cand[k];
                const char *failed = NULL;
                char prop[64] = "";
                if (optimize_ok(cl, ncl, o, &runs, &failed, prop,
                                sizeof prop)) {
                    took = cand[k];
                    break;
                }
                og[j].cur = before;
                if (o->verbose)
                    printf("  needs %s %s %s (-> %s fails %s: %s)\n",
                           og[j].where, vc_kind_name(og[j].kind),
                           vc_mo_name(before),
                           cand[k] == VC_NOMO ? "removed"
                                              : vc_mo_name(cand[k]),
                           failed, prop);
            }
            if (took < 0 || took == VC_NOMO)
                break;
        }
    }
    int nweak = 0;
    for (int j = 0; j < nog; j++) {
        char file[1024];
        copy_str(file, sizeof file, og[j].where);
        char *sp = strchr(file, ' ');
        const char *fn = sp ? sp + 1 : "";
        if (sp)
            *sp = 0;
        if (og[j].cur != og[j].mo) {
            nweak++;
            printf("include/clof/%s: %s %s -> %s  (%s)\n", file,
                   vc_kind_name(og[j].kind), vc_mo_name(og[j].mo),
                   og[j].cur == VC_NOMO ? "removed" : vc_mo_name(og[j].cur),
                   fn);
        } else if (o->verbose) {
            printf("include/clof/%s: %s %s (needed)  (%s)\n", file,
                   vc_kind_name(og[j].kind), vc_mo_name(og[j].mo), fn);
        }
    }
    printf("optimize %s: %d of %d orders weakened together, every client "
           "verifies with all of them (%ld runs, %.1f s)\n",
           name, nweak, nog, runs, now_wall() - t0);
    if (park_clients_max >= 0)
        printf("optimize %s: park mode (clof-verify-park, C11, bound 1): up "
               "to %d clients per check%s\n",
               name, park_clients_max,
               park_clients_max == 0 ? " -- none of them reaches these "
                                       "orders: not checked with parking"
                                     : "");
    else if (!park_binary())
        printf("optimize %s: park mode not checked (clof-verify-park not "
               "found beside this program)\n", name);
    return 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    collect(vc_clients_basic);
    collect(vc_clients_clh_outside);
    collect(vc_clients_cr);
    collect(vc_clients_cr_lazy);
#if !defined(VC_PARK_MODE)
    collect(vc_clients_hmcs);
    collect(vc_clients_hmcs_fast);
    collect(vc_clients_hmcs_fast_index);
    collect(vc_clients_hmcs_sc);
    collect(vc_clients_hmcs_fences);
    collect(vc_clients_hmcs_amo);
    collect(vc_clients_numa);
    collect(vc_clients_compose_index);
    collect(vc_clients_timed);
    collect(vc_clients_swapped);
    collect(vc_clients_rw);
    collect(vc_clients_asl);
#endif

    const char *sel[MAXSEL];
    bool sel_lock[MAXSEL]; /* --lock (a lock name) or --client (client names) */
    int nsel = 0;
    int mmask = 7;
    opts_t o = {-2, false, 0, 0, 0, false, false};
    bool do_self = false, do_list = false, do_mut = false, check_exp = false;
    bool sites_only = false;
    const char *opt_lock = NULL;
    const char *bug = NULL;
    const char *chk_file = NULL, *chk_clients = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                 \
    do {                                                                       \
        if (!v) {                                                              \
            fprintf(stderr, "%s: %s needs a value\n", prog_name(), a);          \
            return 2;                                                          \
        }                                                                      \
        i++;                                                                   \
    } while (0)
        if (!strcmp(a, "--lock") || !strcmp(a, "--client")) {
            NEED();
            if (nsel < MAXSEL) {
                sel_lock[nsel] = !strcmp(a, "--lock");
                sel[nsel++] = v;
            }        } else if (!strcmp(a, "--model")) {
            NEED();
            if (!strcmp(v, "all"))
                mmask = 7;
            else if (vc_model_parse(v) >= 0)
                mmask = 1 << vc_model_parse(v);
            else {
                fprintf(stderr,
                        "clof-verify: unknown model '%s' (sc, tso, c11, all)\n",
                        v);
                return 2;
            }
        } else if (!strcmp(a, "--quick")) {
            o.full = false;
        } else if (!strcmp(a, "--full")) {
            o.full = true;
        } else if (!strcmp(a, "--bound")) {
            NEED();
            o.bound_override = (int)number_arg(a, v, 0, 1000);
        } else if (!strcmp(a, "--max-execs")) {
            NEED();
            o.max_execs = (long)number_arg(a, v, 1, 1e15);
        } else if (!strcmp(a, "--time-limit")) {
            NEED();
            o.time_limit = number_arg(a, v, 0.001, 1e9);
        } else if (!strcmp(a, "--no-dpor")) {
            o.no_dpor = true;
        } else if (!strcmp(a, "--markdown")) {
            o.markdown = true;
        } else if (!strcmp(a, "--check-expected")) {
            check_exp = true;
        } else if (!strcmp(a, "--selftest")) {
            do_self = true;
        } else if (!strcmp(a, "--mutate")) {
            do_mut = true;
        } else if (!strcmp(a, "--sites")) {
            sites_only = true;
        } else if (!strcmp(a, "--optimize")) {
            NEED();
            opt_lock = v;
        } else if (!strcmp(a, "--check-orders")) {
            NEED();
            chk_file = v;
        } else if (!strcmp(a, "--clients")) {
            NEED();
            chk_clients = v;
        } else if (!strcmp(a, "--bug")) {
            NEED();
            bug = v;
        } else if (!strcmp(a, "--list")) {
            do_list = true;
        } else if (!strcmp(a, "-v")) {
            o.verbose = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown argument '%s' (--help lists them)\n", prog_name(), a);
            return 2;
        }
    }
    if (do_list) {
        for (int i = 0; i < nall; i++)
            printf("%-22s %-10s %s%s%s\n", all[i]->name, all[i]->family,
                   all[i]->what, *all[i]->expect ? "  [must fail: " : "",
                   *all[i]->expect ? all[i]->expect : "");
        for (const vc_bug_t *b = vc_bugs; b->name; b++)
            printf("%-22s %-10s %s  [--bug; must fail under c11]\n", b->name,
                   "bug", b->what);
        return 0;
    }
    if (do_self)
        return selftest(mmask, o.verbose, o.markdown);
    if (bug)
        return run_bug(bug, mmask, &o);
    if (opt_lock)
        return optimize(opt_lock, &o);
    if (chk_file)
        return check_orders(chk_file, chk_clients, &o);

    /* the selection */
    const vc_client_t *run[MAXSEL];
    int nrun = 0;
    int nlk = 0; /* the lock names among them (lk) */
    for (int s = 0; s < nsel; s++) {
        /* --lock NAME: a lock name (any spelling) runs what covers it
         * (select_lock); a name outside the grammar (a family, a client, a
         * pattern) is taken as --client takes it */
        char canon[CLOF_LOCKNAME_MAX];
        bool is_lock = sel_lock[s] && clof_lockname_canon(sel[s], canon, sizeof canon);
        if (is_lock) {
            if (select_lock(canon, run, &nrun, &lk[nlk]))
                return 2;
            nlk++;
            continue;
        }
        int hit = 0;
        for (int i = 0; i < nall; i++) {
            if (!matches(all[i], sel[s]))
                continue;
            hit++;
            add_run(run, &nrun, all[i]);
        }
        if (!hit) {
            char msg[512];
            clof_lockname_unknown("clof verify", sel[s], (clof_lockset_t){0}, msg, sizeof msg);
            fprintf(stderr, "%s; or a client, family or pattern of clof verify --list\n", msg);
            return 2;
        }
    }
    if (nsel == 0)
        for (int i = 0; i < nall; i++)
            if (!*all[i]->expect)
                run[nrun++] = all[i];

    if (sites_only && !do_mut) {
        fprintf(stderr, "%s: --sites goes with --mutate\n", prog_name());
        return 2;
    }
    if (do_mut && sites_only) {
        int n = 0, worst = 0;
        for (int k = 0; k < nrun; k++)
            for (int m = 0; m < 3; m++)
                if ((mmask & (1 << m)) && list_sites(run[k], m, &o, &n))
                    worst = 1;
        printf("mutation sites: %d weakenings to check (--sites: none checked)\n", n);
        /* an empty list (or an unmutated client that fails) is a failure,
         * as --mutate's run that catches nothing is */
        return worst || n == 0 ? 1 : 0;
    }
    if (do_mut) {
        int caught = 0, safe = 0;
        if (o.markdown) {
            printf("| lock | model | access (lock source, function) | "
                   "weakening | result | executions |\n");
            printf("|---|---|---|---|---|---|\n");
        }
        for (int k = 0; k < nrun; k++)
            for (int m = 0; m < 3; m++)
                if (mmask & (1 << m))
                    mutate(run[k], m, &o, &caught, &safe);
        printf("%smutation: %d weakenings caught, %d safe (proposed "
               "relaxations)\n",
               o.markdown ? "\n" : "", caught, safe);
        /* a checker that catches no weakening at all cannot fail */
        return caught > 0 ? 0 : 1;
    }

    int worst = 0;
    if (o.markdown) {
        printf("| lock | model | result | executions | time (s) | search |\n");
        printf("|---|---|---|---|---|---|\n");
    }
    for (int k = 0; k < nrun; k++) {
        const vc_client_t *c = run[k];
        for (int m = 0; m < 3; m++) {
            if (!(mmask & (1 << m)))
                continue;
            vc_result_t r;
            /* traces go to stdout, or to stderr when stdout is a table */
            run_one(c, m, &o, NULL, o.markdown ? stderr : stdout, &r);
            char bb[128];
            bound_str(&r, bound_of(c, &o), bb, sizeof bb);
            bool expected =
                *c->expect ? (r.verdict == VC_VIOLATION &&
                              (!strcmp(c->expect, "*") ||
                               !strcmp(r.property, c->expect)))
                           : r.verdict == VC_OK;
            if (o.markdown)
                printf("| %s | %s | %s%s%s | %ld | %.2f | %s |\n", c->name,
                       vc_model_name(m), verdict_str(&r),
                       r.verdict == VC_VIOLATION ? ": " : "",
                       r.verdict == VC_VIOLATION ? r.property : "", r.execs,
                       r.seconds, bb);
            else
                printf("%-22s %-4s %-9s %8ld execs %8.2f s  %s%s%s%s\n",
                       c->name, vc_model_name(m), verdict_str(&r), r.execs,
                       r.seconds, bb,
                       r.verdict != VC_OK ? "; " : "",
                       r.verdict != VC_OK ? r.property : "",
                       *c->expect ? (expected ? " (expected: known bug)"
                                              : " (NOT the expected failure)")
                                  : "");
            fflush(stdout);
            run_res[k][m].ran = true;
            run_res[k][m].verdict = r.verdict;
            run_res[k][m].exhaustive = r.exhaustive;
            run_res[k][m].limit_hit = r.limit_hit;
            snprintf(run_res[k][m].property, sizeof run_res[k][m].property, "%s", r.property);
            int rc = r.verdict == VC_OK ? 0 : r.verdict == VC_VIOLATION ? 1 : 2;
            if (check_exp)
                rc = expected ? 0 : (r.verdict == VC_ERROR ? 2 : 1);
            if (rc > worst)
                worst = rc;
        }
    }
    for (int l = 0; l < nlk; l++)
        print_verdict(&lk[l], run, mmask, &o, o.markdown && l == 0);
    return worst;
}
