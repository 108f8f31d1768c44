/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_util.h -- small helpers shared by the benchmark programs:
 * the clock, the machine description, JSON strings.
 */
#ifndef CLOF_BENCH_UTIL_H
#define CLOF_BENCH_UTIL_H

#include <clof/topology.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A fine-grained timestamp for short intervals (acquire latency): the TSC
 * on x86-64 (rdtscp waits for the preceding instructions), the monotonic
 * clock elsewhere.  Convert with bench_ticks_per_ns (bench_ticks_calibrate). */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t bench_ticks(void)
{
    unsigned aux;
    return __rdtscp(&aux);
}
#define BENCH_TICKS_SOURCE "rdtscp"
#else
static inline uint64_t bench_ticks(void)
{
    return bench_now_ns();
}
#define BENCH_TICKS_SOURCE "clock_monotonic"
#endif

static double bench_ticks_per_ns __attribute__((unused)) = 1.0;

/* Ticks per ns against CLOCK_MONOTONIC over about `ms` milliseconds. */
static inline void bench_ticks_calibrate(double ms)
{
#if defined(__x86_64__) || defined(__i386__)
    uint64_t n0 = bench_now_ns(), k0 = bench_ticks(), n1, k1;
    do {
        n1 = bench_now_ns();
        k1 = bench_ticks();
    } while ((double)(n1 - n0) < ms * 1e6);
    bench_ticks_per_ns = (double)(k1 - k0) / (double)(n1 - n0);
    if (!(bench_ticks_per_ns > 0))
        bench_ticks_per_ns = 1.0;
#else
    (void)ms;
#endif
}

/* A JSON string literal (quotes included): libclof's. */
#define bench_json_str clof_json_str

/* A JSON number, or null for NaN / infinity. */
static inline void bench_json_num(FILE *f, double v)
{
    if (v != v || v > 1e300 || v < -1e300)
        fputs("null", f);
    else
        fprintf(f, "%.6g", v);
}

typedef struct {
    char cpu_model[256];
    long cpus_online;
    char hostname[256];
    char kernel[256];
} bench_machine_t;

static inline void bench_machine_read(bench_machine_t *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            /* x86: "model name"; arm64: no model name, use "CPU part" */
            if (strncmp(line, "model name", 10) == 0 ||
                strncmp(line, "Model", 5) == 0) {
                char *c = strchr(line, ':');
                if (!c)
                    continue;
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(m->cpu_model, sizeof m->cpu_model, "%s", c);
                break;
            }
        }
        fclose(f);
    }
    m->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
    if (gethostname(m->hostname, sizeof m->hostname - 1) != 0)
        snprintf(m->hostname, sizeof m->hostname, "unknown");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname,
                 u.release, u.machine);
    else
        snprintf(m->kernel, sizeof m->kernel, "unknown");
}

static inline void bench_machine_json(FILE *f, const bench_machine_t *m)
{
    fputs("{\"cpu_model\":", f);
    bench_json_str(f, m->cpu_model);
    fprintf(f, ",\"cpus_online\":%ld,\"hostname\":", m->cpus_online);
    bench_json_str(f, m->hostname);
    fputs(",\"kernel\":", f);
    bench_json_str(f, m->kernel);
    fputc('}', f);
}

#if defined(__clang__)
#define BENCH_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define BENCH_COMPILER "gcc " __VERSION__
#else
#define BENCH_COMPILER "unknown"
#endif

#endif /* CLOF_BENCH_UTIL_H */
