#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""verify/genmc/weaken.py -- weaken the memory order of atomic accesses in
LLVM IR, by source location, for GenMC.

vc's mutation tool and named bugs (verify/bugs.h) weaken accesses by call
site (return addresses); GenMC interprets LLVM IR, so here the same
weakening is made in the IR that GenMC is handed, found by the debug
locations (-g) of the atomic instructions (load/store atomic, cmpxchg,
atomicrmw, fence).  The IR is the one verify/genmc/run.sh writes: every
function inlined (GenMC inlines them all anyway), so each atomic
instruction's location has the chain of calls it was inlined through.

    weaken.py [--spec SPEC]... IN.ll OUT.ll
    weaken.py --list IN.ll          weaken.py --check --spec SPEC...

SPEC is clauses separated by ',', all of which an instruction must meet:

  site=FILE:LINE  its lock-level frame (the first frame of the inlining
                  chain outside the shim: atomic.h, wait.h, backend_genmc.h,
                  as vc's mutation table names accesses) is at FILE:LINE
                  (FILE: a path suffix, e.g. lock/mcs.h or await.h)
  fn=NAME         the lock-level frame is in function NAME
  via=FILE:LINE   an outer frame of the chain (a call the access was inlined
                  through) is at FILE:LINE: the accesses of a callee called
                  from that line only (vc names an access of a tail-called
                  function by its caller's call site)
  in=NAME         some frame of the chain is in function NAME (bugs.h's
                  site_fn: every access inside that lock function)
  loc=TEXT        the address operand comes (through bitcasts, GEPs and
                  PHIs) from a value whose name contains TEXT (clang names a
                  member access after the field: loc=status)
  kind=K          load, store, xchg, cmpxchg, fetch_add, fetch_sub,
                  fetch_and, fetch_or, fetch_xor, fence, rmw (any
                  read-modify-write), write (a store or an RMW); '|' for
                  several
  from=ORDERS     its order now, one or several ('|'): rlx acq rel acq_rel
                  seq_cst (or LLVM's names); omitted: every order stronger
                  than to=
  to=ORDER        the new order; none removes a fence

Orders are weakened only: an access whose order is not stronger than to=
keeps it.  A cmpxchg's failure order becomes at most the one its new
success order allows (release -> relaxed, acq_rel -> acquire).  Each
weakened instruction is listed on stderr; a SPEC that matches no
instruction is an error (exit 1), with the accesses of the named file or
function listed.  --list prints every atomic instruction with its chain
(innermost first) and changes nothing; --check only checks the SPECs.
"""
import argparse
import os
import re
import sys

SHIM = ("atomic.h", "wait.h", "backend_genmc.h")
ORDERS = ["monotonic", "acquire", "release", "acq_rel", "seq_cst"]
ALIAS = {"rlx": "monotonic", "relaxed": "monotonic", "monotonic": "monotonic",
         "acq": "acquire", "acquire": "acquire", "rel": "release",
         "release": "release", "acq_rel": "acq_rel", "ar": "acq_rel",
         "seq_cst": "seq_cst", "sc": "seq_cst", "seq": "seq_cst",
         "none": "none", "removed": "none"}
VCNAME = {"monotonic": "rlx", "acquire": "acq", "release": "rel",
          "acq_rel": "acq_rel", "seq_cst": "seq_cst", "none": "removed"}
RMWKIND = {"xchg": "xchg", "add": "fetch_add", "sub": "fetch_sub",
           "and": "fetch_and", "or": "fetch_or", "xor": "fetch_xor"}
KINDS = {"load", "store", "xchg", "cmpxchg", "fetch_add", "fetch_sub",
         "fetch_and", "fetch_or", "fetch_xor", "fetch_nand", "fetch_max",
         "fetch_min", "fetch_umax", "fetch_umin", "fetch_other", "fence",
         "rmw", "write"}
ACQ = {"monotonic": 0, "acquire": 1, "release": 0, "acq_rel": 1, "seq_cst": 2}
REL = {"monotonic": 0, "acquire": 0, "release": 1, "acq_rel": 1, "seq_cst": 2}


class SpecError(Exception):
    pass


def stronger(a, b):
    """a is strictly stronger than b (the C11 order lattice)."""
    return a != b and ACQ[a] >= ACQ[b] and REL[a] >= REL[b]


def meet(a, b):
    """the strongest order no stronger than both"""
    acq, rel = min(ACQ[a], ACQ[b]), min(REL[a], REL[b])
    if acq == 2 and rel == 2:
        return "seq_cst"
    acq, rel = min(acq, 1), min(rel, 1)
    return {(0, 0): "monotonic", (1, 0): "acquire", (0, 1): "release",
            (1, 1): "acq_rel"}[(acq, rel)]


def fail_order(o):
    return {"release": "monotonic", "acq_rel": "acquire"}.get(o, o)


def order(s):
    o = ALIAS.get(s.strip().lower())
    if o is None:
        raise SpecError("unknown memory order '%s' (rlx acq rel acq_rel seq_cst%s)"
                        % (s, ", none for a fence"))
    return o


def parse_spec(text):
    spec = {}
    for clause in text.split(","):
        clause = clause.strip()
        if not clause:
            continue
        if "=" not in clause:
            raise SpecError("clause '%s': expected KEY=VALUE" % clause)
        k, v = clause.split("=", 1)
        k, v = k.strip(), v.strip()
        if k in ("site", "via"):
            m = re.fullmatch(r"(.+):(\d+)", v)
            if not m:
                raise SpecError("%s=%s: expected FILE:LINE" % (k, v))
            spec[k] = (m.group(1), int(m.group(2)))
        elif k in ("fn", "in", "loc"):
            if not v:
                raise SpecError("%s= needs a value" % k)
            spec[k] = v
        elif k == "kind":
            ks = set(v.split("|"))
            bad = ks - KINDS
            if bad:
                raise SpecError("kind '%s' unknown (%s)" % ("|".join(sorted(bad)),
                                                           " ".join(sorted(KINDS))))
            spec[k] = ks
        elif k == "from":
            spec[k] = {order(o) for o in v.split("|")}
            if "none" in spec[k]:
                raise SpecError("from=none: a fence's order is acq, rel, acq_rel or seq_cst")
        elif k == "to":
            spec[k] = order(v)
        else:
            raise SpecError("unknown clause '%s' (site fn via in loc kind from to)" % k)
    if "to" not in spec:
        raise SpecError("'%s': to=ORDER missing" % text)
    if not any(k in spec for k in ("site", "fn", "via", "in", "loc")):
        raise SpecError("'%s': no location (site=, fn=, via=, in= or loc=)" % text)
    return spec


# ---------------------------------------------------------------- debug info
MD = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$")
FIELD = re.compile(r'(\w+): ("(?:[^"\\]|\\.)*"|![0-9]+|[^,]+)')


class Debug:
    def __init__(self, lines):
        self.md = {}
        for ln in lines:
            if not ln.startswith("!"):
                continue
            m = MD.match(ln)
            if not m:
                continue
            fields = {}
            for f in FIELD.finditer(m.group(3)):
                fields[f.group(1)] = f.group(2)
            self.md[int(m.group(1))] = (m.group(2), fields)
        self.cache = {}

    def ref(self, v):
        return int(v[1:]) if v and v.startswith("!") and v[1:].isdigit() else None

    def str_(self, v):
        return v[1:-1] if v and v.startswith('"') else v

    def file_of(self, scope):
        """(full path, function name) of a scope"""
        path, fn, seen = None, None, 0
        while scope is not None and seen < 1000:
            seen += 1
            ent = self.md.get(scope)
            if ent is None:
                break
            kind, f = ent
            if path is None and "file" in f:
                fe = self.md.get(self.ref(f["file"]))
                if fe and fe[0] == "DIFile":
                    name = self.str_(fe[1].get("filename", '""'))
                    d = self.str_(fe[1].get("directory", '""'))
                    path = os.path.normpath(os.path.join(d, name))
            if kind == "DISubprogram":
                fn = self.str_(f.get("name", '""'))
                break
            scope = self.ref(f.get("scope"))
        return path or "?", fn or "?"

    def chain(self, loc):
        """[(path, line, function)] innermost first"""
        if loc in self.cache:
            return self.cache[loc]
        out, cur, seen = [], loc, 0
        while cur is not None and seen < 1000:
            seen += 1
            ent = self.md.get(cur)
            if ent is None or ent[0] != "DILocation":
                break
            f = ent[1]
            path, fn = self.file_of(self.ref(f.get("scope")))
            out.append((path, int(f.get("line", "0")), fn))
            cur = self.ref(f.get("inlinedAt"))
        self.cache[loc] = out
        return out


def short(path):
    i = path.find("include/clof/")
    return path[i + 13:] if i >= 0 else os.path.basename(path)


def path_match(path, want):
    want = os.path.normpath(want)
    return path == want or path.endswith("/" + want)


def lock_frame(chain):
    """index of the first frame outside the shim (vc's "where")"""
    for i, (p, _, _) in enumerate(chain):
        if os.path.basename(p) not in SHIM:
            return i
    return len(chain) - 1 if chain else None


# ---------------------------------------------------------------- instructions
ORD = r"(unordered|monotonic|acquire|release|acq_rel|seq_cst)"
SCOPE = r'(?:syncscope\("[^"]*"\) )?'
# an atomic instruction: its opcode, the operands, its order(s) before ", align"
R_INS = re.compile(r"^\s+(?:%[\w.$-]+ = )?(load atomic|store atomic|atomicrmw|cmpxchg)"
                   r"((?: weak| volatile)*) (.*?) " + SCOPE + ORD + "(?: " + ORD + r")?(?=, align)")
R_FENCE = re.compile(r"^\s+fence " + SCOPE + ORD)
R_ANY = re.compile(r"^\s+(?:%[\w.$-]+ = )?(?:load atomic|store atomic|cmpxchg|atomicrmw|fence)\b")
R_DBG = re.compile(r"!dbg !(\d+)")
R_DEF = re.compile(r"^\s*(%[\w.$-]+) = (.*)$")
R_DEFINE = re.compile(r"^define .*@([\w.$-]+)\(")
R_VAL = re.compile(r"[%@][\w.$-]+")


def operands(text):
    """split at the commas outside parentheses, brackets and braces"""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


class Access:
    def __init__(self, idx, kind, ptr, mos, func):
        self.idx, self.kind, self.ptr, self.mos, self.func = idx, kind, ptr, mos, func
        self.dbg = None


def scan(lines):
    accs, defs, func = [], {}, None
    fdefs = {}
    for i, ln in enumerate(lines):
        m = R_DEFINE.match(ln)
        if m:
            func = m.group(1)
            fdefs = defs.setdefault(func, {})
            continue
        if ln.startswith("}"):
            func = None
            continue
        if func is None:
            continue
        m = R_DEF.match(ln)
        if m:
            fdefs[m.group(1)] = m.group(2)
        a = None
        m = R_INS.match(ln)
        if m:
            op, ops = m.group(1), operands(m.group(3))
            if op == "load atomic":
                kind, ptr = "load", ops[1]
            elif op == "store atomic":
                kind, ptr = "store", ops[1]
            elif op == "atomicrmw":
                rop, _, rest = ops[0].partition(" ")
                kind, ptr = RMWKIND.get(rop, "fetch_other"), rest
            else:
                kind, ptr = "cmpxchg", ops[0]
            mos = [m.group(4)] + ([m.group(5)] if m.group(5) else [])
            if (kind == "cmpxchg") != (len(mos) == 2):
                raise SpecError("line %d: cannot read the orders of\n  %s" % (i + 1, ln.strip()))
            a = Access(i, kind, R_VAL.findall(ptr), mos, func)
        elif R_FENCE.match(ln):
            a = Access(i, "fence", [], [R_FENCE.match(ln).group(1)], func)
        elif R_ANY.match(ln):
            raise SpecError("line %d: an atomic instruction this script cannot read:\n  %s"
                            % (i + 1, ln.strip()))
        if a:
            d = R_DBG.search(ln)
            a.dbg = int(d.group(1)) if d else None
            accs.append(a)
    return accs, defs


def ptr_names(a, defs):
    """names of the values the address comes from"""
    out, todo, seen = [], list(a.ptr), set()
    fdefs = defs.get(a.func, {})
    while todo and len(seen) < 64:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        out.append(v[1:])
        d = fdefs.get(v)
        if d is None:
            continue
        if d.startswith(("getelementptr", "bitcast", "phi", "select", "addrspacecast",
                         "ptrtoint", "inttoptr")):
            todo.extend(re.findall(r"(%[\w.$-]+)", d))
    return out


def kind_ok(k, want):
    if k in want:
        return True
    if "rmw" in want and k not in ("load", "store", "fence"):
        return True
    if "write" in want and k not in ("load", "fence"):
        return True
    return False


def matches(a, ch, spec, defs):
    if "kind" in spec and not kind_ok(a.kind, spec["kind"]):
        return False
    if not ch:
        return False
    li = lock_frame(ch)
    path, line, fn = ch[li]
    if "site" in spec and not (path_match(path, spec["site"][0]) and line == spec["site"][1]):
        return False
    if "fn" in spec and fn != spec["fn"]:
        return False
    if "via" in spec and not any(path_match(p, spec["via"][0]) and l == spec["via"][1]
                                 for p, l, _ in ch[li + 1:]):
        return False
    if "in" in spec and not any(f == spec["in"] for _, _, f in ch):
        return False
    if "loc" in spec and not any(spec["loc"] in n for n in ptr_names(a, defs)):
        return False
    return True


def where(ch):
    if not ch:
        return "(no debug location)"
    p, l, f = ch[lock_frame(ch)]
    return "%s:%d %s" % (short(p), l, f)


def rewrite(line, a, new):
    """the line with a's order(s) replaced; None: remove the line (fence)"""
    if a.kind == "fence":
        if new == "none":
            return None
        return re.sub(r"^(\s*fence " + SCOPE + r")" + ORD, lambda m: m.group(1) + new, line)
    if a.kind == "cmpxchg":
        fail, cap = a.mos[1], fail_order(new)
        f2 = cap if stronger(fail, cap) else fail
        return re.sub(r" (" + SCOPE + ")" + ORD + " " + ORD + r"(?=, align)",
                      lambda m: " " + m.group(1) + new + " " + f2, line, count=1)
    return re.sub(r" (" + SCOPE + ")" + ORD + r"(?=, align)",
                  lambda m: " " + m.group(1) + new, line, count=1)


def apply(lines, accs, defs, dbg, spec, text, log):
    n = 0
    for a in accs:
        ch = dbg.chain(a.dbg) if a.dbg is not None else []
        if not matches(a, ch, spec, defs):
            continue
        cur = a.mos[0]
        if cur == "unordered":
            continue
        to = spec["to"]
        if "from" in spec and cur not in spec["from"]:
            continue
        if to == "none":
            if a.kind != "fence":
                continue
        else:
            if a.kind == "fence" and to == "monotonic":
                raise SpecError("'%s': a fence cannot be relaxed: to=none removes it" % text)
            if not stronger(cur, to):
                if "from" in spec:
                    # an incomparable pair (acq -> rel): the meet of the two
                    to = meet(cur, to)
                    if to == cur:
                        continue
                else:
                    continue
        if lines[a.idx] is None:
            continue
        nl = rewrite(lines[a.idx], a, to)
        lines[a.idx] = nl
        a.mos[0] = to if to != "none" else cur
        n += 1
        log.write("weaken: %s %s %s -> %s (line %d of the IR; chain %s)\n" % (
            where(ch), a.kind, VCNAME.get(cur, cur), VCNAME.get(to, to), a.idx + 1,
            " <- ".join("%s:%d" % (short(p), l) for p, l, _ in ch)))
    return n


def near(accs, dbg, spec):
    """what the file or function of a SPEC that matched nothing has"""
    out = set()
    for a in accs:
        ch = dbg.chain(a.dbg) if a.dbg is not None else []
        if not ch:
            continue
        p, l, f = ch[lock_frame(ch)]
        ok = False
        for key in ("site", "via"):
            if key in spec and any(path_match(pp, spec[key][0]) for pp, _, _ in ch):
                ok = True
        for key in ("fn", "in"):
            if key in spec and any(ff == spec[key] for _, _, ff in ch):
                ok = True
        if ok:
            out.add("%s %s %s" % (where(ch), a.kind, VCNAME.get(a.mos[0], a.mos[0])))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", action="append", default=[], help="see the header")
    ap.add_argument("--list", action="store_true", help="list the atomic instructions")
    ap.add_argument("--name", help="what IN.ll is, for the messages")
    ap.add_argument("--check", action="store_true", help="only check the SPECs' syntax")
    ap.add_argument("inp", nargs="?")
    ap.add_argument("out", nargs="?")
    o = ap.parse_args()
    try:
        specs = [(parse_spec(s), s) for s in o.spec]
        if o.check:
            return 0
        if not o.inp:
            raise SpecError("IN.ll missing")
        with open(o.inp) as f:
            lines = f.read().split("\n")
        dbg = Debug(lines)
        accs, defs = scan(lines)
        if o.list:
            for a in accs:
                ch = dbg.chain(a.dbg) if a.dbg is not None else []
                print("%-50s %-9s %-8s %s | %s" % (
                    where(ch), a.kind, VCNAME.get(a.mos[0], a.mos[0]), a.func,
                    " <- ".join("%s:%d %s" % (short(p), l, f) for p, l, f in ch)))
            return 0
        if not o.out:
            raise SpecError("OUT.ll missing")
        if not specs:
            raise SpecError("no --spec given")
        for spec, text in specs:
            if apply(lines, accs, defs, dbg, spec, text, sys.stderr) == 0:
                msg = "weaken.py: SPEC '%s' matches no atomic access of %s" % (text, o.name or o.inp)
                nb = near(accs, dbg, spec)
                if nb:
                    msg += "; the accesses of that file or function:\n  " + "\n  ".join(nb[:40])
                else:
                    msg += " (nor any access of that file or function)"
                sys.stderr.write(msg + "\n")
                return 1
        with open(o.out, "w") as f:
            f.write("\n".join(ln for ln in lines if ln is not None))
        return 0
    except SpecError as e:
        sys.stderr.write("weaken.py: %s\n" % e)
        return 2
    except OSError as e:
        sys.stderr.write("weaken.py: %s\n" % e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
