#!/usr/bin/env python3
"""tests/layers.py: the include graph of src/, checked for circles (TAP).

Reads every .c, .h and .def under src/ (not src/proto/gen/, which is
generated; an include of proto/gen/x.h still counts as one of proto) and
draws two graphs from their "..." includes:

  units    a source file and its header are one unit (net/conn.c and
           net/conn.h are net/conn; a private <dir>/<dir>_int.h belongs to
           <dir>/<dir> when that exists). Test 1 fails when a unit includes
           one that includes it back.
  modules  the folders of src/ (core, net, api, proto, log, partition,
           group, txn, auth, control, cluster, meta, telemetry); the files
           at the top of src/ (broker.[ch], broker_meta.c, main.c, embed.c)
           are the module "broker". Test 2 fails when the module edges,
           less the allowed ones below, close a circle.

Both allow-lists name what is known today. An entry whose includes are gone
fails test 3 until it is removed here, so the lists only shrink. A new
include that closes a circle fails, naming the edges of the circle and the
includes that make each one.

  tests/layers.py [--graph]   --graph prints the module edges and exits
"""

import collections
import os
import re
import sys

# Module edges that point up (against STYLE.md section 1 and issue 21 as
# drawn: broker > control > api > net > telemetry, auth, txn > group >
# partition > cluster, meta, log > proto > core). Without them the module
# graph has no circle.
ALLOWED_MODULE_EDGES = {
    ("net", "broker"): "net/ reads gr_broker_t (broker.h) for its settings",
    ("api", "broker"): "handlers reach modules through req->broker",
    ("control", "broker"): "control/control.h takes gr_broker_t",
}

# Units that include each other (unordered pairs).
ALLOWED_UNIT_PAIRS = {
    ("api/api_int", "api/dispatch"): "api_int.h takes gr_req_t from dispatch.h",
    ("api/api_int", "broker"): "broker.c registers handlers; api_int.h takes broker.h",
    ("api/change", "broker"): "broker.c ends the stores' changes; change.c takes broker.h",
    ("api/configs", "broker"): "broker.c uses config checks; configs.h takes broker.h",
    ("broker", "control/control"): "control.h takes gr_broker_t",
    ("broker", "net/conn"): "net/conn.c reads gr_broker_t",
    ("broker", "net/listener"): "gr_broker_t embeds listeners",
    ("broker", "net/quota"): "net/quota.c reads gr_broker_t",
    ("broker", "net/scram"): "net/scram.c reads gr_broker_t",
    ("net/conn", "net/listener"): "listener accepts conns, conns read listener settings",
    ("net/conn", "net/quota"): "conns throttle, quota walks conns",
    ("net/conn", "net/sasl"): "conns run SASL, SASL answers on conns",
    ("net/listener", "net/quota"): "listener.h embeds quota state",
    # cluster mode's glue at the top of src/ (one module, "broker"):
    # broker_meta_int.h is the private header its files share; to be
    # split (issue 21)
    ("broker", "broker_meta"): "broker.c starts cluster mode; broker_meta.c takes broker.h",
    ("broker", "broker_repl"): "broker.c calls the leader's replication; broker_repl.h takes broker.h",
    ("broker_acls", "broker_meta"): "broker_meta.c loads the ACLs; they read broker_meta_int.h",
    ("broker_meta", "broker_repl"): "broker_meta.c starts it; it reads broker_meta_int.h",
    ("broker_meta", "broker_replica"): "broker_meta.c starts the fetchers; they read broker_meta_int.h",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module_of(path):
    return path.split("/", 1)[0] if "/" in path else "broker"


def read_tree(src):
    """[(file, included file)], both relative to src."""
    out = []
    for d, dirs, files in os.walk(src):
        rel_d = os.path.relpath(d, src)
        if rel_d == os.path.join("proto", "gen"):
            dirs[:] = []
            continue
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".def")):
                continue
            path = os.path.normpath(os.path.join(rel_d, f))
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                for line in fh:
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    name = m.group(1)
                    here = os.path.normpath(os.path.join(rel_d, name))
                    if os.path.exists(os.path.join(src, here)):
                        out.append((path, here))
                    elif os.path.exists(os.path.join(src, name)) or \
                            name.startswith("proto/gen/"):
                        out.append((path, os.path.normpath(name)))
                    # else: config.h, protocol/, include/ (not src/)
    return out


def units_of(files):
    """file -> unit name (path without extension, _int.h folded)."""
    stems = {os.path.splitext(f)[0] for f in files}
    out = {}
    for f in files:
        u = os.path.splitext(f)[0]
        if u.endswith("_int") and u[:-4] in stems:
            u = u[:-4]
        out[f] = u
    return out


def edges_by(incs, key):
    e = collections.defaultdict(list)
    for a, b in incs:
        ka, kb = key(a), key(b)
        if ka != kb:
            e[(ka, kb)].append("%s -> %s" % (a, b))
    return e


def circle(edges, allowed):
    """The shortest circle of module edges outside `allowed`, or None."""
    g = collections.defaultdict(set)
    for a, b in edges:
        if (a, b) not in allowed:
            g[a].add(b)
    best = None
    for a in sorted(g):
        for b in sorted(g[a]):
            prev = {b: None}
            todo = collections.deque([b])
            while todo and a not in prev:
                v = todo.popleft()
                for w in sorted(g[v]):
                    if w not in prev:
                        prev[w] = v
                        todo.append(w)
            if a not in prev:
                continue
            path = [a]
            while path[-1] != b:
                path.append(prev[path[-1]])
            c = [a] + path[::-1]
            if best is None or len(c) < len(best):
                best = c
    return best


def show(edges, a, b, n=3):
    files = sorted(edges[(a, b)])
    more = " (+%d more)" % (len(files) - n) if len(files) > n else ""
    return "%s -> %s: %s%s" % (a, b, ", ".join(files[:n]), more)


def main():
    top = os.environ.get("top_srcdir") or \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    src = os.path.join(top, "src")
    incs = read_tree(src)
    files = {f for pair in incs for f in pair}
    unit = units_of(files)
    uedges = edges_by(incs, lambda f: unit[f])
    medges = edges_by(incs, module_of)

    if sys.argv[1:] == ["--graph"]:
        mods = sorted({m for e in medges for m in e})
        for m in mods:
            print("%-10s -> %s" % (m, " ".join(
                sorted(b for a, b in medges if a == m))))
        return 0

    print("1..3")
    bad = []
    for (a, b) in sorted(uedges):
        if a < b and (b, a) in uedges and (a, b) not in ALLOWED_UNIT_PAIRS:
            bad.append((a, b))
    failed = bool(bad)
    if bad:
        print("not ok 1 - units that include each other")
        for a, b in bad:
            print("# %s <-> %s" % (a, b))
            print("#   " + show(uedges, a, b))
            print("#   " + show(uedges, b, a))
    else:
        print("ok 1 - no unit includes one that includes it back "
              "(%d pairs allowed)" % len(ALLOWED_UNIT_PAIRS))

    c = circle(medges, ALLOWED_MODULE_EDGES)
    failed |= bool(c)
    if c:
        print("not ok 2 - modules form a circle: " + " -> ".join(c))
        for a, b in zip(c, c[1:]):
            print("#   " + show(medges, a, b))
    else:
        print("ok 2 - modules form no circle "
              "(%d upward edges allowed)" % len(ALLOWED_MODULE_EDGES))

    stale = ["unit pair %s <-> %s" % p for p in sorted(ALLOWED_UNIT_PAIRS)
             if p not in uedges or p[::-1] not in uedges]
    stale += ["module edge %s -> %s" % e for e in sorted(ALLOWED_MODULE_EDGES)
              if e not in medges]
    failed |= bool(stale)
    if stale:
        print("not ok 3 - allowed but gone: remove from tests/layers.py")
        for s in stale:
            print("#   " + s)
    else:
        print("ok 3 - every allowed entry still exists")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
