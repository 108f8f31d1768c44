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
 *
 * Time-sharing (more threads than cpus): two threads taking turns on ONE
 * cpu finish under the waiting policy (the waiter parks, the cpu switches
 * to the other thread) and under pure spinning (the waiter burns its slice
 * and is preempted); every increment then needs a cpu switch, and raising
 * the profile's switch cost raises the virtual time by the switches counted
 * times the difference.  An MCS lock with twice as many threads as cpus
 * keeps mutual exclusion and finishes under both wait models.  The
 * time-sharing statements of a profile parse, default, and reject bad
 * values with file:line.
 */
#define _GNU_SOURCE /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clof/await.h>
#include <clof/lock/mcs.h>

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

/* An MCS lock and a counter it protects (two words: a torn update shows). */
#define LOCK_ROUNDS 200
static clof_mcs_t g_mcs;
static struct {
    clof_atomic32_t a, b;
} __attribute__((aligned(64))) g_cs;
static int g_cs_bad;

static void lock_loop(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCK_ROUNDS; i++) {
        clof_mcs_ctx_t c;
        clof_mcs_acquire(&g_mcs, &c);
        uint32_t a = clof_atomic32_read_rlx(&g_cs.a);
        sim_work_ns(50); /* a critical section long enough to be preempted in */
        uint32_t b = clof_atomic32_read_rlx(&g_cs.b);
        if (a != b)
            g_cs_bad++;
        clof_atomic32_write_rlx(&g_cs.a, a + 1);
        clof_atomic32_write_rlx(&g_cs.b, b + 1);
        clof_mcs_release(&g_mcs, &c);
        sim_work_ns(200);
    }
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
    /* a cpu the machine lacks: refused */
    {
        uint32_t cpus[2] = {3, 999};
        void *args[2] = {NULL, NULL};
        CHECK(sim_run(&p, 2, cpus, stuck, args, 1, err, sizeof err) != 0 &&
                  strstr(err, "cpu 999"),
              "a thread on a cpu the machine lacks was accepted (%s)", err);
    }

    /* ---- time-sharing ---- */
    /* two threads taking turns on one cpu, waits under the policy (the
     * waiter yields, or parks, to the other thread) and spinning (the waiter
     * burns its slice): each increment needs the cpu to pass to the other */
    static const int models[2] = {SIM_WAIT_AUTO, SIM_WAIT_SPIN};
    static const char *const model_names[2] = {"policy (auto)", "spin"};
    double slice_saved = p.slice_ns;
    p.slice_ns = 20000; /* spinning waiters burn 20 us slices: keep it short */
    for (int m = 0; m < 2; m++) {
        sim_set_wait_model(models[m]);
        sim_stats_t a, b;
        double sw = p.switch_ns;
        if (run_pair(&p, 0, 0, &a) != 0)
            continue;
        p.switch_ns = sw + 1000;
        int rc = run_pair(&p, 0, 0, &b);
        p.switch_ns = sw;
        if (rc != 0)
            continue;
        printf("one cpu, two threads, %s: %.0f ns per increment, %.2f cpu "
               "switches, %.2f yields, %.2f parks, %.2f preemptions per "
               "increment; +1000 "
               "ns per switch: +%.0f ns per increment\n",
               model_names[m], a.now_ns / (2.0 * ROUNDS),
               (double)a.ctx_switches / (2.0 * ROUNDS),
               (double)a.yields / (2.0 * ROUNDS),
               (double)a.parks / (2.0 * ROUNDS),
               (double)a.preemptions / (2.0 * ROUNDS),
               (b.now_ns - a.now_ns) / (2.0 * ROUNDS));
        CHECK(a.ctx_switches >= 2 * ROUNDS - 2,
              "%s: %llu cpu switches for %d increments on one cpu",
              model_names[m], (unsigned long long)a.ctx_switches, 2 * ROUNDS);
        CHECK(m == 1 ? a.parks == 0 && a.preemptions >= 2 * ROUNDS - 2
                     : a.parks + a.yields >= ROUNDS && a.preemptions == 0,
              "%s: %llu parks, %llu yields, %llu preemptions", model_names[m],
              (unsigned long long)a.parks, (unsigned long long)a.yields,
              (unsigned long long)a.preemptions);
        CHECK(a.ctx_switches == b.ctx_switches,
              "%s: the switch cost changed the schedule (%llu vs %llu)",
              model_names[m], (unsigned long long)a.ctx_switches,
              (unsigned long long)b.ctx_switches);
        double grow = b.now_ns - a.now_ns, want = 1000.0 * (double)a.ctx_switches;
        CHECK(grow > 0.99 * want && grow < 1.01 * want,
              "%s: +1000 ns per switch added %.0f ns, expected %.0f (%llu "
              "switches)",
              model_names[m], grow, want, (unsigned long long)a.ctx_switches);
        if (m == 1)
            CHECK(a.now_ns >= 2.0 * ROUNDS * p.slice_ns * 0.99,
                  "spin: %.0f ns for %d increments: a spinning waiter did not "
                  "burn its %.0f ns slice",
                  a.now_ns, 2 * ROUNDS, p.slice_ns);
    }
    /* an MCS lock, 8 threads on 4 cpus (two per cpu) */
    for (int m = 0; m < 2; m++) {
        sim_set_wait_model(models[m]);
        uint32_t cpus[8];
        void *args[8] = {0};
        for (int i = 0; i < 8; i++)
            cpus[i] = (uint32_t)(i % 4) * 32; /* one per package half */
        clof_mcs_init(&g_mcs);
        memset(&g_cs, 0, sizeof g_cs);
        g_cs_bad = 0;
        int rc = sim_run(&p, 8, cpus, lock_loop, args, 7, err, sizeof err);
        sim_stats_t st;
        sim_stats_get(&st);
        CHECK(rc == 0, "mcs, 8 threads on 4 cpus, %s: %s", model_names[m], err);
        CHECK(g_cs_bad == 0 &&
                  clof_atomic32_read_rlx(&g_cs.a) == 8u * LOCK_ROUNDS,
              "mcs, 8 threads on 4 cpus, %s: %d torn critical sections, "
              "count %u of %d",
              model_names[m], g_cs_bad, clof_atomic32_read_rlx(&g_cs.a),
              8 * LOCK_ROUNDS);
        CHECK(st.ctx_switches > 0 &&
                  (m == 1 ? st.preemptions > 0 : st.parks + st.yields > 0),
              "mcs, 8 threads on 4 cpus, %s: %llu switches, %llu parks, %llu "
              "preemptions",
              model_names[m], (unsigned long long)st.ctx_switches,
              (unsigned long long)st.parks, (unsigned long long)st.preemptions);
        printf("mcs, 8 threads on 4 cpus, %s: %.0f ns, %llu cpu switches, "
               "%llu parks, %llu preemptions, %llu migrations\n",
               model_names[m], st.now_ns, (unsigned long long)st.ctx_switches,
               (unsigned long long)st.parks, (unsigned long long)st.preemptions,
               (unsigned long long)st.migrations);
    }
    sim_set_wait_model(SIM_WAIT_AUTO);
    p.slice_ns = slice_saved;

    /* the time-sharing statements of a profile */
    {
        char text[2048];
        sim_profile_t q;
        char hier[1024];
        if (!realpath(p.hierarchy, hier))
            snprintf(hier, sizeof hier, "%s", p.hierarchy);
        snprintf(text, sizeof text,
                 "clof-sim-profile 1\nhierarchy %s\nlevel cache 1\nlevel "
                 "numa 2\nlevel package 3\nlevel system 4\n",
                 hier);
        int rc = sim_profile_parse(&q, "/t/old.profile", text, strlen(text),
                                   err, sizeof err);
        CHECK(rc == 0 && q.switch_ns == SIM_DEFAULT_SWITCH_NS &&
                  q.wake_ns == SIM_DEFAULT_WAKE_NS &&
                  q.slice_ns == SIM_DEFAULT_SLICE_NS,
              "a profile without time-sharing statements: defaults (%s)",
              rc ? err : "");
        if (rc == 0)
            sim_profile_free(&q);
        size_t l = strlen(text);
        snprintf(text + l, sizeof text - l,
                 "cost switch 3000\ncost wake 700\nslice 250000\n");
        rc = sim_profile_parse(&q, "/t/new.profile", text, strlen(text), err,
                               sizeof err);
        CHECK(rc == 0 && q.switch_ns == 3000 && q.wake_ns == 700 &&
                  q.slice_ns == 250000,
              "cost switch/wake, slice: parsed (%s)", rc ? err : "");
        if (rc == 0)
            sim_profile_free(&q);
        static const struct {
            const char *line, *want;
        } bad[] = {{"slice 10", "/t/bad.profile:7: expected 'slice NS'"},
                   {"slice", "/t/bad.profile:7: expected 'slice NS'"},
                   {"slice 3ms", "got '3ms'"},
                   {"cost switch -5", "/t/bad.profile:7: expected a cost in ns"},
                   {"cost wake", "/t/bad.profile:7: expected 'cost "}};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            snprintf(text + l, sizeof text - l, "%s\n", bad[i].line);
            rc = sim_profile_parse(&q, "/t/bad.profile", text, strlen(text),
                                   err, sizeof err);
            CHECK(rc != 0 && strstr(err, bad[i].want),
                  "'%s': rc %d, '%s' (expected '%s')", bad[i].line, rc,
                  rc ? err : "", bad[i].want);
            if (rc == 0)
                sim_profile_free(&q);
        }
        printf("bad time-sharing statement reported: %s\n", err);
    }
    sim_profile_free(&p);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
