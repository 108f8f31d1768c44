/* SPDX-License-Identifier: MIT */
// asl.h compiles as C++17 (public headers must) and its generated lock
// works from C++: one acquire/release of each kind, an epoch around them.
#include <clof/asl.h>
#include <clof/compose.h>
#include <clof/lock/mcs.h>
#include <clof/lock/ticket.h>

#include <cstdio>

CLOF_COMPOSE(cxx_mcs_tkt, mcs, ticket)
CLOF_ASL_LOCK(cxx_asl_mcs, mcs)
CLOF_ASL_BLOCKING_LOCK(cxx_aslb_tkt, ticket)
CLOF_ASL_LOCK(cxx_asl_cmp, cxx_mcs_tkt)

int main()
{
    static clof_cxx_asl_mcs_t a = CLOF_ASL_INITIALIZER(CLOF_MCS_INITIALIZER);
    static clof_cxx_aslb_tkt_t b;
    static clof_cxx_asl_cmp_t c;
    clof_cxx_aslb_tkt_init(&b);
    clof_cxx_asl_cmp_init(&c);
    clof_cxx_asl_mcs_ctx_t ca{};
    clof_cxx_aslb_tkt_ctx_t cb{};
    clof_cxx_asl_cmp_ctx_t cc{};
    clof_asl_set_thread_core_type(CLOF_CORE_LITTLE);
    clof_epoch_start(0);
    clof_cxx_asl_mcs_acquire(&a, &ca);
    bool held = !clof_cxx_asl_mcs_tryacquire(&a, &ca);
    clof_cxx_asl_mcs_release(&a, &ca);
    clof_cxx_aslb_tkt_acquire_reorder(&b, &cb, 1000);
    clof_cxx_aslb_tkt_release(&b, &cb);
    clof_cxx_asl_cmp_acquire_immediately(&c, &cc);
    clof_cxx_asl_cmp_release(&c, &cc);
    clof_epoch_end(0, 1000000000u);
    if (!held || clof_asl_epoch_window(0) == 0) {
        std::fprintf(stderr, "FAIL asl C++: tryacquire on a held lock succeeded or no window\n");
        return 1;
    }
    std::printf("ok asl C++\n");
    return 0;
}
