/* SPDX-License-Identifier: MIT */
/*
 * clof-asl-epoch-cost -- the cost of one clof_epoch_start/clof_epoch_end
 * pair (LibASL paper §3.4: "~93 cycles per epoch").
 *
 *   clof-asl-epoch-cost [N]      N pairs (default 1000000) on a thread that
 *                                claims a little core (so epoch_end adjusts
 *                                the window: the full path)
 *
 * Prints the TSC cycles and ns per pair.  Under callgrind,
 * bench/asl_epoch_cost.sh counts the instructions of run_pairs() only and
 * divides by N.
 */
#define _GNU_SOURCE
#include <clof/asl.h>

#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

__attribute__((noinline)) void run_pairs(long n);
__attribute__((noinline)) void run_pairs(long n)
{
    for (long i = 0; i < n; i++) {
        clof_epoch_start(3);
        clof_epoch_end(3, 50000);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (n < 1) {
        fprintf(stderr, "usage: clof-asl-epoch-cost [N>0]\n");
        return 2;
    }
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    run_pairs(1000); /* warm up */
    bench_ticks_calibrate(50);
    uint64_t t0 = bench_now_ns(), k0 = bench_ticks();
    run_pairs(n);
    uint64_t k1 = bench_ticks(), t1 = bench_now_ns();
    printf("{\"pairs\":%ld,\"ns_per_pair\":%.2f,\"tsc_cycles_per_pair\":%.1f,"
           "\"ticks_source\":\"%s\"}\n",
           n, (double)(t1 - t0) / (double)n, (double)(k1 - k0) / (double)n,
           BENCH_TICKS_SOURCE);
    return 0;
}
