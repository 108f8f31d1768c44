/* SPDX-License-Identifier: MIT */
/*
 * clof-topology -- print the machine's hierarchy (the C half of
 * `clof topology`; see docs/topology.md).
 *
 *   clof-topology [--json | --dump] [--all] [--topology FILE | --emulate SHAPE]
 *                 [--sysfs ROOT] [--quiet]
 *   clof-topology --check FILE
 *
 * Default output is a tree of every level the source knows (levels the lock
 * hierarchy leaves out are marked), then the lock levels.  --json and
 * --dump print the lock hierarchy (every level with --all) as JSON or as a
 * hierarchy file.  Exit status: 0 ok, 1 --check found the file invalid,
 * 2 bad usage or bad input.
 */
#include <clof/topology.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_text =
    "usage: clof-topology [--json | --dump] [--all] [--topology FILE | --emulate SHAPE]\n"
    "                     [--sysfs ROOT] [--quiet]\n"
    "       clof-topology --check FILE\n"
    "\n"
    "  (default)        the hierarchy as a tree, then the levels locks use\n"
    "  --json           the lock hierarchy as one JSON object\n"
    "  --dump           the lock hierarchy as a hierarchy file\n"
    "  --all            --json/--dump: every level found, also those locks leave out\n"
    "  --check FILE     validate a hierarchy file (exit 1 with file:line: why)\n"
    "  --topology FILE  read the hierarchy from FILE (else $CLOF_TOPOLOGY)\n"
    "  --emulate SHAPE  an emulated machine, e.g. package:2,numa:2,cache:8,core:4\n"
    "                   (else $CLOF_EMULATE); or the path of a hierarchy file\n"
    "  --sysfs ROOT     read sysfs under ROOT (else $CLOF_SYSFS_ROOT, else /sys)\n"
    "  --quiet          no warning when sysfs is incomplete\n";

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "clof-topology: %s\n", why);
    fputs(usage_text, stderr);
    return 2;
}

static const char *title(clof_level_kind_t k)
{
    static const char *const t[] = {"Core", "Cache", "NUMA", "Package", "System"};
    return t[k];
}

static const char *noun(clof_level_kind_t k, bool plural)
{
    static const char *const s[] = {"core", "cache group", "NUMA node", "package", "system"};
    static const char *const p[] = {"cores", "cache groups", "NUMA nodes", "packages", "systems"};
    return plural ? p[k] : s[k];
}

static char *listbuf;
static uint8_t *setbuf_;

static const char *cohort_cpus(const clof_topology_t *t, uint32_t l, uint32_t c)
{
    const clof_topo_level_t *L = &t->level[l];
    memset(setbuf_, 0, t->ncpus);
    for (uint32_t i = L->cpu_start[c]; i < L->cpu_start[c + 1]; i++)
        setbuf_[L->cpus[i]] = 1;
    clof_topo_cpulist_format(listbuf, CLOF_TOPO_MAX_CPUS * 6, setbuf_, t->ncpus);
    return listbuf;
}

static void tree(const clof_topology_t *t, uint32_t l, uint32_t c, int depth, bool mixed)
{
    const clof_topo_level_t *L = &t->level[l];
    char label[64];
    if (L->kind == CLOF_LEVEL_SYSTEM)
        snprintf(label, sizeof label, "%*sSystem", depth * 2, "");
    else
        snprintf(label, sizeof label, "%*s%s #%u", depth * 2, "", title(L->kind), c);
    uint32_t n = L->cpu_start[c + 1] - L->cpu_start[c];
    printf("%-28s %s %s", label, n == 1 ? "cpu " : "cpus", cohort_cpus(t, l, c));
    if (l == 0 && mixed) {
        uint32_t little = 0;
        for (uint32_t i = L->cpu_start[c]; i < L->cpu_start[c + 1]; i++)
            little += clof_topo_is_little(t, L->cpus[i]);
        printf("  %s", little == 0 ? "big" : little == n ? "little" : "big+little");
    }
    printf("\n");
    if (l == 0)
        return;
    for (uint32_t k = L->child_start[c]; k < L->child_start[c + 1]; k++)
        tree(t, l - 1, k, depth + 1, mixed);
}

static void print_tree(const clof_topology_t *all, const clof_topology_t *lock)
{
    bool mixed = false;
    uint32_t nlittle = 0;
    for (uint32_t c = 0; c < all->ncpus; c++)
        if (all->present[c] && clof_topo_is_little(all, c))
            nlittle++;
    mixed = nlittle > 0;
    clof_topo_cpulist_format(listbuf, CLOF_TOPO_MAX_CPUS * 6, all->present, all->ncpus);
    printf("Machine: %u cpus (%s), from %s (%s)%s%s\n", all->npresent, listbuf,
           clof_topo_source_name(all->source), all->origin, all->name[0] ? ": " : "",
           all->name);
    tree(all, all->nlevels - 1, 0, 0, mixed);

    /* the shape, from the top down */
    printf("Shape:");
    for (int l = (int)all->nlevels - 2; l >= 0; l--) {
        const clof_topo_level_t *L = &all->level[l];
        uint32_t mn = UINT32_MAX, mx = 0;
        for (uint32_t c = 0; c < L->ncohorts; c++) {
            if (L->size[c] < mn)
                mn = L->size[c];
            if (L->size[c] > mx)
                mx = L->size[c];
        }
        printf(" %u %s", L->ncohorts, noun(L->kind, L->ncohorts != 1));
        if (mn == mx)
            printf(" (%u cpu%s%s),", mn, mn == 1 ? "" : "s", L->ncohorts > 1 ? " each" : "");
        else
            printf(" (%u-%u cpus),", mn, mx);
    }
    printf(" %u cpus\n", all->npresent);

    printf("Levels for locks (leaves up):");
    for (uint32_t l = 0; l < lock->nlevels; l++)
        printf(" %s(%u)", clof_topo_level_name(lock->level[l].kind), lock->level[l].ncohorts);
    printf("\n");
    bool first = true;
    for (uint32_t l = 0; l + 1 < all->nlevels; l++) {
        clof_level_kind_t k = all->level[l].kind;
        if (clof_topo_level_index(lock, k) >= 0)
            continue;
        /* why: single cpus, the system's one cohort, or the same cohorts
         * as a kept level below */
        const char *why = "1 cpu each";
        static char b[64];
        if (all->level[l].ncohorts == 1) {
            why = "same cohorts as system";
        } else if (all->level[l].ncohorts != all->npresent) {
            why = "?";
            for (int u = (int)l - 1; u >= 0; u--)
                if (clof_topo_level_index(lock, all->level[u].kind) >= 0 &&
                    all->level[u].ncohorts == all->level[l].ncohorts) {
                    snprintf(b, sizeof b, "same cohorts as %s",
                             clof_topo_level_name(all->level[u].kind));
                    why = b;
                    break;
                }
        }
        printf("%s %s (%s)", first ? "  left out:" : ",", clof_topo_level_name(k), why);
        first = false;
    }
    if (!first)
        printf("\n");
    printf("Thresholds:");
    for (uint32_t l = 0; l < lock->nlevels; l++)
        printf(" %s=%u", clof_topo_level_name(lock->level[l].kind), lock->level[l].threshold);
    printf("\n");
    if (!mixed) {
        printf("Core types: all big (symmetric)\n");
    } else {
        for (uint32_t c = 0; c < all->ncpus; c++)
            setbuf_[c] = all->present[c] && clof_topo_is_little(all, c);
        clof_topo_cpulist_format(listbuf, CLOF_TOPO_MAX_CPUS * 6, setbuf_, all->ncpus);
        printf("Core types: %u big, %u little (little: %s)\n", all->npresent - nlittle, nlittle,
               listbuf);
    }
    if (all->warning[0])
        printf("Warning: %s\n", all->warning);
}

int main(int argc, char **argv)
{
    bool json = false, dump = false, all = false, quiet = false;
    const char *check = NULL;
    clof_topo_opts_t opts = {NULL, NULL, NULL, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                                             \
    do {                                                                       \
        if (!next)                                                             \
            return usage("an option needs an argument");                       \
        i++;                                                                   \
    } while (0)
        if (!strcmp(a, "--json"))
            json = true;
        else if (!strcmp(a, "--dump"))
            dump = true;
        else if (!strcmp(a, "--all"))
            all = true;
        else if (!strcmp(a, "--quiet"))
            quiet = true;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(a, "--check")) {
            NEED_ARG();
            check = next;
        } else if (!strcmp(a, "--topology")) {
            NEED_ARG();
            opts.file = next;
        } else if (!strcmp(a, "--emulate")) {
            NEED_ARG();
            opts.emulate = next;
        } else if (!strcmp(a, "--sysfs")) {
            NEED_ARG();
            opts.sysfs_root = next;
        } else {
            char why[256];
            snprintf(why, sizeof why, "unknown argument '%.200s'", a);
            return usage(why);
        }
    }
    if (json && dump)
        return usage("--json and --dump exclude each other");
    if (opts.file && opts.emulate)
        return usage("--topology and --emulate exclude each other");
    listbuf = malloc(CLOF_TOPO_MAX_CPUS * 6);
    setbuf_ = malloc(CLOF_TOPO_MAX_CPUS);
    if (!listbuf || !setbuf_)
        return 2;

    clof_topo_error_t err;
    if (check) {
        if (opts.file || opts.emulate || json || dump)
            return usage("--check takes no other option");
        clof_topology_t t;
        if (clof_topology_load_file(&t, check, &err) != 0) {
            fprintf(stderr, "clof-topology: %s\n", err.msg);
            return err.line ? 1 : 2;
        }
        printf("%s: ok: %u cpus, levels", check, t.npresent);
        for (uint32_t l = 0; l < t.nlevels; l++)
            printf(" %s(%u)", clof_topo_level_name(t.level[l].kind), t.level[l].ncohorts);
        printf("\n");
        clof_topology_free(&t);
        return 0;
    }

    clof_topology_t tall, tlock;
    /* a sysfs root named on the command line must be one: no flat fallback */
    unsigned strict = opts.sysfs_root ? CLOF_TOPO_NO_FLAT : 0;
    opts.flags = CLOF_TOPO_KEEP_ALL | CLOF_TOPO_QUIET | strict;
    if (clof_topology_load(&tall, &opts, &err) != 0) {
        fprintf(stderr, "clof-topology: %s\n", err.msg);
        return 2;
    }
    opts.flags = (quiet ? CLOF_TOPO_QUIET : 0) | strict;
    if (clof_topology_load(&tlock, &opts, &err) != 0) {
        fprintf(stderr, "clof-topology: %s\n", err.msg);
        return 2;
    }
    int rc = 0;
    if (json)
        rc = clof_topology_write_json(all ? &tall : &tlock, stdout);
    else if (dump)
        rc = clof_topology_write(all ? &tall : &tlock, stdout);
    else
        print_tree(&tall, &tlock);
    clof_topology_free(&tall);
    clof_topology_free(&tlock);
    free(listbuf);
    free(setbuf_);
    if (fflush(stdout) != 0 || rc != 0)
        return 1;
    return 0;
}
