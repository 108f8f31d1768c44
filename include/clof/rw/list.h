/* SPDX-License-Identifier: MIT */
/*
 * clof/rw/list.h -- the RW locks clof declares, with their names (the ones
 * clof-bench --lock, the tests and CLOF_RWLOCK of the preload library use).
 *
 *   rw-central            rw/central.h: one word, glibc's shape (baseline)
 *   rw:<writer>           rw/cohort.h over the clof lock <writer>: Calciu et
 *                         al.'s cohort RW lock, a per-node reader indicator
 *                         (per cache group with init_level); preference per
 *                         instance (reader, writer, neutral)
 *   bravo:<rw lock>       rw/bravo.h over one of the above
 *
 * CLOF_RW_LOCKS(X) lists X(id, "name") for every one; each id has the
 * interface of rw.h (clof_<id>_t, _ctx_t, _init(l, pref), read_/write_
 * acquire, tryacquire, acquire_until, release).
 * Writers: tas (test-and-set: not FIFO, so a descheduled writer's successor
 * holds nobody up), mcs (flat queue), the cohort lock c-bo-mcs (numa/cohort.h), HMCS
 * (numa/hmcs.h, as deep as the machine) and a three-level CLoF composition
 * clof:mcs-mcs-tkt (MCS per cache group, MCS per node, ticket at the system
 * level: compose.h).  Any other clof lock is one line of CLOF_RW_COHORT.
 */
/** \file
 * The RW locks clof declares, with their names (`clof-bench --lock`, the
 * tests and CLOF_RWLOCK of the preload library): rw-central, the cohort RW
 * locks rw:WRITER over five writer locks, and BRAVO over five of them.
 * Each has the interface of rw.h; link libclof.
 */
#ifndef CLOF_RW_LIST_H
#define CLOF_RW_LIST_H

#include <clof/lock/list.h>
#include <clof/numa/cohort.h>
#include <clof/numa/hmcs.h>
#include <clof/rw/bravo.h>
#include <clof/rw/central.h>
#include <clof/rw/cohort.h>

CLOF_COMPOSE(rw_k_mcs_mcs_tkt_, mcs, mcs, ticket)

/** \name rw:tas */
/**@{*/
/** Part of rw:tas, the cohort RW lock over TAS (test-and-set: not FIFO, so
 *  a descheduled writer's successor holds nobody up); rw.h says what each
 *  does. */
CLOF_RW_COHORT(rw_tas, tas)
/**@}*/
/** \name rw:mcs */
/**@{*/
/** Part of rw:mcs, the cohort RW lock over MCS (a flat queue of writers);
 *  rw.h says what each does. */
CLOF_RW_COHORT(rw_mcs, mcs)
/**@}*/
/** \name rw:c-bo-mcs */
/**@{*/
/** Part of rw:c-bo-mcs, the cohort RW lock over the cohort lock C-BO-MCS
 *  (numa/cohort.h); rw.h says what each does. */
CLOF_RW_COHORT(rw_c_bo_mcs, c_bo_mcs)
/**@}*/
/** \name rw:hmcs */
/**@{*/
/** Part of rw:hmcs, the cohort RW lock over HMCS (numa/hmcs.h, as deep as
 *  the machine); rw.h says what each does. */
CLOF_RW_COHORT(rw_hmcs, hmcs)
/**@}*/
/** \name rw:mcs-mcs-tkt */
/**@{*/
/** Part of rw:mcs-mcs-tkt, the cohort RW lock over the composition
 *  mcs-mcs-tkt (MCS per cache group, MCS per node, ticket at the system
 *  level); rw.h says what each does. */
CLOF_RW_COHORT(rw_clof_mcs_mcs_tkt, rw_k_mcs_mcs_tkt_)
/**@}*/

/** \name bravo:rw-central */
/**@{*/
/** Part of bravo:rw-central, BRAVO over rw-central (rw/central.h); rw.h
 *  says what each does. */
CLOF_RW_BRAVO(bravo_rw_central, rw_central)
/**@}*/
/** \name bravo:rw:tas */
/**@{*/
/** Part of bravo:rw:tas, BRAVO over rw:tas; rw.h says what each does. */
CLOF_RW_BRAVO(bravo_rw_tas, rw_tas)
/**@}*/
/** \name bravo:rw:mcs */
/**@{*/
/** Part of bravo:rw:mcs, BRAVO over rw:mcs; rw.h says what each does. */
CLOF_RW_BRAVO(bravo_rw_mcs, rw_mcs)
/**@}*/
/** \name bravo:rw:c-bo-mcs */
/**@{*/
/** Part of bravo:rw:c-bo-mcs, BRAVO over rw:c-bo-mcs; rw.h says what each
 *  does. */
CLOF_RW_BRAVO(bravo_rw_c_bo_mcs, rw_c_bo_mcs)
/**@}*/
/** \name bravo:rw:hmcs */
/**@{*/
/** Part of bravo:rw:hmcs, BRAVO over rw:hmcs; rw.h says what each does. */
CLOF_RW_BRAVO(bravo_rw_hmcs, rw_hmcs)
/**@}*/

/** X(id, "name") for every RW lock of this header and rw-central:
 *  clof_id_t is the lock of that name. */
#define CLOF_RW_LOCKS(X)                                                       \
    X(rw_central, "rw-central")                                                \
    X(rw_tas, "rw:tas")                                                        \
    X(rw_mcs, "rw:mcs")                                                        \
    X(rw_c_bo_mcs, "rw:c-bo-mcs")                                              \
    X(rw_hmcs, "rw:hmcs")                                                      \
    X(rw_clof_mcs_mcs_tkt, "rw:mcs-mcs-tkt")                                   \
    X(bravo_rw_central, "bravo:rw-central")                                    \
    X(bravo_rw_tas, "bravo:rw:tas")                                            \
    X(bravo_rw_mcs, "bravo:rw:mcs")                                            \
    X(bravo_rw_c_bo_mcs, "bravo:rw:c-bo-mcs")                                  \
    X(bravo_rw_hmcs, "bravo:rw:hmcs")

#endif /* CLOF_RW_LIST_H */
