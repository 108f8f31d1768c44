/* SPDX-License-Identifier: MIT */
// The public headers compile as C++17 and every basic lock works from C++:
// 4 std::threads x 5000 critical sections per lock, lost updates fail.
#include <clof/clof.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

template <typename Lock, typename Ctx, void (*Acq)(Lock *, Ctx *),
          void (*Rel)(Lock *, Ctx *)>
static bool run(const char *name)
{
    auto lock = std::make_unique<Lock>();
    std::memset(static_cast<void *>(lock.get()), 0, sizeof(Lock));
    std::vector<Ctx> ctx(4);
    std::memset(static_cast<void *>(ctx.data()), 0, sizeof(Ctx) * ctx.size());
    long counter = 0;
    std::vector<std::thread> th;
    for (int t = 0; t < 4; t++)
        th.emplace_back([&, t] {
            for (int i = 0; i < 5000; i++) {
                Acq(lock.get(), &ctx[t]);
                counter = counter + 1;
                Rel(lock.get(), &ctx[t]);
            }
        });
    for (auto &x : th)
        x.join();
    std::printf("%s: %ld\n", name, counter);
    return counter == 4 * 5000;
}

int main()
{
    bool ok = true;
#define X(name, NAME)                                                          \
    ok &= run<clof_##name##_t, clof_##name##_ctx_t, clof_##name##_acquire,     \
              clof_##name##_release>(#name);
    CLOF_BASIC_LOCKS(X)
#undef X
    std::printf("%s (C++%ld, policy %s)\n", ok ? "PASS" : "FAIL", __cplusplus,
                CLOF_WAIT_POLICY_NAME);
    return ok ? 0 : 1;
}
