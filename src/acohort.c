/* SPDX-License-Identifier: MIT */
/*
 * libclof: the queue-node pool of the abortable cohort lock A-C-BO-CLH
 * (include/clof/numa/acohort.h).
 *
 * A-CLH nodes outlive the acquisition that enqueued them: an aborted node
 * stays in the queue until its successor follows its link, and a released
 * node until its successor (or the next arrival) reads it.  Whoever reads a
 * node last recycles it into its own thread's pool, so nodes migrate between
 * threads; each thread's pool is a plain singly linked list (only its thread
 * touches it) and is freed when the thread exits.  In steady state an
 * acquisition takes one node and gets one back: nothing is allocated.
 */
#include <clof/numa/acohort.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static __thread clof_aclh_node_t *pool_;
static __thread int registered_;
static pthread_key_t key_;
static pthread_once_t once_ = PTHREAD_ONCE_INIT;

static void pool_free_(void *head)
{
    clof_aclh_node_t *n = (clof_aclh_node_t *)head;
    while (n) {
        clof_aclh_node_t *next = n->free_next;
        free(n);
        n = next;
    }
}

/* At thread exit: free the pool (the destructor gets the key's value). */
static void pool_exit_(void *unused)
{
    (void)unused;
    clof_aclh_node_t *n = pool_;
    pool_ = NULL;
    pool_free_(n);
}

static void key_init_(void)
{
    if (pthread_key_create(&key_, pool_exit_) != 0)
        key_ = 0; /* pools then live until process exit: harmless */
}

static void register_(void)
{
    registered_ = 1;
    pthread_once(&once_, key_init_);
    /* a non-NULL value makes the destructor run at thread exit */
    (void)pthread_setspecific(key_, (void *)&registered_);
}

clof_aclh_node_t *clof_aclh_node_get(void)
{
    clof_aclh_node_t *n = pool_;
    if (n) {
        pool_ = n->free_next;
        return n;
    }
    if (!registered_)
        register_();
    /* out of memory: one line on stderr, then wait for memory (1 ms
     * sleeps) rather than end the process */
    for (bool said = false;
         (n = (clof_aclh_node_t *)aligned_alloc(CLOF_CACHELINE, sizeof *n)) == NULL;
         said = true) {
        if (!said)
            fputs("clof: out of memory for an A-C-BO-CLH queue node; waiting for memory\n",
                  stderr);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    n->free_next = NULL;
    return n;
}

void clof_aclh_node_put(clof_aclh_node_t *n)
{
    if (!registered_)
        register_();
    n->free_next = pool_;
    pool_ = n;
}
