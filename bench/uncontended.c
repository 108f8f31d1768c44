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
 * The locks are the same table as clof-bench's (bench_locks.h), and its
 * reader-writer locks (bench_rwlocks.h: --lock <rw name> --rw-op read|write,
 * a read or a write acquire+release pair; glibc's is pthread-rwlock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_locks.h"
#include "bench_rwlocks.h"
#include "bench_util.h"
#include "lockname.h"

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

static bench_rwlock_u unc_rwlock;
static bench_rwctx_u unc_rwctx;

/* The RW locks: a read or a write pair per iteration (the lock with its
 * default, reader, preference; a zero-filled context, reused). */
#define UNC_RW_LOOP_(id, NAME)                                                 \
    static __attribute__((noinline)) void unc_rloop_##id(                     \
        bl_##id##_lock_t *l, bl_##id##_ctx_t *c, uint64_t n)                   \
    {                                                                          \
        for (uint64_t i = 0; i < n; i++) {                                     \
            bl_##id##_read_acquire(l, c);                                      \
            bl_##id##_read_release(l, c);                                      \
        }                                                                      \
    }                                                                          \
    static __attribute__((noinline)) void unc_wloop_##id(                     \
        bl_##id##_lock_t *l, bl_##id##_ctx_t *c, uint64_t n)                   \
    {                                                                          \
        for (uint64_t i = 0; i < n; i++) {                                     \
            bl_##id##_write_acquire(l, c);                                     \
            bl_##id##_write_release(l, c);                                     \
        }                                                                      \
    }                                                                          \
    static void unc_rwrun_##id(uint64_t n, bool write)                         \
    {                                                                          \
        bl_##id##_init(&unc_rwlock.id, CLOF_RW_PREF_READER);                   \
        if (write)                                                             \
            unc_wloop_##id(&unc_rwlock.id, &unc_rwctx.id, n);                  \
        else                                                                   \
            unc_rloop_##id(&unc_rwlock.id, &unc_rwctx.id, n);                  \
    }
BENCH_RW_LOCKS(UNC_RW_LOOP_)
#undef UNC_RW_LOOP_

static void (*const unc_rwruns[BENCH_NRWLOCKS])(uint64_t, bool) = {
#define X(id, NAME) unc_rwrun_##id,
    BENCH_RW_LOCKS(X)
#undef X
};

static void usage(FILE *f)
{
    fputs("usage: clof-uncontended --lock NAME --iters N [--rw-op read|write]\n"
          "       clof-uncontended --list | --list-rw | --info\n"
          "  --lock NAME  a lock of clof-bench --list or --list-rw\n"
          "  --rw-op OP   RW locks: read (default) or write pairs\n"
          "  --iters N    acquire+release pairs (0 allowed: the baseline)\n"
          "  --list       every lock name, one per line\n"
          "  --info       the build: compiler and waiting policy\n",
          f);
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    long long iters = -1;
    const char *rw_op = NULL;
    enum { O_LOCK = 256, O_ITERS, O_LIST, O_INFO, O_HELP, O_LIST_RW, O_RW_OP };
    static const struct option opts[] = {
        {"lock", required_argument, 0, O_LOCK},
        {"iters", required_argument, 0, O_ITERS},
        {"list", no_argument, 0, O_LIST},
        {"list-rw", no_argument, 0, O_LIST_RW},
        {"rw-op", required_argument, 0, O_RW_OP},
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
        case O_LIST_RW:
            bench_rwlock_list(stdout, "\n");
            putchar('\n');
            return 0;
        case O_RW_OP:
            rw_op = optarg;
            if (strcmp(rw_op, "read") != 0 && strcmp(rw_op, "write") != 0) {
                fprintf(stderr,
                        "clof-uncontended: bad --rw-op '%s' (read or write)\n",
                        rw_op);
                return 2;
            }
            break;
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
    /* the one grammar of lock names (src/lockname, docs/locks.md) */
    char canon[CLOF_LOCKNAME_MAX];
    bool canon_ok = clof_lockname_canon(name, canon, sizeof canon);
    int rw = canon_ok ? bench_rwlock_find(canon) : -1;
    int idx = rw >= 0 || !canon_ok ? -1 : bench_lock_find(canon);
    if (idx < 0 && rw < 0) {
        char msg[512];
        clof_lockname_unknown("clof-uncontended", name,
                              (clof_lockset_t){bench_lock_names, BENCH_NLOCKS,
                                               sizeof bench_lock_names[0]},
                              msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    name = rw >= 0 ? bench_rwlock_names[rw] : bench_lock_names[idx]; /* canonical */
    if (idx >= 0 && rw_op) {
        fprintf(stderr, "clof-uncontended: --rw-op: '%s' is a mutex\n", name);
        return 2;
    }
    bool write = rw_op && strcmp(rw_op, "write") == 0;
    uint64_t t0 = bench_now_ns();
    if (rw >= 0)
        unc_rwruns[rw]((uint64_t)iters, write);
    else
        unc_runs[idx]((uint64_t)iters);
    uint64_t t1 = bench_now_ns();
    printf("%s%s iters=%lld ns/pair=%.2f (wall clock, not deterministic)\n",
           name, rw < 0 ? "" : write ? " write" : " read", iters,
           iters ? (double)(t1 - t0) / (double)iters : 0.0);
    return 0;
}
