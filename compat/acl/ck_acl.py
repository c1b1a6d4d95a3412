"""compat/acl/ck_acl.py BOOTSTRAP DIR: confluent-kafka (librdkafka)
against a broker with the authorizer on and the ACLs the scenario gave
with kafka-acls (compat/acl/scenarios.sh). Each principal authenticates
over mTLS (DIR/<name>.pem: User:CN=<name>) or, without a certificate,
over SASL as DIR/<name>.properties says (User:<name>):
  producer  produces under the prefix app. (allowed), to other.t (no ACL:
            TOPIC_AUTHORIZATION_FAILED) and to app.secret (a DENY beats the
            prefix's ALLOW);
  consumer  reads app.orders in group cg1 (READ on topic and group), not in
            cg2 (GROUP_AUTHORIZATION_FAILED), not other.t in cg1
            (TOPIC_AUTHORIZATION_FAILED);
  txn       a transaction with transactional.id tx1 (its WRITE), not tx2;
  ops       CREATE on the cluster: creates a topic, may not delete it;
            ALTER_CONFIGS under ops.: alters ops.t's config, not
            app.orders' (TOPIC_AUTHORIZATION_FAILED);
  other     no ACL: CreateTopics, AlterConfigs (topic and broker) and
            DescribeAcls refused, Metadata shows none of the topics; then
            the admin (a super user) gives it WRITE on app.late with the
            Admin API and the same producer, without reconnecting, gets
            through, and is refused again once the ACL is deleted;
  admin     super user: creates and deletes a topic, alters a topic's
            config no ACL names, lists the ACLs.
Prints "# ok: ..." per check, "FAIL: ..." and exits 1 when one fails."""
import sys
import time
import uuid

from confluent_kafka import (Consumer, KafkaError, KafkaException, Producer,
                             TopicPartition)
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation,
                                   AclPermissionType, AdminClient,
                                   AlterConfigOpType, ConfigEntry,
                                   ConfigResource, NewTopic,
                                   ResourcePatternType, ResourceType)

import acl_common
from acl_common import check

bootstrap, d = sys.argv[1:3]


MTLS = acl_common.mtls(d)
PRINCIPAL = acl_common.prefix(d)


def conf(name, **kw):
    c = {"bootstrap.servers": bootstrap}
    if MTLS:
        c.update({"security.protocol": "SSL",
                  "ssl.ca.location": d + "/ca.pem",
                  "ssl.certificate.location": "%s/%s.pem" % (d, name),
                  "ssl.key.location": "%s/%s.key" % (d, name)})
    else:
        mech, user, pw = acl_common.sasl(d, name)
        c.update({"security.protocol": "SASL_PLAINTEXT",
                  "sasl.mechanisms": mech, "sasl.username": user,
                  "sasl.password": pw})
    c.update(kw)
    return c


def produce(p, topic, n=3, timeout=10):
    """n records to topic with producer p: the delivery errors' codes (empty
    when all were delivered)."""
    errs = []
    for i in range(n):
        try:
            p.produce(topic, value=b"v%d" % i,
                      on_delivery=lambda e, m: errs.append(e.code()) if e else None)
        except KafkaException as e:
            # librdkafka keeps a topic's authorization error and refuses
            # produce() until its next metadata says otherwise
            errs.append(e.args[0].code())
    left = p.flush(timeout)
    if left:
        errs.append("undelivered %d" % left)
    return errs


# --- producer: the prefix, a topic without ACL, a DENY inside the prefix
p = Producer(conf("producer", **{"acks": "all", "message.timeout.ms": 8000,
                                 "enable.idempotence": True}))
errs = produce(p, "app.orders", 5)
check("producer writes app.orders (PREFIXED app. ALLOW, idempotent)", not errs, errs)
errs = produce(p, "other.t")
check("producer refused on other.t", errs and all(
    e == KafkaError.TOPIC_AUTHORIZATION_FAILED for e in errs), errs)
errs = produce(p, "app.secret")
check("producer refused on app.secret (DENY beats the prefix)", errs and all(
    e == KafkaError.TOPIC_AUTHORIZATION_FAILED for e in errs), errs)


# --- consumer: READ on the topic and on the group
def consume(group, want, timeout=15, topic="app.orders"):
    c = Consumer(conf("consumer", **{"group.id": group,
                                     "auto.offset.reset": "earliest",
                                     "enable.auto.commit": False}))
    c.subscribe([topic])
    got, err = 0, None
    deadline = time.time() + timeout
    while time.time() < deadline and got < want and err is None:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() != KafkaError._PARTITION_EOF:
                err = m.error().code()
            continue
        got += 1
    if got and err is None:
        try:
            c.commit(asynchronous=False)
        except KafkaException as e:
            err = e.args[0].code()
    c.close()
    return got, err


got, err = consume("cg1", 5)
check("consumer reads app.orders in group cg1", got == 5 and err is None, (got, err))
got, err = consume("cg2", 5, timeout=8)
check("consumer refused in group cg2", got == 0 and
      err == KafkaError.GROUP_AUTHORIZATION_FAILED, (got, err))
got, err = consume("cg1", 1, timeout=8, topic="other.t")
check("consumer refused other.t in cg1 (no READ on the topic)", got == 0 and
      err == KafkaError.TOPIC_AUTHORIZATION_FAILED, (got, err))

# --- transactions need the transactional id's WRITE
t = Producer(conf("txn", **{"transactional.id": "tx1", "message.timeout.ms": 8000}))
try:
    t.init_transactions(15)
    t.begin_transaction()
    for i in range(3):
        t.produce("app.txn", value=b"t%d" % i)
    t.commit_transaction(15)
    check("txn commits a transaction as tx1", True)
except KafkaException as e:
    check("txn commits a transaction as tx1", False, e)
t2 = Producer(conf("txn", **{"transactional.id": "tx2", "message.timeout.ms": 8000}))
try:
    t2.init_transactions(10)
    check("txn refused as tx2", False, "init_transactions succeeded")
except KafkaException as e:
    check("txn refused as tx2", e.args[0].code() ==
          KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, e)

# --- a principal without ACLs, and the admin
other = AdminClient(conf("other"))
fs = other.create_topics([NewTopic("app.other-made", 1, 1)], request_timeout=10)
try:
    fs["app.other-made"].result()
    check("other refused CreateTopics", False, "created")
except KafkaException as e:
    check("other refused CreateTopics", e.args[0].code() ==
          KafkaError.TOPIC_AUTHORIZATION_FAILED, e)
md = other.list_topics(timeout=10)
check("other sees no topic in Metadata", not [t for t in md.topics if not
                                              t.startswith("__")], sorted(md.topics))
# DescribeAcls refused (CLUSTER_AUTHORIZATION_FAILED, Kafka's answer, as
# tests/diff's acl_denials compares): librdkafka takes the answer's
# top-level error for an empty list, the Java Admin raises it (AclJava)
try:
    got = other.describe_acls(AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
        AclOperation.ANY, AclPermissionType.ANY)).result()
    check("other gets no ACL from DescribeAcls", got == [], got)
except KafkaException as e:
    check("other gets no ACL from DescribeAcls", e.args[0].code() ==
          KafkaError.CLUSTER_AUTHORIZATION_FAILED, e)

admin = AdminClient(conf("admin"))
name = "adm-" + uuid.uuid4().hex[:6]
try:
    admin.create_topics([NewTopic(name, 2, 1)])[name].result(15)
    admin.delete_topics([name])[name].result(15)
    check("admin (super user) creates and deletes a topic", True)
except KafkaException as e:
    check("admin (super user) creates and deletes a topic", False, e)



def alter(client, rtype, name, key, value, validate=False):
    """IncrementalAlterConfigs SET key=value on one resource: None or the
    error code."""
    r = ConfigResource(rtype, name, incremental_configs=[ConfigEntry(
        key, value, incremental_operation=AlterConfigOpType.SET)])
    try:
        client.incremental_alter_configs([r], request_timeout=10,
                                         validate_only=validate)[r].result()
        return None
    except KafkaException as e:
        return e.args[0].code()


# --- admin operations: CLUSTER and topic rights
ops = AdminClient(conf("ops"))
name = "ops.made-" + uuid.uuid4().hex[:6]
try:
    ops.create_topics([NewTopic(name, 1, 1)], request_timeout=10)[name].result()
    check("ops creates a topic (CREATE on the cluster)", True)
except KafkaException as e:
    check("ops creates a topic (CREATE on the cluster)", False, e)
try:
    ops.delete_topics([name], request_timeout=10)[name].result()
    check("ops refused DeleteTopics", False, "deleted")
except KafkaException as e:
    check("ops refused DeleteTopics", e.args[0].code() ==
          KafkaError.TOPIC_AUTHORIZATION_FAILED, e)
err = alter(ops, ResourceType.TOPIC, "ops.t", "retention.ms", "3600000")
check("ops alters ops.t's config (ALTER_CONFIGS under ops.)", err is None, err)
err = alter(ops, ResourceType.TOPIC, "app.orders", "retention.ms", "3600000")
check("ops refused AlterConfigs on app.orders",
      err == KafkaError.TOPIC_AUTHORIZATION_FAILED, err)
err = alter(other, ResourceType.TOPIC, "ops.t", "retention.ms", "7200000")
check("other refused AlterConfigs on ops.t",
      err == KafkaError.TOPIC_AUTHORIZATION_FAILED, err)
bid = str(sorted(admin.list_topics(timeout=10).brokers)[0])
err = alter(other, ResourceType.BROKER, bid, "log.cleaner.backoff.ms", "20000", True)
check("other refused AlterConfigs on the broker",
      err == KafkaError.CLUSTER_AUTHORIZATION_FAILED, err)
err = alter(admin, ResourceType.TOPIC, "other.t", "retention.ms", "3600000")
check("admin (super user) alters other.t's config", err is None, err)
got = admin.describe_configs([ConfigResource(ResourceType.TOPIC, "other.t")])
got = list(got.values())[0].result(10)["retention.ms"].value
check("and the config reads back", got == "3600000", got)

# --- an ACL change applies to a connected client at once
op = Producer(conf("other", **{"acks": "all", "message.timeout.ms": 5000,
                               "topic.metadata.refresh.interval.ms": 500}))


def until(pred, timeout=20):
    """produce(op, "app.late", 1) until pred(errors) holds: the errors."""
    deadline = time.time() + timeout
    while True:
        errs = produce(op, "app.late", 1)
        if pred(errs) or time.time() > deadline:
            return errs
        time.sleep(0.3)



errs = produce(op, "app.late", 1)
check("other refused on app.late before the ACL", errs == [
    KafkaError.TOPIC_AUTHORIZATION_FAILED], errs)
b = AclBinding(ResourceType.TOPIC, "app.late", ResourcePatternType.LITERAL,
               PRINCIPAL + "other", "*", AclOperation.WRITE, AclPermissionType.ALLOW)
admin.create_acls([b])[b].result(15)
errs = until(lambda e: not e)
check("the same producer writes app.late once the ACL is there", not errs, errs)
fl = AclBindingFilter(ResourceType.TOPIC, "app.late", ResourcePatternType.LITERAL,
                      None, None, AclOperation.ANY, AclPermissionType.ANY)
deleted = admin.delete_acls([fl])[fl].result(15)
check("admin deletes the ACL it made", len(deleted) == 1, deleted)
errs = until(lambda e: e == [KafkaError.TOPIC_AUTHORIZATION_FAILED])
check("and the producer is refused again", errs == [
    KafkaError.TOPIC_AUTHORIZATION_FAILED], errs)
acls = admin.describe_acls(AclBindingFilter(
    ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
    AclOperation.ANY, AclPermissionType.ANY)).result(15)
check("admin lists the scenario's ACLs", len(acls) >= 8, len(acls))
sys.exit(1 if acl_common.fails else 0)
