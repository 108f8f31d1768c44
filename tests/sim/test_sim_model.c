/* SPDX-License-Identifier: MIT */
/*
 * tests/sim/test_sim_model.c -- the cost model of the simulator, checked
 * through the atomics shim (this file is compiled with the `sim` backend).
 *
 * The heatmap handover of the CLoF paper (section 3.1): two simulated
 * threads take turns incrementing a counter (await the parity, then write),
 * on pairs of cpus whose closest common level is cache, numa, package and
 * system of tests/sim/exact.profile (jitter 0, no local costs).  Each
 * increment is a read miss (one transfer from the other cpu) and an upgrade
 * (one invalidation of the other copy): 2 x the level's cost in virtual
 * time, one transfer and one invalidation at that level, and a bounded
 * number of charged accesses however long the waiter waits (awaits sleep
 * instead of spinning).  Then: a run is deterministic, and a waiting thread
 * whose line nobody writes is reported as a deadlock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clof/await.h>

#include "sim.h"

#define ROUNDS 1000

static struct {
    clof_atomic32_t counter;
} __attribute__((aligned(64))) shared;

static void pingpong(void *arg)
{
    uint32_t me = (uint32_t)(uintptr_t)arg;
    for (uint32_t i = 0; i < ROUNDS; i++) {
        uint32_t v = 2 * i + me;
        clof_atomic32_await_eq_acq(&shared.counter, v);
        clof_atomic32_write_rel(&shared.counter, v + 1);
    }
}

static void stuck(void *arg)
{
    (void)arg;
    clof_atomic32_await_eq_acq(&shared.counter, 12345);
}

static int failures;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL: " __VA_ARGS__);                                      \
            printf("\n");                                                      \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static int run_pair(const sim_profile_t *p, uint32_t a, uint32_t b,
                    sim_stats_t *st)
{
    char err[512];
    uint32_t cpus[2] = {a, b};
    void *args[2] = {(void *)(uintptr_t)0, (void *)(uintptr_t)1};
    memset(&shared, 0, sizeof shared);
    if (sim_run(p, 2, cpus, pingpong, args, 1, err, sizeof err) != 0) {
        printf("FAIL: sim_run: %s\n", err);
        failures++;
        return -1;
    }
    sim_stats_get(st);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_sim_model PROFILE (tests/sim/exact.profile)\n");
        return 2;
    }
    sim_profile_t p;
    char err[1024];
    if (sim_profile_load(&p, argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    /* cpu 0 with a cpu of the same cache group, numa node, package, other */
    static const struct {
        uint32_t b;
        int kind;
    } pairs[] = {{1, 1}, {4, 2}, {32, 3}, {64, 4}};
    static const char *const names[] = {"core", "cache", "numa", "package",
                                        "system"};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        sim_stats_t st;
        if (run_pair(&p, 0, pairs[i].b, &st) != 0)
            continue;
        int k = pairs[i].kind;
        double per = st.now_ns / (2.0 * ROUNDS);
        double want = 2 * p.level_ns[k];
        printf("cpus 0,%u (%s): %.2f ns per increment (model: 2 x %.0f), "
               "%.3f transfers, %.3f invalidations, %.2f accesses per "
               "increment\n",
               pairs[i].b, names[k], per, p.level_ns[k],
               (double)st.transfers[k] / (2.0 * ROUNDS),
               (double)st.invalidations[k] / (2.0 * ROUNDS),
               (double)st.accesses / (2.0 * ROUNDS));
        CHECK(per > 0.97 * want && per < 1.03 * want,
              "%s: %.2f ns per increment, expected %.0f", names[k], per, want);
        CHECK(st.transfers[k] >= 2 * ROUNDS - 2 && st.transfers[k] <= 2 * ROUNDS + 2,
              "%s: %llu transfers for %d increments", names[k],
              (unsigned long long)st.transfers[k], 2 * ROUNDS);
        for (int o = 0; o < SIM_NKINDS; o++)
            CHECK(o == k || st.transfers[o] == 0,
                  "%s: %llu transfers at level %s", names[k],
                  (unsigned long long)st.transfers[o], names[o]);
        CHECK(st.accesses <= 4 * 2 * ROUNDS,
              "%s: %llu accesses for %d increments: a waiter spun instead "
              "of sleeping",
              names[k], (unsigned long long)st.accesses, 2 * ROUNDS);
    }
    /* the closer the pair, the faster the handover (Table 2's order) */
    sim_stats_t s1, s2;
    run_pair(&p, 0, 1, &s1);
    run_pair(&p, 0, 1, &s2);
    CHECK(s1.now_ns == s2.now_ns && s1.accesses == s2.accesses &&
              s1.switches == s2.switches,
          "two identical runs differ: %.1f/%.1f ns", s1.now_ns, s2.now_ns);

    /* a thread that waits for a write nobody makes: a deadlock report */
    {
        uint32_t cpus[1] = {0};
        void *args[1] = {NULL};
        memset(&shared, 0, sizeof shared);
        int rc = sim_run(&p, 1, cpus, stuck, args, 1, err, sizeof err);
        CHECK(rc != 0 && strstr(err, "deadlock"),
              "a stuck waiter was not reported (rc %d, '%s')", rc, err);
        if (rc != 0)
            printf("stuck waiter reported: %s\n", err);
    }
    /* a cpu used twice, more threads than cpus: refused */
    {
        uint32_t cpus[2] = {3, 3};
        void *args[2] = {NULL, NULL};
        CHECK(sim_run(&p, 2, cpus, stuck, args, 1, err, sizeof err) != 0,
              "two threads on one cpu were accepted");
    }
    sim_profile_free(&p);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
