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
          "       clof-lockname list [--family F]\n",
          f);
    return rc;
}

static void list_family(const clof_lockfamily_t *f)
{
    printf("%s: %s\n", f->name, f->about);
    if (strcmp(f->name, "composition") == 0) {
        printf("  %-22s %s\n", "<part>-<part>...",
               "2 to 4 parts, lowest level first; clof:<part>-... is the same");
        for (size_t i = 0; i < clof_nlockparts; i++)
            printf("  part %-17s %s%s%s%s\n", clof_lockparts[i].name, clof_lockparts[i].about,
                   *clof_lockparts[i].aliases ? " (also: " : "", clof_lockparts[i].aliases,
                   *clof_lockparts[i].aliases ? ")" : "");
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
        if (strcmp(e->family, f->name) != 0)
            continue;
        printf("  %-22s %s%s%s%s\n", e->name, e->about, *e->aliases ? " (also: " : "", e->aliases,
               *e->aliases ? ")" : "");
    }
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
