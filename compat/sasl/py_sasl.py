"""compat/sasl/py_sasl.py: SASL with the Python clients (confluent-kafka,
kafka-python), run by compat/sasl/scenarios.sh.

  py_sasl.py pc CLIENT BOOT CA MECH USER PW
      produce 100 records to a new topic and consume them back (CA empty:
      SASL_PLAINTEXT, else SASL_SSL trusting it); CLIENT ck or kpy
  py_sasl.py refused CLIENT BOOT CA MECH USER PW TOPIC ADMINBOOT
      producing to TOPIC fails authentication (SASL_AUTHENTICATION_FAILED)
      and TOPIC's end offset stays where it was (read over ADMINBOOT,
      plaintext)
  py_sasl.py scram CLIENT ADMINBOOT set|delete USER MECH [PW ITERATIONS]
      AlterUserScramCredentials through the admin client of CLIENT over the
      plaintext listener, then DescribeUserScramCredentials shows it (or
      not)
  py_sasl.py errors ADMINBOOT
      Kafka's errors of AlterUserScramCredentials and
      DescribeUserScramCredentials through confluent-kafka
"""
import os
import sys
import time
import uuid

# SASL_ADMIN=MECH:USER:PW: the admin clients log in (a SASL_PLAINTEXT
# bootstrap, as a Kafka whose only listener has SASL)
ADMIN = os.environ.get("SASL_ADMIN", "")


def admin_conf(boot):
    c = {"bootstrap.servers": boot}
    if ADMIN:
        m, u, p = ADMIN.split(":")
        c.update(sec("", m, u, p, "ck"))
    return c


def sec(ca, mech, user, pw, flavour):
    proto = "SASL_SSL" if ca else "SASL_PLAINTEXT"
    if flavour == "ck":
        c = {"security.protocol": proto, "sasl.mechanisms": mech,
             "sasl.username": user, "sasl.password": pw}
        if ca:
            c["ssl.ca.location"] = ca
        return c
    c = dict(security_protocol=proto, sasl_mechanism=mech,
             sasl_plain_username=user, sasl_plain_password=pw)
    if ca:
        c.update(ssl_cafile=ca, ssl_check_hostname=False)
    return c


def pc_ck(boot, ca, mech, user, pw, topic, values):
    from confluent_kafka import Consumer, KafkaException, Producer
    conf = dict(sec(ca, mech, user, pw, "ck"), **{"bootstrap.servers": boot})
    failed = []
    p = Producer(dict(conf, **{"acks": "all", "message.timeout.ms": 10000}))
    for v in values:
        p.produce(topic, v, on_delivery=lambda e, m: e and failed.append(e))
    if p.flush(15) != 0 or failed:
        raise KafkaException("not delivered: %s" % failed[:1])
    c = Consumer(dict(conf, **{"group.id": "g-" + topic,
                               "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    got, end = [], time.time() + 20
    while len(got) < len(values) and time.time() < end:
        m = c.poll(1)
        if m is None:
            continue
        if m.error():
            raise KafkaException(m.error())
        got.append(m.value())
    c.close()
    return got


def pc_kpy(boot, ca, mech, user, pw, topic, values):
    from kafka import KafkaConsumer, KafkaProducer
    s = sec(ca, mech, user, pw, "kpy")
    p = KafkaProducer(bootstrap_servers=boot, acks="all",
                      request_timeout_ms=10000, max_block_ms=10000, **s)
    for v in values:
        p.send(topic, v)
    p.flush(15)
    p.close()
    c = KafkaConsumer(topic, bootstrap_servers=boot,
                      auto_offset_reset="earliest", consumer_timeout_ms=10000,
                      **s)
    got = []
    for m in c:
        got.append(m.value)
        if len(got) == len(values):
            break
    c.close()
    return got


def end_offset(boot, topic):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": boot, "group.id": "peek"})
    lo, hi = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.close()
    return hi


def cmd_pc(args):
    client, boot, ca, mech, user, pw = args
    topic = "sasl-" + uuid.uuid4().hex[:8]
    values = [("%s-%d-" % (mech, i)).encode() + b"y" * (i * 41 % 2000)
              for i in range(100)]
    got = (pc_ck if client == "ck" else pc_kpy)(boot, ca, mech, user, pw,
                                                topic, values)
    if got != values:
        print("FAIL %s %s: %d of %d records back" % (client, mech, len(got),
                                                    len(values)))
        return 1
    print("# %s: %s as %s over %s: 100 records produced and consumed" %
          (client, mech, user, "SASL_SSL" if ca else "SASL_PLAINTEXT"))
    return 0


def cmd_refused(args):
    client, boot, ca, mech, user, pw, topic, admin = args
    before = end_offset(admin, topic)
    refused = False
    if client == "ck":
        from confluent_kafka import KafkaError, Producer
        errs = []
        conf = dict(sec(ca, mech, user, pw, "ck"), **{
            "bootstrap.servers": boot, "message.timeout.ms": 5000,
            "error_cb": errs.append, "log_level": 0})
        p = Producer(conf)
        dr = []
        p.produce(topic, b"should-not-land", on_delivery=lambda e, m: dr.append(e))
        p.flush(8)
        refused = (any(e.code() == KafkaError._AUTHENTICATION for e in errs)
                   and dr and dr[0] is not None)
        why = errs[:1]
    else:
        from kafka import KafkaProducer
        from kafka.errors import KafkaError
        try:
            p = KafkaProducer(bootstrap_servers=boot, max_block_ms=5000,
                              request_timeout_ms=5000,
                              **sec(ca, mech, user, pw, "kpy"))
            p.send(topic, b"should-not-land").get(timeout=6)
            why = "delivered"
        except KafkaError as e:
            refused = True
            why = repr(e)
    after = end_offset(admin, topic)
    if not refused or after != before:
        print("FAIL %s %s: a wrong password was not refused (%s), end offset "
              "%d -> %d" % (client, mech, why, before, after))
        return 1
    print("# %s: %s with a wrong password refused (%s); nothing appended" %
          (client, mech, str(why)[:120]))
    return 0


def cmd_scram(args):
    client, admin, op, user, mech = args[:5]
    if client == "ck":
        from confluent_kafka.admin import (AdminClient, ScramCredentialInfo,
                                           ScramMechanism,
                                           UserScramCredentialDeletion,
                                           UserScramCredentialUpsertion)
        a = AdminClient(admin_conf(admin))
        m = getattr(ScramMechanism, mech.replace("-", "_"))
        if op == "set":
            alt = UserScramCredentialUpsertion(
                user, ScramCredentialInfo(m, int(args[6])), args[5].encode())
        else:
            alt = UserScramCredentialDeletion(user, m)
        for f in a.alter_user_scram_credentials([alt]).values():
            f.result(10)
        d = a.describe_user_scram_credentials().result(10)
        has = user in d and any(i.mechanism == m for i in
                                d[user].scram_credential_infos)
    else:
        from kafka.admin import (KafkaAdminClient, ScramMechanism,
                                 UserScramCredentialDeletion,
                                 UserScramCredentialUpsertion)
        a = KafkaAdminClient(bootstrap_servers=admin)
        m = getattr(ScramMechanism, mech.replace("-", "_"))
        if op == "set":
            r = a.alter_user_scram_credentials([UserScramCredentialUpsertion(
                user, m, args[5], iterations=int(args[6]))])
        else:
            r = a.alter_user_scram_credentials(
                [UserScramCredentialDeletion(user, m)])
        if any(v is not None for v in r.values()):
            print("FAIL kpy: alter %s: %r" % (user, r))
            return 1
        print("# kafka-python alter: %r" % (r,))
        d = a.describe_user_scram_credentials()
        print("# kafka-python describe: %r" % (d,))
        has = user in d and mech.replace("-", "_") in repr(d[user])
        a.close()
    if has != (op == "set"):
        print("FAIL %s: %s %s %s: described %s" % (client, op, user, mech, has))
        return 1
    print("# %s admin: SCRAM credential %s %s (%s), described: %s" %
          (client, user, "set" if op == "set" else "deleted", mech, has))
    return 0


def cmd_errors(args):
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import (AdminClient, ScramCredentialInfo,
                                       ScramMechanism,
                                       UserScramCredentialDeletion,
                                       UserScramCredentialUpsertion)
    a = AdminClient(admin_conf(args[0]))
    bad = 0

    def expect(alts, code, what):
        nonlocal bad
        for f in a.alter_user_scram_credentials(alts).values():
            try:
                f.result(10)
                got = None
            except KafkaException as e:
                got = e.args[0]
            if (got.code() if got else None) != code:
                print("FAIL ck errors: %s: %s" % (what, got))
                bad = 1
            else:
                print("# ck errors: %s: %s" % (what, got.str() if got else "ok"))

    i256 = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096)
    expect([UserScramCredentialUpsertion(
        "eve", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4095), b"p")],
        KafkaError.UNACCEPTABLE_CREDENTIAL, "4095 iterations")
    expect([UserScramCredentialUpsertion(
        "eve", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 16385), b"p")],
        KafkaError.UNACCEPTABLE_CREDENTIAL, "16385 iterations")
    expect([UserScramCredentialDeletion("nobody", ScramMechanism.SCRAM_SHA_512)],
           KafkaError.RESOURCE_NOT_FOUND, "deleting what does not exist")
    expect([UserScramCredentialUpsertion("eve", i256, b"p"),
            UserScramCredentialUpsertion("eve", i256, b"q")],
           KafkaError.DUPLICATE_RESOURCE, "the same user twice")
    try:
        f = a.describe_user_scram_credentials(["nobody"])
        d = (f["nobody"] if isinstance(f, dict) else f).result(10)
        print("FAIL ck errors: describe of nobody: %s" % d)
        bad = 1
    except KafkaException as e:
        ok = e.args[0].code() == KafkaError.RESOURCE_NOT_FOUND
        print("%s describe nobody: %s" % ("# ck errors:" if ok else "FAIL ck errors:",
                                          e.args[0].str()))
        bad |= not ok
    return bad


if __name__ == "__main__":
    cmd = sys.argv[1]
    sys.exit({"pc": cmd_pc, "refused": cmd_refused, "scram": cmd_scram,
              "errors": cmd_errors}[cmd](sys.argv[2:]))
