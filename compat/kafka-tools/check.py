#!/usr/bin/python3
"""compat/kafka-tools/check.py: checks what Kafka's tools printed against
what the clients wrote, for compat/kafka-tools/scenarios.sh.

  check.py console OUTDIR DATADIR   console producer/consumer, groups, offsets
  check.py txn OUTDIR DATADIR       kafka-dump-log over the stopped broker's
                                    partition directories (.log, .index,
                                    .timeindex, .txnindex, .snapshot, the
                                    internal topics), kafka-transactions and
                                    read_committed consumers, against the
                                    records KtWriter.java reported

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


# --- a group of the consumer protocol -------------------------------------------

def check_consumer_protocol(outdir, datadir):
    """What kafka-consumer-groups prints of a two-member consumer group
    (KIP-848) against Kafka 4.4.0: member ids are the clients' own."""
    hdr, rows = table(outdir, "members")
    expect_eq("members: header", hdr, ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                                       "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH",
                                       "TARGET-ASSIGNMENT"])
    by_client = {r[3]: r for r in rows if len(r) == 9}
    if sorted(by_client) != ["kt-cp-1", "kt-cp-2"]:
        fail("members: rows %r, Kafka's: kt-cp-1 and kt-cp-2" % rows)
        return
    # the first member keeps two partitions, the second gets the third, at
    # group epoch 3 (1 at the start, a bump per join)
    expect_eq("members: kt-cp-1", [by_client["kt-cp-1"][i] for i in (0, 2, 4, 5, 6, 7, 8)],
              ["kt-cp", "/127.0.0.1", "2", "3", "kt-cp:0,1", "3", "kt-cp:0,1"])
    expect_eq("members: kt-cp-2", [by_client["kt-cp-2"][i] for i in (0, 2, 4, 5, 6, 7, 8)],
              ["kt-cp", "/127.0.0.1", "1", "3", "kt-cp:2", "3", "kt-cp:2"])
    for r in rows:
        if not re.match(r"^[A-Za-z0-9_-]{22}$", r[1]):
            fail("members: member id %r, Kafka's clients make a base64 UUID" % r[1])
    st = [ln for ln in lines(outdir, "state") if ln.strip()]
    expect_eq("state: header", st[:1], ["GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS"])
    if len(st) != 2 or not re.match(r"^kt-cp +127\.0\.0\.1:\d+ +\(1\) +uniform +Stable +2$", st[1]):
        fail("state: %r, Kafka's: kt-cp 127.0.0.1:PORT (1) uniform Stable 2" % st[1:])
    sv = [ln for ln in lines(outdir, "statev") if ln.strip()]
    expect_eq("statev: header", sv[:1], ["GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS"])
    if len(sv) != 2 or not re.match(r"^kt-cp +127\.0\.0\.1:\d+ +\(1\) +uniform +Stable +3 +3 +2$", sv[1]):
        fail("statev: %r, Kafka's: kt-cp 127.0.0.1:PORT (1) uniform Stable 3 3 2" % sv[1:])
    hdr, rows = table(outdir, "offsets")
    expect_eq("offsets: header", hdr, ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                       "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"])
    owners = {r[2]: r[8] for r in rows if len(r) == 9}
    expect_eq("offsets: owners", owners, {"0": "kt-cp-1", "1": "kt-cp-1", "2": "kt-cp-2"})
    expect_eq("offsets: every record read and committed",
              sorted(int(r[3]) - int(r[4]) for r in rows if len(r) == 9), [0, 0, 0])
    expect_eq("offsets: total", sum(int(r[4]) for r in rows if len(r) == 9), 6)
    expect_eq("types", [ln.split() for ln in lines(outdir, "types") if ln.strip()],
              [["GROUP", "TYPE"], ["kt-cp", "Consumer"]])
    expect_eq("states", [ln.split() for ln in lines(outdir, "states") if ln.strip()],
              [["GROUP", "STATE"], ["kt-cp", "Stable"]])


# --- transactions and kafka-dump-log -------------------------------------------

CODEC = {"gzip": "gzip", "snappy": "snappy", "lz4": "lz4", "zstd": "zstd"}
TXN_KINDS = ("commit", "abort", "hang")
GROUP = {"commit": "txn", "abort": "txn"}  # kinds of one producer
PARTS = ("kt-log-0", "kt-hang-0", "kt-roll-0")


def parse_report(path):
    recs = {}  # partition dir -> {offset: (ts, key, value, header keys, kind)}
    done = False
    with open(path) as f:
        for ln in f.read().splitlines():
            if ln == "done":
                done = True
                continue
            topic, part, off, ts, key, value, hdrs, kind = ln.split(" ")
            hkeys = [] if hdrs == "-" else [h.split("=", 1)[0] for h in hdrs.split(";")]
            recs.setdefault("%s-%s" % (topic, part), {})[int(off)] = (
                int(ts), key, value, hkeys, kind, hdrs)
    if not done:
        fail("report: the writer did not finish")
    return recs


def fields(s):
    return dict(re.findall(r"(\w+): (\S+)", s))


def parse_log_dump(text):
    """{path: {"start": n, "batches": [batch dict with "records": [...]]}}"""
    files, cur, batch = {}, None, None
    for ln in text.splitlines():
        if ln.startswith("Dumping "):
            cur = files.setdefault(ln[8:], {"start": None, "batches": [], "other": []})
            batch = None
        elif cur is None:
            fail("dump_logs: %r before any Dumping line" % ln)
        elif ln.startswith("Log starting offset: "):
            cur["start"] = int(ln.split(": ")[1])
        elif ln.startswith("baseOffset: "):
            batch = fields(ln)
            m = re.search(r" (CreateTime|LogAppendTime|NoTimestampType): (-?\d+) ", ln)
            batch["tstype"], batch["maxts"] = (m.group(1), int(m.group(2))) if m else (None, None)
            batch["records"] = []
            cur["batches"].append(batch)
        elif ln.startswith("| offset: ") and batch is not None:
            r = {}
            m = re.match(r"^\| offset: (\d+) (\w+): (-?\d+) keySize: (-?\d+) valueSize: (-?\d+) "
                         r"sequence: (-?\d+) headerKeys: \[([^\]]*)\](.*)$", ln)
            if not m:
                fail("dump_logs: record line %r" % ln)
                continue
            r = {"offset": int(m.group(1)), "tstype": m.group(2), "ts": int(m.group(3)),
                 "keySize": int(m.group(4)), "valueSize": int(m.group(5)),
                 "sequence": int(m.group(6)),
                 "headerKeys": [h for h in m.group(7).split(",") if h], "rest": m.group(8)}
            mk = re.match(r"^ endTxnMarker: (\w+) coordinatorEpoch: (-?\d+)$", r["rest"])
            if mk:
                r["marker"], r["coordinatorEpoch"] = mk.group(1), int(mk.group(2))
            else:
                mk = re.match(r"^ key: (\S+)(?: payload: (\S+))?$", r["rest"])
                if not mk:
                    fail("dump_logs: record line %r: no key/payload or marker" % ln)
                    continue
                r["key"], r["payload"] = mk.group(1), mk.group(2)
            batch["records"].append(r)
        else:
            cur["other"].append(ln)
    return files


def seg_files(datadir, part, ext):
    d = os.path.join(datadir, part)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith("." + ext))


def base_of(path):
    return int(os.path.basename(path).split(".")[0])


def check_logs(outdir, datadir, report):
    """the .log dumps against the report; returns {part: [batches in order]}"""
    text = read(outdir, "dump_logs")
    files = parse_log_dump(text)
    allb = {}
    pid_of = {}  # producer group -> pid
    for part in PARTS:
        want = report.get(part, {})
        blist = []
        expect_off = 0
        segs = seg_files(datadir, part, "log")
        if not segs:
            fail("%s: no .log files" % part)
        for path in segs:
            f = files.get(path)
            if f is None:
                fail("dump_logs: %s not dumped" % path)
                continue
            base = base_of(path)
            expect_eq("%s: Log starting offset" % path, f["start"], base)
            for o in f["other"]:
                fail("dump_logs: %s: unexpected line %r" % (path, o))
            pos = 0
            for b in f["batches"]:
                where = "%s batch at %s" % (os.path.basename(path), b.get("position"))
                b["segment"] = base
                try:
                    bo, lo, cnt = int(b["baseOffset"]), int(b["lastOffset"]), int(b["count"])
                    b["bo"], b["lo"], b["pos"], b["size"] = bo, lo, int(b["position"]), int(b["size"])
                    b["pid"], b["epoch"] = int(b["producerId"]), int(b["producerEpoch"])
                    b["bseq"], b["lseq"] = int(b["baseSequence"]), int(b["lastSequence"])
                except (KeyError, ValueError) as e:
                    fail("%s: field %s missing or not a number: %r" % (where, e, b))
                    continue
                expect_eq(where + ": position", b["pos"], pos)
                pos += b["size"]
                expect_eq(where + ": baseOffset", bo, expect_off)
                expect_eq(where + ": count", cnt, lo - bo + 1)
                expect_off = lo + 1
                for k, v in (("isvalid", "true"), ("magic", "2"), ("partitionLeaderEpoch", "0"),
                             ("deleteHorizonMs", "OptionalLong.empty")):
                    expect_eq(where + ": " + k, b.get(k), v)
                expect_eq(where + ": timestamp type", b["tstype"], "CreateTime")
                recs = b["records"]
                expect_eq(where + ": record offsets", [r["offset"] for r in recs], list(range(bo, lo + 1)))
                if recs:
                    expect_eq(where + ": max timestamp", b["maxts"], max(r["ts"] for r in recs))
                if b.get("isControl") == "true":
                    b["kind"] = "marker"
                    expect_eq(where + ": marker isTransactional", b.get("isTransactional"), "true")
                    expect_eq(where + ": marker count", cnt, 1)
                    expect_eq(where + ": marker compresscodec", b.get("compresscodec"), "none")
                    expect_eq(where + ": marker sequences", (b["bseq"], b["lseq"]), (-1, -1))
                    for r in recs:
                        if "marker" not in r:
                            fail(where + ": a control batch's record is no end-transaction marker")
                            continue
                        b["marker"], b["coord"] = r["marker"], r["coordinatorEpoch"]
                        expect_eq(where + ": marker key/value sizes", (r["keySize"], r["valueSize"]), (4, 6))
                        if r["coordinatorEpoch"] < 0:
                            fail(where + ": marker coordinatorEpoch %d" % r["coordinatorEpoch"])
                    blist.append(b)
                    continue
                kinds = set()
                for i, r in enumerate(recs):
                    w = want.get(r["offset"])
                    if w is None:
                        fail("%s: record at offset %d was not written" % (where, r["offset"]))
                        continue
                    ts, key, value, hkeys, kind, _ = w
                    kinds.add(kind)
                    ow = "%s offset %d" % (part, r["offset"])
                    expect_eq(ow + ": CreateTime", r["ts"], ts)
                    expect_eq(ow + ": key", r.get("key"), key)
                    if value == "null":
                        expect_eq(ow + ": valueSize (null value)", r["valueSize"], -1)
                        expect_eq(ow + ": payload (null value)", r.get("payload"), None)
                    else:
                        expect_eq(ow + ": payload", r.get("payload"), value)
                        expect_eq(ow + ": valueSize", r["valueSize"], len(value))
                    expect_eq(ow + ": keySize", r["keySize"], len(key))
                    expect_eq(ow + ": headerKeys", r["headerKeys"], hkeys)
                    expect_eq(ow + ": sequence", r["sequence"], b["bseq"] + i)
                if len(kinds) != 1:
                    fail("%s: records of %d producers in one batch: %s" % (where, len(kinds), kinds))
                    continue
                kind = kinds.pop()
                b["kind"] = kind
                expect_eq(where + ": compresscodec", b.get("compresscodec"), CODEC.get(kind, "none"))
                expect_eq(where + ": isTransactional", b.get("isTransactional"),
                          "true" if kind in TXN_KINDS else "false")
                if b["pid"] < 0 or b["bseq"] < 0:
                    fail("%s: an idempotent producer's batch with producerId %d baseSequence %d"
                         % (where, b["pid"], b["bseq"]))
                expect_eq(where + ": lastSequence", b["lseq"], b["bseq"] + cnt - 1)
                g = GROUP.get(kind, kind)
                if g in pid_of and pid_of[g] != b["pid"]:
                    fail("%s: producer %s has producerId %d here, %d before" % (where, g, b["pid"], pid_of[g]))
                pid_of.setdefault(g, b["pid"])
                blist.append(b)
            fsize = os.path.getsize(path)
            expect_eq("%s: the batches' bytes (position + size of the last)" % path, pos, fsize)
        # every written record is there
        got = {r["offset"] for b in blist if b["kind"] != "marker" for r in b["records"]}
        for off in want:
            if off not in got:
                fail("%s: offset %d written (%s) but not in the log" % (part, off, want[off][4]))
        allb[part] = blist
    if len(set(pid_of.values())) != len(pid_of):
        fail("producer ids are not one per producer: %r" % pid_of)
    # sequences: from 0 for each producer epoch, without gaps
    for part, blist in allb.items():
        nxt = {}
        for b in blist:
            if b["kind"] == "marker":
                continue
            k = (b["pid"], b["epoch"])
            expect_eq("%s offset %d: baseSequence of producer %d epoch %d" % (part, b["bo"], b["pid"], b["epoch"]),
                      b["bseq"], nxt.get(k, 0))
            nxt[k] = b["lseq"] + 1
    # the markers: a COMMIT after the committed batch, an ABORT after the
    # aborted one, each the transactional producer's; in kt-hang the ABORT
    # kafka-transactions wrote for the hanging transaction
    def markers(part):
        return [(b["bo"], b["marker"], b["pid"]) for b in allb.get(part, []) if b["kind"] == "marker"]
    rep = report.get("kt-log-0", {})
    last_commit = max((o for o, w in rep.items() if w[4] == "commit"), default=-9)
    last_abort = max((o for o, w in rep.items() if w[4] == "abort"), default=-9)
    expect_eq("kt-log-0: markers (offset, type, producerId)", markers("kt-log-0"),
              [(last_commit + 1, "COMMIT", pid_of.get("txn")), (last_abort + 1, "ABORT", pid_of.get("txn"))])
    rep = report.get("kt-hang-0", {})
    expect_eq("kt-hang-0: markers (offset, type, producerId)", markers("kt-hang-0"),
              [(max(rep) + 1 if rep else -9, "ABORT", pid_of.get("hang"))])
    expect_eq("kt-roll-0: markers", markers("kt-roll-0"), [])
    for part, blist in allb.items():
        last_data = {}
        for b in blist:
            if b["kind"] == "marker":
                d = last_data.get(b["pid"])
                if d is None or b["epoch"] < d["epoch"]:
                    fail("%s offset %d: marker of producer %d epoch %d without its batch before"
                         % (part, b["bo"], b["pid"], b["epoch"]))
            else:
                last_data[b["pid"]] = b
    # the tool's own stderr: only its note on each segment not starting at 0
    # (Kafka's own segments draw the same)
    want_err = []
    for part in PARTS:
        for path in seg_files(datadir, part, "log"):
            if base_of(path) != 0:
                want_err += ["Non-consecutive offsets in " + path, "  -1 is followed by %d" % base_of(path)]
    expect_eq("dump_logs: stderr", sorted(lines(outdir, "dump_logs", "err")), sorted(want_err))
    return allb, pid_of


def producer_state(blist):
    """{pid: what Kafka's producer state holds after these batches}"""
    st = {}
    for b in blist:
        e = st.setdefault(b["pid"], {"coord": -1, "data": None})
        e["epoch"], e["lastts"] = b["epoch"], b["maxts"]
        if b["kind"] == "marker":
            e["coord"] = b["coord"]
            e["open"] = None
        else:
            e["data"] = b
            if b.get("isTransactional") == "true" and e.get("open") is None:
                e["open"] = b["bo"]
    for e in st.values():
        d = e["data"]
        # a bumped epoch (transactions v2's markers) clears the batch metadata
        e["meta"] = d if d is not None and d["epoch"] == e["epoch"] else None
    return st


def txn_first(blist, m):
    """the first offset of the transaction the marker m ends"""
    prev = max((x["bo"] for x in blist if x["kind"] == "marker" and x["pid"] == m["pid"]
                and x["bo"] < m["bo"]), default=-1)
    return min((x["bo"] for x in blist if x["kind"] != "marker" and x["pid"] == m["pid"]
                and prev < x["bo"] < m["bo"]), default=-1)


def check_indexes(outdir, datadir, allb):
    text = read(outdir, "dump_idx")
    sections, cur = {}, None
    for ln in text.splitlines():
        if ln.startswith("Dumping "):
            cur = sections.setdefault(ln[8:], [])
        elif cur is not None:
            cur.append(ln)
        else:
            fail("dump_idx: %r before any Dumping line" % ln)
    expect_eq("dump_idx: stderr", lines(outdir, "dump_idx", "err"), [])
    for part in PARTS:
        blist = allb.get(part, [])
        leo = blist[-1]["lo"] + 1 if blist else 0
        segs = sorted({b["segment"] for b in blist})
        for seg in segs:
            sb = [b for b in blist if b["segment"] == seg]
            # Kafka's LogSegment.append: an offset index entry (last offset,
            # position) once more than index.interval.bytes (4096) were
            # appended since the last; a time index entry (largest
            # timestamp so far, the last offset of its batch) with it and
            # at the roll or close, when the timestamp grew
            want_off, want_time = [], []
            since, maxts, maxoff = 0, -1, -1
            for b in sb:
                if b["maxts"] > maxts:
                    maxts, maxoff = b["maxts"], b["lo"]
                if since > 4096:
                    want_off.append("offset: %d position: %d" % (b["lo"], b["pos"]))
                    if not want_time or maxts > int(want_time[-1].split()[1]):
                        want_time.append("timestamp: %d offset: %d" % (maxts, maxoff))
                    since = 0
                since += b["size"]
            if maxts >= 0 and (not want_time or maxts > int(want_time[-1].split()[1])):
                want_time.append("timestamp: %d offset: %d" % (maxts, maxoff))
            d = os.path.join(datadir, part)
            ipath = os.path.join(d, "%020d.index" % seg)
            tpath = os.path.join(d, "%020d.timeindex" % seg)
            if not want_off:
                want_off = ["%s is empty." % ipath]
            expect_eq("%s entries" % ipath, sections.get(ipath), want_off)
            expect_eq("%s entries" % tpath, sections.get(tpath), want_time)
            # the transaction index: each aborted transaction whose ABORT
            # marker is in this segment: its first offset, the marker's, and
            # the last stable offset after it
            want_txn = []
            for b in sb:
                if b["kind"] == "marker" and b["marker"] == "ABORT":
                    first = txn_first(blist, b)
                    want_txn.append("version: 0 producerId: %d firstOffset: %d lastOffset: %d "
                                    "lastStableOffset: %d" % (b["pid"], first, b["bo"], b["bo"] + 1))
            xpath = os.path.join(d, "%020d.txnindex" % seg)
            if want_txn or os.path.exists(xpath):
                expect_eq("%s entries" % xpath, sections.get(xpath), want_txn)
        # the producer snapshot of the clean shutdown, at the log end offset
        spath = os.path.join(datadir, part, "%020d.snapshot" % leo)
        if not os.path.exists(spath):
            fail("%s: no producer snapshot at the log end offset %d (files: %s)"
                 % (part, leo, sorted(os.listdir(os.path.join(datadir, part)))))
            continue
        got = {}
        for ln in sections.get(spath, []):
            f = fields(ln)
            try:
                got[int(f["producerId"])] = ln
            except (KeyError, ValueError):
                fail("%s: line %r" % (spath, ln))
        want = {}
        for pid, e in producer_state(blist).items():
            s = ("producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s "
                 "lastTimestamp: %d" % (pid, e["epoch"], e["coord"],
                                        "OptionalLong.empty" if e.get("open") is None
                                        else "OptionalLong[%d]" % e["open"], e["lastts"]))
            m = e["meta"]
            if m is not None:
                s += (" firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d"
                      % (m["bseq"], m["lseq"], m["lo"], m["lo"] - m["bo"], e["lastts"]))
            want[pid] = s
        for pid in sorted(set(want) | set(got)):
            expect_eq("%s producer %d" % (os.path.basename(spath), pid), got.get(pid), want.get(pid))
        # other snapshots (Kafka also takes one at each roll): readable
        for p in seg_files(datadir, part, "snapshot"):
            if p != spath and p not in sections:
                fail("dump_idx: %s not dumped" % p)
    # --index-sanity-check and --verify-index-only: no complaint
    idx = []
    for part in PARTS:
        idx += seg_files(datadir, part, "index") + seg_files(datadir, part, "timeindex")
    want = []
    for p in idx:
        want.append("Dumping " + p)
        want.append(p + (" is empty." if p.endswith(".index") and os.path.getsize(p) == 0
                         else " passed sanity check."))
    expect_eq("sanity: stdout (sorted)", sorted(lines(outdir, "sanity")), sorted(want))
    expect_eq("sanity: stderr", lines(outdir, "sanity", "err"), [])
    want = []
    for p in idx:
        want.append("Dumping " + p)
        if p.endswith(".index") and os.path.getsize(p) == 0:
            want.append(p + " is empty.")
    expect_eq("verify: stdout (sorted)", sorted(lines(outdir, "verify")), sorted(want))
    expect_eq("verify: stderr", lines(outdir, "verify", "err"), [])


def rows_tab(outdir, name):
    ls = lines(outdir, name)
    return ls[:1], [ln.rstrip("\t").split("\t") for ln in ls[1:]]


def check_txn_tools(outdir, allb, pid_of, report):
    txn, hang, after = pid_of.get("txn"), pid_of.get("hang"), pid_of.get("after")
    logb, hangb = allb.get("kt-log-0", []), allb.get("kt-hang-0", [])
    txn_marker_epoch = max((b["epoch"] for b in logb if b["kind"] == "marker"), default=None)
    hang_epoch = next((b["epoch"] for b in hangb if b["kind"] == "hang"), None)
    hdr, rows = rows_tab(outdir, "list")
    expect_eq("list: header", hdr, ["TransactionalId\tCoordinator\tProducerId\tTransactionState\t"])
    expect_eq("list: rows", sorted([c.strip() for c in r] for r in rows),
              [["kt-hang", "1", str(hang), "Ongoing"], ["kt-txn", "1", str(txn), "CompleteAbort"]])
    dh = ["CoordinatorId\tTransactionalId\tProducerId\tProducerEpoch\tTransactionState\t"
          "TransactionTimeoutMs\tCurrentTransactionStartTimeMs\tTransactionDurationMs\tTopicPartitions\t"]
    for name, tid, pid, epoch, state, tmo, parts in (
            ("desc_txn", "kt-txn", txn, txn_marker_epoch, "CompleteAbort", "60000", ""),
            ("desc_hang", "kt-hang", hang, hang_epoch, "Ongoing", "600000", "kt-hang-0")):
        hdr, rows = rows_tab(outdir, name)
        expect_eq(name + ": header", hdr, dh)
        if len(rows) != 1 or len(rows[0]) != 9:
            fail("%s: rows %r" % (name, rows))
            continue
        r = [c.strip() for c in rows[0]]
        expect_eq(name + ": row", r[:6] + [r[8]], ["1", tid, str(pid), str(epoch), state, tmo, parts])
        if not (r[6].isdigit() and r[7].isdigit()):
            fail("%s: start time %r / duration %r are not numbers" % (name, r[6], r[7]))
    ph = ["ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\t"
          "CurrentTransactionStartOffset\t"]
    hang_data = [b for b in hangb if b["kind"] != "marker"]
    for name, blist in (("prod_log", logb), ("prod_hang", hang_data), ("prod_hang2", hangb)):
        hdr, rows = rows_tab(outdir, name)
        expect_eq(name + ": header", hdr, ph)
        got = {}
        for r in rows:
            r = [c.strip() for c in r]
            got[r[0]] = r
        for pid, e in sorted(producer_state(blist).items()):
            m = e["meta"]
            want = [str(pid), str(e["epoch"]), str(e["coord"]), str(m["lseq"] if m else -1), str(e["lastts"]),
                    "None" if e.get("open") is None else str(e["open"])]
            expect_eq("%s: producer %d (ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence "
                      "LastTimestamp CurrentTransactionStartOffset)" % (name, pid), got.pop(str(pid), None), want)
        for pid in got:
            fail("%s: producer %s is not in the log" % (name, pid))
    expect_eq("hanging: stdout", lines(outdir, "hanging"),
              ["Topic\tPartition\tProducerId\tProducerEpoch\tCoordinatorEpoch\tStartOffset\tLastTimestamp\tDuration(min)\t"])
    expect_eq("abort: stdout", lines(outdir, "abort"), [])
    # read_committed consumers: the aborted records are skipped, the rest
    # (every codec, the committed transaction) in order
    rep = report.get("kt-hang-0", {})
    expect_eq("rc_hang", lines(outdir, "rc_hang"),
              ["Offset:%d\t%s\t%s" % (o, w[1], w[2]) for o, w in sorted(rep.items()) if w[4] == "after"])
    rep = report.get("kt-log-0", {})
    want = []
    for o, w in sorted(rep.items()):
        if w[4] == "abort":
            continue
        hd = "NO_HEADERS" if w[5] == "-" else ",".join(h.replace("=", ":", 1) for h in w[5].split(";"))
        want.append("CreateTime:%d\tOffset:%d\t%s\t%s\t%s" % (w[0], o, hd, w[1], w[2]))
    expect_eq("rc_log: read_committed records", lines(outdir, "rc_log"), want)
    return len(want)


def decoded(outdir, name):
    out = []
    for ln in lines(outdir, name):
        m = re.match(r"^\| offset: (\d+) .* key: (\{.*\}) payload: (\{.*\}|null)$", ln)
        if m:
            try:
                out.append((int(m.group(1)), json.loads(m.group(2)), json.loads(m.group(3))))
            except ValueError as e:
                fail("%s: %s in %r" % (name, e, ln))
    expect_eq(name + ": stderr", lines(outdir, name, "err"), [])
    return out


def check_internal(outdir, pid_of, n_committed):
    # the group's committed offset, decoded by --offsets-decoder
    recs = decoded(outdir, "dump_offsets")
    commits = [v for _, k, v in recs if k.get("type") == "1" and k.get("data") ==
               {"group": "kt-rc", "topic": "kt-log", "partition": 0}]
    if not commits or commits[-1] is None or commits[-1].get("data", {}).get("offset") != 31:
        fail("dump_offsets: group kt-rc's last commit of kt-log-0 is %r, not offset 31"
             % (commits[-1] if commits else None))
    if not any(k.get("type") == "2" and k.get("data") == {"group": "kt-rc"} for _, k, _ in recs):
        fail("dump_offsets: no group metadata record of kt-rc")
    # the transactions' states, by --transaction-log-decoder
    recs = decoded(outdir, "dump_txnlog")
    states = {}
    for _, k, v in recs:
        if k.get("type") != "0" or v is None:
            continue
        tid = k["data"]["transactionalId"]
        states.setdefault(tid, []).append((v["data"]["producerId"], v["data"]["transactionStatus"]))
    expect_eq("dump_txnlog: kt-txn", states.get("kt-txn"), [(pid_of.get("txn"), s) for s in (
        "Empty", "Ongoing", "PrepareCommit", "CompleteCommit", "Ongoing", "PrepareAbort", "CompleteAbort")])
    expect_eq("dump_txnlog: kt-hang", states.get("kt-hang"),
              [(pid_of.get("hang"), s) for s in ("Empty", "Ongoing")])


def check_txn(outdir, datadir):
    report = parse_report(os.path.join(outdir, "report"))
    allb, pid_of = check_logs(outdir, datadir, report)
    check_indexes(outdir, datadir, allb)
    n = check_txn_tools(outdir, allb, pid_of, report)
    check_internal(outdir, pid_of, n)
    nb = sum(len(v) for v in allb.values())
    print("# check.py txn: %d batches in %d segments, %d records, producers %s" % (
        nb, len({(p, b["segment"]) for p, v in allb.items() for b in v}),
        sum(len(v) for v in report.values()), pid_of))


def main():
    mode, outdir, datadir = sys.argv[1:4]
    {"console": check_console, "txn": check_txn,
     "consumer-protocol": check_consumer_protocol}[mode](outdir, datadir)
    if FAILS:
        print("# check.py %s: %d checks failed" % (mode, FAILS))
        sys.exit(1)
    print("# check.py %s: all checks passed" % mode)


if __name__ == "__main__":
    main()
