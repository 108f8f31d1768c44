/* SPDX-License-Identifier: MIT */
/*
 * pl_conform_threads.c -- conformance tests of libclof-preload.so: 10,000 threads over the process's life
 * (pl_conform.h; run as pl_conform TEST).
 */
#include "pl_conform.h"

static pthread_mutex_t life_m[3] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER};
static pthread_cond_t life_c = PTHREAD_COND_INITIALIZER;
static long life_count[3];
static void *life_worker(void *p)
{
    (void)p;
    for (int k = 0; k < 3; k++) {
        EQ(pthread_mutex_lock(&life_m[0]), 0);
        EQ(pthread_mutex_lock(&life_m[1]), 0);
        life_count[0]++;
        EQ(pthread_mutex_unlock(&life_m[0]), 0);
        EQ(pthread_mutex_lock(&life_m[2]), 0);
        life_count[1]++;
        EQ(pthread_mutex_unlock(&life_m[1]), 0);
        life_count[2]++;
        pthread_cond_signal(&life_c);
        EQ(pthread_mutex_unlock(&life_m[2]), 0);
    }
    return NULL;
}
void t_threads_10k(void)
{
    /* under an emulator (CLOF_EMULATOR, a cross build's ctest) a thread
     * costs milliseconds to create: 1,000 threads, 20 waves */
    enum { WAVE = 50 };
    const int TOTAL = getenv("CLOF_EMULATOR") != NULL ? 1000 : 10000;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 * 1024);
    pthread_t t[WAVE];
    for (int done = 0; done < TOTAL; done += WAVE) {
        for (int i = 0; i < WAVE; i++) {
            int r = pthread_create(&t[i], &at, life_worker, NULL);
            if (r != 0)
                FAIL("pthread_create #%d: %s", done + i, strerror(r));
        }
        for (int i = 0; i < WAVE; i++)
            join(t[i]);
    }
    for (int k = 0; k < 3; k++)
        EQ(life_count[k], 3L * TOTAL);
    clof_preload_info_t i = info();
    CHECK(i.threads_seen >= (uint64_t)TOTAL, "only %llu threads seen", (unsigned long long)i.threads_seen);
    /* contexts are recycled: bounded by the threads alive at once */
    CHECK(i.boxes <= 4 * WAVE + 64, "%llu contexts for %d threads alive at a time",
          (unsigned long long)i.boxes, WAVE);
    CHECK(i.threads_live <= 2, "%llu threads still registered", (unsigned long long)i.threads_live);
    pthread_attr_destroy(&at);
}
