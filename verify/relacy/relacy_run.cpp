/* SPDX-License-Identifier: MIT */
/*
 * verify/relacy/relacy_run.cpp -- clof-relacy: the clients of clof-verify,
 * run by Relacy (an independent checker of the C11 memory model) instead of
 * vc, to cross-check vc's verdicts (docs/verification.md, "Cross-check with
 * Relacy").
 *
 * The clients are the same source files as clof-verify's (verify/clients_*.c,
 * compiled here as C++ by verify/relacy/CMakeLists.txt): same threads, same
 * operations, same final assertions, same lock headers, through the atomics
 * shim's `relacy` backend (backend_relacy.h).  This file implements the small
 * client API of vc.h that the clients use (vc_cs_enter/exit = the ghost
 * critical-section counter, vc_assert, vc_name, vc_access for the timed
 * clients' ghost clock) on top of Relacy, and runs one rl::test_suite per
 * client: before() = the client's setup, thread(t) = its thread t, after() =
 * its final check.
 *
 *   clof-relacy --list
 *   clof-relacy [--lock NAME|--family F|--all] [--sched bound|full|random]
 *               [--bound K] [--iters N] [--depth N] [--time-limit S]
 *               [--trace]
 *   clof-relacy --bug NAME          a named memory-order bug (must fail)
 *
 * Exit 0: every verdict as expected (a known-bad client or a named bug must
 * be reported as a violation); 1: a verdict differs; 2: usage error.
 */
#include "bugs.h"
#include "clients.h"
#include "litmus.h"

#include <map>
#include <sstream>
#include <string>
#include <vector>

/* ---------------------------------------------------------------- state */

rlx_mutation rlx_mut;
int rlx_scope_depth[8];
long rlx_mut_hits;

static const vc_client_t *g_client;
static int g_phase; /* 0 setup, 1 threads, 2 final */
static int g_in_cs;
static double g_deadline; /* --time-limit: stop after this (0: none) */
static bool g_time_up;
static double now_s(void);
/* Relacy replaces the global operator new inside an execution (its memory
 * is checked per execution, and a free is a scheduling choice): the driver's
 * own bookkeeping uses malloc directly. */
template <typename T>
struct rlx_malloc_alloc {
    typedef T value_type;
    rlx_malloc_alloc() = default;
    template <typename U>
    rlx_malloc_alloc(const rlx_malloc_alloc<U> &) {}
    T *allocate(size_t n)
    {
        void *p = malloc(n * sizeof(T));
        if (!p) {
            fprintf(stderr, "clof-relacy: out of memory\n");
            exit(2);
        }
        return (T *)p;
    }
    void deallocate(T *p, size_t) { free(p); }
    template <typename U>
    bool operator==(const rlx_malloc_alloc<U> &) const { return true; }
    template <typename U>
    bool operator!=(const rlx_malloc_alloc<U> &) const { return false; }
};

static std::map<uintptr_t, rlx_shadow *, std::less<uintptr_t>,
                rlx_malloc_alloc<std::pair<const uintptr_t, rlx_shadow *>>>
    g_shadows;
/* Relacy's report goes to an ostream that it grows inside an execution:
 * its buffer must not come from operator new either. */
struct rlx_outbuf : std::streambuf {
    std::basic_string<char, std::char_traits<char>, rlx_malloc_alloc<char>> s;
    int overflow(int c) override
    {
        if (c != EOF)
            s.push_back((char)c);
        return c;
    }
    std::streamsize xsputn(const char *p, std::streamsize n) override
    {
        s.append(p, (size_t)n);
        return n;
    }
};

struct rlx_name {
    uintptr_t lo, hi;
    char *name; /* malloc'ed copy */
};
static std::vector<rlx_name, rlx_malloc_alloc<rlx_name>> g_names;

template <typename T>
static T *rlx_make_(void)
{
    void *p = malloc(sizeof(T));
    if (!p) {
        fprintf(stderr, "clof-relacy: out of memory\n");
        exit(2);
    }
    return new (p) T();
}
template <typename T>
static void rlx_drop_(T *p)
{
    if (p) {
        p->~T();
        free(p);
    }
}

/* Relacy's strong init (atomic_init, thread.hpp) leaves the record's
 * first_seen_order_ uninitialised (slab memory from an earlier atomic), so a
 * thread that spins reading the initial value may never be made to see a
 * newer store after its yield (a false livelock, seen with Hemlock).  The
 * driver resets them as atomic_store does: "nobody has seen it yet".  The
 * record is reached through generic_atomic's private impl_ with the
 * explicit-instantiation access rule (C++ [temp.explicit]/12). */
template <typename Tag, typename Tag::type M>
struct rlx_rob {
    friend typename Tag::type rlx_get(Tag) { return M; }
};
struct rlx_impl32_tag {
    typedef rl::atomic_data *rl::generic_atomic<uint32_t, true>::*type;
    friend type rlx_get(rlx_impl32_tag);
};
struct rlx_impl64_tag {
    typedef rl::atomic_data *rl::generic_atomic<uint64_t, true>::*type;
    friend type rlx_get(rlx_impl64_tag);
};
template struct rlx_rob<rlx_impl32_tag, &rl::generic_atomic<uint32_t, true>::impl_>;
template struct rlx_rob<rlx_impl64_tag, &rl::generic_atomic<uint64_t, true>::impl_>;

template <int N>
static void rlx_fix_init_n(rl::atomic_data *d)
{
    auto *impl = static_cast<rl::atomic_data_impl<N> *>(d);
    auto &rec = impl->history_[impl->current_index_ % rl::atomic_history_size];
    for (int i = 0; i < N; i++)
        rec.first_seen_order_[i] = (rl::timestamp_t)-1;
}
static void (*g_fix_init)(rl::atomic_data *);

rlx_shadow *rlx_shadow_of(const void *p, int width)
{
    uintptr_t a = (uintptr_t)p;
    auto it = g_shadows.find(a);
    if (it != g_shadows.end()) {
        if (it->second->width != width) {
            fprintf(stderr, "clof-relacy: location %p accessed as %d and %d "
                    "bits\n", p, it->second->width, width);
            exit(2);
        }
        return it->second;
    }
    /* a new location: its value in plain memory is its initial value; the
     * strong-init atomic holds 0 = "initial value", readable by every thread
     * without synchronisation, and no scheduling point is taken here */
    bool plain_phase = g_phase != 1; /* setup or final: no scheduling */
    rlx_shadow *s = (rlx_shadow *)malloc(sizeof *s);
    if (!s) {
        fprintf(stderr, "clof-relacy: out of memory\n");
        exit(2);
    }
    s->width = width;
    s->a32 = NULL;
    s->a64 = NULL;
    uint64_t v;
    if (width == 32) {
        v = *(const uint32_t *)p;
        s->a32 = rlx_make_<rl::generic_atomic<uint32_t, true>>();
        g_fix_init(s->a32->*rlx_get(rlx_impl32_tag()));
    } else {
        v = *(const uint64_t *)p;
        s->a64 = rlx_make_<rl::generic_atomic<uint64_t, true>>();
        g_fix_init(s->a64->*rlx_get(rlx_impl64_tag()));
    }
    g_shadows[a] = s;
    /* In setup and final Relacy takes no scheduling points (and a global
     * fence follows setup): store the initial value plainly, so the trace
     * shows real values.  Inside the threads, the offset. */
    s->init = plain_phase ? 0 : v;
    if (plain_phase && v != 0) {
        if (width == 32)
            s->a32->store((uint32_t)v, rl::mo_relaxed, $);
        else
            s->a64->store(v, rl::mo_relaxed, $);
    }
    return s;
}

/* destroy: at the end of a complete execution (Relacy checks that every
 * atomic of an execution is gone); otherwise (an execution that failed and
 * was abandoned by Relacy) the shadows belong to a dead context: forget
 * them. */
void rlx_shadow_reset(bool destroy)
{
    for (auto &kv : g_shadows) {
        if (destroy) {
            rlx_drop_(kv.second->a32);
            rlx_drop_(kv.second->a64);
        }
        free(kv.second);
    }
    g_shadows.clear();
}

bool rlx_loc_matches(const void *p, const char *match)
{
    uintptr_t a = (uintptr_t)p;
    for (const rlx_name &n : g_names)
        if (a >= n.lo && a < n.hi)
            return strstr(n.name, match) != NULL;
    return false;
}

static int cur_thread_(void)
{
    if (!rl::is_ctx() || rl::ctx().threadx_ == NULL)
        return -1;
    return (int)rl::ctx().current_thread();
}

void rlx_resume_current(void)
{
    if (g_phase == 1 && g_client->resume) {
        int t = cur_thread_();
        if (t >= 0)
            g_client->resume(NULL, t);
    }
}

void rlx_scope_enter(void)
{
    int t = cur_thread_();
    if (t >= 0 && t < 8)
        rlx_scope_depth[t]++;
}
void rlx_scope_exit(void)
{
    int t = cur_thread_();
    if (t >= 0 && t < 8)
        rlx_scope_depth[t]--;
}

/* ---------------------------------------------------------------- vc.h API */

uint64_t vc_clock;

void vc_assert_fail(const char *msg, const char *file, int line)
{
    rl::ctx().fail_test(msg, rl::test_result_user_assert_failed,
                        rl::debug_info("client", file, line));
}

void vc_cs_enter(void)
{
    if (g_in_cs++ != 0)
        rl::ctx().fail_test("mutual exclusion: two threads in the critical "
                            "section",
                            rl::test_result_user_assert_failed, $);
}

void vc_cs_exit(void)
{
    g_in_cs--;
}

void vc_name(const void *addr, size_t size, const char *name)
{
    char *copy = (char *)malloc(strlen(name) + 1);
    if (!copy) {
        fprintf(stderr, "clof-relacy: out of memory\n");
        exit(2);
    }
    strcpy(copy, name);
    g_names.push_back({(uintptr_t)addr, (uintptr_t)addr + size, copy});
}

int vc_self(void)
{
    return g_phase == 1 ? cur_thread_() : -1;
}

uint64_t vc_access(int kind, void *addr, int size, uint64_t val, uint64_t exp,
                   int mo)
{
    if (kind == VC_FENCE) {
        clof_be_fence(mo);
        return 0;
    }
    return rlx_access(kind, addr, size == 4 ? 32 : 64, val, exp, mo);
}

/* ---------------------------------------------------------------- suites */

template <int N>
struct rlx_suite : rl::test_suite<rlx_suite<N>, N> {
    void before()
    {
        rlx_shadow_reset(false);
        for (rlx_name &n : g_names)
            free(n.name);
        g_names.clear();
        g_in_cs = 0;
        memset(rlx_scope_depth, 0, sizeof rlx_scope_depth);
        g_phase = 0;
        g_client->setup(NULL);
        g_phase = 1;
    }
    void thread(unsigned t)
    {
        rlx_resume_current();
        g_client->thread(NULL, (int)t);
    }
    void after()
    {
        g_phase = 2;
        g_client->final(NULL);
        rlx_shadow_reset(true);
        if (g_deadline > 0 && now_s() > g_deadline) {
            g_time_up = true;
            rl::ctx().rl_until("time limit", $);
        }
    }
};

extern const vc_client_t vc_clients_basic[];
extern const vc_client_t vc_clients_numa[];
extern const vc_client_t vc_clients_hmcs[];
extern const vc_client_t vc_clients_hmcs_fast[];
extern const vc_client_t vc_clients_swapped[];
#if defined(RLX_HAVE_TIMED)
extern const vc_client_t vc_clients_timed[];
#endif

static std::vector<const vc_client_t *> g_all;

/* vc's self-test programs (litmus.c) as clients, with their C11 verdict:
 * family "litmus", name litmus.NAME, expect "" (must verify) or the
 * property (must be violated). */
static void collect_litmus(void)
{
    static std::vector<vc_client_t> lit;
    static std::vector<std::string> names;
    size_t n = 0;
    while (vc_litmus[n].name)
        n++;
    lit.resize(n);
    names.resize(n);
    for (size_t i = 0; i < n; i++) {
        vc_prog_t p;
        vc_litmus_prog(&vc_litmus[i], &p);
        names[i] = std::string("litmus.") + vc_litmus[i].name;
        vc_client_t c;
        memset(&c, 0, sizeof c);
        c.name = names[i].c_str();
        c.family = "litmus";
        c.what = vc_litmus[i].what;
        c.nthreads = p.nthreads;
        c.setup = p.setup;
        c.thread = p.thread;
        c.final = p.final;
        c.resume = p.resume;
        c.expect = vc_litmus[i].expect[VC_C11];
        /* 2+2W needs a store placed before an older one in modification
         * order: vc explores that (free mo), Relacy appends every store to
         * the end of its history and cannot show it (a known limit of the
         * cross-check, docs/verification.md) */
        if (!strcmp(vc_litmus[i].name, "2+2w"))
            c.expect = "";
        c.quick_bound = -1;
        lit[i] = c;
    }
    for (size_t i = 0; i < n; i++)
        g_all.push_back(&lit[i]);
}

static void collect(const vc_client_t *t)
{
    for (; t->name; t++)
        g_all.push_back(t);
}

struct opts {
    rl::scheduler_type_e sched = rl::sched_bound;
    unsigned bound = 2;
    unsigned long iters = 100000;
    unsigned depth = 20000;
    double time_limit = 0;
    bool trace = false;
};

struct result {
    bool ok; /* no violation */
    bool time_up; /* stopped by --time-limit (no violation until then) */
    std::string what;
    unsigned long iters;
    double secs;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

template <int N>
static void run_n(const opts &o, std::ostream &out, result *r)
{
    g_fix_init = rlx_fix_init_n<N>;
    rl::test_params p;
    p.search_type = o.sched;
    p.context_bound = o.bound;
    p.iteration_count = o.iters;
    p.execution_depth_limit = o.depth;
    rlx_outbuf progress_buf; /* progress lines: not reported */
    std::ostream progress(&progress_buf);
    p.output_stream = &out;
    p.progress_stream = &progress;
    p.progress_output_period = 1000000;
    double t0 = now_s();
    g_deadline = o.time_limit > 0 ? t0 + o.time_limit : 0;
    g_time_up = false;
    bool ok = rl::simulate<rlx_suite<N>>(p);
    r->secs = now_s() - t0;
    r->time_up = g_time_up && p.test_result == rl::test_result_until_condition_hit;
    r->ok = ok || r->time_up;
    r->iters = (unsigned long)p.stop_iteration + (r->time_up ? 1 : 0);
    r->what = r->ok ? "" : rl::test_result_str(p.test_result);
}

static int run_client(const vc_client_t *c, const opts &o, result *r)
{
    rlx_outbuf buf;
    std::ostream out(&buf);
    g_client = c;
    switch (c->nthreads) {
    case 2:
        run_n<2>(o, out, r);
        break;
    case 3:
        run_n<3>(o, out, r);
        break;
    case 4: /* the most any client has (3 threads and a ghost clock) */
        run_n<4>(o, out, r);
        break;
    default:
        fprintf(stderr, "clof-relacy: %s: %d threads not supported\n",
                c->name, c->nthreads);
        return 2;
    }
    if (!r->ok) {
        /* Relacy's report: the failure, the iteration, then the history */
        std::string s(buf.s.data(), buf.s.size());
        std::istringstream in(s);
        std::string line;
        bool have = false;
        while (std::getline(in, line)) {
            if (!have && !line.empty() &&
                line.find("rlx_suite") == std::string::npos) {
                r->what = line; /* "USER ASSERT FAILED (message)", ... */
                have = true;
            }
            if (o.trace)
                printf("  | %s\n", line.c_str());
        }
    }
    return 0;
}

static void print_result(const char *name, const char *expect, const opts &o,
                         const result &r, bool expected)
{
    char how[64];
    if (o.sched == rl::sched_bound)
        snprintf(how, sizeof how, "context bound %u%s", o.bound,
                 r.time_up ? ", stopped by the time limit" : "");
    else if (o.sched == rl::sched_full)
        snprintf(how, sizeof how, "full search");
    else
        snprintf(how, sizeof how, "random, %lu iterations", o.iters);
    printf("relacy %-26s %s%s, %lu iterations, %.2f s, %s%s\n", name,
           r.ok ? (r.time_up ? "no violation" : "verified") : "VIOLATION: ",
           r.ok ? "" : r.what.c_str(),
           r.iters, r.secs, how,
           *expect ? (expected ? " (expected: known bug)"
                               : " (UNEXPECTED: known bug not caught)")
                   : (expected ? "" : " (UNEXPECTED)"));
}

/* ---------------------------------------------------------------- named bugs */

static const vc_client_t *find_client(const char *n)
{
    for (const vc_client_t *c : g_all)
        if (!strcmp(c->name, n))
            return c;
    return NULL;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: clof-relacy --list\n"
            "       clof-relacy [--lock NAME|--family F|--all] [--sched "
            "bound|full|random]\n"
            "                   [--bound K] [--iters N] [--depth N] [--time-limit S]\n"
            "                   [--trace]\n"
            "       clof-relacy --bug NAME [options]\n");
    return 2;
}

int main(int argc, char **argv)
{
    collect(vc_clients_basic);
    collect(vc_clients_hmcs);
    collect(vc_clients_hmcs_fast);
    collect(vc_clients_numa);
    collect(vc_clients_swapped);
#if defined(RLX_HAVE_TIMED)
    collect(vc_clients_timed);
#endif
    collect_litmus();
    opts o;
    std::vector<const char *> locks;
    const char *family = NULL, *bugname = NULL;
    bool all = false, list = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        auto need = [&](void) {
            if (!v) {
                fprintf(stderr, "clof-relacy: %s needs a value\n", a);
                exit(usage());
            }
            i++;
            return v;
        };
        if (!strcmp(a, "--list"))
            list = true;
        else if (!strcmp(a, "--all"))
            all = true;
        else if (!strcmp(a, "--trace"))
            o.trace = true;
        else if (!strcmp(a, "--lock"))
            locks.push_back(need());
        else if (!strcmp(a, "--family"))
            family = need();
        else if (!strcmp(a, "--bug"))
            bugname = need();
        else if (!strcmp(a, "--bound"))
            o.bound = (unsigned)atoi(need());
        else if (!strcmp(a, "--iters"))
            o.iters = strtoul(need(), NULL, 10);
        else if (!strcmp(a, "--time-limit"))
            o.time_limit = atof(need());
        else if (!strcmp(a, "--depth"))
            o.depth = (unsigned)atoi(need());
        else if (!strcmp(a, "--sched")) {
            const char *s = need();
            if (!strcmp(s, "bound"))
                o.sched = rl::sched_bound;
            else if (!strcmp(s, "full"))
                o.sched = rl::sched_full;
            else if (!strcmp(s, "random"))
                o.sched = rl::sched_random;
            else {
                fprintf(stderr, "clof-relacy: unknown --sched '%s'; known: "
                        "bound full random\n", s);
                return 2;
            }
        } else {
            fprintf(stderr, "clof-relacy: unknown option '%s'\n", a);
            return usage();
        }
    }
    if (list) {
        for (const vc_client_t *c : g_all)
            printf("%-26s %-10s %s%s\n", c->name, c->family, c->what,
                   *c->expect ? "  [known bug: must fail]" : "");
        for (const vc_bug_t *b = vc_bugs; b->name; b++)
            if (!b->vc_only)
                printf("%-26s %-10s %s  [--bug; must fail]\n", b->name,
                       "bug", b->what);
        return 0;
    }
    if (bugname) {
        const vc_bug_t *b = vc_bug_find(bugname, "clof-relacy");
        if (!b)
            return 2;
        if (b->vc_only) {
            fprintf(stderr, "clof-relacy: bug %s needs a store placed before "
                            "an older one in modification order, which "
                            "Relacy does not explore (vc only: clof-verify "
                            "--bug %s)\n", b->name, b->name);
            return 2;
        }
        const vc_client_t *c = find_client(b->client);
        if (!c) {
            fprintf(stderr, "clof-relacy: client %s not built\n", b->client);
            return 2;
        }
        rlx_mut = {true, b->kind, b->from_mo, b->to_mo, b->loc_match,
                   b->site_fn != NULL};
        rlx_mut_hits = 0;
        result r;
        if (run_client(c, o, &r))
            return 2;
        rlx_mut.active = false;
        std::string n = std::string("bug:") + b->name;
        print_result(n.c_str(), "*", o, r, !r.ok);
        if (rlx_mut_hits == 0)
            printf("bug %s: no access was weakened (the mutation matched "
                   "nothing)\n", b->name);
        return r.ok ? 1 : 0;
    }
    std::vector<const vc_client_t *> run;
    for (const char *n : locks) {
        const vc_client_t *c = find_client(n);
        if (!c) {
            fprintf(stderr, "clof-relacy: unknown client '%s'; known:", n);
            for (const vc_client_t *k : g_all)
                fprintf(stderr, " %s", k->name);
            fprintf(stderr, "\n");
            return 2;
        }
        run.push_back(c);
    }
    for (const vc_client_t *c : g_all)
        if (all || (family && !strcmp(family, c->family)))
            run.push_back(c);
    if (run.empty())
        return usage();
    int bad = 0;
    for (const vc_client_t *c : run) {
        result r;
        if (run_client(c, o, &r))
            return 2;
        bool expected = *c->expect ? !r.ok : r.ok;
        print_result(c->name, c->expect, o, r, expected);
        fflush(stdout);
        if (!expected)
            bad = 1;
    }
    return bad;
}
