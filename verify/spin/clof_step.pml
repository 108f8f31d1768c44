/*
 * verify/spin/clof_step.pml -- the composition step of CLoF (CLoF paper
 * §4.1-4.2) as an abstract Promela model for Spin: CLoF(l, L') with every
 * basic lock replaced by an abstract fair (FIFO) lock, at depth 2 or 3.
 *
 *   acquire(CLoF(l, L), c):  acquire(l, c); if (!passed(l)) acquire(L, ctx(l))
 *   release(CLoF(l, L), c):  if (has_waiters(l) && ++count(l) < THRESH)
 *                                { passed(l) = 1; release(l, c) }
 *                            else { count(l) = 0; passed(l) = 0;
 *                                   release(L, ctx(l)); release(l, c) }
 *
 * Abstract fair lock: a FIFO queue of process ids (a channel); the head
 * holds the lock; has_waiters = more than one entry.  Composed top-down:
 * the release of a level first releases all the levels above it that it
 * does not pass (recursively), then its own lock (the context invariant).
 *
 * Properties:
 *   mutual exclusion   assert(ncs == 1) in the critical section;
 *   context invariant  ctx(l) (the context of the high lock owned by the
 *                      cohort l) is used only by the owner of l, and by one
 *                      acquire/release at a time (asserts at every use);
 *   starvation freedom under weak fairness: ltl s<p> { [] (trying[p] ->
 *                      <> incs[p]) } for every process p.
 * -DSWAPPED releases l before L (the broken order): the context invariant
 * must fail.  -DUNBOUNDED passes inside the cohort whenever someone waits
 * there (no threshold): starvation freedom must fail.
 *
 * Machines: DEPTH 2: cohorts 0 {P0, P1} and 1 {P2} under the top lock.
 *           DEPTH 3: leaves 0 {P0, P1}, 1 {P2} under middle 3; leaf 2 {P3}
 *           under middle 4; both middles under the top lock.
 * Run it with verify/spin/run.sh (checks the search depth reached).
 */
#ifndef DEPTH
#define DEPTH 2
#endif
#define THRESH 2
#define NONE 255

#if DEPTH == 2
#define NT 3
#define NL 3
#define TOP 2
#define LEAF(p) (p < 2 -> 0 : 1)
#define PARENT(l) TOP
#else
#define NT 4
#define NL 6
#define TOP 5
#define LEAF(p) (p < 2 -> 0 : (p == 2 -> 1 : 2))
#define PARENT(l) (l < 2 -> 3 : (l == 2 -> 4 : TOP))
#endif

chan q[NL] = [NT] of { byte };
bool passed[NL];
byte count[NL];
byte lowowner[NL] = NONE;
bool ctxbusy[NL];
byte ncs;
bool trying[NT], incs[NT];

inline lk_acquire(l) {
    q[l]!_pid;
    q[l]?[eval(_pid)]
}
inline lk_release(l) {
    q[l]?_
}

/* the context of cohort s is used (to acquire or release its parent) */
inline ctx_use(s) {
    assert(lowowner[s] == _pid)
}

active [NT] proctype T()
{
    byte l, s, sp;
    byte stk[DEPTH];
    do
    ::  /* ---- acquire ---- */
        trying[_pid] = true;
        l = LEAF(_pid);
        do
        :: lk_acquire(l);
           if
           :: l == TOP -> break
           :: else ->
              lowowner[l] = _pid;
              if
              :: passed[l] ->
                 /* the cohort passed us its hold on every level above: we
                  * now own them (through ctx(l), ctx(parent(l)), ...) */
                 atomic {
                     s = PARENT(l);
                     do
                     :: s != TOP -> lowowner[s] = _pid; s = PARENT(s)
                     :: else -> break
                     od
                 };
                 break
              :: else ->
                 atomic { ctx_use(l); assert(!ctxbusy[l]); ctxbusy[l] = true };
                 l = PARENT(l)
              fi
           fi
        od;
        /* ---- critical section ---- */
        incs[_pid] = true;
        ncs++;
        assert(ncs == 1);
        ncs--;
        incs[_pid] = false;
        trying[_pid] = false;
        /* ---- release ---- */
        l = LEAF(_pid);
        sp = 0;
        do
        :: l == TOP -> lk_release(TOP); break
        :: else ->
           if
#ifdef UNBOUNDED
           :: len(q[l]) > 1 -> /* broken: keep_local never says no */
#else
           :: len(q[l]) > 1 && count[l] + 1 < THRESH ->
#endif
              count[l]++; passed[l] = true;
              lowowner[l] = NONE;
              lk_release(l); break
           :: else ->
              count[l] = 0; passed[l] = false;
#ifdef SWAPPED
              /* the broken order: the low lock first */
              lowowner[l] = NONE;
              lk_release(l);
#endif
              stk[sp] = l; sp++;
              l = PARENT(l)
           fi
        od;
        /* the parents are released (top first); now the lower levels */
        do
        :: sp > 0 ->
           sp--; s = stk[sp];
           ctx_use(s);            /* release(parent, ctx(s)) just happened */
           ctxbusy[s] = false;
#ifndef SWAPPED
           lowowner[s] = NONE;
           lk_release(s);
#endif
        :: else -> break
        od
    od
}

ltl s0 { [] (trying[0] -> <> incs[0]) }
ltl s1 { [] (trying[1] -> <> incs[1]) }
ltl s2 { [] (trying[2] -> <> incs[2]) }
#if DEPTH == 3
ltl s3 { [] (trying[3] -> <> incs[3]) }
#endif
