"""OAUTHBEARER with the current Python clients (the compat/python venv):
confluent-kafka (its own librdkafka) and kafka-python 3.

    clients.py ck-unsecure BOOT PROTO CA TOPIC
        librdkafka's builtin unsecured JWT (enable.sasl.oauthbearer.
        unsecure.jwt, sasl.oauthbearer.config "principal=alice"): produce
        and consume 20 records
    clients.py ck-token BOOT PROTO CA TOPIC TOKEN      the token from oauth_cb
    clients.py kp-token BOOT PROTO CA TOPIC TOKEN      kafka-python's provider
    clients.py ck-refused BOOT PROTO CA TOPIC TOKEN TEXT
    clients.py kp-refused BOOT PROTO CA TOPIC TOKEN TEXT
        the broker refuses the token: the client reports an authentication
        error holding TEXT and no record is acknowledged
    clients.py ck-reauth BOOT PROTO CA TOPIC SECONDS
        librdkafka's unsecured JWT producing a record every 100 ms for
        SECONDS across re-authentications (KIP-368): all acknowledged, no
        authentication error
    clients.py count BOOT TOPIC
        the topic's high watermark over PLAINTEXT (0 when it does not exist)

PROTO: SASL_PLAINTEXT or SASL_SSL (then CA is the CA's PEM; "-" otherwise).
Prints "# ..." lines; exits 0 when the checks hold."""

import sys
import time
import uuid


def ck_conf(boot, proto, ca):
    c = {"bootstrap.servers": boot, "security.protocol": proto,
         "sasl.mechanisms": "OAUTHBEARER"}
    if proto == "SASL_SSL":
        c["ssl.ca.location"] = ca
    return c


def ck_roundtrip(conf, topic, n=20):
    from confluent_kafka import Consumer, Producer
    errors = []
    conf = dict(conf, error_cb=lambda e: errors.append(str(e)))
    p = Producer(dict(conf, **{"message.timeout.ms": 20000}))
    acked = []
    for i in range(n):
        p.produce(topic, b"v%d" % i, key=b"k%d" % i,
                  on_delivery=lambda e, m: acked.append((e, m.offset() if m else None)))
    p.flush(30)
    bad = [e for e, _ in acked if e is not None]
    if len(acked) != n or bad:
        sys.exit("FAIL: %d of %d acknowledged, errors %s %s" % (len(acked) - len(bad), n, bad[:3], errors[:3]))
    c = Consumer(dict(conf, **{"group.id": "g-" + uuid.uuid4().hex[:8],
                                "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    got = []
    end = time.time() + 30
    while len(got) < n and time.time() < end:
        m = c.poll(1)
        if m is not None and m.error() is None:
            got.append(m.value())
    c.close()
    if sorted(got) != sorted(b"v%d" % i for i in range(n)):
        sys.exit("FAIL: consumed %d of %d: %s" % (len(got), n, errors[:3]))
    print("# confluent-kafka: %d records produced and consumed" % n)


def ck_token_conf(boot, proto, ca, token):
    def cb(_config):
        return token, time.time() + 3600
    return dict(ck_conf(boot, proto, ca), oauth_cb=cb)


def ck_refused(conf, topic, text):
    from confluent_kafka import Producer
    errors = []
    conf = dict(conf, error_cb=lambda e: errors.append(str(e)))
    p = Producer(dict(conf, **{"message.timeout.ms": 4000}))
    acked = []
    p.produce(topic, b"refused", on_delivery=lambda e, m: acked.append(e))
    p.flush(10)
    if acked and acked[0] is None:
        sys.exit("FAIL: a record was acknowledged")
    if not any(text in e for e in errors):
        sys.exit("FAIL: no error with %r: %s" % (text, errors[:3]))
    print("# confluent-kafka refused: %s" % [e for e in errors if text in e][0][:200])


class Provider:
    def __init__(self, token):
        self.t = token

    def token(self):
        return self.t

    def extensions(self):
        return {}


def kp_conf(boot, proto, ca, token):
    from kafka.net.sasl.oauth import AbstractTokenProvider

    class P(Provider, AbstractTokenProvider):
        pass
    c = {"bootstrap_servers": boot, "security_protocol": proto,
         "sasl_mechanism": "OAUTHBEARER", "sasl_oauth_token_provider": P(token)}
    if proto == "SASL_SSL":
        c["ssl_cafile"] = ca
    return c


def kp_roundtrip(conf, topic, n=20):
    from kafka import KafkaConsumer, KafkaProducer
    p = KafkaProducer(**conf)
    for f in [p.send(topic, b"kp%d" % i) for i in range(n)]:
        f.get(timeout=30)
    p.close()
    c = KafkaConsumer(topic, auto_offset_reset="earliest", group_id="kp-" + uuid.uuid4().hex[:8],
                      consumer_timeout_ms=10000, **conf)
    got = [m.value for m in c]
    c.close()
    if sorted(got) != sorted(b"kp%d" % i for i in range(n)):
        sys.exit("FAIL: kafka-python consumed %d of %d" % (len(got), n))
    print("# kafka-python: %d records produced and consumed" % n)


def kp_refused(conf, topic, text):
    """kafka-python gives up with a timeout; the broker's JSON error is in
    its log records (it logs the challenge before answering 0x01)."""
    import logging
    from kafka import KafkaProducer
    seen = []

    class H(logging.Handler):
        def emit(self, r):
            seen.append(r.getMessage())
    logging.getLogger("kafka").addHandler(H())
    logging.getLogger("kafka").setLevel(logging.DEBUG)
    try:
        p = KafkaProducer(max_block_ms=6000, **conf)
        p.send(topic, b"refused").get(timeout=10)
    except Exception as e:
        hits = [m for m in seen if text in m]
        if not hits:
            sys.exit("FAIL: kafka-python (%s) logged nothing with %r"
                     % (type(e).__name__, text))
        print("# kafka-python refused: %s" % hits[0][:200])
        return
    sys.exit("FAIL: kafka-python produced with a refused token")


def ck_reauth(conf, topic, secs):
    from confluent_kafka import Producer
    errors = []
    p = Producer(dict(conf, error_cb=lambda e: errors.append(str(e)),
                      **{"enable.sasl.oauthbearer.unsecure.jwt": True,
                         "sasl.oauthbearer.config": "principal=alice"}))
    acked, n = [], 0
    end = time.time() + secs
    while time.time() < end:
        p.produce(topic, b"r%d" % n, on_delivery=lambda e, m: acked.append(e))
        n += 1
        p.poll(0.1)
    p.flush(20)
    bad = [e for e in acked if e is not None]
    auth = [e for e in errors if "AUTHENTICATION" in e]
    if len(acked) != n or bad or auth:
        sys.exit("FAIL: %d of %d acknowledged, %s %s" % (len(acked) - len(bad), n, bad[:2], errors[:2]))
    print("# confluent-kafka: %d records over %d s of re-authentications%s"
          % (n, secs, " (other client errors: %s)" % errors[:2] if errors else ""))


def count(boot, topic):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": boot, "group.id": "count"})
    md = c.list_topics(timeout=10)
    if topic not in md.topics or md.topics[topic].error is not None:
        print(0)
        return
    total = 0
    for p in md.topics[topic].partitions:
        total += c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
    c.close()
    print(total)


def main(a):
    cmd = a[1]
    if cmd == "count":
        return count(a[2], a[3])
    boot, proto, ca, topic = a[2], a[3], a[4], a[5]
    if cmd == "ck-unsecure":
        ck_roundtrip(dict(ck_conf(boot, proto, ca), **{
            "enable.sasl.oauthbearer.unsecure.jwt": True,
            "sasl.oauthbearer.config": "principal=alice"}), topic)
    elif cmd == "ck-token":
        ck_roundtrip(ck_token_conf(boot, proto, ca, a[6]), topic)
    elif cmd == "kp-token":
        kp_roundtrip(kp_conf(boot, proto, ca, a[6]), topic)
    elif cmd == "ck-refused":
        ck_refused(ck_token_conf(boot, proto, ca, a[6]), topic, a[7])
    elif cmd == "ck-reauth":
        ck_reauth(ck_conf(boot, proto, ca), topic, int(a[6]))
    elif cmd == "kp-refused":
        kp_refused(kp_conf(boot, proto, ca, a[6]), topic, a[7])
    else:
        sys.exit("clients.py: unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
