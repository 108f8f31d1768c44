/* SPDX-License-Identifier: MIT */
// clof/clof.hpp: every basic lock and a composition as a C++ mutex under
// std::lock_guard, std::unique_lock (unlocked out of order: hand over hand)
// and std::scoped_lock (two mutexes, try_lock); threads that end and start
// again reuse the contexts.  Lost updates fail.
#include <clof/clof.hpp>
#include <clof/compose.h>

#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

CLOF_COMPOSE(tkt_mcs, ticket, mcs)
using tkt_mcs_mutex = CLOF_CXX_COMPOSED_MUTEX(tkt_mcs);

enum { THREADS = 4, ROUNDS = 2000 };

template <typename Mutex> static bool run(const char *name)
{
    Mutex a, b;
    long ca = 0, cb = 0, both = 0;
    auto work = [&](int t) {
        for (int i = 0; i < ROUNDS; i++) {
            switch ((i + t) % 3) {
            case 0: {
                std::lock_guard<Mutex> g(a);
                ca = ca + 1;
                break;
            }
            case 1: { // hand over hand: take b while holding a, let a go first
                std::unique_lock<Mutex> la(a);
                ca = ca + 1;
                std::unique_lock<Mutex> lb(b);
                if (i % 16 == 1)
                    std::this_thread::yield(); // let waiters queue on a and b
                la.unlock();
                cb = cb + 1;
                break;
            }
            default: { // both at once, std::lock's try_lock dance
                std::scoped_lock g(a, b);
                both = both + 1;
                ca = ca + 1;
                cb = cb + 1;
                break;
            }
            }
        }
    };
    // two generations of threads: the second takes the first's contexts
    for (int gen = 0; gen < 2; gen++) {
        std::vector<std::thread> th;
        for (int t = 0; t < THREADS; t++)
            th.emplace_back(work, t);
        for (auto &x : th)
            x.join();
    }
    long n0 = 0, n1 = 0, n2 = 0;
    for (int gen = 0; gen < 2; gen++)
        for (int t = 0; t < THREADS; t++)
            for (int i = 0; i < ROUNDS; i++)
                ((i + t) % 3 == 0 ? n0 : (i + t) % 3 == 1 ? n1 : n2)++;
    bool ok = ca == n0 + n1 + n2 && cb == n1 + n2 && both == n2;
    // try_lock of a held mutex fails; of a free one succeeds
    a.lock();
    bool busy = false;
    std::thread([&] { busy = !a.try_lock(); }).join();
    a.unlock();
    bool free_ok = a.try_lock();
    if (free_ok)
        a.unlock();
    ok = ok && busy && free_ok;
    std::printf("%s: a %ld/%ld b %ld/%ld try_lock %s %s\n", name, ca,
                n0 + n1 + n2, cb, n1 + n2, busy ? "busy" : "NOT BUSY",
                free_ok ? "free" : "NOT FREE");
    return ok;
}

int main()
{
    bool ok = true;
#define X(name, NAME) ok &= run<clof::name##_mutex>(#name);
    CLOF_BASIC_LOCKS(X)
#undef X
    ok &= run<tkt_mcs_mutex>("tkt_mcs");
    std::printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
