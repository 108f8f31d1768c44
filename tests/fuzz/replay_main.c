/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/replay_main.c -- the main() of a fuzz harness where libFuzzer
 * is not used (gcc, or clang without -DCLOF_FUZZ_LIBFUZZER): it feeds every
 * file named on the command line, and every file of every directory named,
 * to LLVMFuzzerTestOneInput once, in name order.  `ctest -L fuzz` runs it
 * over tests/fuzz/corpus/<harness>/, so the seed corpus and the inputs that
 * once crashed a parser are replayed in every build.
 *
 * Exit status: 0 when every input ran (a harness aborts on a broken
 * invariant; a sanitizer, where one is compiled in, stops the run), 1 when
 * a file could not be read or nothing was given.
 */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (got == 0)
            break;
        len += got;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        return -1;
    }
    /* an exact-size copy, so that an overread shows under a sanitizer */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            failed++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += run_file(argv[i]) != 0;
            files++;
            continue;
        }
        struct dirent **list;
        int n = scandir(argv[i], &list, NULL, by_name);
        if (n < 0) {
            perror(argv[i]);
            failed++;
            continue;
        }
        for (int k = 0; k < n; k++) {
            if (list[k]->d_name[0] != '.') {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], list[k]->d_name);
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                    failed += run_file(path) != 0;
                    files++;
                }
            }
            free(list[k]);
        }
        free(list);
    }
    printf("%s: %d inputs replayed, %d unreadable\n", argv[0], files, failed);
    return files == 0 || failed ? 1 : 0;
}
