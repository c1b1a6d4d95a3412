#!/usr/bin/python3
"""ACLs in cluster mode (compat scenario zk_acls): two gregor brokers on
one ZooKeeper with Kafka's authorizer on (super users User:admin and
User:ANONYMOUS, the brokers' PLAINTEXT listener), clients over
SASL_PLAINTEXT (PLAIN). A topic led by broker 2 alone; user producer may
not write it. CreateAcls framed by hand to broker 1 (its PLAINTEXT
listener) gives producer WRITE: the resource znode holds Kafka's
AclAuthorizer JSON, a /kafka-acl-changes notification says
"Topic:<name>", and confluent-kafka's produce through broker 2 is taken
within about a second. DescribeAcls of either broker lists it.
DeleteAcls through broker 2 removes it (the znode goes), and the produce
is refused again. A PREFIXED ACL through broker 1 goes to
/kafka-acl-extended/prefixed with an extended notification, and allows
the produce on broker 2 again.

  acls.py PLAIN1,PLAIN2 SASL1,SASL2 ZKCLI ZK_CONNECT CHROOT

Prints '# figure:' lines; exit 0 or 1."""

import json
import os
import subprocess
import sys
import time

PLAIN = sys.argv[1].split(",")
SASL = sys.argv[2].split(",")
ZKCLI, ZK, CHROOT = sys.argv[3:6]
os.environ.setdefault("GR_BOOTSTRAP", PLAIN[0])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
import raw  # noqa: E402
from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "zka-t"
TOPIC_RES, LITERAL, PREFIXED, WRITE, ALLOW = 2, 3, 4, 4, 3


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def conn(addr):
    raw.HOST, raw.PORT = addr.rsplit(":", 1)
    return raw.Conn(client_id="zk-acls", software=None)


def i8(v):
    return bytes([v & 0xff])


def create_acl(addr, name, pattern):
    """CreateAcls v3 of broker addr: the result's error code"""
    c = conn(addr)
    r = c.call(30, 3, raw.carray([
        i8(TOPIC_RES) + raw.cstr(name) + i8(pattern) +
        raw.cstr("User:producer") + raw.cstr("*") + i8(WRITE) + i8(ALLOW) +
        raw.T]) + raw.T)
    c.close()
    r.i32()
    return r.carray(lambda r: (r.i16(), r.cstr(), r.tags()))[0][0]


def delete_acls(addr, name, pattern):
    """DeleteAcls v3 of broker addr: (error, how many matched)"""
    c = conn(addr)
    r = c.call(31, 3, raw.carray([
        i8(TOPIC_RES) + raw.cstr(name) + i8(pattern) +
        raw.cstr("User:producer") + raw.cstr("*") + i8(WRITE) + i8(ALLOW) +
        raw.T]) + raw.T)
    c.close()
    r.i32()

    def matching(r):
        v = (r.i16(), r.cstr(), r.i8(), r.cstr(), r.i8(), r.cstr(), r.cstr(),
             r.i8(), r.i8())
        r.tags()
        return v
    res = r.carray(lambda r: (r.i16(), r.cstr(), r.carray(matching),
                              r.tags()))[0]
    return res[0], len(res[2] or [])


def describe_acls(addr):
    """DescribeAcls v3 of broker addr, any topic ACL: [(name, pattern,
    principal, op, perm)]"""
    c = conn(addr)
    r = c.call(29, 3, i8(TOPIC_RES) + raw.cstr(None) + i8(1) +
               raw.cstr(None) + raw.cstr(None) + i8(1) + i8(1) + raw.T)
    c.close()
    r.i32()
    if r.i16() != 0:
        fail("DescribeAcls of %s: error" % addr)
    r.cstr()
    out = []

    def acl(r):
        v = (r.cstr(), r.cstr(), r.i8(), r.i8())
        r.tags()
        return v

    def res(r):
        t, name, pat = r.i8(), r.cstr(), r.i8()
        for a in r.carray(acl):
            out.append((name, pat, a[0], a[2], a[3]))
        r.tags()
    r.carray(res)
    return sorted(out)


def zk(what, path, ok_missing=False):
    for _ in range(50):
        r = subprocess.run([ZKCLI, ZK, what, CHROOT + path],
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0:
            return r.stdout.strip()
        if ok_missing:
            return None
        time.sleep(0.1)
    fail("zkcli %s %s: %s" % (what, path, r.stderr))


def produce(addr, topic=TOPIC):
    """one record as User:producer through addr: None or the error name"""
    p = Producer({"bootstrap.servers": addr, "security.protocol":
                  "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                  "sasl.username": "producer", "sasl.password": "producer-pw",
                  "message.timeout.ms": 3000, "retries": 0,
                  "topic.metadata.refresh.interval.ms": 200})
    got = []
    p.produce(topic, b"v", on_delivery=lambda e, m: got.append(e))
    p.flush(5)
    if not got:
        return "no delivery report"
    return None if got[0] is None else got[0].name()


def until(what, want):
    """produce through broker 2 until the answer is want: seconds taken"""
    t0 = time.monotonic()
    while True:
        got = produce(SASL[1])
        if got == want:
            return time.monotonic() - t0
        if time.monotonic() - t0 > 10:
            fail("%s: produce answers %s, not %s" % (what, got, want))
        time.sleep(0.05)


def main():
    admin = AdminClient({"bootstrap.servers": SASL[0],
                         "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "PLAIN", "sasl.username": "admin",
                         "sasl.password": "admin-pw"})
    admin.create_topics([NewTopic(TOPIC, 1, -1, replica_assignment=[[2]])],
                        operation_timeout=10)[TOPIC].result(20)
    until("no ACL", "TOPIC_AUTHORIZATION_FAILED")

    t0 = time.monotonic()
    if create_acl(PLAIN[0], TOPIC, LITERAL) != 0:
        fail("CreateAcls through broker 1")
    answered = time.monotonic() - t0
    node = json.loads(zk("get", "/kafka-acl/Topic/" + TOPIC))
    want = {"version": 1, "acls": [{"principal": "User:producer",
                                    "permissionType": "Allow",
                                    "operation": "Write", "host": "*"}]}
    if node != want:
        fail("/kafka-acl/Topic/%s: %s" % (TOPIC, node))
    notes = zk("ls", "/kafka-acl-changes").split()
    if not notes or not all(n.startswith("acl_changes_") for n in notes):
        fail("/kafka-acl-changes: %s" % notes)
    note = zk("get", "/kafka-acl-changes/" + sorted(notes)[-1])
    if note != "Topic:" + TOPIC:
        fail("notification %r" % note)
    took = until("ACL made through broker 1", None)
    print("# figure: CreateAcls through broker 1 answered in %.1f ms; a "
          "produce through broker 2 taken %.1f ms after" %
          (answered * 1000, took * 1000))
    want = [(TOPIC, LITERAL, "User:producer", WRITE, ALLOW)]
    for addr in PLAIN:
        if describe_acls(addr) != want:
            fail("DescribeAcls of %s: %s" % (addr, describe_acls(addr)))

    err, n = delete_acls(PLAIN[1], TOPIC, LITERAL)
    if err != 0 or n != 1:
        fail("DeleteAcls through broker 2: %s, %d" % (err, n))
    if zk("get", "/kafka-acl/Topic/" + TOPIC, ok_missing=True) is not None:
        fail("/kafka-acl/Topic/%s still there" % TOPIC)
    took = until("ACL deleted through broker 2", "TOPIC_AUTHORIZATION_FAILED")
    end = time.time() + 5
    while describe_acls(PLAIN[0]) != []:
        if time.time() > end:
            fail("broker 1 still lists %s" % describe_acls(PLAIN[0]))
        time.sleep(0.05)
    print("# figure: DeleteAcls through broker 2: produce refused %.1f ms "
          "after; broker 1 lists none" % (took * 1000))

    if create_acl(PLAIN[0], "zka", PREFIXED) != 0:
        fail("CreateAcls PREFIXED through broker 1")
    node = json.loads(zk("get", "/kafka-acl-extended/prefixed/Topic/zka"))
    if node["acls"][0]["operation"] != "Write":
        fail("/kafka-acl-extended/prefixed/Topic/zka: %s" % node)
    notes = zk("ls", "/kafka-acl-extended-changes").split()
    note = json.loads(zk("get", "/kafka-acl-extended-changes/" +
                         sorted(notes)[-1]))
    if note != {"version": 1, "resourceType": "Topic", "name": "zka",
                "patternType": "PREFIXED"}:
        fail("extended notification %s" % note)
    took = until("PREFIXED ACL through broker 1", None)
    print("# figure: a PREFIXED ACL through broker 1: produce through "
          "broker 2 taken %.1f ms after" % (took * 1000))
    print("ok")


def closed():
    """Broker 3 (SASL[2]) started with allow.everyone.if.no.acl.found=true
    over a store whose prefixed zka ACL znode is not JSON: its read is not
    taken, and until one is, super users alone pass: the producer's write to
    a zka topic broker 3 leads is refused (with the ACL read, or with no
    ACLs and allow.everyone, it would pass)."""
    admin = AdminClient({"bootstrap.servers": SASL[0],
                         "security.protocol": "SASL_PLAINTEXT",
                         "sasl.mechanism": "PLAIN", "sasl.username": "admin",
                         "sasl.password": "admin-pw"})
    admin.create_topics([NewTopic("zka-closed", 1, -1,
                                  replica_assignment=[[3]])],
                        operation_timeout=10)["zka-closed"].result(20)
    end = time.monotonic() + 10
    while True:
        got = produce(SASL[2], "zka-closed")
        if got is None:
            fail("broker 3 took a write with no ACL read: not fail-closed")
        if got == "TOPIC_AUTHORIZATION_FAILED":
            break
        if time.monotonic() > end:
            fail("broker 3: produce answers %s" % got)
        time.sleep(0.1)
    print("# broker 3, its ACL read refused: the producer's write refused")
    print("ok")


closed() if sys.argv[6:] == ["closed"] else main()
