/* SPDX-License-Identifier: MIT */
/*
 * Cohort locks: C-BO-MCS, C-TKT-TKT, C-PTL-TKT.
 *
 * Algorithm: one thread-oblivious global lock G and one local lock S_i per
 * NUMA node with cohort detection; a thread takes S of its node, then G
 * unless the previous owner in its node passed G along with S; it passes G
 * to a waiting node-mate up to a batch bound, else releases
 * G and then S.  That is exactly the CLoF generator over two levels (NUMA
 * node, system), so the cohort locks are declared with it: no second copy of
 * the algorithm.
 * Paper: Lock Cohorting (TOPC'15) §2 and §3.1-3.3 (Figs. 3-5); the CLoF paper
 * §4 generalises it to any number of levels.
 * Properties: C-TKT-TKT and C-PTL-TKT are FIFO at each level (fair overall);
 * C-BO-MCS has an unfair global lock (BO) and FIFO local queues.  Cohort
 * detection is the local lock's native has_waiters (MCS: a successor is
 * linked; ticket: next - owner > 1).  Batch bound: the NUMA level's
 * threshold of the hierarchy (default 128).  Zero bytes are a valid lock
 * (the tree is built at first use).  On a hierarchy without a NUMA level the
 * lowest level is used instead (see compose.h).
 * The abortable cohort locks (A-C-BO-BO, A-C-BO-CLH) are in numa/acohort.h:
 * their local locks need a stronger cohort detection, so they are written
 * there, over the same generator front end and BO global lock.
 *
 * Memory orders: those of the basic locks (bo.h, mcs.h, ticket.h, ptl.h) and
 * of the generator (compose.h).
 */
/** \file
 * The cohort locks C-BO-MCS, C-TKT-TKT and C-PTL-TKT: two-level CLoF
 * compositions (compose.h) on the NUMA and system levels.  Each has the
 * interface CLOF_COMPOSE declares; link libclof.  Algorithm and properties:
 * the comment at the top of the header. */
#ifndef CLOF_NUMA_COHORT_H
#define CLOF_NUMA_COHORT_H

#include <clof/compose.h>

__attribute__((unused)) static const clof_level_kind_t clof_cohort_levels_[2] = {
    CLOF_LEVEL_NUMA, CLOF_LEVEL_SYSTEM};

/* Lowest level first (CLOF_COMPOSE): the local (NUMA node) lock, then the
 * global (system) lock.  The Cohorting paper's names list them the other way
 * round (C-BO-MCS: BO global, MCS local); clof keeps the paper's names. */
/** \name C-BO-MCS: MCS per NUMA node, BO global */
/**@{*/
/** Part of C-BO-MCS, the cohort lock of MCS per NUMA node under a global
 *  BO lock (CLOF_COMPOSE says what each does). */
CLOF_COMPOSE_ON(c_bo_mcs, clof_cohort_levels_, mcs, bo)
/**@}*/
/** \name C-TKT-TKT: ticket per NUMA node, ticket global */
/**@{*/
/** Part of C-TKT-TKT, the cohort lock of a ticket lock per NUMA node under
 *  a global ticket lock (CLOF_COMPOSE says what each does). */
CLOF_COMPOSE_ON(c_tkt_tkt, clof_cohort_levels_, ticket, ticket)
/**@}*/
/** \name C-PTL-TKT: ticket per NUMA node, PTL global */
/**@{*/
/** Part of C-PTL-TKT, the cohort lock of a ticket lock per NUMA node under
 *  a global partitioned ticket lock (CLOF_COMPOSE says what each does). */
CLOF_COMPOSE_ON(c_ptl_tkt, clof_cohort_levels_, ticket, ptl)
/**@}*/

/** X(id, "name") for every cohort lock, with the name `clof-bench --lock`
 *  and the preload library use. */
#define CLOF_COHORT_LOCKS(X)                                                   \
    X(c_bo_mcs, "c-bo-mcs")                                                    \
    X(c_tkt_tkt, "c-tkt-tkt")                                                  \
    X(c_ptl_tkt, "c-ptl-tkt")

#endif /* CLOF_NUMA_COHORT_H */
