/* SPDX-License-Identifier: MIT */
/*
 * clof-uncontended -- the uncontended cost of a lock: one thread, N
 * acquire+release pairs in a loop with nothing else in it.  The lock and the
 * context are prepared before the loop.  Meant to run under
 * `valgrind --tool=callgrind` twice (N = 0 and N = large): the difference of
 * the instruction counts divided by N is the instructions per pair
 * (bench/callgrind.sh).  It also prints the wall-clock ns per pair, which is
 * not deterministic and not what callgrind.sh reports.
 *
 * The locks are the same table as clof-bench's (bench_locks.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_locks.h"
#include "bench_util.h"

static bench_lock_u unc_lock;
static bench_ctx_u unc_ctx;

/* One loop per lock; noinline so that callgrind and objdump show it whole. */
#define UNC_LOOP_(id, ID)                                                      \
    static __attribute__((noinline)) void unc_loop_##id(                      \
        bl_##id##_lock_t *l, bl_##id##_ctx_t *c, uint64_t n)                   \
    {                                                                          \
        for (uint64_t i = 0; i < n; i++) {                                     \
            bl_##id##_acquire(l, c);                                           \
            bl_##id##_release(l, c);                                           \
        }                                                                      \
    }                                                                          \
    static void unc_run_##id(uint64_t n)                                       \
    {                                                                          \
        bl_##id##_init(&unc_lock.id);                                          \
        bl_##id##_ctx_init(&unc_lock.id, &unc_ctx.id);                         \
        unc_loop_##id(&unc_lock.id, &unc_ctx.id, n);                           \
    }
BENCH_LOCKS(UNC_LOOP_)
#undef UNC_LOOP_

static void (*const unc_runs[BENCH_NLOCKS])(uint64_t) = {
#define X(id, ID) unc_run_##id,
    BENCH_LOCKS(X)
#undef X
};

static void usage(FILE *f)
{
    fputs("usage: clof-uncontended --lock NAME --iters N\n"
          "       clof-uncontended --list | --info\n"
          "  --lock NAME  a lock of clof-bench --list\n"
          "  --iters N    acquire+release pairs (0 allowed: the baseline)\n"
          "  --list       every lock name, one per line\n"
          "  --info       the build: compiler and waiting policy\n",
          f);
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    long long iters = -1;
    enum { O_LOCK = 256, O_ITERS, O_LIST, O_INFO, O_HELP };
    static const struct option opts[] = {
        {"lock", required_argument, 0, O_LOCK},
        {"iters", required_argument, 0, O_ITERS},
        {"list", no_argument, 0, O_LIST},
        {"info", no_argument, 0, O_INFO},
        {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case O_LOCK: name = optarg; break;
        case O_ITERS: {
            char *end;
            errno = 0;
            iters = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || iters < 0) {
                fprintf(stderr, "clof-uncontended: bad --iters: %s\n", optarg);
                return 2;
            }
            break;
        }
        case O_LIST:
            bench_lock_list(stdout, "\n");
            putchar('\n');
            return 0;
        case O_INFO:
            printf("compiler=%s\nwait_policy=%s\nclof_version=%s\n",
                   BENCH_COMPILER, BENCH_WAIT_POLICY, CLOF_VERSION_STRING);
            return 0;
        case O_HELP: usage(stdout); return 0;
        default:
            fprintf(stderr, "clof-uncontended: bad option: %s\n",
                    argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || !name || iters < 0) {
        usage(stderr);
        return 2;
    }
    int idx = bench_lock_find(name);
    if (idx < 0) {
        fprintf(stderr, "clof-uncontended: unknown lock '%s'; known locks: ",
                name);
        bench_lock_list(stderr, " ");
        fputc('\n', stderr);
        return 2;
    }
    uint64_t t0 = bench_now_ns();
    unc_runs[idx]((uint64_t)iters);
    uint64_t t1 = bench_now_ns();
    printf("%s iters=%lld ns/pair=%.2f (wall clock, not deterministic)\n",
           name, iters, iters ? (double)(t1 - t0) / (double)iters : 0.0);
    return 0;
}
