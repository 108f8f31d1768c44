/* SPDX-License-Identifier: MIT */
/*
 * src/lockname/lockname.c -- the table of lock names and the grammar over
 * it (lockname.h).  The one place that lists the names, their aliases and
 * families: the programs keep only their implementations, keyed by the
 * canonical names written here, and tests/cli/test_lockname.py checks that
 * every name a program offers is spelled so.
 */
#include "lockname.h"

#include <clof/lock/list.h>

#include <stdio.h>
#include <string.h>

const clof_lockfamily_t clof_lockfamilies[] = {
    {"basic", "one-level spinlocks and queue locks (include/clof/lock/)"},
    {"peer", "for comparison: other libraries' locks, and clof's embedding variants (benchmarks)"},
    {"numa", "hierarchical (NUMA-aware) locks with their own shape"},
    {"composition", "CLoF compositions: <part>-<part>[-...], lowest level first ('clof:' optional)"},
    {"layer", "layers over any lock: cr:<lock> asl:<lock> rw:<lock> bravo:<rwlock>"},
    {"rw", "reader-writer locks (CLOF_RWLOCK, clof bench --rw)"},
};
const size_t clof_nlockfamilies = sizeof clof_lockfamilies / sizeof clof_lockfamilies[0];

/* a basic lock's row of the registry (clof/lock/list.h) as a name and as a
 * part of compositions: the part answers to its abbreviation, the lock's
 * name and the lock's aliases */
#define BASIC_NAME_(X, id, ID, fit, part, aliases, about, paper)                \
    {#id, "basic", aliases, about, NULL},
#define BASIC_PART_(X, id, ID, fit, part, aliases, about, paper)                \
    {part, "composition", #id " " aliases, about, #id},

const clof_lockname_t clof_locknames[] = {
    CLOF_LOCK_REGISTRY(BASIC_NAME_, ~)
    {"pthread", "peer", "glibc none", "glibc's pthread mutex (no replacement)", NULL},
    {"glibc-adaptive", "peer", "pthread-adaptive adaptive", "glibc's adaptive mutex (PTHREAD_MUTEX_ADAPTIVE_NP: spins a while, then sleeps), for every default mutex", NULL},
    {"clh-lean", "peer", "", "clof's CLH as the embedding variant CLOF_CLH_LEAN, its first node outside the lock (checked as clh.first-outside)", NULL},
    {"ck-mcs", "peer", "", "Concurrency Kit's MCS lock", NULL},
    {"ck-clh", "peer", "", "Concurrency Kit's CLH lock", NULL},
    {"ck-ticket", "peer", "", "Concurrency Kit's ticket lock", NULL},
    {"ck-fas", "peer", "", "Concurrency Kit's fetch-and-store spinlock", NULL},
    {"vsync-mcs", "peer", "", "libvsync's MCS lock (clof-bench, where the build found libvsync)", NULL},
    {"vsync-ticket", "peer", "", "libvsync's ticket lock (clof-bench, where the build found libvsync)", NULL},
    {"vsync-clh", "peer", "", "libvsync's CLH lock (clof-bench, where the build found libvsync)", NULL},
    {"vsync-hemlock", "peer", "", "libvsync's Hemlock (clof-bench, where the build found libvsync)", NULL},
    {"vsync-ttas", "peer", "", "libvsync's TTAS lock (clof-bench, where the build found libvsync)", NULL},
    {"vsync-cna", "peer", "", "libvsync's CNA lock, its NUMA node from clof's topology (clof-bench, where the build found libvsync)", NULL},
    {"vsync-hmcs", "peer", "", "libvsync's HMCS lock, its tree from clof's topology (clof-bench, where the build found libvsync)", NULL},
    {"hmcs", "numa", "", "HMCS: an MCS lock per level of the hierarchy, every level", NULL},
    {"cna", "numa", "", "CNA: an MCS lock that prefers waiters of the holder's NUMA node", NULL},
    {"c-bo-mcs", "numa", "", "lock cohorting: backoff per node over a global MCS lock", NULL},
    {"c-tkt-tkt", "numa", "", "lock cohorting: ticket per node over a global ticket lock", NULL},
    {"c-ptl-tkt", "numa", "", "lock cohorting: ticket per node over a partitioned ticket lock", NULL},
    {"a-c-bo-bo", "numa", "", "abortable cohort lock: backoff over backoff", NULL},
    {"a-c-bo-clh", "numa", "", "abortable cohort lock: backoff per node over a CLH lock", NULL},
    {"rw-central", "rw", "", "reader-writer lock with one central reader count", NULL},
    {"pthread-rwlock", "rw", "", "glibc's pthread rwlock (no replacement)", NULL},
};
const size_t clof_nlocknames = sizeof clof_locknames / sizeof clof_locknames[0];

/* the parts of a composition (tools/gen_compositions.py builds them) */
const clof_lockname_t clof_lockparts[] = {
    CLOF_LOCK_REGISTRY(BASIC_PART_, ~)
};
const size_t clof_nlockparts = sizeof clof_lockparts / sizeof clof_lockparts[0];

static const char *const clof_layers[] = {"cr:", "asl:", "rw:", "bravo:"};
#define CLOF_NLAYERS (sizeof clof_layers / sizeof clof_layers[0])
#define CLOF_COMP_MAX_PARTS 4

/* a == b[0..n), '_' and '-' the same */
static bool word_eq(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n && a[i]; i++) {
        char x = a[i] == '_' ? '-' : a[i], y = b[i] == '_' ? '-' : b[i];
        if (x != y)
            return false;
    }
    return i == n && a[i] == 0;
}

/* w[0..n) is name or one of its space-separated aliases */
static bool names_match(const clof_lockname_t *e, const char *w, size_t n)
{
    if (word_eq(e->name, w, n) && strlen(e->name) == n)
        return true;
    const char *p = e->aliases;
    while (*p) {
        size_t len = strcspn(p, " ");
        char a[32];
        if (len < sizeof a) {
            memcpy(a, p, len);
            a[len] = 0;
            if (len == n && word_eq(a, w, n))
                return true;
        }
        p += len;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* the entry of t named w[0..n), else the first that has it as an alias (a
 * name wins: the part hem is Hemlock with CTR, though hemlock's own row
 * lists hem as an alias; the plain name hemlock is Hemlock, though
 * hemlock_ctr's row lists hemlock, which makes the part hemlock hem) */
static const clof_lockname_t *find(const clof_lockname_t *t, size_t nt, const char *w, size_t n)
{
    for (size_t i = 0; i < nt; i++)
        if (strlen(t[i].name) == n && word_eq(t[i].name, w, n))
            return &t[i];
    for (size_t i = 0; i < nt; i++)
        if (names_match(&t[i], w, n))
            return &t[i];
    return NULL;
}

/* s a composition without its clof: prefix: <abbrs> into out */
static bool comp_canon(const char *s, char *out, size_t size)
{
    size_t o = 0;
    int parts = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, "-");
        const clof_lockname_t *e = find(clof_lockparts, clof_nlockparts, p, len);
        if (e == NULL || ++parts > CLOF_COMP_MAX_PARTS)
            return false;
        if (o < size)
            o += (size_t)snprintf(out + o, size - o, "%s%s", parts > 1 ? "-" : "", e->name);
        if (p[len] == 0)
            break;
        p += len + 1;
    }
    return parts >= 2 && o < size;
}

static bool canon_rec(const char *s, char *out, size_t size, int depth)
{
    if (size == 0)
        return false;
    out[0] = 0;
    for (size_t i = 0; i < CLOF_NLAYERS; i++) {
        size_t n = strlen(clof_layers[i]);
        if (strncmp(s, clof_layers[i], n) == 0) {
            if (depth >= 3 || size <= n)
                return false;
            memcpy(out, clof_layers[i], n + 1);
            return canon_rec(s + n, out + n, size - n, depth + 1);
        }
    }
    if (strncmp(s, "clof:", 5) == 0)
        return comp_canon(s + 5, out, size);
    const clof_lockname_t *e = find(clof_locknames, clof_nlocknames, s, strlen(s));
    if (e != NULL) {
        snprintf(out, size, "%s", e->name);
        return strlen(e->name) < size;
    }
    if (strchr(s, '-') != NULL && comp_canon(s, out, size))
        return true;
    if (strchr(s, '_') != NULL && strchr(s, '-') == NULL) { /* mcs_tkt */
        char dash[CLOF_LOCKNAME_MAX];
        snprintf(dash, sizeof dash, "%s", s);
        for (char *c = dash; *c; c++)
            if (*c == '_')
                *c = '-';
        if (comp_canon(dash, out, size))
            return true;
    }
    snprintf(out, size, "%s", s);
    return false;
}

bool clof_lockname_canon(const char *in, char *out, size_t size)
{
    char low[CLOF_LOCKNAME_MAX + 32];
    size_t i;
    if (size == 0)
        return false;
    while (*in == ' ' || *in == '\t')
        in++;
    for (i = 0; in[i] && i + 1 < sizeof low; i++)
        low[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] - 'A' + 'a' : in[i]);
    while (i > 0 && (low[i - 1] == ' ' || low[i - 1] == '\t'))
        i--;
    low[i] = 0;
    if (in[i] != 0 && in[i] != ' ' && in[i] != '\t') { /* longer than any name */
        snprintf(out, size, "%s", low);
        return false;
    }
    if (!canon_rec(low, out, size, 0)) {
        snprintf(out, size, "%s", low);
        return false;
    }
    return true;
}

/* ---- did you mean ---------------------------------------------------------- */

/* edit distance (insert, delete, substitute; a swap of neighbours counts
 * one), capped at 9 */
static int distance(const char *a, const char *b)
{
    enum { M = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= M || lb >= M)
        return 9;
    int d[M][M];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1;
            d[i][j] = c;
        }
    return d[la][lb] > 9 ? 9 : d[la][lb];
}

typedef struct {
    int max, n, limit;
    char best[4][CLOF_LOCKNAME_MAX];
    int dist[4];
} pick_t;

/* cand near in: kept (as shown) among the max nearest, nearest first */
static void consider(pick_t *p, const char *in, const char *cand, const char *shown)
{
    int d = distance(in, cand);
    /* a name that starts with the input (hmc -> hmcs) is near too */
    if (strlen(in) >= 2 && strncmp(cand, in, strlen(in)) == 0 && d > 2)
        d = 2;
    if (d > p->limit)
        return;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->best[i], shown) == 0) {
            if (d < p->dist[i])
                p->dist[i] = d;
            return;
        }
    int at;
    if (p->n < p->max)
        at = p->n++;
    else if (d < p->dist[p->max - 1])
        at = p->max - 1;
    else
        return;
    snprintf(p->best[at], sizeof p->best[at], "%s", shown);
    p->dist[at] = d;
    for (int i = at; i > 0 && p->dist[i] < p->dist[i - 1]; i--) { /* keep sorted */
        char b[CLOF_LOCKNAME_MAX];
        int x = p->dist[i];
        memcpy(b, p->best[i], sizeof b);
        memcpy(p->best[i], p->best[i - 1], sizeof b);
        memcpy(p->best[i - 1], b, sizeof b);
        p->dist[i] = p->dist[i - 1];
        p->dist[i - 1] = x;
    }
}

/* every name of the grammar without layers: the table (an alias shown as
 * its name), the compositions of tkt mcs clh hem over 2 and 3 levels */
static void consider_grammar(pick_t *p, const char *in)
{
    static const char *const four[] = {"tkt", "mcs", "clh", "hem"};
    for (size_t i = 0; i < clof_nlocknames; i++) {
        consider(p, in, clof_locknames[i].name, clof_locknames[i].name);
        const char *a = clof_locknames[i].aliases;
        while (*a) {
            char w[32];
            size_t len = strcspn(a, " ");
            if (len < sizeof w) {
                memcpy(w, a, len);
                w[len] = 0;
                consider(p, in, w, clof_locknames[i].name);
            }
            a += len;
            while (*a == ' ')
                a++;
        }
    }
    for (int k = 0; k < 16 + 64; k++) {
        char c[24];
        if (k < 16)
            snprintf(c, sizeof c, "clof:%s-%s", four[k / 4], four[k % 4]);
        else
            snprintf(c, sizeof c, "clof:%s-%s-%s", four[(k - 16) / 16], four[(k - 16) / 4 % 4],
                     four[(k - 16) % 4]);
        consider(p, in, c + 5, c + 5);
        consider(p, in, c, c + 5); /* spelled with clof: */
    }
}

int clof_lockname_suggest(const char *in, clof_lockset_t known, int max, char *out, size_t size)
{
    char low[CLOF_LOCKNAME_MAX];
    pick_t p;
    memset(&p, 0, sizeof p);
    p.max = max < 1 ? 1 : max > 4 ? 4 : max;
    clof_lockname_canon(in, low, sizeof low);
    /* compositions are compared without their optional clof: */
    for (char *c; (c = strstr(low, "clof:")) != NULL;)
        memmove(c, c + 5, strlen(c + 5) + 1);
    /* layers: suggest for the inner name, then put them back */
    const char *inner = low;
    size_t pre = 0;
    if (known.first == NULL)
        for (bool more = true; more;) {
            more = false;
            for (size_t i = 0; i < CLOF_NLAYERS; i++)
                if (strncmp(inner, clof_layers[i], strlen(clof_layers[i])) == 0) {
                    inner += strlen(clof_layers[i]);
                    more = true;
                }
        }
    pre = (size_t)(inner - low);
    size_t len = strlen(inner);
    p.limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    if (known.first != NULL)
        for (size_t i = 0; i < known.n; i++) {
            const char *k = *(const char *const *)((const char *)known.first + i * known.stride);
            consider(&p, inner, k, k);
        }
    else
        consider_grammar(&p, inner);
    size_t o = 0;
    if (size > 0)
        out[0] = 0;
    for (int i = 0; i < p.n && o < size; i++)
        o += (size_t)snprintf(out + o, size - o, "%s%.*s%s", i ? ", " : "", (int)pre, low,
                              p.best[i]);
    return p.n;
}

void clof_lockname_unknown(const char *tool, const char *in, clof_lockset_t known, char *out,
                           size_t size)
{
    char canon[CLOF_LOCKNAME_MAX], near[4 * CLOF_LOCKNAME_MAX];
    bool ok = clof_lockname_canon(in, canon, sizeof canon);
    int k = clof_lockname_suggest(in, known, 3, near, sizeof near);
    if (ok)
        snprintf(out, size, "%s: no lock %s here%s%s%s (clof locks lists the names)", tool, canon,
                 k ? "; did you mean " : "", near, k ? "?" : "");
    else
        snprintf(out, size, "%s: unknown lock '%.40s'%s%s%s (clof locks lists them all)", tool, in,
                 k ? "; did you mean " : "", near, k ? "?" : "");
}
