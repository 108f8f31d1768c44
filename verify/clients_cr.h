/* SPDX-License-Identifier: MIT */
/*
 * verify/clients_cr.h -- what the clients of the cr: layer share
 * (clients_cr.c: the protocol; clients_cr_lazy.c: lazy restriction).
 * Included after clof/cr.h, whose knobs each file sets first.
 */
#ifndef CLOF_VERIFY_CLIENTS_CR_H
#define CLOF_VERIFY_CLIENTS_CR_H

#include "clients.h"

#include <clof/cr.h>

/* Name the layer's words for traces. */
static inline void vc_cr_name_state(clof_cr_t *s)
{
    vc_name(&s->releases, sizeof s->releases, "cr.releases");
    vc_name(&s->active, sizeof s->active, "cr.active");
    vc_name(&s->cap, sizeof s->cap, "cr.cap");
    vc_name(&s->npassive, sizeof s->npassive, "cr.npassive");
    vc_name(&s->grants, sizeof s->grants, "cr.grants");
    vc_name(&s->taken, sizeof s->taken, "cr.taken");
    vc_name(&s->limiting, sizeof s->limiting, "cr.limiting");
    vc_name(&s->calm, sizeof s->calm, "cr.calm");
    vc_name(&s->queue, sizeof s->queue, "cr.queue");
}

#endif /* CLOF_VERIFY_CLIENTS_CR_H */
