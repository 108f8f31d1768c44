# SPDX-License-Identifier: MIT
"""Ranking of a scripted benchmark (CLoF paper section 4.3, "Selection policy").

The scripted benchmark gives, for every lock, one throughput per contention
level (thread count).  The paper ranks the CLoF locks by

  (1) the weighted average throughput over the contention levels, with the
      weights biased to high contention: the first is the HC-best lock, the
      last the worst lock;
  (2) the inverse-weighted average, biased to low contention: the first is
      the LC-best lock.

The paper does not give numbers for the weights.  clof uses (docs/workflow.md):

  HC weight of thread count t_i:  w_i = t_i / sum_j t_j
  LC weight of thread count t_i:  w_i = (1/t_i) / sum_j (1/t_j)

Users may give their own base weights b_i (one per thread count, --weights):
HC then uses b_i and LC 1/b_i, both normalised to sum 1.

What is averaged.  Throughput at 1 thread and at 64 threads can differ by
orders of magnitude, so a plain weighted average of ops/s would let the
level with the largest numbers decide whatever the weights say.  By default
(normalize="best") each throughput is divided by the best throughput of any
candidate at that thread count, so each level contributes a fraction in
[0, 1] and the weights mean what they say.  normalize="none" averages raw
ops/s (the paper's wording, literally).  A lock without a result at some
thread count (a failed run) scores 0 there and is never best.

Everything here is pure (no I/O), so the tests can check it on fixed data.
"""

import math
import statistics

POLICIES = ("hc", "lc")


def base_weights(threads, user=None):
    """the base weights b_i: the user's, or the thread counts themselves"""
    if user is None:
        return [float(t) for t in threads]
    if len(user) != len(threads):
        raise ValueError("%d weights for %d thread counts (%s)"
                         % (len(user), len(threads), ",".join(map(str, threads))))
    out = []
    for w in user:
        w = float(w)
        if not (w > 0) or math.isinf(w):
            raise ValueError("weights must be positive numbers, got %r" % w)
        out.append(w)
    return out


def weights(threads, policy, user=None):
    """normalised weights of the thread counts for policy 'hc' or 'lc'"""
    b = base_weights(threads, user)
    if policy == "hc":
        raw = b
    elif policy == "lc":
        raw = [1.0 / x for x in b]
    else:
        raise ValueError("unknown policy %r (hc, lc)" % policy)
    s = sum(raw)
    return [x / s for x in raw]


def aggregate(records, key="ops_per_s"):
    """{lock: {threads: median of key over the runs}} from benchmark
    records (dicts with lock, threads and key); records whose key is missing
    or None are skipped"""
    acc = {}
    for r in records:
        v = r.get(key)
        if v is None:
            continue
        acc.setdefault(r["lock"], {}).setdefault(int(r["threads"]), []).append(float(v))
    return {lk: {t: statistics.median(vs) for t, vs in byt.items()} for lk, byt in acc.items()}


def references(table, threads, candidates, normalize="best"):
    """the divisor per thread count: the best candidate's throughput
    (normalize='best') or 1 ('none')"""
    if normalize == "none":
        return {t: 1.0 for t in threads}
    if normalize != "best":
        raise ValueError("unknown normalization %r (best, none)" % normalize)
    ref = {}
    for t in threads:
        vals = [table[c][t] for c in candidates if c in table and table[c].get(t)]
        ref[t] = max(vals) if vals else 1.0
    return ref


def score(tput, threads, w, ref):
    """sum_i w_i * tput[t_i] / ref[t_i]; a missing thread count counts 0"""
    s = 0.0
    for t, wi in zip(threads, w):
        v = tput.get(t)
        if v:
            s += wi * v / ref[t]
    return s


def complete(tput, threads):
    """a result (0 counts: it was measured) at every thread count"""
    return all(tput.get(t) is not None for t in threads)


def rank(table, threads, candidates, user_weights=None, normalize="best", extra=()):
    """Rank the candidates of table ({lock: {threads: throughput}}).

    Returns a dict with
      threads, weights {hc: [...], lc: [...]}, normalize, references
      scores {lock: {hc, lc, complete}} for the candidates and the extra
             locks (baselines, scored against the same references)
      order {hc: [...], lc: [...]}: the complete candidates, best first
      hc_best, lc_best, worst: lock names (None without complete candidates)
    Ties are broken by name, so the result does not depend on dict order."""
    threads = [int(t) for t in threads]
    w = {p: weights(threads, p, user_weights) for p in POLICIES}
    ref = references(table, threads, candidates, normalize)
    scores = {}
    for lk in list(candidates) + [e for e in extra if e not in candidates]:
        tp = table.get(lk, {})
        scores[lk] = {p: score(tp, threads, w[p], ref) for p in POLICIES}
        scores[lk]["complete"] = complete(tp, threads)
    ok = sorted(c for c in candidates if scores[c]["complete"])
    order = {p: sorted(ok, key=lambda c: (-scores[c][p], c)) for p in POLICIES}
    return {
        "threads": threads,
        "weights": w,
        "base_weights": base_weights(threads, user_weights),
        "user_weights": user_weights is not None,
        "normalize": normalize,
        "references": {str(t): ref[t] for t in threads},
        "scores": scores,
        "order": order,
        "hc_best": order["hc"][0] if ok else None,
        "lc_best": order["lc"][0] if ok else None,
        "worst": order["hc"][-1] if ok else None,
        "incomplete": sorted(c for c in candidates if not scores[c]["complete"]),
    }


def parse_weights(text):
    """'1,2,4,8' -> [1.0, 2.0, 4.0, 8.0]; ValueError with the reason"""
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            out.append(float(part))
        except ValueError:
            raise ValueError("expected a number, got '%s'" % part)
    return out


def weights_text(rk):
    """one line per policy, e.g. 'HC weights: t=1: 0.067, t=2: 0.133 ...'"""
    lines = []
    for p in POLICIES:
        lines.append("%s weights (%s): %s" % (
            p.upper(),
            "user base weights" + (" inverted" if p == "lc" else "") if rk["user_weights"]
            else ("proportional to threads" if p == "hc" else "proportional to 1/threads"),
            ", ".join("t=%d: %.3f" % (t, x) for t, x in zip(rk["threads"], rk["weights"][p]))))
    lines.append("averaged: " + ("throughput / best candidate's throughput at the same thread count"
                                 if rk["normalize"] == "best" else "raw throughput (ops/s)"))
    return lines


COLLAPSE = 0.5  # below this fraction of the best lock at the oversubscribed count


def oversub_guard(rk, table, t_over, cpus, candidates, others=()):
    """The selection never picks a lock that collapses when threads outnumber
    cpus (issue 19): at t_over threads (> cpus), a candidate whose median
    throughput is below COLLAPSE x the best lock's there (candidates and
    `others`, the baselines, alike) collapses.  For each policy the best
    candidate that does not collapse becomes {hc,lc}_best; when every one
    collapses the ranking's own pick stays and the record says so.  Adds
    rk["oversub"] = {threads, cpus, best, best_lock, ratio {lock: x},
    collapsed [..], policies {hc: {ranked, picked, note}, lc: ...}} and
    returns it (None when nothing was measured at t_over)."""
    if not t_over:
        return None
    at = {lk: byt.get(t_over) for lk, byt in table.items()}
    at = {lk: v for lk, v in at.items() if v is not None and
          (lk in candidates or lk in others)}
    if not at:
        return None
    best_lock = max(sorted(at), key=lambda lk: at[lk])
    best = at[best_lock]
    ratio = {lk: (v / best if best > 0 else 0.0) for lk, v in at.items()}
    collapsed = sorted(lk for lk in candidates if ratio.get(lk, 0.0) < COLLAPSE)
    out = {"threads": t_over, "cpus": cpus, "best": best, "best_lock": best_lock,
           "threshold": COLLAPSE, "ratio": ratio, "collapsed": collapsed, "policies": {}}
    for p in POLICIES:
        ranked = rk.get(p + "_best")
        if ranked is None:
            continue
        fine = [lk for lk in rk["order"][p] if lk not in collapsed]
        if ranked not in collapsed:
            note = None
            picked = ranked
        elif fine:
            picked = fine[0]
            note = ("%s collapses at %d threads on %d cpus (%.2fx the best there, %s): "
                    "%s picked instead (%.2fx)" % (ranked, t_over, cpus, ratio.get(ranked, 0.0),
                                                   best_lock, picked, ratio[picked]))
        else:
            picked = ranked
            note = ("every candidate collapses at %d threads on %d cpus (below %.2fx the best "
                    "there, %s): %s kept, it collapses too (%.2fx)"
                    % (t_over, cpus, COLLAPSE, best_lock, ranked, ratio.get(ranked, 0.0)))
        rk[p + "_best"] = picked
        out["policies"][p] = {"ranked": ranked, "picked": picked, "note": note}
    rk["oversub"] = out
    return out



# ---- the verdict against glibc (issue 38) ------------------------------------------

def median_interval(xs, level):
    """The distribution-free interval of the median of xs at confidence at
    least `level`: (lo, hi, exact level), or None when len(xs) is too small
    for any order-statistic interval to reach `level`.  The order statistics
    [x(k), x(n+1-k)] with the largest k for which the median lies outside
    them with probability at most 1 - level whatever the distribution (the
    sign test's interval: binomial(n, 1/2)).  bench/preload/summarize.py
    uses it too."""
    xs = sorted(xs)
    n = len(xs)
    best = None
    # P(B <= j) for B ~ binomial(n, 1/2): the median is below x(k) only if
    # at most k-1 of the n values are below it
    tail = 0.0
    for k in range(1, n // 2 + 1):
        tail += math.comb(n, k - 1) / 2.0 ** n   # P(B <= k-1)
        cover = 1.0 - 2.0 * tail
        if cover >= level:
            best = (xs[k - 1], xs[n - k], cover)
        else:
            break
    return best


def min_repeats(level):
    """the fewest values whose median has an interval at `level`"""
    n = 1
    while median_interval(list(range(n)), level) is None:
        n += 1
    return n


def paired_ratios(records, lock, ref, threads, key="ops_per_s", round_key="select_run",
                  lower_is_better=False):
    """lock / ref at `threads`, one ratio per interleaved round that has both
    (rounds run seconds apart, so a change of the machine's speed moves both);
    a ratio above 1 means lock is better (for a figure where lower is better
    the ratio is ref / lock)"""
    def by_round(name):
        out = {}
        for r in records:
            if r.get("lock") == name and int(r.get("threads", -1)) == int(threads) \
                    and r.get(key) is not None and "failed" not in r:
                out[r.get(round_key)] = float(r[key])
        return out
    a, b = by_round(lock), by_round(ref)
    out = []
    for k in sorted(a, key=str):
        if k in b and a[k] > 0 and b[k] > 0:
            out.append(b[k] / a[k] if lower_is_better else a[k] / b[k])
    return out


FLOOR = 0.9  # the verdict: no interval of the winner may reach below this ratio


def verdict(records, winner, ref, threads, level=0.9, key="ops_per_s", round_key="select_run",
            lower_is_better=False, ref_label="glibc", why_winner=""):
    """Whether to use `winner` instead of `ref` (glibc's locks), from the
    per-round ratios at every thread count and their median's
    distribution-free interval at `level`.  "use" only when the interval
    lies above 1 at one thread count at least, below 1 at none, and reaches
    below FLOOR (0.9x the reference) at none -- a lock that may be more than
    10% slower somewhere (typically where threads outnumber cpus) is not
    handed out; else keep the reference, with the reason.  Returns {use, winner, ref,
    level, per_threads: [{threads, n, median, lo, hi, state}], reason,
    line} (state: above, below, holds, too-few)."""
    out = {"winner": winner, "ref": ref, "level": level, "per_threads": [], "use": False}
    if winner is None:
        out["reason"] = "no candidate completed its runs"
        out["line"] = "verdict: keep %s's locks -- %s" % (ref_label, out["reason"])
        return out
    if winner == ref:
        out["reason"] = "%s ranks first itself%s" % (ref_label, why_winner)
        out["line"] = "verdict: keep %s's locks -- %s" % (ref_label, out["reason"])
        return out
    cells = []
    for t in threads:
        rs = paired_ratios(records, winner, ref, t, key, round_key, lower_is_better)
        cell = {"threads": int(t), "n": len(rs), "median": statistics.median(rs) if rs else None,
                "lo": None, "hi": None}
        iv = median_interval(rs, level) if rs else None
        if iv is None:
            cell["state"] = "too-few"
        else:
            cell["lo"], cell["hi"] = iv[0], iv[1]
            cell["state"] = "above" if iv[0] > 1.0 else ("below" if iv[1] < 1.0 else "holds")
        out["per_threads"].append(cell)
        if cell["median"] is None:
            cells.append("t=%d -" % t)
        elif cell["lo"] is None:
            cells.append("t=%d %.2fx (n=%d)" % (t, cell["median"], cell["n"]))
        else:
            cells.append("t=%d %.2fx [%.2f-%.2f]" % (t, cell["median"], cell["lo"], cell["hi"]))
    states = [c["state"] for c in out["per_threads"]]
    ratios = "; %s / %s (median of the per-round ratios [%d%% interval]): %s" % (
        winner, ref_label, round(100 * level), ", ".join(cells))
    below = [str(c["threads"]) for c in out["per_threads"] if c["state"] == "below"]
    above = [str(c["threads"]) for c in out["per_threads"] if c["state"] == "above"]
    risk = ["t=%d reaches %.2fx" % (c["threads"], c["lo"]) for c in out["per_threads"]
            if c["lo"] is not None and c["lo"] < FLOOR and c["state"] != "below"]
    if below:
        out["reason"] = "%s is slower than %s at t=%s (interval below 1)" % (
            winner, ref_label, ",".join(below))
    elif above and risk:
        out["reason"] = ("%s is faster than %s at t=%s, but its interval %s: it may be more "
                         "than %d%% slower there" % (winner, ref_label, ",".join(above),
                                                     ", ".join(risk), round(100 * (1 - FLOOR))))
    elif above:
        out["use"] = True
        out["reason"] = ("faster than %s at t=%s (interval above 1), not below %.1fx at any "
                         "thread count" % (ref_label, ",".join(above), FLOOR))
    elif states and all(s == "too-few" for s in states):
        n = max([c["n"] for c in out["per_threads"]] + [0])
        out["reason"] = ("%d paired repeats per thread count are too few for a %d%% interval "
                         "(%d are needed: --runs/--repeat %d); %s is not shown to beat %s"
                         % (n, round(100 * level), min_repeats(level), min_repeats(level),
                            winner, ref_label))
    else:
        out["reason"] = "%s is not shown faster than %s at any thread count (every interval " \
                        "holds 1)" % (winner, ref_label)
    if out["use"]:
        out["line"] = "verdict: use %s%s -- %s%s" % (winner, why_winner, out["reason"], ratios)
    else:
        out["line"] = "verdict: keep %s's locks -- %s%s" % (ref_label, out["reason"], ratios)
    return out


def guards(rk):
    """{lock: why it is excluded} for the candidates the selection cannot
    pick: a failed run, or a collapse at the oversubscribed count while
    another candidate holds (oversub_guard)"""
    out = {lk: "excluded: a run failed" for lk in rk.get("incomplete", [])}
    over = rk.get("oversub")
    if over:
        every = any("every candidate collapses" in (p.get("note") or "")
                    for p in over.get("policies", {}).values())
        if not every:
            for lk in over["collapsed"]:
                if lk not in out:
                    out[lk] = "excluded: collapses at %d threads on %d cpus (%.2fx the best there)" \
                              % (over["threads"], over["cpus"], over["ratio"].get(lk, 0.0))
    return out
