"""compat/tls/py_tls.py CLIENT BOOTSTRAP CERTDIR [mtls|server|wrongca|nocert]:
produce 200 records to a new topic over SSL and consume them back, with
kafka-python (CLIENT=kpy) or confluent-kafka (CLIENT=ck). mtls presents
the client certificate; wrongca trusts another CA and nocert presents no
certificate where one is required: both must fail (exit 0 when they
do)."""
import sys
import time
import uuid

client, bootstrap, d, mode = sys.argv[1:5]
topic = "tls-" + uuid.uuid4().hex[:8]
values = [("v%d-" % i).encode() + b"x" * (i * 37 % 3000) for i in range(200)]
ca = d + ("/otherca.pem" if mode == "wrongca" else "/ca.pem")
expect_fail = mode in ("wrongca", "nocert")


def kpy():
    from kafka import KafkaConsumer, KafkaProducer
    ssl = dict(security_protocol="SSL", ssl_cafile=ca, ssl_check_hostname=True)
    if mode == "mtls":
        ssl.update(ssl_certfile=d + "/client.pem", ssl_keyfile=d + "/client.key")
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all",
                      request_timeout_ms=8000, max_block_ms=8000, **ssl)
    for v in values:
        p.send(topic, v)
    p.flush(10)
    p.close()
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap,
                      auto_offset_reset="earliest", consumer_timeout_ms=10000,
                      fetch_max_bytes=64 * 1024, **ssl)
    got = []
    for m in c:
        got.append(m.value)
        if len(got) == len(values):
            break
    c.close()
    return got


def ck():
    from confluent_kafka import Consumer, KafkaException, Producer
    conf = {"bootstrap.servers": bootstrap, "security.protocol": "SSL",
            "ssl.ca.location": ca}
    if mode == "mtls":
        conf.update({"ssl.certificate.location": d + "/client.pem",
                     "ssl.key.location": d + "/client.key"})
    errs = []
    p = Producer(dict(conf, **{"acks": "all", "message.timeout.ms": 8000,
                               "error_cb": errs.append}))
    failed = []

    def dr(err, msg):
        if err is not None:
            failed.append(err)
    for v in values:
        p.produce(topic, v, on_delivery=dr)
    if p.flush(12) != 0 or failed:
        raise KafkaException("not delivered: %s" % (failed or errs)[:1])
    c = Consumer(dict(conf, **{"group.id": "g-" + topic,
                               "auto.offset.reset": "earliest",
                               "max.partition.fetch.bytes": 65536}))
    c.subscribe([topic])
    got = []
    end = time.time() + 15
    while len(got) < len(values) and time.time() < end:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value())
    c.close()
    return got


try:
    got = (kpy if client == "kpy" else ck)()
except Exception as e:  # the failing modes end here
    if expect_fail:
        print("refused as expected: %s" % type(e).__name__)
        sys.exit(0)
    raise
if expect_fail:
    print("FAIL: %s worked where it must not" % mode)
    sys.exit(1)
if got != values:
    print("FAIL: consumed %d of %d records (or different)" % (len(got), len(values)))
    sys.exit(1)
print("ok: %s %s %d records over SSL" % (client, mode, len(got)))
