// SPDX-License-Identifier: MIT
// Locks.java -- the JVM's locks under libclof-preload.so (runtimes_suite.sh):
// HotSpot's monitors (synchronized, wait/notify) and its thread parker
// (LockSupport.park, under ReentrantLock, Condition and the j.u.c queues and
// pools) sleep on pthread mutexes and condition variables.  Four parts, each
// checks its result exactly; a mismatch: a line on stderr, exit 1.  At the
// end one line "ok ...".  Run: java tests/runtimes/Locks.java [SCALE]
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class Locks {
    static void fail(String what) {
        System.err.println("Locks: FAIL " + what);
        System.exit(1);
    }

    static void join(List<Thread> ts) throws InterruptedException {
        for (Thread t : ts) {
            t.join();
        }
    }

    // 1. synchronized: THREADS threads add to two counters under one monitor;
    // every 64th add a wait(0, 1)/notifyAll pair makes the monitor inflate
    // and its waiters sleep
    static long counter, shadow;

    static String monitors(int threads, int per) throws InterruptedException {
        final Object mon = new Object();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            final int id = i;
            Thread t = new Thread(() -> {
                for (int k = 0; k < per; k++) {
                    synchronized (mon) {
                        counter++;
                        shadow += id + 1;
                        if ((k & 63) == 0) {
                            mon.notifyAll();
                            try {
                                mon.wait(0, 1);
                            } catch (InterruptedException e) {
                                throw new RuntimeException(e);
                            }
                        }
                    }
                }
            });
            ts.add(t);
            t.start();
        }
        join(ts);
        long want = (long) threads * per;
        long wantShadow = (long) per * threads * (threads + 1) / 2;
        if (counter != want || shadow != wantShadow) {
            fail("synchronized: counter " + counter + " (want " + want + "), shadow " + shadow
                 + " (want " + wantShadow + ")");
        }
        return "synchronized=" + counter;
    }

    // 2. ReentrantLock + Condition: two threads hand a baton back and forth,
    // ROUNDS times each; each checks it gets the value the other left
    static int baton, turn;

    static String handoff(int rounds) throws InterruptedException {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        final String[] err = new String[2];
        List<Thread> ts = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            final int me = side;
            Thread t = new Thread(() -> {
                for (int r = 0; r < rounds; r++) {
                    lock.lock();
                    try {
                        while (turn != me) {
                            changed.awaitUninterruptibly();
                        }
                        int want = 2 * r + me;
                        if (baton != want && err[me] == null) {
                            err[me] = "side " + me + " round " + r + ": baton " + baton + ", want " + want;
                        }
                        baton++;
                        turn = 1 - me;
                        changed.signal();
                    } finally {
                        lock.unlock();
                    }
                }
            });
            ts.add(t);
            t.start();
        }
        join(ts);
        for (String e : err) {
            if (e != null) {
                fail("handoff: " + e);
            }
        }
        if (baton != 2 * rounds || lock.isLocked()) {
            fail("handoff: baton " + baton + " (want " + 2 * rounds + "), locked " + lock.isLocked());
        }
        return "handoff=" + baton;
    }

    // 3. ArrayBlockingQueue: PRODUCERS put their items (distinct values) into
    // a small bounded queue, CONSUMERS take them until a poison value; the
    // consumers' counts and sums must be the producers'
    static String queue(int producers, int consumers, int per) throws InterruptedException {
        final ArrayBlockingQueue<Long> q = new ArrayBlockingQueue<>(8);
        final long poison = -1;
        final long[] got = new long[consumers], sum = new long[consumers];
        List<Thread> ps = new ArrayList<>(), cs = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            final int me = c;
            Thread t = new Thread(() -> {
                try {
                    for (;;) {
                        long v = q.take();
                        if (v == poison) {
                            return;
                        }
                        got[me]++;
                        sum[me] += v;
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            cs.add(t);
            t.start();
        }
        for (int p = 0; p < producers; p++) {
            final long base = (long) p * per;
            Thread t = new Thread(() -> {
                try {
                    for (int k = 0; k < per; k++) {
                        q.put(base + k + 1);
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            ps.add(t);
            t.start();
        }
        join(ps);
        for (int c = 0; c < consumers; c++) {
            q.put(poison);
        }
        join(cs);
        long n = 0, s = 0;
        for (int c = 0; c < consumers; c++) {
            n += got[c];
            s += sum[c];
        }
        long total = (long) producers * per;
        long wantSum = total * (total + 1) / 2;
        if (n != total || s != wantSum || !q.isEmpty()) {
            fail("queue: " + n + " items (want " + total + "), sum " + s + " (want " + wantSum
                 + "), " + q.size() + " left");
        }
        return "queue=" + n;
    }

    // 4. a pool of POOL threads: TASKS tasks, task i sums i*j for j < 1000
    // (i * 499500); the futures' sum is checked against the closed form
    static String pool(int poolSize, int tasks) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(poolSize);
        List<Future<Long>> fs = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            final long x = i;
            fs.add(ex.submit(() -> {
                long s = 0;
                for (int j = 0; j < 1000; j++) {
                    s += x * j;
                }
                return s;
            }));
        }
        long s = 0;
        for (int i = 0; i < tasks; i++) {
            long v = fs.get(i).get();
            if (v != i * 499500L) {
                fail("pool: task " + i + " returned " + v + ", want " + i * 499500L);
            }
            s += v;
        }
        ex.shutdown();
        if (!ex.awaitTermination(60, TimeUnit.SECONDS)) {
            fail("pool: not terminated in 60 s");
        }
        long want = 499500L * tasks * (tasks - 1) / 2;
        if (s != want) {
            fail("pool: sum " + s + ", want " + want);
        }
        return "pool=" + tasks;
    }

    public static void main(String[] args) throws Exception {
        double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1;
        String a = monitors(8, (int) (5000 * scale));
        String b = handoff((int) (5000 * scale));
        String c = queue(4, 4, (int) (5000 * scale));
        String d = pool(8, (int) (2000 * scale));
        System.out.println("ok " + a + " " + b + " " + c + " " + d);
    }
}
