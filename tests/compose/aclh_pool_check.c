/* SPDX-License-Identifier: MIT */
/*
 * tests/compose/aclh_pool_check.c -- a checking replacement of libclof's
 * A-C-BO-CLH node pool (src/acohort.c), linked into a test before libclof
 * so that the lock header's clof_aclh_node_get/put come here.
 *
 * Every node carries a state word on the cache line before it: FREE (in a
 * pool) or USED (handed out).  get() of a node that is not FREE (a node in a
 * pool while still in use) and put() of a node that is not USED (a double
 * put, or a put of a node never handed out) print the node and abort, so
 * that a node in two acquisitions at once -- the shape of the A-C-BO-CLH
 * hang of 2026-11-21 -- is caught where it starts.  Nodes are never freed
 * (a late access to a recycled node then reads a node, not freed memory).
 * Per-thread pools as in the library; counts of gets, puts, allocations.
 */
#include <clof/numa/acohort.h>

#include <stdio.h>
#include <stdlib.h>

enum { NODE_FREE = 0x0f0f0f0f, NODE_USED = 0x05ed05ed };

typedef struct {
    uint32_t state;
    char pad[CLOF_CACHELINE - sizeof(uint32_t)];
    clof_aclh_node_t node;
} checked_node_t;

static __thread clof_aclh_node_t *pool_;
unsigned long aclh_check_gets, aclh_check_puts, aclh_check_allocs;

static checked_node_t *box_(clof_aclh_node_t *n)
{
    return (checked_node_t *)(void *)((char *)n - CLOF_CACHELINE);
}

static void die_(const char *what, clof_aclh_node_t *n, uint32_t state)
{
    fprintf(stderr, "FAIL: A-C-BO-CLH node pool: %s: node %p, state %#x (word %#llx)\n", what,
            (void *)n, state, (unsigned long long)clof_atomic64_read_rlx(&n->word));
    abort();
}

clof_aclh_node_t *clof_aclh_node_get(void)
{
    __atomic_fetch_add(&aclh_check_gets, 1, __ATOMIC_RELAXED);
    clof_aclh_node_t *n = pool_;
    if (n) {
        pool_ = n->free_next;
    } else {
        checked_node_t *b = aligned_alloc(CLOF_CACHELINE, sizeof *b);
        if (!b)
            abort();
        __atomic_store_n(&b->state, NODE_FREE, __ATOMIC_RELAXED);
        n = &b->node;
        __atomic_fetch_add(&aclh_check_allocs, 1, __ATOMIC_RELAXED);
    }
    uint32_t s = __atomic_exchange_n(&box_(n)->state, NODE_USED, __ATOMIC_SEQ_CST);
    if (s != NODE_FREE)
        die_("get() of a node that is not free (in use in two places)", n, s);
    return n;
}

void clof_aclh_node_put(clof_aclh_node_t *n)
{
    __atomic_fetch_add(&aclh_check_puts, 1, __ATOMIC_RELAXED);
    uint32_t s = __atomic_exchange_n(&box_(n)->state, NODE_FREE, __ATOMIC_SEQ_CST);
    if (s != NODE_USED)
        die_("put() of a node that is not in use (a double put)", n, s);
    n->free_next = pool_;
    pool_ = n;
}
