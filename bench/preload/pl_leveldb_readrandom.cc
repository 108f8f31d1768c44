/* SPDX-License-Identifier: MIT */
// pl_leveldb_readrandom -- LevelDB "readrandom" through Debian's libleveldb:
// fill N keys, then T threads do random Gets for D seconds and check every
// value.  LevelDB locks std::mutex (pthread_mutex_lock) on every Get and
// waits on std::condition_variable (pthread_cond_*) in its background work,
// so under LD_PRELOAD=libclof-preload.so it runs on clof locks.
//
//   pl_leveldb_readrandom --db DIR [--keys N] [--threads T] [--duration S]
//                         [--value-size B] [--label L]
//
// Prints one JSON object (ops_per_s, errors, ...).  Exit 0 when every Get
// found its key with the right value, 1 otherwise, 2 on bad usage.
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <clof/preload.h>

namespace {

std::string key_of(uint64_t k)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "k%015" PRIu64, k);
    return buf;
}

std::string value_of(uint64_t k, size_t size)
{
    std::string v(size, ' ');
    uint64_t x = k * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = static_cast<char>('a' + x % 26);
    }
    return v;
}

void usage(const char *argv0)
{
    std::fprintf(stderr,
                 "usage: %s --db DIR [--keys N] [--threads T] [--duration S] "
                 "[--value-size B] [--label L]\n",
                 argv0);
    std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
    std::string dir, label;
    uint64_t nkeys = 100000;
    int threads = 1;
    double duration = 2.0;
    size_t vsize = 100;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc)
            usage(argv[0]);
        const char *v = argv[++i];
        if (a == "--db")
            dir = v;
        else if (a == "--keys")
            nkeys = std::strtoull(v, nullptr, 10);
        else if (a == "--threads")
            threads = std::atoi(v);
        else if (a == "--duration")
            duration = std::atof(v);
        else if (a == "--value-size")
            vsize = std::strtoull(v, nullptr, 10);
        else if (a == "--label")
            label = v;
        else
            usage(argv[0]);
    }
    if (dir.empty() || nkeys == 0 || threads < 1 || threads > 256 || duration <= 0 || vsize == 0)
        usage(argv[0]);

    leveldb::DestroyDB(dir, leveldb::Options());
    leveldb::Options opt;
    opt.create_if_missing = true;
    opt.error_if_exists = true;
    leveldb::DB *db = nullptr;
    leveldb::Status s = leveldb::DB::Open(opt, dir, &db);
    if (!s.ok()) {
        std::fprintf(stderr, "pl_leveldb_readrandom: open %s: %s\n", dir.c_str(), s.ToString().c_str());
        return 1;
    }
    auto t0 = std::chrono::steady_clock::now();
    {
        leveldb::WriteBatch batch;
        for (uint64_t k = 0; k < nkeys; k++) {
            batch.Put(key_of(k), value_of(k, vsize));
            if (k % 1000 == 999 || k + 1 == nkeys) {
                s = db->Write(leveldb::WriteOptions(), &batch);
                if (!s.ok()) {
                    std::fprintf(stderr, "pl_leveldb_readrandom: write: %s\n", s.ToString().c_str());
                    return 1;
                }
                batch.Clear();
            }
        }
    }
    double fill_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::atomic<bool> go{false}, stop{false};
    std::atomic<uint64_t> errors{0};
    std::vector<uint64_t> ops(threads, 0);
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++) {
        ts.emplace_back([&, t] {
            uint64_t x = 0x2545f4914f6cdd1dull * (t + 1), n = 0;
            std::string got;
            while (!go.load(std::memory_order_acquire))
                std::this_thread::yield();
            while (!stop.load(std::memory_order_relaxed)) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                uint64_t k = x % nkeys;
                leveldb::Status st = db->Get(leveldb::ReadOptions(), key_of(k), &got);
                if (!st.ok() || got != value_of(k, vsize)) {
                    if (errors.fetch_add(1) < 5)
                        std::fprintf(stderr, "pl_leveldb_readrandom: key %" PRIu64 ": %s\n", k,
                                     st.ok() ? "wrong value" : st.ToString().c_str());
                }
                n++;
            }
            ops[t] = n;
        });
    }
    auto start = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    std::this_thread::sleep_for(std::chrono::duration<double>(duration));
    stop.store(true);
    for (auto &th : ts)
        th.join();
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    delete db;
    leveldb::DestroyDB(dir, leveldb::Options());

    uint64_t total = 0;
    for (uint64_t n : ops)
        total += n;
    const char *lock = "glibc";
    bool preloaded = false;
    if (auto info = reinterpret_cast<clof_preload_info_fn>(dlsym(RTLD_DEFAULT, "clof_preload_info"))) {
        clof_preload_info_t i;
        info(&i, sizeof i);
        lock = i.lock;
        preloaded = true;
    }
    std::printf("{\"driver\":\"leveldb_readrandom\",\"label\":\"%s\",\"lock\":\"%s\",\"preloaded\":%s,"
                "\"threads\":%d,\"keys\":%" PRIu64 ",\"value_size\":%zu,\"fill_s\":%.3f,"
                "\"duration_s\":%.3f,\"ops\":%" PRIu64 ",\"ops_per_s\":%.1f,\"errors\":%" PRIu64 "}\n",
                label.c_str(), lock, preloaded ? "true" : "false", threads, nkeys, vsize, fill_s,
                elapsed, total, total / elapsed, errors.load());
    return errors.load() == 0 && total > 0 ? 0 : 1;
}
