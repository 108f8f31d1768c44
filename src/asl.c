/* SPDX-License-Identifier: MIT */
/*
 * libclof: the LibASL epoch calls and configuration (include/clof/asl.h).
 *
 * The bookkeeping itself (Alg. 2 of the LibASL paper) is the inline
 * clof_asl_epoch_start_at / _end_at of asl.h, shared with simulators and
 * tests; this file binds it to the calling thread (TLS) and the clock, and
 * reads the configuration from the environment once.
 */
#include <clof/asl.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

clof_asl_config_t clof_asl_config_ = CLOF_ASL_CONFIG_DEFAULT;
__thread clof_asl_thread_t clof_asl_self_;
__thread int clof_asl_self_ready_;

static pthread_once_t env_once = PTHREAD_ONCE_INIT;

int clof_asl_parse_ns(const char *s, uint64_t *ns)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v >= 0) || v > 1e18)
        return -1;
    double mul = 1;
    if (*end == '\0' || strcmp(end, "ns") == 0)
        mul = 1;
    else if (strcmp(end, "us") == 0)
        mul = 1e3;
    else if (strcmp(end, "ms") == 0)
        mul = 1e6;
    else if (strcmp(end, "s") == 0)
        mul = 1e9;
    else
        return -1;
    v *= mul;
    if (v > 1.8e19)
        return -1;
    *ns = (uint64_t)(v + 0.5);
    return 0;
}

static int check(const clof_asl_config_t *c)
{
    if (c->pct_permille < 100 || c->pct_permille > 999)
        return -1;
    if (c->max_window_ns == 0)
        return -1;
    return 0;
}

static void env_duration(const char *name, uint64_t *field, int allow_zero, int quiet)
{
    const char *s = getenv(name);
    if (!s)
        return;
    uint64_t v;
    if (clof_asl_parse_ns(s, &v) != 0 || (!allow_zero && v == 0)) {
        if (!quiet)
            fprintf(stderr,
                    "clof: %s='%s': expected a duration such as 500us, 10ms, 1s "
                    "or a number of ns%s; keeping %llu ns\n",
                    name, s, allow_zero ? "" : " above 0",
                    (unsigned long long)*field);
        return;
    }
    *field = v;
}

int clof_asl_config_from_env_(clof_asl_config_t *c, int quiet)
{
    const char *p = getenv("CLOF_ASL_PCT");
    if (p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || *end != '\0' || !(v >= 10.0) || !(v <= 99.9)) {
            if (!quiet)
                fprintf(stderr,
                        "clof: CLOF_ASL_PCT='%s': expected a percentile from 10 to "
                        "99.9 (e.g. 99); keeping %u.%u\n",
                        p, c->pct_permille / 10, c->pct_permille % 10);
        } else {
            c->pct_permille = (uint32_t)(v * 10.0 + 0.5);
        }
    }
    int free_set = getenv("CLOF_ASL_FREE_WINDOW") != NULL;
    env_duration("CLOF_ASL_MAX_WINDOW", &c->max_window_ns, 0, quiet);
    if (!free_set)
        c->free_window_ns = c->max_window_ns;
    env_duration("CLOF_ASL_FREE_WINDOW", &c->free_window_ns, 1, quiet);
    env_duration("CLOF_ASL_INIT_WINDOW", &c->init_window_ns, 1, quiet);
    return check(c);
}

static void read_env(void)
{
    clof_asl_config_t c = clof_asl_config_;
    if (clof_asl_config_from_env_(&c, 0) == 0)
        clof_asl_config_ = c;
}

const clof_asl_config_t *clof_asl_config(void)
{
    pthread_once(&env_once, read_env);
    return &clof_asl_config_;
}

int clof_asl_configure(const clof_asl_config_t *cfg)
{
    pthread_once(&env_once, read_env);
    clof_asl_config_t c = clof_asl_config_;
    if (cfg->pct_permille)
        c.pct_permille = cfg->pct_permille;
    if (cfg->max_window_ns)
        c.max_window_ns = cfg->max_window_ns;
    if (cfg->free_window_ns)
        c.free_window_ns = cfg->free_window_ns;
    if (cfg->init_window_ns)
        c.init_window_ns = cfg->init_window_ns;
    if (check(&c) != 0)
        return -1;
    clof_asl_config_ = c;
    return 0;
}

void clof_asl_self_init_(void)
{
    clof_asl_thread_t init = CLOF_ASL_THREAD_INIT;
    clof_asl_self_ = init;
    clof_asl_self_ready_ = 1;
}

void clof_asl_set_thread_core_type(int type)
{
    clof_asl_thread_t *st = clof_asl_self();
    st->core_type = (int8_t)(type == CLOF_CORE_BIG || type == CLOF_CORE_LITTLE
                                 ? type
                                 : -1);
}

static void bad_id(int id)
{
    static int reported;
    if (!__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
        fprintf(stderr,
                "clof: epoch id %d out of range: expected 0 to %d; such epochs "
                "use the default window (reported once)\n",
                id, CLOF_ASL_MAX_EPOCHS - 1);
}

void clof_epoch_start(int id)
{
    if (CLOF_UNLIKELY(id < 0 || id >= CLOF_ASL_MAX_EPOCHS))
        bad_id(id);
    clof_asl_epoch_start_at(clof_asl_self(), id, CLOF_ASL_NOW(),
                            clof_asl_config());
}

void clof_epoch_end(int id, uint64_t slo_ns)
{
    clof_asl_thread_t *st = clof_asl_self();
    uint64_t now = CLOF_ASL_NOW();
    clof_asl_epoch_end_at(st, id, slo_ns, now, clof_asl_on_little(),
                          clof_asl_config());
}

uint64_t clof_asl_current_window(void)
{
    return clof_asl_window_of(clof_asl_self(), true, clof_asl_config());
}

uint64_t clof_asl_epoch_window(int id)
{
    clof_asl_thread_t *st = clof_asl_self();
    if (id < 0 || id >= CLOF_ASL_MAX_EPOCHS || !(st->inited >> id & 1))
        return 0;
    return st->ep[id].window;
}
