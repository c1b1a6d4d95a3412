"""Emulated Kafka releases (gregor --emulate, POST /v1/emulate) as real
clients see them. The broker starts with --emulate 3.6 (GR_CONTROL is its
control listener).

  - confluent-kafka (a current librdkafka, which speaks Produce and Fetch
    above 3.6's) delivers and consumes records, and the request log shows
    it negotiated down to 3.6's tops: Produce v9, Fetch v15, Metadata v12
  - for every release of the table, kafka-python 3's broker version guess
    (it reads the ApiVersions answer: check_version) names that release,
    except 3.4, which kafka-python tells from 3.3 by LeaderAndIsr v7 only,
    a broker-internal API Gregor never advertises
  - the raw ApiVersions answer equals the one recorded from that
    release's brokers (kafka-python keeps them: BROKER_API_VERSIONS), for
    the APIs Gregor serves, with the KRaft-only APIs of 3.7+ added
  - DELETE /v1/emulate goes back to the configuration's 3.6; a release
    not in the table is refused with 400
"""
import json
import os
import urllib.error
import urllib.request

from confluent_kafka import Consumer, Producer
from kafka import KafkaConsumer
from kafka.protocol.broker_version_data import BROKER_API_VERSIONS

from common import BOOT, api_versions, check, eq, fail, say

CTL = os.environ.get("GR_CONTROL") or fail("GR_CONTROL is not set")
RELEASES = [(2, 8)] + [(3, i) for i in range(10)] + [(4, i) for i in range(4)]


def ctl(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(CTL + path, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def emulate(version):
    st, out = ctl("POST", "/v1/emulate", {"version": version})
    eq(st, 200, "POST /v1/emulate %s" % version)
    eq(out, {"version": version}, "emulated")
    # connected clients keep what they were told; new ones ask again
    ctl("POST", "/v1/connections/close", {})


def guess():
    c = KafkaConsumer(bootstrap_servers=BOOT, request_timeout_ms=10000)
    try:
        return c.config["api_version"]
    finally:
        c.close()


def librdkafka_at_3_6():
    topic = "emulate-36"
    p = Producer({"bootstrap.servers": BOOT, "enable.idempotence": True})
    for i in range(20):
        p.produce(topic, value=b"v%d" % i)
    check(p.flush(30) == 0, "records left unsent")
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "emulate",
                  "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    got = []
    for _ in range(300):
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got.append(m.value())
        if len(got) == 20:
            break
    c.close()
    eq(got, [b"v%d" % i for i in range(20)], "consumed")
    st, log = ctl("GET", "/v1/requests?limit=100000")
    eq(st, 200, "GET /v1/requests")
    top = {}
    for r in log["requests"]:
        top[r["api"]] = max(top.get(r["api"], -1), r["version"])
    say("versions librdkafka used at 3.6: %r" % top)
    eq(top.get("Produce"), 9, "librdkafka's Produce version")
    eq(top.get("Fetch"), 15, "librdkafka's Fetch version")
    eq(top.get("Metadata"), 12, "librdkafka's Metadata version")


def recorded(rel, served):
    """The release's recorded answer, for the APIs Gregor serves."""
    want = {k: v for k, v in BROKER_API_VERSIONS[rel].items() if k in served}
    if (3, 7) <= rel < (4, 0):
        want.setdefault(74, (0, 0))  # ListClientMetricsResources, KRaft
    if (3, 8) <= rel < (4, 0):
        want.setdefault(75, (0, 0))  # DescribeTopicPartitions, KRaft
    return want


def main():
    eq(guess(), (3, 6), "kafka-python's guess, started with --emulate 3.6")
    librdkafka_at_3_6()
    st, _ = ctl("POST", "/v1/emulate", {"version": None})
    eq(st, 200, "POST /v1/emulate null")
    served = set(api_versions())
    eq(guess(), (4, 3), "kafka-python's guess of Gregor's own ranges")
    for rel in RELEASES:
        name = "%d.%d" % rel
        emulate(name)
        eq(api_versions(), recorded(rel, served), "ApiVersions at " + name)
        eq(guess(), (3, 3) if rel == (3, 4) else rel,
           "kafka-python's guess at " + name)
        say("%s: %d APIs, as recorded" % (name, len(recorded(rel, served))))
    st, out = ctl("POST", "/v1/emulate", {"version": "2.7"})
    eq(st, 400, "an unknown release")
    check("no such Kafka release" in out.get("error", ""), repr(out))
    st, out = ctl("DELETE", "/v1/emulate")
    eq(out, {"version": "3.6"}, "DELETE: the configuration's")
    ctl("POST", "/v1/connections/close", {})
    eq(guess(), (3, 6), "kafka-python's guess after DELETE")
    say("ok")


main()
