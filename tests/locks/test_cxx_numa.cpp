/* SPDX-License-Identifier: MIT */
// The NUMA-aware headers (compose.h, numa/*.h) compile as C++17 and their
// locks work from C++: an emulated 3-level machine, 4 std::threads x 5000
// critical sections per lock (each thread on another virtual cpu), lost
// updates fail; the abortable locks also through acquire_until.
#include <clof/compose.h>
#include <clof/numa/acohort.h>
#include <clof/numa/cna.h>
#include <clof/numa/cohort.h>
#include <clof/numa/hmcs.h>
#include <clof/rw/list.h> // the RW locks (rw.h) from C++ too

#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

CLOF_COMPOSE(clh_mcs_tkt, clh, mcs, ticket)

template <typename Lock, typename Ctx, typename Acq, typename Rel>
static bool run(const char *name, Lock *lock, Acq acq, Rel rel)
{
    std::vector<Ctx> ctx(4);
    std::memset(static_cast<void *>(ctx.data()), 0, sizeof(Ctx) * ctx.size());
    long counter = 0;
    std::vector<std::thread> th;
    for (int t = 0; t < 4; t++)
        th.emplace_back([&, t] {
            clof_topo_set_vcpu(t * 2);
            for (int i = 0; i < 5000; i++) {
                acq(lock, &ctx[t]);
                counter = counter + 1;
                rel(lock, &ctx[t]);
            }
        });
    for (auto &x : th)
        x.join();
    std::printf("%s: %ld\n", name, counter);
    return counter == 4 * 5000;
}

#define RUN_ZERO(N)                                                            \
    [&] {                                                                      \
        auto l = std::make_unique<clof_##N##_t>();                             \
        std::memset(static_cast<void *>(l.get()), 0, sizeof(clof_##N##_t));    \
        bool r = run<clof_##N##_t, clof_##N##_ctx_t>(                          \
            #N, l.get(), clof_##N##_acquire, clof_##N##_release);              \
        return r;                                                              \
    }()

static bool until(clof_a_c_bo_clh_t *l, clof_a_c_bo_clh_ctx_t *c)
{
    return clof_a_c_bo_clh_acquire_until(l, c, clof_now_ns() + 1000000000u);
}

int main()
{
    clof_topo_opts_t o;
    std::memset(&o, 0, sizeof o);
    o.emulate = "numa:2,cache:2,core:2";
    o.flags = CLOF_TOPO_NO_ENV;
    clof_topo_error_t e;
    if (clof_topology_install(&o, &e) != 0) {
        std::fprintf(stderr, "%s\n", e.msg);
        return 2;
    }
    bool ok = true;
    ok &= RUN_ZERO(clh_mcs_tkt); // all-zero composed locks build lazily
    ok &= RUN_ZERO(c_bo_mcs);
    ok &= RUN_ZERO(a_c_bo_bo);
    ok &= RUN_ZERO(a_c_bo_clh);
    ok &= RUN_ZERO(cna);
#define RUN_RW_WRITE(N)                                                        \
    [&] {                                                                      \
        auto l = std::make_unique<clof_##N##_t>();                             \
        std::memset(static_cast<void *>(l.get()), 0, sizeof(clof_##N##_t));    \
        return run<clof_##N##_t, clof_##N##_ctx_t>(#N " (write)", l.get(),     \
                                                   clof_##N##_write_acquire,   \
                                                   clof_##N##_write_release);  \
    }()
    ok &= RUN_RW_WRITE(rw_c_bo_mcs); // all-zero RW locks are valid too
    ok &= RUN_RW_WRITE(bravo_rw_hmcs);
    {
        clof_hmcs_t h;
        std::memset(static_cast<void *>(&h), 0, sizeof h);
        if (clof_hmcs_init_topo(&h, clof_topology(), 3, nullptr) != 0)
            return 2;
        ok &= run<clof_hmcs_t, clof_hmcs_ctx_t>("hmcs", &h, clof_hmcs_acquire,
                                                 clof_hmcs_release);
    }
    {
        auto l = std::make_unique<clof_a_c_bo_clh_t>();
        std::memset(static_cast<void *>(l.get()), 0, sizeof(clof_a_c_bo_clh_t));
        ok &= run<clof_a_c_bo_clh_t, clof_a_c_bo_clh_ctx_t>(
            "a_c_bo_clh (acquire_until)", l.get(),
            [](clof_a_c_bo_clh_t *x, clof_a_c_bo_clh_ctx_t *c) {
                if (!until(x, c))
                    std::abort();
            },
            clof_a_c_bo_clh_release);
    }
    std::printf("%s (C++%ld)\n", ok ? "PASS" : "FAIL", __cplusplus);
    return ok ? 0 : 1;
}
