/* SPDX-License-Identifier: MIT */
/*
 * clof-lockname -- the lock-name grammar (lockname.c) for the Python tools
 * and for `clof locks`.  Installed with the other internal programs.
 *
 *   clof-lockname canon [--tool T] NAME...   each NAME spelled canonically,
 *                                            one a line; exit 2 and one line
 *                                            (did you mean ...) on stderr for
 *                                            a name outside the grammar
 *   clof-lockname suggest NAME               the closest names, one line
 *   clof-lockname list [--family F]          the names, grouped, one a line
 *   clof-lockname names [--family F]         the canonical names only, one a
 *                                            line (for scripts: the basic
 *                                            locks in their registry's order)
 *   clof-lockname parts                      "<abbr> <lock> [<alias>...]" for
 *                                            every part of compositions, one
 *                                            a line
 *
 * Exit codes: 0 success, 2 bad usage or an unknown name.
 */
#include "lockname.h"

#include <stdio.h>
#include <string.h>

static int usage(FILE *f, int rc)
{
    fputs("usage: clof-lockname canon [--tool T] NAME...\n"
          "       clof-lockname suggest NAME\n"
          "       clof-lockname list [--family F]\n"
          "       clof-lockname names [--family F]\n"
          "       clof-lockname parts\n",
          f);
    return rc;
}

static bool is_word(const char *name, const char *w, size_t n)
{
    return strlen(name) == n && !strncmp(name, w, n);
}

/* whether the alias w[0..n) of e is worth showing: not e's own name, nor
 * the part's lock, nor a name of another entry of the same table (the part
 * hemnc lists hem, which is another part) */
static bool shown(const clof_lockname_t *e, bool part, const char *w, size_t n)
{
    if (n == 0 || is_word(e->name, w, n) || (e->lock && is_word(e->lock, w, n)))
        return false;
    const clof_lockname_t *t = part ? clof_lockparts : clof_locknames;
    size_t nt = part ? clof_nlockparts : clof_nlocknames;
    for (size_t i = 0; i < nt; i++)
        if (is_word(t[i].name, w, n))
            return false;
    return true;
}

/* the aliases of e that shown() keeps, each after sep, into out */
static const char *aliases_shown(const clof_lockname_t *e, bool part, const char *sep, char *out,
                                 size_t size)
{
    size_t o = 0;
    out[0] = 0;
    for (const char *p = e->aliases; *p;) {
        size_t n = strcspn(p, " ");
        if (shown(e, part, p, n) && o + n + strlen(sep) < size)
            o += (size_t)snprintf(out + o, size - o, "%s%.*s", sep, (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
    }
    return out;
}

/* " (also: a b)" or "" */
static const char *also(const clof_lockname_t *e, bool part, char *out, size_t size)
{
    char a[96];
    aliases_shown(e, part, " ", a, sizeof a);
    if (*a)
        snprintf(out, size, " (also:%s)", a);
    else
        out[0] = 0;
    return out;
}

static void list_family(const clof_lockfamily_t *f)
{
    char a[128];
    printf("%s: %s\n", f->name, f->about);
    if (strcmp(f->name, "composition") == 0) {
        printf("  %-22s %s\n", "<part>-<part>...",
               "2 to 4 parts, lowest level first; clof:<part>-... is the same");
        for (size_t i = 0; i < clof_nlockparts; i++)
            printf("  part %-17s %s%s\n", clof_lockparts[i].name, clof_lockparts[i].about,
                   also(&clof_lockparts[i], true, a, sizeof a));
        printf("  %-22s %s\n", "e.g. tkt-mcs", "ticket lock at the lowest level, MCS at the system level");
        return;
    }
    if (strcmp(f->name, "layer") == 0) {
        printf("  %-22s %s\n", "cr:<lock>", "concurrency restriction: park the surplus waiters");
        printf("  %-22s %s\n", "asl:<lock>", "LibASL: reorder for big/little cores (SLO)");
        printf("  %-22s %s\n", "rw:<lock>", "reader-writer cohort lock over a mutex");
        printf("  %-22s %s\n", "bravo:<rwlock>", "BRAVO: biased readers over an RW lock");
        return;
    }
    for (size_t i = 0; i < clof_nlocknames; i++) {
        const clof_lockname_t *e = &clof_locknames[i];
        if (strcmp(e->family, f->name) == 0)
            printf("  %-22s %s%s\n", e->name, e->about, also(e, false, a, sizeof a));
    }
}

/* names --family F: F's names, one a line; parts: "<abbr> <lock> [<alias>...]" a line */
static int names(const char *fam)
{
    for (size_t i = 0; i < clof_nlocknames; i++)
        if (fam == NULL || strcmp(clof_locknames[i].family, fam) == 0)
            puts(clof_locknames[i].name);
    return 0;
}

static int parts(void)
{
    char a[128];
    for (size_t i = 0; i < clof_nlockparts; i++) {
        const clof_lockname_t *e = &clof_lockparts[i];
        printf("%s %s%s\n", e->name, e->lock, aliases_shown(e, true, " ", a, sizeof a));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr, 2);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return usage(stdout, 0);
    if (!strcmp(cmd, "list")) {
        const char *fam = NULL;
        if (argc == 4 && !strcmp(argv[2], "--family"))
            fam = argv[3];
        else if (argc != 2)
            return usage(stderr, 2);
        bool found = false;
        for (size_t i = 0; i < clof_nlockfamilies; i++)
            if (fam == NULL || !strcmp(fam, clof_lockfamilies[i].name)) {
                list_family(&clof_lockfamilies[i]);
                found = true;
            }
        if (!found) {
            fprintf(stderr, "clof locks: unknown family '%s'; the families:", fam);
            for (size_t i = 0; i < clof_nlockfamilies; i++)
                fprintf(stderr, " %s", clof_lockfamilies[i].name);
            fputc('\n', stderr);
            return 2;
        }
        return 0;
    }
    if (!strcmp(cmd, "names") && (argc == 2 || (argc == 4 && !strcmp(argv[2], "--family"))))
        return names(argc == 4 ? argv[3] : NULL);
    if (!strcmp(cmd, "parts") && argc == 2)
        return parts();
    if (!strcmp(cmd, "suggest") && argc == 3) {
        char near[4 * CLOF_LOCKNAME_MAX];
        clof_lockname_suggest(argv[2], (clof_lockset_t){0}, 3, near, sizeof near);
        puts(near);
        return 0;
    }
    if (!strcmp(cmd, "canon")) {
        int i = 2;
        const char *tool = "clof";
        if (i + 1 < argc && !strcmp(argv[i], "--tool")) {
            tool = argv[i + 1];
            i += 2;
        }
        if (i >= argc)
            return usage(stderr, 2);
        int rc = 0;
        for (; i < argc; i++) {
            char out[CLOF_LOCKNAME_MAX + 64 * 4];
            if (clof_lockname_canon(argv[i], out, sizeof out)) {
                puts(out);
            } else {
                clof_lockname_unknown(tool, argv[i], (clof_lockset_t){0}, out, sizeof out);
                fprintf(stderr, "%s\n", out);
                rc = 2;
            }
        }
        return rc;
    }
    return usage(stderr, 2);
}
