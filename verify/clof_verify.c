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
 *   clof-verify --bug NAME                    a named memory-order bug
 *   clof-verify --list
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

#include <dlfcn.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXSEL 256

static const vc_client_t *all[MAXSEL];
static int nall;

static void collect(const vc_client_t *tab)
{
    for (; tab->name; tab++)
        if (nall < MAXSEL)
            all[nall++] = tab;
}

static void usage(FILE *o)
{
    fprintf(o,
            "usage: clof-verify [--lock NAME]... [--model sc|tso|c11|all]\n"
            "                   [--quick|--full] [--bound K] [--max-execs N]\n"
            "                   [--time-limit S] [--markdown] "
            "[--check-expected] [--no-dpor] [-v]\n"
            "       clof-verify --selftest [--model M]\n"
            "       clof-verify --mutate [--lock NAME]... [--model M]\n"
            "       clof-verify --bug NAME [--model M]\n"
            "       clof-verify --list\n"
            "NAME: a client name, a family (basic, numa, clof, regression,\n"
            "      hmcs-variants, deep),\n"
            "a shell pattern (\"clof.*\"), or all (default: every client that\n"
            "must verify).  --quick (default): each client's preemption bound\n"
            "(2); --full: exhaustive (no bound).\n");
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

static int selftest(int mmask, int verbose)
{
    int bad = 0, n = 0;
    printf("vc self-test: litmus programs, exhaustive search, expected "
           "verdict per model\n");
    for (const vc_litmus_t *l = vc_litmus; l->name; l++) {
        for (int m = 0; m < 3; m++) {
            if (!(mmask & (1 << m)))
                continue;
            vc_prog_t p;
            vc_litmus_prog(l, &p);
            vc_cfg_t cf;
            memset(&cf, 0, sizeof cf);
            cf.model = m;
            cf.bound = -1;
            cf.max_steps = 400;
            FILE *sink = verbose ? stdout : fopen("/dev/null", "w");
            cf.out = sink;
            vc_result_t r, rn;
            vc_check(&p, &cf, &r);
            /* the same search without partial-order reduction (every
             * interleaving): DPOR must not lose a verdict */
            cf.no_dpor = true;
            vc_check(&p, &cf, &rn);
            if (!verbose)
                fclose(sink);
            const char *exp = l->expect[m];
            bool ok = *exp ? (r.verdict == VC_VIOLATION &&
                              prop_in(r.property, exp))
                           : (r.verdict == VC_OK && r.exhaustive);
            bool same = rn.verdict == r.verdict;
            if (!same) {
                ok = false;
                printf("      without DPOR: %s %s (%ld execs)\n",
                       verdict_str(&rn), rn.property, rn.execs);
            }
            n++;
            if (!ok)
                bad++;
            printf("  %-14s %-4s %-10s %-34s %6ld execs (%ld without "
                   "DPOR)  %s\n",
                   l->name, vc_model_name(m),
                   r.verdict == VC_OK ? "ok" : verdict_str(&r),
                   r.verdict == VC_OK ? "(no violation)" : r.property,
                   r.execs, rn.execs, ok ? "as expected" : "UNEXPECTED");
            if (!ok)
                printf("      expected: %s; got: %s %s\n",
                       *exp ? exp : "no violation", verdict_str(&r),
                       r.message);
        }
    }
    printf("self-test: %d of %d verdicts as expected\n", n - bad, n);
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

/* ---------------------------------------------------------------- mutation */

typedef struct {
    char where[1024]; /* lock-level source position (file:line function) */
    int kind, mo;
    const void *addr[32];
    int naddr;
    long hits;
} group_t;

/* file:line of the first inline frame of addr outside the shim. */
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
                             b->from_mo};
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

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    collect(vc_clients_basic);
#if !defined(VC_PARK_MODE)
    collect(vc_clients_hmcs);
    collect(vc_clients_hmcs_fast);
    collect(vc_clients_hmcs_sc);
    collect(vc_clients_hmcs_fences);
    collect(vc_clients_hmcs_amo);
    collect(vc_clients_numa);
    collect(vc_clients_timed);
    collect(vc_clients_swapped);
#endif

    const char *sel[MAXSEL];
    int nsel = 0;
    int mmask = 7;
    opts_t o = {-2, false, 0, 0, 0, false, false};
    bool do_self = false, do_list = false, do_mut = false, check_exp = false;
    const char *bug = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                 \
    do {                                                                       \
        if (!v) {                                                              \
            fprintf(stderr, "clof-verify: %s needs a value\n", a);             \
            return 2;                                                          \
        }                                                                      \
        i++;                                                                   \
    } while (0)
        if (!strcmp(a, "--lock")) {
            NEED();
            if (nsel < MAXSEL)
                sel[nsel++] = v;
        } else if (!strcmp(a, "--model")) {
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
            o.bound_override = atoi(v);
        } else if (!strcmp(a, "--max-execs")) {
            NEED();
            o.max_execs = atol(v);
        } else if (!strcmp(a, "--time-limit")) {
            NEED();
            o.time_limit = atof(v);
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
            fprintf(stderr, "clof-verify: unknown argument '%s'\n", a);
            usage(stderr);
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
        return selftest(mmask, o.verbose);
    if (bug)
        return run_bug(bug, mmask, &o);

    /* the selection */
    const vc_client_t *run[MAXSEL];
    int nrun = 0;
    for (int s = 0; s < nsel; s++) {
        int hit = 0;
        for (int i = 0; i < nall; i++) {
            if (!matches(all[i], sel[s]))
                continue;
            hit++;
            int k;
            for (k = 0; k < nrun; k++)
                if (run[k] == all[i])
                    break;
            if (k == nrun)
                run[nrun++] = all[i];
        }
        if (!hit) {
            fprintf(stderr,
                    "clof-verify: no lock named '%s'; known locks:\n ",
                    sel[s]);
            for (int i = 0; i < nall; i++)
                fprintf(stderr, " %s", all[i]->name);
            fprintf(stderr, "\n  families: basic numa clof regression; "
                            "'all'; shell patterns\n");
            return 2;
        }
    }
    if (nsel == 0)
        for (int i = 0; i < nall; i++)
            if (!*all[i]->expect)
                run[nrun++] = all[i];

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
            int rc = r.verdict == VC_OK ? 0 : r.verdict == VC_VIOLATION ? 1 : 2;
            if (check_exp)
                rc = expected ? 0 : (r.verdict == VC_ERROR ? 2 : 1);
            if (rc > worst)
                worst = rc;
        }
    }
    return worst;
}
