/* SPDX-License-Identifier: MIT */
/*
 * libclof: the hierarchy file (docs/topology.md "The hierarchy file").
 *
 *   clof-topology 1                 first statement, always
 *   name TEXT                       optional description
 *   cpus LIST                       the machine's cpus (optional when the
 *                                   first level lists groups)
 *   level NAME [threshold N] [blocks N]
 *   group LIST                      one cohort of the current level
 *   big LIST | little LIST          core types (default big)
 *
 * '#' starts a comment.  Every check names the file and the line; the
 * topology is built only after the whole file has been checked.
 */
#include "topology_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAXTOK 32

typedef struct plevel {
    int kind;            /* -1: unused */
    unsigned line;       /* the "level" line */
    uint32_t threshold;
    uint32_t blocks;     /* 0: groups are listed */
    uint32_t ngroups;
    uint32_t *label;     /* [MAX] group index, UINT32_MAX = none */
    unsigned *gline;     /* [MAX] line of each group (by group index) */
} plevel_t;

typedef struct pstate {
    const char *file;
    clof_topo_error_t *err;
    unsigned line;
    uint8_t *cpus;       /* [MAX] the universe */
    uint8_t *tmp;        /* [MAX] scratch set */
    bool have_cpus;      /* universe known */
    unsigned cpus_line;  /* 0 when the universe came from a level */
    const char *cpus_from; /* description for messages */
    char cpus_from_buf[64];
    plevel_t lv[CLOF_TOPO_MAX_LEVELS];
    int nlv;
    uint8_t *type;       /* [MAX] 0 unset, 1 big, 2 little */
    unsigned *type_line; /* [MAX] */
    char name[CLOF_TOPO_TEXT_MAX];
} pstate_t;

static const char *kind_list = "core, cache, numa, package or system";

static bool is_number(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* a decimal number in [lo, hi] */
static int get_number(pstate_t *ps, const char *what, const char *tok,
                      uint32_t lo, uint32_t hi, uint32_t *out)
{
    if (!tok)
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "expected a number after '%s', got the end of the line", what);
    if (!is_number(tok))
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "expected a number after '%s', got '%s'", what, tok);
    errno = 0;
    unsigned long long v = strtoull(tok, NULL, 10);
    if (errno || v < lo || v > hi)
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "%s %s is out of range: expected %u to %u", what, tok, lo, hi);
    *out = (uint32_t)v;
    return 0;
}

/* parse a cpu list token into ps->tmp; reports duplicates and bad syntax */
static int get_cpulist(pstate_t *ps, const char *what, const char *tok, int *count)
{
    if (!tok)
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "expected a cpu list such as 0-3,8 after '%s', got the end of the line",
                               what);
    memset(ps->tmp, 0, CLOF_TOPO_MAX_CPUS);
    const char *p = tok;
    int n = 0;
    for (;;) {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto syntax;
        errno = 0;
        unsigned long a = strtoul(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p))
                goto syntax;
            b = strtoul(p, &end, 10);
            p = end;
            if (b < a)
                return clof_topo_fail_(ps->err, ps->file, ps->line,
                                       "range %lu-%lu in '%s' goes backwards: expected LOW-HIGH",
                                       a, b, tok);
        }
        if (errno || b >= CLOF_TOPO_MAX_CPUS)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "cpu %lu in '%s' is too large: cpu ids are below %u",
                                   b, tok, CLOF_TOPO_MAX_CPUS);
        for (unsigned long c = a; c <= b; c++) {
            if (ps->tmp[c])
                return clof_topo_fail_(ps->err, ps->file, ps->line,
                                       "cpu %lu is listed twice in '%s'", c, tok);
            ps->tmp[c] = 1;
            n++;
        }
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\0')
            break;
        goto syntax;
    }
    *count = n;
    return 0;
syntax:
    return clof_topo_fail_(ps->err, ps->file, ps->line,
                           "expected a cpu list such as 0-3,8 after '%s', got '%s'", what, tok);
}

static int no_more(pstate_t *ps, char **tok, int ntok, int used, const char *after)
{
    if (ntok > used)
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "unexpected '%s' after '%s'", tok[used], after);
    return 0;
}

static int list_format(const uint8_t *set, char *buf, size_t size)
{
    clof_topo_cpulist_format(buf, size, set, CLOF_TOPO_MAX_CPUS);
    return 0;
}

/* every cpu of the current set ps->tmp must be in the universe */
static int check_in_universe(pstate_t *ps)
{
    if (!ps->have_cpus)
        return 0;
    for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
        if (ps->tmp[c] && !ps->cpus[c])
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "cpu %u is not one of the machine's cpus (%s)",
                                   c, ps->cpus_from);
    return 0;
}

/* close the level being read: blocks, coverage, nesting in the level below */
static int finish_level(pstate_t *ps, plevel_t *L)
{
    const char *kn = clof_topo_level_name((clof_level_kind_t)L->kind);
    if (L->kind == CLOF_LEVEL_SYSTEM) {
        if (!ps->have_cpus)
            return clof_topo_fail_(ps->err, ps->file, L->line,
                                   "level system needs the cpus: expected 'cpus LIST' "
                                   "or a lower level with groups before it");
        return 0;
    }
    if (L->blocks) {
        if (!ps->have_cpus)
            return clof_topo_fail_(ps->err, ps->file, L->line,
                                   "'blocks %u' needs the cpus: expected 'cpus LIST' before "
                                   "this level", L->blocks);
        uint32_t k = 0, total = 0;
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
            if (ps->cpus[c])
                total++;
        if (total % L->blocks)
            return clof_topo_fail_(ps->err, ps->file, L->line,
                                   "'blocks %u' does not divide the %u cpus into equal groups",
                                   L->blocks, total);
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
            if (ps->cpus[c]) {
                L->label[c] = k / L->blocks;
                if (k % L->blocks == 0)
                    L->gline[k / L->blocks] = L->line;
                k++;
            }
        L->ngroups = total / L->blocks;
    } else if (L->ngroups == 0) {
        return clof_topo_fail_(ps->err, ps->file, L->line,
                               "level %s has no groups: expected 'group LIST' lines or "
                               "'blocks N' after it", kn);
    }
    if (!ps->have_cpus) { /* the first level with groups defines the cpus */
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
            ps->cpus[c] = L->label[c] != UINT32_MAX;
        ps->have_cpus = true;
        snprintf(ps->cpus_from_buf, sizeof ps->cpus_from_buf,
                 "the cpus of level %s at line %u", kn, L->line);
        ps->cpus_from = ps->cpus_from_buf;
    }
    /* coverage */
    memset(ps->tmp, 0, CLOF_TOPO_MAX_CPUS);
    bool missing = false;
    for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
        if (ps->cpus[c] && L->label[c] == UINT32_MAX)
            ps->tmp[c] = 1, missing = true;
    if (missing) {
        char buf[160];
        list_format(ps->tmp, buf, sizeof buf);
        return clof_topo_fail_(ps->err, ps->file, L->line,
                               "level %s leaves cpus %s in no group: expected every cpu "
                               "(%s) in exactly one group", kn, buf, ps->cpus_from);
    }
    /* nesting: every group of the level below inside one group of this one */
    if (ps->nlv >= 2) {
        plevel_t *B = &ps->lv[ps->nlv - 2];
        if (B == L)
            return 0;
        uint32_t *up = malloc((size_t)B->ngroups * sizeof *up);
        uint32_t *first = malloc((size_t)B->ngroups * sizeof *first);
        if (!up || !first) {
            free(up), free(first);
            return clof_topo_fail_(ps->err, ps->file, L->line, "out of memory");
        }
        for (uint32_t g = 0; g < B->ngroups; g++)
            up[g] = UINT32_MAX;
        int rc = 0;
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS && rc == 0; c++) {
            if (!ps->cpus[c])
                continue;
            uint32_t g = B->label[c];
            if (up[g] == UINT32_MAX) {
                up[g] = L->label[c];
                first[g] = c;
            } else if (up[g] != L->label[c]) {
                const char *bn = clof_topo_level_name((clof_level_kind_t)B->kind);
                rc = clof_topo_fail_(
                    ps->err, ps->file, L->gline[L->label[c]],
                    "levels do not nest: this %s group has cpu %u but not cpu %u, which "
                    "share the %s group at line %u (expected each %s group inside one %s group)",
                    kn, c, first[g], bn, B->gline[g], bn, kn);
            }
        }
        free(up);
        free(first);
        return rc;
    }
    return 0;
}

static int statement(pstate_t *ps, char **tok, int ntok, char *rest, bool *magic)
{
    const char *kw = tok[0];
    if (!*magic) {
        if (strcmp(kw, "clof-topology") != 0)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "expected 'clof-topology 1' as the first statement, got '%s'",
                                   kw);
        if (ntok < 2 || strcmp(tok[1], "1") != 0)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "unsupported format version '%s': expected 'clof-topology 1'",
                                   ntok < 2 ? "" : tok[1]);
        *magic = true;
        return no_more(ps, tok, ntok, 2, "clof-topology 1");
    }
    if (strcmp(kw, "clof-topology") == 0)
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "'clof-topology' given twice: it is the first statement only");
    if (strcmp(kw, "name") == 0) {
        if (!rest || !*rest)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "expected a description after 'name'");
        clof_topo_strlcpy_(ps->name, rest, sizeof ps->name);
        return 0;
    }
    if (strcmp(kw, "cpus") == 0) {
        if (ps->cpus_line)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "'cpus' given twice (first at line %u)", ps->cpus_line);
        if (ps->nlv)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "'cpus' after a level: expected it before the first 'level'");
        int n;
        if (get_cpulist(ps, "cpus", ntok > 1 ? tok[1] : NULL, &n) != 0)
            return -1;
        memcpy(ps->cpus, ps->tmp, CLOF_TOPO_MAX_CPUS);
        ps->have_cpus = true;
        ps->cpus_line = ps->line;
        snprintf(ps->cpus_from_buf, sizeof ps->cpus_from_buf, "'cpus' at line %u", ps->line);
        ps->cpus_from = ps->cpus_from_buf;
        return no_more(ps, tok, ntok, 2, "the cpu list");
    }
    if (strcmp(kw, "level") == 0) {
        if (ntok < 2)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "expected a level name (%s) after 'level'", kind_list);
        if (is_number(tok[1]))
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "expected a level name (%s), got the number '%s'",
                                   kind_list, tok[1]);
        int k = clof_topo_level_from_name(tok[1]);
        if (k < 0)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "unknown level '%s': expected %s", tok[1], kind_list);
        for (int i = 0; i < ps->nlv; i++)
            if (ps->lv[i].kind == k)
                return clof_topo_fail_(ps->err, ps->file, ps->line,
                                       "level %s given twice (first at line %u)", tok[1],
                                       ps->lv[i].line);
        if (ps->nlv) {
            plevel_t *P = &ps->lv[ps->nlv - 1];
            if (P->kind > k)
                return clof_topo_fail_(
                    ps->err, ps->file, ps->line,
                    "level %s after level %s: levels go from the leaves up (core, cache, "
                    "numa, package, system)",
                    tok[1], clof_topo_level_name((clof_level_kind_t)P->kind));
            if (finish_level(ps, P) != 0)
                return -1;
        }
        plevel_t *L = &ps->lv[ps->nlv++];
        L->kind = k;
        L->line = ps->line;
        L->threshold = CLOF_TOPO_DEFAULT_THRESHOLD;
        for (int i = 2; i < ntok; i += 2) {
            if (strcmp(tok[i], "threshold") == 0) {
                if (get_number(ps, "threshold", i + 1 < ntok ? tok[i + 1] : NULL, 1,
                               0x7fffffffu, &L->threshold) != 0)
                    return -1;
            } else if (strcmp(tok[i], "blocks") == 0) {
                if (k == CLOF_LEVEL_SYSTEM)
                    return clof_topo_fail_(ps->err, ps->file, ps->line,
                                           "level system is one group: it takes no 'blocks'");
                if (get_number(ps, "blocks", i + 1 < ntok ? tok[i + 1] : NULL, 1,
                               CLOF_TOPO_MAX_CPUS, &L->blocks) != 0)
                    return -1;
            } else {
                return clof_topo_fail_(ps->err, ps->file, ps->line,
                                       "unexpected '%s' after 'level %s': expected "
                                       "'threshold N' or 'blocks N'", tok[i], tok[1]);
            }
        }
        return 0;
    }
    if (strcmp(kw, "group") == 0) {
        if (!ps->nlv)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "'group' outside a level: expected 'level NAME' before it");
        plevel_t *L = &ps->lv[ps->nlv - 1];
        const char *kn = clof_topo_level_name((clof_level_kind_t)L->kind);
        if (L->kind == CLOF_LEVEL_SYSTEM)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "level system is one group of all cpus: it takes no "
                                   "'group' lines");
        if (L->blocks)
            return clof_topo_fail_(ps->err, ps->file, ps->line,
                                   "level %s has 'blocks %u' (line %u): it takes no 'group' lines",
                                   kn, L->blocks, L->line);
        int n;
        if (get_cpulist(ps, "group", ntok > 1 ? tok[1] : NULL, &n) != 0)
            return -1;
        if (check_in_universe(ps) != 0)
            return -1;
        uint32_t g = L->ngroups;
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++) {
            if (!ps->tmp[c])
                continue;
            if (L->label[c] != UINT32_MAX)
                return clof_topo_fail_(ps->err, ps->file, ps->line,
                                       "cpu %u is already in the %s group at line %u: groups of "
                                       "a level must not overlap", c, kn, L->gline[L->label[c]]);
            L->label[c] = g;
        }
        L->gline[g] = ps->line;
        L->ngroups++;
        return no_more(ps, tok, ntok, 2, "the cpu list");
    }
    if (strcmp(kw, "big") == 0 || strcmp(kw, "little") == 0) {
        int n;
        if (get_cpulist(ps, kw, ntok > 1 ? tok[1] : NULL, &n) != 0)
            return -1;
        if (check_in_universe(ps) != 0)
            return -1;
        uint8_t ty = kw[0] == 'b' ? 1 : 2;
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++) {
            if (!ps->tmp[c])
                continue;
            if (ps->type[c])
                return clof_topo_fail_(ps->err, ps->file, ps->line,
                                       "cpu %u already has a core type (line %u)", c,
                                       ps->type_line[c]);
            ps->type[c] = ty;
            ps->type_line[c] = ps->line;
        }
        return no_more(ps, tok, ntok, 2, "the cpu list");
    }
    if (is_number(kw))
        return clof_topo_fail_(ps->err, ps->file, ps->line,
                               "expected a statement (name, cpus, level, group, big, little), "
                               "got the number '%s'", kw);
    return clof_topo_fail_(ps->err, ps->file, ps->line,
                           "unknown statement '%s': expected name, cpus, level, group, big or "
                           "little", kw);
}

static void pstate_free(pstate_t *ps)
{
    free(ps->cpus);
    free(ps->tmp);
    free(ps->type);
    free(ps->type_line);
    for (int i = 0; i < CLOF_TOPO_MAX_LEVELS; i++) {
        free(ps->lv[i].label);
        free(ps->lv[i].gline);
    }
}

int clof_topology_parse(clof_topology_t *t, const char *text, size_t len,
                        const char *filename, clof_topo_error_t *err)
{
    memset(t, 0, sizeof *t);
    if (err)
        memset(err, 0, sizeof *err);
    pstate_t ps;
    memset(&ps, 0, sizeof ps);
    ps.file = filename ? filename : "<string>";
    ps.err = err;
    ps.cpus = calloc(CLOF_TOPO_MAX_CPUS, 1);
    ps.tmp = calloc(CLOF_TOPO_MAX_CPUS, 1);
    ps.type = calloc(CLOF_TOPO_MAX_CPUS, 1);
    ps.type_line = calloc(CLOF_TOPO_MAX_CPUS, sizeof(unsigned));
    bool ok = ps.cpus && ps.tmp && ps.type && ps.type_line;
    for (int i = 0; i < CLOF_TOPO_MAX_LEVELS && ok; i++) {
        ps.lv[i].kind = -1;
        ps.lv[i].label = malloc(CLOF_TOPO_MAX_CPUS * sizeof(uint32_t));
        ps.lv[i].gline = calloc(CLOF_TOPO_MAX_CPUS, sizeof(unsigned));
        ok = ps.lv[i].label && ps.lv[i].gline;
        if (ok)
            memset(ps.lv[i].label, 0xff, CLOF_TOPO_MAX_CPUS * sizeof(uint32_t));
    }
    char *line = malloc(len + 1);
    if (!ok || !line) {
        free(line);
        pstate_free(&ps);
        return clof_topo_fail_(err, ps.file, 0, "out of memory");
    }

    int rc = 0;
    bool magic = false;
    size_t pos = 0;
    unsigned lineno = 0;
    while (pos < len && rc == 0) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        size_t n = e - pos;
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = e + 1;
        ps.line = ++lineno;
        if (memchr(line, '\0', n)) {
            rc = clof_topo_fail_(err, ps.file, ps.line, "a NUL byte: expected text");
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        /* the rest of the line after the keyword, for 'name' */
        char *rest = line;
        while (*rest && isspace((unsigned char)*rest))
            rest++;
        while (*rest && !isspace((unsigned char)*rest))
            rest++;
        while (*rest && isspace((unsigned char)*rest))
            rest++;
        char restbuf[CLOF_TOPO_TEXT_MAX];
        clof_topo_strlcpy_(restbuf, rest, sizeof restbuf);
        for (size_t k = strlen(restbuf); k > 0 && isspace((unsigned char)restbuf[k - 1]); k--)
            restbuf[k - 1] = '\0';
        char *tok[MAXTOK];
        int ntok = 0;
        for (char *s = strtok(line, " \t\r\v\f"); s; s = strtok(NULL, " \t\r\v\f")) {
            if (ntok == MAXTOK) {
                rc = clof_topo_fail_(err, ps.file, ps.line, "too many words on one line");
                break;
            }
            tok[ntok++] = s;
        }
        if (rc || ntok == 0)
            continue;
        rc = statement(&ps, tok, ntok, restbuf, &magic);
    }
    free(line);
    if (rc == 0 && !magic)
        rc = clof_topo_fail_(err, ps.file, lineno ? lineno : 1,
                             "empty file: expected 'clof-topology 1'");
    if (rc == 0 && ps.nlv)
        rc = finish_level(&ps, &ps.lv[ps.nlv - 1]);
    if (rc == 0 && !ps.have_cpus)
        rc = clof_topo_fail_(err, ps.file, lineno,
                             "no cpus: expected 'cpus LIST' or a level with groups");
    /* core types name only cpus of the machine (checked when the universe
     * came after them) */
    if (rc == 0)
        for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
            if (ps.type[c] && !ps.cpus[c]) {
                rc = clof_topo_fail_(err, ps.file, ps.type_line[c],
                                     "cpu %u is not one of the machine's cpus (%s)", c,
                                     ps.cpus_from);
                break;
            }
    if (rc != 0) {
        pstate_free(&ps);
        return -1;
    }

    /* build */
    uint32_t ncpus = 0;
    for (uint32_t c = 0; c < CLOF_TOPO_MAX_CPUS; c++)
        if (ps.cpus[c])
            ncpus = c + 1;
    topo_spec_t s;
    memset(&s, 0, sizeof s);
    s.ncpus = ncpus;
    s.present = ps.cpus;
    for (int i = 0; i < ps.nlv; i++) {
        if (ps.lv[i].kind == CLOF_LEVEL_SYSTEM)
            break;
        s.kind[s.nlevels] = (clof_level_kind_t)ps.lv[i].kind;
        s.threshold[s.nlevels] = ps.lv[i].threshold;
        s.label[s.nlevels] = ps.lv[i].label;
        s.nlevels++;
    }
    s.kind[s.nlevels] = CLOF_LEVEL_SYSTEM;
    s.threshold[s.nlevels] = CLOF_TOPO_DEFAULT_THRESHOLD;
    if (ps.nlv && ps.lv[ps.nlv - 1].kind == CLOF_LEVEL_SYSTEM)
        s.threshold[s.nlevels] = ps.lv[ps.nlv - 1].threshold;
    s.nlevels++;
    for (uint32_t c = 0; c < ncpus; c++)
        ps.type[c] = ps.type[c] == 2 ? CLOF_CORE_LITTLE : CLOF_CORE_BIG;
    s.core_type = ps.type;
    rc = clof_topo_build_(t, &s);
    if (rc == 0) {
        t->source = CLOF_TOPO_SRC_FILE;
        clof_topo_strlcpy_(t->origin, ps.file, sizeof t->origin);
        clof_topo_strlcpy_(t->name, ps.name, sizeof t->name);
    } else {
        clof_topo_fail_(err, ps.file, 0, "out of memory building the topology");
    }
    pstate_free(&ps);
    return rc;
}

int clof_topology_load_file(clof_topology_t *t, const char *path,
                            clof_topo_error_t *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return clof_topo_fail_(err, path, 0, "cannot open: %s", strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (len == cap) {
            if (cap >= ((size_t)64 << 20)) {
                fclose(f);
                free(buf);
                return clof_topo_fail_(err, path, 0, "larger than 64 MiB: not a hierarchy file");
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf)
        return clof_topo_fail_(err, path, 0, "out of memory");
    if (bad) {
        free(buf);
        return clof_topo_fail_(err, path, 0, "read error");
    }
    int rc = clof_topology_parse(t, buf, len, path, err);
    free(buf);
    return rc;
}
