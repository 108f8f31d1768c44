/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: the LibASL environment (src/asl.c): CLOF_ASL_PCT,
 * CLOF_ASL_MAX_WINDOW, CLOF_ASL_FREE_WINDOW, CLOF_ASL_INIT_WINDOW, read
 * inside the program that runs the locks (the preload library's asl:<lock>
 * included).  The input: up to four values separated by '\n', in that
 * order; an absent value leaves its variable unset.
 *
 * Checks: an accepted configuration is in range (the bounds of
 * clof_asl_configure), and clof_asl_parse_ns agrees with itself.
 */
#define _GNU_SOURCE 1
#include <clof/asl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "fuzz_asl_env: check failed: %s (line %d)\n", #c, __LINE__); \
            abort();                                                             \
        }                                                                        \
    } while (0)

static const char *const vars[4] = {"CLOF_ASL_PCT", "CLOF_ASL_MAX_WINDOW",
                                    "CLOF_ASL_FREE_WINDOW", "CLOF_ASL_INIT_WINDOW"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = malloc(size + 1);
    CHECK(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    char *val[4] = {NULL, NULL, NULL, NULL};
    char *p = s;
    for (int i = 0; i < 4 && p; i++) {
        val[i] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = '\0';
    }
    for (int i = 0; i < 4; i++) {
        /* putenv of one buffer per variable: setenv would keep every value
         * ever set */
        static char var[4][4096 + 32];
        if (val[i]) {
            snprintf(var[i], sizeof var[i], "%s=%s", vars[i], val[i]);
            putenv(var[i]);
        }
        else
            unsetenv(vars[i]);
        uint64_t ns, again;
        if (val[i] && clof_asl_parse_ns(val[i], &ns) == 0) {
            CHECK(clof_asl_parse_ns(val[i], &again) == 0 && again == ns);
        }
    }
    clof_asl_config_t c = CLOF_ASL_CONFIG_DEFAULT;
    if (clof_asl_config_from_env_(&c, 1) == 0) {
        CHECK(c.pct_permille >= 100 && c.pct_permille <= 999);
        CHECK(c.max_window_ns > 0);
    }
    for (int i = 0; i < 4; i++)
        unsetenv(vars[i]);
    free(s);
    return 0;
}
