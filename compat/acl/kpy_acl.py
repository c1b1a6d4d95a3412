"""compat/acl/kpy_acl.py BOOTSTRAP DIR: kafka-python against the broker of
compat/acl/scenarios.sh, each principal over mTLS or SASL as
acl_common.py reads DIR, asserting the exception
kafka-python raises for each refusal:
  producer  writes app.orders (PREFIXED app.), refused other.t (no ACL) and
            app.secret (DENY beats the ALLOW): TopicAuthorizationFailedError;
  consumer  reads app.orders in group cg1; in cg2 GroupAuthorizationFailedError;
            other.t (no READ) in cg1 reads nothing, its metadata has
            TOPIC_AUTHORIZATION_FAILED (kafka-python raises it out of poll);
  txn       commits a transaction as tx1; as tx2
            TransactionalIdAuthorizationFailedError;
  ops       creates a topic (CREATE on the cluster), alters ops.t's config,
            not app.orders' (TOPIC_AUTHORIZATION_FAILED);
  other     CreateTopics refused (TopicAuthorizationFailedError), a broker's
            AlterConfigs (ClusterAuthorizationFailedError), DescribeAcls
            refused (ClusterAuthorizationFailedError); the admin gives it
            WRITE on app.late with KafkaAdminClient.create_acls and the
            same producer gets through, then the ACL deleted, is refused;
  admin     super user: every cluster operation in DescribeCluster's
            authorized operations (other: none); creates and deletes a topic.
Prints "# ok: ..." per check, "FAIL: ..." and exits 1 when one fails."""
import sys
import time
import uuid

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka import errors as Errors
from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,
                         ACLResourcePatternType, ConfigResource,
                         ConfigResourceType, ResourcePattern,
                         ResourcePatternFilter, ResourceType)

import acl_common
from acl_common import check

bootstrap, d = sys.argv[1:3]
MTLS = acl_common.mtls(d)
PRINCIPAL = acl_common.prefix(d)


def conf(name, **kw):
    c = dict(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    if MTLS:
        c.update(security_protocol="SSL", ssl_cafile=d + "/ca.pem",
                 ssl_certfile="%s/%s.pem" % (d, name),
                 ssl_keyfile="%s/%s.key" % (d, name))
    else:
        mech, user, pw = acl_common.sasl(d, name)
        c.update(security_protocol="SASL_PLAINTEXT", sasl_mechanism=mech,
                 sasl_plain_username=user, sasl_plain_password=pw)
    c.update(kw)
    return c


def send(p, topic):
    """One record: None or the exception the future raises."""
    try:
        p.send(topic, b"kpy").get(timeout=15)
        return None
    except Exception as e:  # the class is the assertion
        return e


# --- producer
p = KafkaProducer(**conf("producer", acks="all", max_block_ms=10000))
e = send(p, "app.orders")
check("producer writes app.orders (PREFIXED app.)", e is None, repr(e))
for t in ("other.t", "app.secret"):
    e = send(p, t)
    check("producer refused on %s: TopicAuthorizationFailedError" % t,
          isinstance(e, Errors.TopicAuthorizationFailedError), repr(e))
p.close()


# --- consumer
def consume(group, timeout=15, topic="app.orders"):
    """(records read, exception raised, the topics the client's metadata
    marks unauthorized)"""
    c = KafkaConsumer(topic, **conf(
        "consumer", group_id=group, auto_offset_reset="earliest",
        enable_auto_commit=False))
    n, err = 0, None
    end = time.time() + timeout
    try:
        while n == 0 and time.time() < end:
            n += sum(len(v) for v in c.poll(500).values())
        if n:
            c.commit()
    except Exception as e:
        err = e
    unauth = set(c._client.cluster.unauthorized_topics)
    c.close()
    return n, err, unauth


n, err, _ = consume("cg1")
check("consumer reads app.orders in cg1", n > 0 and err is None, (n, repr(err)))
n, err, _ = consume("cg2", 10)
check("consumer refused in cg2: GroupAuthorizationFailedError", n == 0 and
      isinstance(err, Errors.GroupAuthorizationFailedError), (n, repr(err)))
# kafka-python raises TopicAuthorizationFailedError in its metadata
# listener, out of poll(): the error is seen in the metadata it keeps
n, err, unauth = consume("cg1", 8, "other.t")
check("consumer refused other.t in cg1: TOPIC_AUTHORIZATION_FAILED in Metadata",
      n == 0 and unauth == {"other.t"}, (n, repr(err), unauth))

# --- transactions
t = KafkaProducer(**conf("txn", transactional_id="tx1", max_block_ms=15000))
try:
    t.init_transactions()
    t.begin_transaction()
    t.send("app.txn", b"kpy-t")
    t.commit_transaction()
    check("txn commits a transaction as tx1", True)
except Exception as e:
    check("txn commits a transaction as tx1", False, repr(e))
t.close()
t = KafkaProducer(**conf("txn", transactional_id="tx2", max_block_ms=15000))
try:
    t.init_transactions()
    check("txn refused as tx2", False, "init_transactions succeeded")
except Exception as e:
    check("txn refused as tx2: TransactionalIdAuthorizationFailedError",
          isinstance(e, Errors.TransactionalIdAuthorizationFailedError), repr(e))
t.close(timeout=2)


# --- admin operations
def create(a, name):
    try:
        a.create_topics({name: {"num_partitions": 1, "replication_factor": 1}})
        return None
    except Exception as e:
        return e


def alter(a, name, value):
    """AlterConfigs (incremental) of a topic's retention.ms: the result
    kafka-python gives ('OK' or the error's text). Not raise_on_unknown:
    that first describes the configs, which ops may not on app.orders."""
    r = a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, name,
                                        {"retention.ms": value})],
                        raise_on_unknown=False)
    return r["topic"][name]


ops = KafkaAdminClient(**conf("ops"))
e = create(ops, "ops.kpy-" + uuid.uuid4().hex[:6])
check("ops creates a topic (CREATE on the cluster)", e is None, repr(e))
r = alter(ops, "ops.t", "5400000")
check("ops alters ops.t's config", r == "OK", r)
r = alter(ops, "app.orders", "5400000")
check("ops refused AlterConfigs on app.orders", "TopicAuthorizationFailedError" in r, r)
ops.close()

other = KafkaAdminClient(**conf("other"))


def cluster_ops(a):
    """DescribeCluster's authorized operations (asked for by kafka-python),
    as names, and a broker's id"""
    dc = a.describe_cluster()
    v = [v for k, v in dc.items() if "authorized_operations" in k]
    v = v[0] if v else None
    if isinstance(v, int):  # the bit field, undecoded
        v = [o.name for o in ACLOperation if o > ACLOperation.ALL and v & 1 << o]
    return v, str(dc["brokers"][0]["broker_id"])


got, node = cluster_ops(other)
check("other's DescribeCluster: no authorized operation", got == [], got)
r = other.alter_configs([ConfigResource(ConfigResourceType.BROKER, node,
                                        {"log.cleaner.backoff.ms": "20000"})],
                        validate_only=True, raise_on_unknown=False)
check("other refused AlterConfigs on the broker",
      "ClusterAuthorizationFailedError" in r["broker"][node], r)
e = create(other, "app.kpy-other")
check("other refused CreateTopics: TopicAuthorizationFailedError",
      isinstance(e, Errors.TopicAuthorizationFailedError), repr(e))
try:
    other.describe_acls(ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                  ResourcePatternFilter(ResourceType.ANY, None,
                                                        ACLResourcePatternType.ANY)))
    check("other refused DescribeAcls", False, "described")
except Exception as e:
    check("other refused DescribeAcls: ClusterAuthorizationFailedError",
          isinstance(e, Errors.ClusterAuthorizationFailedError), repr(e))
other.close()

admin = KafkaAdminClient(**conf("admin"))
got = set(cluster_ops(admin)[0] or [])
check("the super user's DescribeCluster: every cluster operation",
      {"ALTER", "CREATE", "DESCRIBE", "ALTER_CONFIGS", "IDEMPOTENT_WRITE"} <= got, got)
name = "adm-kpy-" + uuid.uuid4().hex[:6]
e = create(admin, name)
if e is None:
    try:
        admin.delete_topics([name])
    except Exception as x:
        e = x
check("admin (super user) creates and deletes a topic", e is None, repr(e))

# --- an ACL added, then removed, reaches a connected producer
# not idempotent: with WRITE on no topic its InitProducerId is refused
# (CLUSTER_AUTHORIZATION_FAILED, Kafka's KIP-679 rule), which kafka-python
# takes as fatal for the producer
op = KafkaProducer(**conf("other", acks="all", max_block_ms=5000,
                          metadata_max_age_ms=500, enable_idempotence=False))


def until(pred, timeout=20):
    end = time.time() + timeout
    while True:
        e = send(op, "app.late")
        if pred(e) or time.time() > end:
            return e
        time.sleep(0.3)


e = send(op, "app.late")
check("other refused on app.late before the ACL",
      isinstance(e, Errors.TopicAuthorizationFailedError), repr(e))
acl = ACL(PRINCIPAL + "other", "*", ACLOperation.WRITE, ACLPermissionType.ALLOW,
          ResourcePattern(ResourceType.TOPIC, "app.late",
                          ACLResourcePatternType.LITERAL))
r = admin.create_acls([acl])
check("admin creates the ACL", len(r["succeeded"]) == 1, r)
e = until(lambda e: e is None)
check("the same producer writes app.late once the ACL is there", e is None, repr(e))
r = admin.delete_acls([ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                 ResourcePatternFilter(ResourceType.TOPIC, "app.late",
                                                       ACLResourcePatternType.LITERAL))])
check("admin deletes the ACL", len(r) == 1 and len(r[0][1]) == 1 and
      r[0][2] is Errors.NoError, r)
e = until(lambda e: isinstance(e, Errors.TopicAuthorizationFailedError))
check("and the producer is refused again",
      isinstance(e, Errors.TopicAuthorizationFailedError), repr(e))
op.close()
admin.close()
sys.exit(1 if acl_common.fails else 0)
