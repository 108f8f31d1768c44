# SPDX-License-Identifier: MIT
"""Hierarchies, heatmap matrices, and levels proposed from a heatmap.

The CLoF paper (section 4) reads the levels of a machine off its heatmap by
eye and notes that this "can be easily automated".  This module does it
(docs/topology.md "Automatic levels"):

1. Average-linkage (UPGMA) clustering of the cpus on the logarithm of the
   handover rate: the two clusters with the highest mean log-rate between
   them merge first.  Cpus that share a core merge before cpus that share a
   cache group, and so on up.  Each merge has a height: the mean log-rate
   between the two clusters it joins (made non-increasing).
2. Candidate levels: where the heights drop below the mean of the band of
   heights so far by more than log(1 + min_gap) (default 5%), the clusters
   of that moment are a candidate level.
3. The noise sigma of one pair's log-rate is estimated from the data: the
   pairs a merge joins share one expected rate, so their spread around the
   merge's mean is noise (pooled, robust, from merges of 4+ pairs).
4. A candidate is kept when the pairs whose closest shared cohort is that
   level are faster than the pairs of the level above by more than
   log(1+min_gap) and more than 3 sigma + 2 standard errors of the
   difference (UPGMA takes the highest pairs first, which can split a band
   by a sigma or two; real levels differ by far more), and when its cohorts
   of 2+ cpus hold at least half the cpus.  The weakest candidate goes
   first, then the rest are judged again; at most four stay.
5. Names: a proposed level with the same cohorts as a level of a reference
   hierarchy (this machine's sysfs, or --topology / --emulate) takes its
   name (the lowest, when several levels have those cohorts); the others
   are named in order, top down (package, numa, cache, core).

Unmeasured pairs (NaN) are left out of every average.  Tested on noisy
synthetic heatmaps of the five fixture machines (tests/topology).

Everything here is plain numpy; matplotlib is only imported by plot code.
"""

import itertools
import math

import numpy as np

KINDS = ["core", "cache", "numa", "package", "system"]
KIND_RANK = {k: i for i, k in enumerate(KINDS)}

# Relative handover rates per level for synthetic heatmaps, from the CLoF
# paper's Table 2 (speedup over the system cohort).
PAPER_RATES = {
    "x86": {"core": 12.18, "cache": 9.07, "numa": 1.54, "package": 1.54, "system": 1.0},
    "armv8": {"cache": 7.04, "numa": 2.98, "package": 1.76, "system": 1.0},
}
GENERIC_RATES = {"core": 12.0, "cache": 7.0, "numa": 3.0, "package": 1.75, "system": 1.0}


# ---- cpu lists ---------------------------------------------------------------

def parse_cpulist(s):
    """'0-3,8' -> [0, 1, 2, 3, 8]; '' -> []."""
    out = []
    s = s.strip()
    if not s:
        return out
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            a, b = int(a), int(b)
            if b < a:
                raise ValueError("range %s goes backwards" % part)
            out.extend(range(a, b + 1))
        else:
            out.append(int(part))
    return out


def format_cpulist(cpus):
    cpus = sorted(set(cpus))
    parts = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


# ---- hierarchies ----------------------------------------------------------------
#
# A hierarchy is a dict: {"cpus": [ids], "levels": [{"kind": str,
# "groups": [[ids], ...], "threshold": int}, ...]} from the leaves up, the
# last level being system (one group).  clof-topology --json gives the same
# with cpu lists as strings; from_json converts.

def from_json(obj):
    cpus = parse_cpulist(obj["cpus"])
    levels = []
    for lv in obj["levels"]:
        levels.append({"kind": lv["kind"], "threshold": lv.get("threshold", 128),
                       "groups": [parse_cpulist(g) for g in lv["groups"]]})
    return {"cpus": cpus, "levels": levels, "name": obj.get("name", ""),
            "core_types": obj.get("core_types", {})}


def labels_of(groups, cpus):
    """group index of each cpu (in the order of cpus)."""
    where = {}
    for gi, g in enumerate(groups):
        for c in g:
            where[c] = gi
    return np.array([where[c] for c in cpus])


def canonical(groups):
    """a partition as a comparable value: sorted tuple of sorted tuples."""
    return tuple(sorted(tuple(sorted(g)) for g in groups))


def lowest_common_level(hier, cpus):
    """matrix L[i, j] = index of the lowest level of hier where cpus[i] and
    cpus[j] share a cohort."""
    n = len(cpus)
    out = np.full((n, n), len(hier["levels"]) - 1, dtype=int)
    for li in range(len(hier["levels"]) - 2, -1, -1):
        lab = labels_of(hier["levels"][li]["groups"], cpus)
        same = lab[:, None] == lab[None, :]
        out[same] = li
    return out


# ---- heatmap CSV ----------------------------------------------------------------

def read_csv(path):
    """-> (cpus, matrix, comment lines).  'nan' marks pairs not measured.
    A malformed file raises ValueError("PATH:LINE: what was expected")."""
    cpus, rows, comments = None, [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for ln, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                comments.append(line[1:].strip())
                continue
            cells = line.split(",")
            if cpus is None:
                if cells[0] != "cpu":
                    raise ValueError("%s:%d: expected the header 'cpu,<ids>'" % (path, ln))
                try:
                    cpus = [int(x) for x in cells[1:]]
                except ValueError:
                    raise ValueError("%s:%d: expected cpu ids (numbers) after 'cpu'"
                                     % (path, ln)) from None
                if not cpus or min(cpus) < 0 or len(set(cpus)) != len(cpus):
                    raise ValueError("%s:%d: expected distinct cpu ids >= 0 after 'cpu'"
                                     % (path, ln))
                continue
            if len(rows) == len(cpus):
                raise ValueError("%s:%d: expected %d rows, one per cpu; this is one more"
                                 % (path, ln, len(cpus)))
            if len(cells) != len(cpus) + 1:
                raise ValueError("%s:%d: expected %d values, got %d"
                                 % (path, ln, len(cpus), len(cells) - 1))
            try:
                row_cpu = int(cells[0])
                values = [float(x) for x in cells[1:]]
            except ValueError:
                raise ValueError("%s:%d: expected the cpu id and %d numbers (or nan)"
                                 % (path, ln, len(cpus))) from None
            if row_cpu != cpus[len(rows)]:
                raise ValueError("%s:%d: expected the row of cpu %d" % (path, ln, cpus[len(rows)]))
            rows.append(values)
    if cpus is None or len(rows) != len(cpus):
        raise ValueError("%s: expected a square matrix with a 'cpu,...' header" % path)
    return cpus, np.array(rows, dtype=float), comments


def write_csv(path, cpus, m, comments=()):
    with open(path, "w") as f:
        for c in comments:
            f.write("# %s\n" % c)
        f.write("cpu," + ",".join(str(c) for c in cpus) + "\n")
        for i, c in enumerate(cpus):
            f.write(str(c) + "," + ",".join("nan" if not np.isfinite(v) else "%.1f" % v
                                             for v in m[i]) + "\n")


# ---- synthetic heatmaps -------------------------------------------------------------

def synthetic(hier, rates=None, noise=0.05, seed=1, scale=5e6, same_cpu=0.02,
              sample=1.0):
    """A heatmap of hier: pair (i, j) gets rates[kind of their lowest common
    level] * scale, times lognormal noise of sigma `noise`; the diagonal
    gets same_cpu * scale.  Symmetric, like a measured one.  With sample < 1
    the pairs are thinned like clof-heatmap's sampling policy: every pair
    inside a NUMA node (else a package) is kept, that fraction of the others
    (the rest NaN)."""
    rates = dict(GENERIC_RATES if rates is None else rates)
    cpus = hier["cpus"]
    n = len(cpus)
    rng = np.random.default_rng(seed)
    lcl = lowest_common_level(hier, cpus)
    kinds = [lv["kind"] for lv in hier["levels"]]
    base = np.vectorize(lambda li: rates.get(kinds[li], GENERIC_RATES[kinds[li]]))(lcl)
    m = base * scale * np.exp(rng.normal(0.0, noise, (n, n)))
    m = np.triu(m, 1)
    m = m + m.T
    if sample < 1.0:
        group = np.zeros(n, dtype=int)
        for kind in ("numa", "package"):
            lvl = [x for x in hier["levels"] if x["kind"] == kind]
            if lvl:
                group = labels_of(lvl[0]["groups"], cpus)
                break
        keep = np.triu(rng.random((n, n)) < sample, 1) | (group[:, None] == group[None, :])
        keep = keep | keep.T
        m[~keep] = np.nan
    np.fill_diagonal(m, same_cpu * scale)
    return m


# ---- clustering -------------------------------------------------------------------

def upgma(m):
    """Average-linkage clustering on log rates.  Returns the merges in order
    as (height, a, b, pairs): the mean log-rate between clusters a and b
    (ids of their first members' slots) and how many measured pairs that
    mean is over."""
    n = m.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log(np.where(m > 0, m, np.nan))
    np.fill_diagonal(L, np.nan)
    # symmetrise (a measured matrix is mirrored already; a hand-made one may not be)
    Lt = L.T
    both = np.isfinite(L) & np.isfinite(Lt)
    L = np.where(both, (L + Lt) / 2, np.where(np.isfinite(L), L, Lt))
    known = np.isfinite(L)
    S = np.where(known, L, 0.0)
    C = known.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        A = np.where(C > 0, S / np.maximum(C, 1), -np.inf)
    np.fill_diagonal(A, -np.inf)
    active = np.ones(n, dtype=bool)
    merges = []
    for _ in range(n - 1):
        Am = np.where(active[:, None] & active[None, :], A, -np.inf)
        np.fill_diagonal(Am, -np.inf)
        idx = int(np.argmax(Am))
        a, b = divmod(idx, n)
        if not (active[a] and active[b]) or a == b:
            # everything left has no measured pair: join the first two
            act = np.flatnonzero(active)
            a, b = int(act[0]), int(act[1])
        h = Am[a, b]
        if a > b:
            a, b = b, a
        merges.append((float(h), a, b, float(C[a, b])))
        S[a, :] += S[b, :]
        C[a, :] += C[b, :]
        S[:, a] = S[a, :]
        C[:, a] = C[a, :]
        active[b] = False
        with np.errstate(divide="ignore", invalid="ignore"):
            row = np.where(C[a, :] > 0, S[a, :] / np.maximum(C[a, :], 1), -np.inf)
        A[a, :] = row
        A[:, a] = row
        A[a, a] = -np.inf
        A[b, :] = -np.inf
        A[:, b] = -np.inf
    return merges


def partition_after(n, merges, k):
    """the clusters (lists of indices) after the first k merges"""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for h, a, b, _ in merges[:k]:
        ra, rb = find(a), find(b)
        parent[rb] = ra
    groups = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def noise_sigma(m, merges=None):
    """sigma only (see noise_estimate)"""
    est = noise_estimate(m, merges)
    return est[0] if est else None


def noise_estimate(m, merges=None):
    """The noise of one measured pair: the sigma of its log-rate, from the
    data.  Every off-diagonal pair is joined by exactly one merge, and the
    pairs of one merge share one expected rate (the level of the two
    clusters), so their spread around the merge's mean is noise.  Pooled
    over all merges with a robust scale (1.4826 x median |residual|, each
    residual scaled by sqrt(k/(k-1)) for a mean over k pairs).  None when no
    merge averages two or more pairs (fewer than 3 cpus); else (sigma, number
    of residuals it is estimated from)."""
    m = np.asarray(m, dtype=float)
    n = m.shape[0]
    if merges is None:
        merges = upgma(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log(np.where(m > 0, m, np.nan))
    members = {i: [i] for i in range(n)}
    res = {2: [], 4: []}
    for h, a, b, cnt in merges:
        A, B = members[a], members[b]
        block = L[np.ix_(A, B)].ravel()
        block = block[np.isfinite(block)]
        k = block.size
        if k >= 2:
            r = (block - block.mean()) * math.sqrt(k / (k - 1.0))
            res[2].append(r)
            if k >= 4:
                res[4].append(r)
        members[a] = A + B
        del members[b]
    # the first merges pick the highest pairs, so small blocks understate
    # the noise; blocks of 4 or more pairs when there are any
    use = res[4] or res[2]
    if not use:
        return None
    r = np.concatenate(use)
    return float(1.4826 * np.median(np.abs(r))), int(r.size)


def candidate_cuts(merges, min_gap=0.05):
    """Where the merge heights jump: merge j starts a new band when it is
    lower than the mean of the band so far by more than log(1+min_gap).
    Returns (cuts, heights): the partition after the first k merges, for k
    in cuts, is a candidate level."""
    h = np.array([x[0] for x in merges], dtype=float)
    finite = np.isfinite(h)
    floor = h[finite].min() - 1.0 if finite.any() else 0.0
    h = np.minimum.accumulate(np.where(finite, h, floor))  # heights never rise
    thr = math.log1p(min_gap)
    cuts, start = [], 0
    for j in range(1, len(h)):
        if h[start:j].mean() - h[j] > thr:
            cuts.append(j)
            start = j
    return cuts, h


def level_effect(L, fine, level, coarse):
    """Mean log-rate of the pairs whose closest shared cohort is `level`
    (same cohort of level, different cohorts of fine) minus that of the
    pairs one level up (same cohort of coarse, different cohorts of level).
    Labels are per-cpu arrays; fine None = single cpus, coarse None = all.
    Returns (difference, pairs inside, pairs one level up)."""
    n = L.shape[0]
    same = level[:, None] == level[None, :]
    same_f = np.eye(n, dtype=bool) if fine is None else fine[:, None] == fine[None, :]
    same_c = np.ones((n, n), dtype=bool) if coarse is None else coarse[:, None] == coarse[None, :]
    ok = np.isfinite(L) & ~np.eye(n, dtype=bool)
    inner = L[same & ~same_f & ok]
    outer = L[same_c & ~same & ok]
    if inner.size == 0 or outer.size == 0:
        return -math.inf, 0, 0
    # pairs are counted twice (the matrix is symmetric): halve the counts
    return float(inner.mean() - outer.mean()), inner.size // 2, outer.size // 2


def propose(cpus, m, min_gap=0.05, c=3.0, min_coverage=0.5, max_levels=4, sigma=None):
    """Levels below system from a heatmap (see the module comment).  Returns a
    list of dicts from the leaves up: {"groups": [[cpu ids]], "gap": how many
    times faster the pairs whose closest shared cohort is this level are than
    those of the level above, "merges": k}; system is implicit.
    A candidate level is kept when the difference of mean log-rates exceeds
    both log(1+min_gap) and c*sigma + 2 standard errors of the difference:
    UPGMA merges the highest pairs of a cohort first, which can make a band
    look split by one or two sigma; the standard error covers levels with
    few pairs.  sigma is
    the noise of one pair's log-rate: by default the upper end of a 2-standard-
    error interval around noise_estimate's value (at least 1%)."""
    n = len(cpus)
    if n < 2:
        return []
    m = np.asarray(m, dtype=float)
    merges = upgma(m)
    if sigma is None:
        est = noise_estimate(m, merges)
        if est is None:
            sigma = 0.05
        else:
            # an upper bound: the MAD estimate's standard error is about
            # 1.16 sigma / sqrt(N), large on small machines
            sigma = est[0] * (1.0 + 2.0 * 1.16 / math.sqrt(est[1]))
    sigma = max(sigma, 0.01)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.log(np.where(m > 0, m, np.nan))
    Lt = L.T
    L = np.where(np.isfinite(L) & np.isfinite(Lt), (L + Lt) / 2, np.where(np.isfinite(L), L, Lt))
    cuts, h = candidate_cuts(merges, min_gap)
    cands = []
    for k in cuts:
        groups = partition_after(n, merges, k)
        covered = sum(len(g) for g in groups if len(g) >= 2)
        # a level groups most cpus; a few fast pairs are noise, not a level
        if len(groups) > 1 and covered >= max(2, min_coverage * n):
            lab = np.empty(n, dtype=int)
            for gi, g in enumerate(groups):
                lab[g] = gi
            cands.append((k, groups, lab))
    effects = []
    while cands:
        effects, margin = [], []
        for i, (k, groups, lab) in enumerate(cands):
            fine = cands[i - 1][2] if i > 0 else None
            coarse = cands[i + 1][2] if i + 1 < len(cands) else None
            e, n_in, n_out = level_effect(L, fine, lab, coarse)
            se = sigma * math.sqrt(1.0 / max(n_in, 1) + 1.0 / max(n_out, 1))
            need = max(math.log1p(min_gap), c * sigma + 2.0 * se)
            effects.append(e)
            margin.append(e - need)
        worst = int(np.argmin(margin))
        if margin[worst] >= 0 and len(cands) <= max_levels:
            break
        del cands[worst]  # the weakest goes; the others' neighbours change
    return [{"groups": [[cpus[i] for i in g] for g in groups], "gap": math.exp(e),
             "merges": k, "sigma": sigma} for (k, groups, lab), e in zip(cands, effects)]


def name_levels(proposed, reference=None):
    """Kinds for proposed levels (leaves up), keeping their order.  A level
    with the same cohorts as a reference level takes that level's kind."""
    k = len(proposed)
    if k == 0:
        return []
    if k > 4:
        raise ValueError("at most 4 levels below system")
    match = []
    for lv in proposed:
        cand = set()
        if reference:
            c = canonical(lv["groups"])
            for rl in reference["levels"][:-1]:
                if canonical(rl["groups"]) == c:
                    cand.add(KIND_RANK[rl["kind"]])
        match.append(cand)
    best, best_score = None, None
    for combo in itertools.combinations(range(4), k):
        score = 0
        for i, a in enumerate(combo):
            if a in match[i]:
                score += 100 - a      # matched; the lowest matching name wins
            else:
                score += a            # unmatched: names from the top down
        if best_score is None or score > best_score:
            best, best_score = combo, score
    return [KINDS[a] for a in best]


def as_hierarchy(cpus, proposed, names, threshold=128):
    levels = [{"kind": nm, "threshold": threshold, "groups": lv["groups"]}
              for lv, nm in zip(proposed, names)]
    levels.append({"kind": "system", "threshold": threshold, "groups": [list(cpus)]})
    return {"cpus": list(cpus), "levels": levels}


def hierarchy_text(hier, name="", comments=()):
    """The hierarchy-file form of hier (docs/topology.md)."""
    out = ["clof-topology 1"]
    if name:
        out.append("name " + name)
    for c in comments:
        out.append("# " + c)
    out.append("cpus " + format_cpulist(hier["cpus"]))
    for lv in hier["levels"]:
        out.append("")
        if lv["kind"] == "system":
            out.append("level system")
            break
        out.append("level %s threshold %d" % (lv["kind"], lv.get("threshold", 128)))
        for g in sorted(lv["groups"], key=min):
            out.append("group " + format_cpulist(g))
    little = hier.get("core_types", {}).get("little", "")
    if little:
        out.append("")
        out.append("big " + hier["core_types"]["big"])
        out.append("little " + little)
    return "\n".join(out) + "\n"


def same_levels(a, b):
    """do hierarchies a and b have the same levels (kinds and cohorts)?"""
    if len(a["levels"]) != len(b["levels"]):
        return False
    for x, y in zip(a["levels"], b["levels"]):
        if x["kind"] != y["kind"] or canonical(x["groups"]) != canonical(y["groups"]):
            return False
    return True


def same_partitions(a, b):
    """the same cohorts level by level, names aside"""
    if len(a["levels"]) != len(b["levels"]):
        return False
    return all(canonical(x["groups"]) == canonical(y["groups"])
               for x, y in zip(a["levels"], b["levels"]))


# ---- Table 2 ------------------------------------------------------------------------

def table2(cpus, m, hier):
    """The paper's Table 2 for a heatmap grouped by hier (every level, as
    from clof-topology --json --all): one row per level from system down,
    plus 'same cpu'.  Each off-diagonal pair counts at the lowest level whose
    cohort holds both cpus.  Returns rows of dicts {cohort, pairs, mean,
    speedup, same_as} and the name of the level the speedups are relative to."""
    n = len(cpus)
    lcl = lowest_common_level(hier, cpus)
    levels = hier["levels"]
    iu = np.triu_indices(n, 1)
    vals = m[iu]
    lv_of = lcl[iu]
    rows = []
    mean = {}
    same_as = {}
    for li, lv in enumerate(levels):
        # a level with the same cohorts as the one below it gets no pairs of
        # its own: it is that level
        if li > 0 and canonical(lv["groups"]) == canonical(levels[li - 1]["groups"]):
            same_as[li] = same_as.get(li - 1, li - 1)
        sel = (lv_of == li) & np.isfinite(vals)
        mean[li] = float(vals[sel].mean()) if sel.any() else None
        rows.append({"cohort": lv["kind"], "pairs": int(sel.sum()), "mean": mean[li]})
    # the reference: the system level, or the level it is the same as
    top = len(levels) - 1
    ref = same_as.get(top, top)
    base = mean[ref]
    if base is None:  # no pair at the reference: the highest level with pairs
        for li in range(top, -1, -1):
            if mean[li] is not None:
                ref, base = li, mean[li]
                break
    for li, r in enumerate(rows):
        src = same_as.get(li)
        if src is not None:
            r["same_as"] = levels[src]["kind"]
            r["mean"] = mean[src]
        else:
            r["same_as"] = None
        r["speedup"] = (r["mean"] / base) if (r["mean"] is not None and base) else None
    diag = np.diag(m)
    dsel = np.isfinite(diag)
    dmean = float(diag[dsel].mean()) if dsel.any() else None
    rows.insert(0, {"cohort": "same cpu", "pairs": int(dsel.sum()), "mean": dmean,
                    "speedup": (dmean / base) if (dmean is not None and base) else None,
                    "same_as": None})
    rows = [rows[0]] + rows[1:][::-1]  # system first, like the paper
    return rows, levels[ref]["kind"]


def _num(x):
    return "%.2f" % x if x >= 0.1 else "%.2g" % x


def format_table2(rows, ref_kind):
    lines = ["%-10s %7s %16s %10s" % ("cohort", "pairs", "mean (incr/s)", "speedup")]
    for r in rows[1:] + rows[:1]:  # system first ... same cpu last
        sp = _num(r["speedup"]) if r["speedup"] is not None else "-"
        if r["same_as"]:
            lines.append("%-10s %7s %16s %10s  (same cohorts as %s)"
                         % (r["cohort"], "", "", sp, r["same_as"]))
        elif r["mean"] is None:
            lines.append("%-10s %7d %16s %10s  (%s)" % (
                r["cohort"], r["pairs"], "-", "-",
                "not measured" if r["cohort"] == "same cpu" else "no pair: one cpu per cohort"
                if r["cohort"] == "core" else "no pair measured"))
        else:
            lines.append("%-10s %7d %16.0f %10s" % (r["cohort"], r["pairs"], r["mean"], sp))
    if ref_kind == "system":
        lines.append("speedup: relative to the system row (pairs in different top-level cohorts)")
    else:
        lines.append("speedup: relative to the %s row -- every pair here shares a %s cohort, "
                     "so the system row has no pairs of its own" % (ref_kind, ref_kind))
    return "\n".join(lines)
