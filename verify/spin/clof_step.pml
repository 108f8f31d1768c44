/* SPDX-License-Identifier: MIT */
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
 * -DFAST adds the compositions' fast word above the system level (clof.md,
 * "fast path"; compose.h): HELD | TOPWAIT.  An arrival first tries
 * fast == 0 -> HELD and skips the tree; whoever acquires the top lock then
 * takes HELD (when clear) or sets TOPWAIT and waits for the fast owner to
 * leave; a cohort that passes the lock keeps HELD; the tree owner clears
 * HELD before it releases the top lock; a fast owner clears HELD only.
 * Bounded bypass: from the moment the top lock's owner finds HELD taken
 * (and sets TOPWAIT) until it holds HELD, at most BYPASS_K (1) fast
 * critical sections end (nbypass, asserted at every fast release).
 * -DNOTOPWAIT is the broken variant (the waiting system-level owner does
 * not set TOPWAIT): the bound must fail.  -DCOUNT_FROM_TOP counts from the
 * moment it acquires the top lock instead: the bound fails too -- between
 * that acquisition and its first look at the fast word, any number of fast
 * sections may pass under an unfair scheduler (weak fairness still gives
 * starvation freedom).
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
#define HELD 1
#define TOPWAIT 2
#define BYPASS_K 1
byte fast;          /* the fast word */
bool topwaiting;    /* the top lock's owner waits for HELD */
byte nbypass;       /* fast critical sections ended while it waits */

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
    bool isfast;
    do
    ::  /* ---- acquire ---- */
        trying[_pid] = true;
        l = LEAF(_pid);
        isfast = false;
#ifdef FAST
        if
        :: atomic { fast == 0 -> fast = HELD; isfast = true }
        :: else -> skip
        fi;
#endif
        do
        :: isfast -> break
        :: !isfast && l == TOP ->
           q[TOP]!_pid;
#ifdef COUNT_FROM_TOP
           atomic { q[TOP]?[eval(_pid)] -> topwaiting = true; nbypass = 0 };
#else
           q[TOP]?[eval(_pid)];
#endif
#ifdef FAST
           if
           :: atomic { (fast & HELD) == 0 -> fast = HELD; topwaiting = false }
           :: atomic { (fast & HELD) != 0 ->
#ifndef NOTOPWAIT
                  fast = fast | TOPWAIT;
#endif
#ifndef COUNT_FROM_TOP
                  nbypass = 0;
#endif
                  topwaiting = true
              };
              atomic { (fast & HELD) == 0 -> fast = HELD; topwaiting = false }
           fi;
#else
           topwaiting = false;
#endif
           break
        :: !isfast && l != TOP ->
           lk_acquire(l);
           if
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
        if
        :: isfast ->
           atomic {
               if
               :: topwaiting -> nbypass++
               :: else -> skip
               fi;
               fast = fast - HELD
           };
           assert(nbypass <= BYPASS_K);
           goto released
        :: else -> skip
        fi;
        l = LEAF(_pid);
        sp = 0;
        do
        :: l == TOP -> fast = 0; lk_release(TOP); break
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
        od;
released:
        skip
    od
}

ltl s0 { [] (trying[0] -> <> incs[0]) }
ltl s1 { [] (trying[1] -> <> incs[1]) }
ltl s2 { [] (trying[2] -> <> incs[2]) }
#if DEPTH == 3
ltl s3 { [] (trying[3] -> <> incs[3]) }
#endif
