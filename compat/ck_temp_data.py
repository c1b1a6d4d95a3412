#!/usr/bin/python3
"""A --temp-data broker's test defaults, with confluent-kafka against a
running gregor (GR_BOOTSTRAP) whose data directory is DATA_DIR:

  ck_temp_data.py DATA_DIR

DescribeConfigs of the broker gives group.initial.rebalance.delay.ms 0,
offsets.topic.num.partitions 1 and transaction.state.log.num.partitions 1;
a consumer group reads the record "hello" of topic td (the first
rebalance does not wait for more members: the time is printed); a
transactional producer commits; __consumer_offsets and
__transaction_state each have one partition directory. Exit 0 or 1."""

import os
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, ConfigResource

BOOT = os.environ["GR_BOOTSTRAP"]


def fail(msg):
    print("ck_temp_data: FAIL: " + msg)
    sys.exit(1)


def main():
    data = sys.argv[1]
    admin = AdminClient({"bootstrap.servers": BOOT})
    res = ConfigResource("broker", "1")
    cfg = admin.describe_configs([res])[res].result(30)
    want = {"group.initial.rebalance.delay.ms": "0",
            "offsets.topic.num.partitions": "1",
            "transaction.state.log.num.partitions": "1"}
    for k, v in want.items():
        if k not in cfg or cfg[k].value != v:
            fail("%s is %s, not %s" % (k, cfg[k].value if k in cfg else None,
                                       v))

    t0 = time.time()
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "td-group",
                  "auto.offset.reset": "earliest"})
    c.subscribe(["td"])
    m = None
    while m is None and time.time() - t0 < 60:
        m = c.poll(0.2)
        if m is not None and m.error():
            fail("consumer: %s" % m.error())
    c.close()
    if m is None or m.value() != b"hello":
        fail("the group did not read hello (got %r)" % (m and m.value()))
    print("ck_temp_data: a group's first record after %.2f s" %
          (time.time() - t0))

    p = Producer({"bootstrap.servers": BOOT, "transactional.id": "td-tx"})
    p.init_transactions(30)
    p.begin_transaction()
    p.produce("td", b"in a transaction")
    p.commit_transaction(30)

    for topic in ("__consumer_offsets", "__transaction_state"):
        dirs = sorted(d for d in os.listdir(data)
                      if d.startswith(topic + "-"))
        if dirs != [topic + "-0"]:
            fail("%s has the directories %s" % (topic, dirs))
    print("ck_temp_data: ok")


if __name__ == "__main__":
    main()
