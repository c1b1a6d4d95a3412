#!/usr/bin/python3
"""compat/kafka-tools/check.py: checks what Kafka's tools printed against
what the clients wrote, for compat/kafka-tools/scenarios.sh.

  check.py console OUTDIR DATADIR   console producer/consumer, groups, offsets
  check.py txn OUTDIR DATADIR       kafka-transactions against the log
  check.py dump OUTDIR DATADIR      kafka-dump-log over the stopped broker's
                                    partition directories

OUTDIR has each tool's NAME.out/NAME.err (scenarios.sh's ktr). Prints
"# FAIL: ..." for each failed check and exits 1 if any failed."""

import datetime
import json
import os
import re
import sys

FAILS = 0


def fail(msg):
    global FAILS
    FAILS += 1
    print("# FAIL: " + msg)


def read(outdir, name, ext="out"):
    path = os.path.join(outdir, name + "." + ext)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        fail("%s.%s: missing" % (name, ext))
        return ""


def lines(outdir, name, ext="out"):
    return read(outdir, name, ext).splitlines()


def table(outdir, name):
    """the rows (split on blanks) under the header line of a group table"""
    rows, header = [], None
    for ln in lines(outdir, name):
        if not ln.strip():
            continue
        if ln.startswith("GROUP ") or ln.startswith("TOPIC "):
            header = ln.split()
            continue
        if header is not None:
            rows.append(ln.split())
    return header, rows


def expect_eq(what, got, want):
    if got != want:
        fail("%s: %r, Kafka's would be %r" % (what, got, want))
        return False
    return True


# --- console ----------------------------------------------------------------

def parse_input(path):
    recs = []
    with open(path) as f:
        for ln in f.read().splitlines():
            hdrs, rest = ln.split("#", 1)
            key, value = rest.split("|", 1)
            recs.append((("NO_HEADERS" if hdrs == "NULL" else hdrs), key, value))
    return recs


def iso_ms(s):
    d = datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f")
    return int(d.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000 + 0.5)


def check_console(outdir, datadir):
    in1 = parse_input(os.path.join(outdir, "in1"))
    in2 = parse_input(os.path.join(outdir, "in2"))
    with open(os.path.join(outdir, "T1")) as f:
        t1 = iso_ms(f.read().strip())
    # the consumer saw every record once, with its headers, key, value, a
    # CreateTime on the right side of T1, at consecutive offsets from 0
    got = {}
    parts = {0: [], 1: []}
    for ln in lines(outdir, "consume"):
        m = re.match(r"^CreateTime:(\d+)\tPartition:(\d)\tOffset:(\d+)\t(.*?)\t(.*?)\t(.*)$", ln)
        if not m:
            fail("consume: line %r is not CreateTime:..\\tPartition:..\\tOffset:..\\theaders\\tkey\\tvalue" % ln)
            continue
        ts, p, off = int(m.group(1)), int(m.group(2)), int(m.group(3))
        rec = (m.group(4), m.group(5), m.group(6))
        if rec in got:
            fail("consume: %r twice" % (rec,))
        got[rec] = (ts, p, off)
        parts.setdefault(p, []).append((off, ts, rec))
    for rec in in1 + in2:
        if rec not in got:
            fail("consume: %r not consumed" % (rec,))
    for rec in in1:
        if rec in got and not got[rec][0] < t1:
            fail("consume: %r of the first producer has CreateTime %d, not before T1 %d" % (rec, got[rec][0], t1))
    for rec in in2:
        if rec in got and not got[rec][0] >= t1:
            fail("consume: %r of the second producer has CreateTime %d, before T1 %d" % (rec, got[rec][0], t1))
    for p in parts:
        parts[p].sort()
        offs = [o for o, _, _ in parts[p]]
        expect_eq("consume: partition %d offsets" % p, offs, list(range(len(offs))))
    n = {p: len(parts[p]) for p in parts}
    # group kt-g after the consumer: committed at the end of each partition
    err = read(outdir, "gdesc", "err")
    if "Consumer group 'kt-g' has no active members." not in err:
        fail("gdesc: no \"Consumer group 'kt-g' has no active members.\"")
    hdr, rows = table(outdir, "gdesc")
    expect_eq("gdesc: header", hdr, ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                     "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"])
    expect_eq("gdesc: rows", rows, [["kt-g", "kt-c", str(p), str(n[p]), str(n[p]), "0", "-", "-", "-"]
                                    for p in (0, 1)])
    # resets: earliest, to T1, shift by -1
    first_after = {}
    for p in (0, 1):
        first_after[p] = next((o for o, ts, _ in parts[p] if ts >= t1), n[p])
    shifted = {p: max(0, first_after[p] - 1) for p in (0, 1)}
    for name, want in (("reset_earliest", {0: 0, 1: 0}), ("reset_dt", first_after),
                       ("reset_shift", shifted)):
        hdr, rows = table(outdir, name)
        expect_eq(name + ": header", hdr, ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"])
        expect_eq(name + ": rows", sorted(rows), [["kt-g", "kt-c", str(p), str(want[p])] for p in (0, 1)])
    # after --delete-offsets of kt-c:0, only partition 1's
    hdr, rows = table(outdir, "gdesc2")
    expect_eq("gdesc2: rows", rows, [["kt-g", "kt-c", "1", str(shifted[1]), str(n[1]),
                                      str(n[1] - shifted[1]), "-", "-", "-"]])
    # kafka-get-offsets: latest, max timestamp (the first offset holding it)
    expect_eq("off_latest", lines(outdir, "off_latest"), ["kt-c:%d:%d" % (p, n[p]) for p in (0, 1)])
    want = []
    for p in (0, 1):
        mx = max(ts for _, ts, _ in parts[p])
        want.append("kt-c:%d:%d" % (p, min(o for o, ts, _ in parts[p] if ts == mx)))
    expect_eq("off_maxts", lines(outdir, "off_maxts"), want)
    # kafka-log-dirs: the partitions' sizes are their segments' bytes
    ld = lines(outdir, "logdirs")
    expect_eq("logdirs: first lines", ld[:2], ["Querying brokers for log directories information",
                                               "Received log directory information from brokers 1"])
    try:
        j = json.loads(ld[2])
        expect_eq("logdirs: version", j.get("version"), 1)
        expect_eq("logdirs: brokers", [b["broker"] for b in j["brokers"]], [1])
        dirs = j["brokers"][0]["logDirs"]
        if [(os.path.realpath(d["logDir"]), d["error"]) for d in dirs] != [(os.path.realpath(datadir), None)]:
            fail("logdirs: log dirs %r, Kafka's: [%s without error]" % (dirs, datadir))
        got = sorted((q["partition"], q["size"], q["offsetLag"], q["isFuture"]) for q in dirs[0]["partitions"])
        want = []
        for p in (0, 1):
            pdir = os.path.join(datadir, "kt-c-%d" % p)
            size = sum(os.path.getsize(os.path.join(pdir, f)) for f in os.listdir(pdir) if f.endswith(".log"))
            want.append(("kt-c-%d" % p, size, 0, False))
        expect_eq("logdirs: partitions (name, size, offsetLag, isFuture)", got, want)
    except (IndexError, ValueError, KeyError, TypeError) as e:
        fail("logdirs: not the JSON Kafka prints: %s (%r)" % (e, ld))
    # after kafka-delete-records: partition 0 from offset 2
    want = ["Offset:%d\t%s\t%s" % (o, r[1], r[2]) for o, _, r in parts[0][2:5]]
    expect_eq("consume_p0", lines(outdir, "consume_p0"), want)
    # the live group: its member and state
    hdr, rows = table(outdir, "members")
    expect_eq("members: header", hdr, ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                                       "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH",
                                       "TARGET-ASSIGNMENT"])
    if len(rows) != 1 or len(rows[0]) != 9 or not rows[0][1].startswith("kt-live-client-"):
        fail("members: rows %r, Kafka's: one row of kt-live-client-<uuid>" % rows)
    else:
        r = rows[0]
        expect_eq("members: row", [r[0]] + r[2:], ["kt-live", "/127.0.0.1", "kt-live-client", "2", "-",
                                                  "kt-c:0,1", "-", "-"])
    st = [ln for ln in lines(outdir, "state") if ln.strip()]
    expect_eq("state: header", st[:1], ["GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS"])
    if len(st) != 2 or not re.match(r"^kt-live +127\.0\.0\.1:\d+ +\(1\) +range +Stable +1$", st[1]):
        fail("state: %r, Kafka's: kt-live 127.0.0.1:PORT (1) range Stable 1" % st[1:])


def main():
    mode, outdir, datadir = sys.argv[1:4]
    {"console": check_console}[mode](outdir, datadir)
    if FAILS:
        print("# check.py %s: %d checks failed" % (mode, FAILS))
        sys.exit(1)
    print("# check.py %s: all checks passed" % mode)


if __name__ == "__main__":
    main()
