"""The broker's /metrics (GR_METRICS: its URL; GR_CONTROL: the control
listener; GR_BOOTSTRAP) against what real clients did: kafka-python 3
produces and consumes, a group commits, a fault is injected; then every
value the scrape shows is checked against the clients' own counts, the
logs' offsets and the control interface's request log:

  - the text is format 0.0.4: HELP and TYPE once per family, before its
    samples, which are contiguous; valid names, escaped label values
  - messages in per topic = records produced; bytes in per topic = the
    bytes its logs hold; bytes out >= them (the consumer read everything)
  - a group's lag per partition = log end offset - committed offset, and
    its committed offset; its state Stable with one member while the
    consumer runs, Empty after
  - requests per API (all versions) = the request log's count of that
    API; an injected NOT_LEADER_OR_FOLLOWER counted once in the errors
  - connections per listener back to 0 once the clients closed
  - KIP-714: a gauge pushed by hand (value 1.5) and the metrics a
    confluent-kafka producer (librdkafka 2.16) pushes appear with the
    client's instance id and client id

The scrape is saved to $GR_METRICS_OUT for an independent parser.
"""
import base64
import json
import os
import re
import sys
import time
import urllib.request

from confluent_kafka import Producer
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from common import BOOT, check, eq, fail, say, wait_for

METRICS = os.environ["GR_METRICS"]
CTL = os.environ["GR_CONTROL"]

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s(?:,%s)*)?\})? (\S+)$" % (NAME, LABEL, LABEL))


def http(method, url, body=None):
    req = urllib.request.Request(url, method=method,
                                 data=body.encode() if body else None)
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def unescape(v):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), v)


def parse(text):
    """{(name, ((label, value), ...)): value}, the format checked."""
    out, families, fam, ftype = {}, set(), None, None
    check(text.endswith("\n"), "the text ends with a newline")
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP "):
            fam = line.split(" ")[2]
            check(re.fullmatch(NAME, fam), "line %d: a family name" % n)
            check(fam not in families, "family %s twice (line %d)" % (fam, n))
            families.add(fam)
            ftype = None
            continue
        if line.startswith("# TYPE "):
            parts = line.split(" ")
            check(len(parts) == 4 and parts[2] == fam and ftype is None,
                  "line %d: TYPE right after its HELP" % n)
            ftype = parts[3]
            check(ftype in ("counter", "gauge", "histogram", "untyped"),
                  "line %d: type %s" % (n, ftype))
            continue
        m = SAMPLE.match(line)
        check(m is not None, "line %d does not parse: %r" % (n, line))
        name = m.group(1)
        ok = name == fam or (ftype == "histogram" and name in
                             (fam + "_bucket", fam + "_sum", fam + "_count"))
        check(ok, "line %d: %s is not of family %s" % (n, name, fam))
        labels = tuple(sorted((k, unescape(v)) for k, v in
                              re.findall(LABEL, m.group(2) or "")))
        check(len(set(k for k, _ in labels)) == len(labels),
              "line %d: a label twice" % n)
        v = m.group(len(m.groups()))
        out[(name, labels)] = float(v.replace("+Inf", "inf"))
    return out


def scrape():
    st, ctype, text = http("GET", METRICS + "/metrics")
    eq(st, 200, "GET /metrics")
    eq(ctype, "text/plain; version=0.0.4; charset=utf-8", "Content-Type")
    return text, parse(text)


def val(m, name, **labels):
    return m.get((name, tuple(sorted(labels.items()))))


def by_label(m, name, **fixed):
    """{remaining labels: value} of the samples of name with fixed."""
    res = {}
    for (n, labels), v in m.items():
        d = dict(labels)
        if n == name and all(d.get(k) == x for k, x in fixed.items()):
            res[tuple((k, x) for k, x in labels if k not in fixed)] = v
    return res


def main():
    text, m = scrape()
    eq(val(m, "kafka_server_brokertopicmetrics_messagesin_total"), 0.0,
       "messages in before anything")

    # --- produce: 60 records of 100 bytes over 3 partitions, then 20 of 50
    # bytes to one partition through an injected NOT_LEADER_OR_FOLLOWER
    p = KafkaProducer(bootstrap_servers=BOOT, acks="all", linger_ms=5,
                      client_id="ms-producer")
    for i in range(60):
        p.send("ms-a", key=b"k%d" % i, value=b"a" * 100)
    p.flush(30)
    st, _, _ = http("POST", CTL + "/v1/faults", json.dumps(
        {"api": "Produce", "error": "NOT_LEADER_OR_FOLLOWER", "topic": "ms-b"}))
    eq(st, 201, "fault armed")
    futs = [p.send("ms-b", value=b"b" * 50, partition=0) for _ in range(20)]
    p.flush(30)
    for f in futs:
        f.get(timeout=10)
    p.close()
    say("80 records produced, one Produce of ms-b refused and retried")

    # --- a group reads ms-a and commits all but the last 2 of each partition
    c = KafkaConsumer("ms-a", bootstrap_servers=BOOT, group_id="ms-g",
                      client_id="ms-consumer", auto_offset_reset="earliest",
                      enable_auto_commit=False, consumer_timeout_ms=10000)
    got = 0
    for _ in c:
        got += 1
        if got == 60:
            break
    eq(got, 60, "records consumed")
    ends = c.end_offsets([TopicPartition("ms-a", i) for i in range(3)])
    committed = {tp.partition: max(0, e - 2) for tp, e in ends.items()}
    c.commit({TopicPartition("ms-a", i): OffsetAndMetadata(o, "", -1)
              for i, o in committed.items()})
    _, m = scrape()
    eq(val(m, "gregor_consumergroup_state", consumergroup="ms-g",
           state="Stable"), 1.0, "the group is Stable while its member runs")
    eq(val(m, "kafka_consumergroup_members", consumergroup="ms-g"), 1.0,
       "one member")
    c.close()
    say("consumed 60, committed %s" % committed)

    # --- the clients are gone: connections back to 0, then the scrape
    def idle():
        _, mm = scrape()
        return mm if val(mm, "kafka_server_socket_server_metrics_connection_count",
                         listener="PLAINTEXT") == 0 else None
    m = wait_for(idle, 10, "the connections to close")
    text, m = scrape()

    eq(val(m, "kafka_server_brokertopicmetrics_messagesin_total", topic="ms-a"),
       60.0, "messages in, ms-a")
    eq(val(m, "kafka_server_brokertopicmetrics_messagesin_total", topic="ms-b"),
       20.0, "messages in, ms-b")
    for t in ("ms-a", "ms-b"):
        size = sum(by_label(m, "kafka_log_log_size", topic=t).values())
        ends_t = by_label(m, "kafka_log_log_logendoffset", topic=t)
        check(size > 0, "%s has bytes" % t)
        eq(val(m, "kafka_server_brokertopicmetrics_bytesin_total", topic=t),
           size, "bytes in = the log's bytes, %s" % t)
        eq(sum(ends_t.values()), 60.0 if t == "ms-a" else 20.0,
           "log end offsets, %s" % t)
    size_a = sum(by_label(m, "kafka_log_log_size", topic="ms-a").values())
    out_a = val(m, "kafka_server_brokertopicmetrics_bytesout_total", topic="ms-a")
    check(size_a <= out_a <= 2 * size_a,
          "bytes out %r: every byte of ms-a (%r) read once or so" % (out_a, size_a))
    total = val(m, "kafka_server_brokertopicmetrics_messagesin_total")
    check(total >= 80, "all topics: %r messages in" % total)

    # the group: lag = end - committed per partition
    for i in range(3):
        end = val(m, "kafka_log_log_logendoffset", topic="ms-a", partition=str(i))
        eq(val(m, "kafka_consumergroup_current_offset", consumergroup="ms-g",
               topic="ms-a", partition=str(i)), float(committed[i]),
           "committed offset, partition %d" % i)
        eq(val(m, "kafka_consumergroup_lag", consumergroup="ms-g",
               topic="ms-a", partition=str(i)), end - committed[i],
           "lag, partition %d" % i)
    eq(val(m, "gregor_consumergroup_state", consumergroup="ms-g",
           state="Empty"), 1.0, "the group is Empty once its member left")

    # requests per API = the request log's
    _, _, log = http("GET", CTL + "/v1/requests")
    log = json.loads(log)["requests"]
    per_api = {}
    for e in log:
        per_api[e["api"]] = per_api.get(e["api"], 0) + 1
    scraped = {}
    for labels, v in by_label(m, "kafka_network_requestmetrics_requests_total").items():
        api = dict(labels)["request"]
        scraped[api] = scraped.get(api, 0) + int(v)
    eq(scraped, per_api, "requests per API, scraped vs the request log")
    for api in ("Produce", "Fetch", "Metadata", "JoinGroup", "SyncGroup",
                "OffsetCommit", "FindCoordinator", "ListOffsets"):
        check(scraped.get(api, 0) > 0, "%s requests counted" % api)
        cnt = val(m, "kafka_network_requestmetrics_totaltimems_count", request=api)
        check(cnt is not None and 0 < cnt <= scraped[api],
              "%s latencies: %r of %d" % (api, cnt, scraped[api]))
    eq(val(m, "kafka_network_requestmetrics_errors_total", request="Produce",
           error="NOT_LEADER_OR_FOLLOWER"), 1.0, "the injected error, once")
    eq(val(m, "gregor_control_injected_total"), 1.0, "injected")
    say("%d requests of %d APIs match the request log" % (len(log), len(per_api)))

    # --- KIP-714: a subscription, a gauge pushed by hand, librdkafka's own
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "telemetry"))
    import raw
    conn = raw.Conn(client_id="ms-raw")
    eq(raw.incremental(conn, "ms-sub", [("metrics", 0, "org.apache.kafka."),
                                        ("interval.ms", 0, "1000")]),
       (0, None), "a client-metrics subscription")
    conn.close()
    conn = raw.Conn(client_id="ms-raw")
    check(71 in conn.apis and 72 in conn.apis,
          "the telemetry APIs are advertised once a subscription exists")
    s = raw.get_subs(conn, b"\0" * 16)
    eq(s["err"], 0, "GetTelemetrySubscriptions")
    eq(raw.push(conn, s["id"], s["sub"],
                raw.otlp_gauge("org.apache.kafka.producer.test.gauge", 1.5)),
       0, "PushTelemetry")
    iid = base64.urlsafe_b64encode(s["id"]).rstrip(b"=").decode()

    def pushed():
        _, mm = scrape()
        return val(mm, "gregor_client_telemetry", client_instance_id=iid,
                   client_id="ms-raw",
                   metric="org.apache.kafka.producer.test.gauge")
    eq(wait_for(pushed, 10, "the pushed gauge in /metrics"), 1.5,
       "the pushed gauge's value")
    conn.close()
    ck = Producer({"bootstrap.servers": BOOT, "client.id": "ms-ck"})
    end = time.time() + 15
    seen = None
    while time.time() < end and seen is None:
        ck.produce("ms-c", value=b"c")
        ck.poll(0.2)
        _, mm = scrape()
        seen = [dict(l) for (n, l) in mm if n == "gregor_client_telemetry" and
                dict(l).get("client_id") == "ms-ck" and
                dict(l).get("metric", "").startswith("org.apache.kafka.producer.")]
        seen = seen or None
    ck.flush(10)
    check(seen, "librdkafka's pushed metrics in /metrics")
    say("librdkafka pushed %d data points, e.g. %s" % (len(seen), seen[0]))
    text, m = scrape()
    with open(os.environ["GR_METRICS_OUT"], "w") as f:
        f.write(text)
    say("%d samples in the last scrape" % len(m))


main()
