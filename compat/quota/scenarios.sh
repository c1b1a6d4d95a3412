# compat/quota/scenarios.sh: client quotas (src/cluster/client_quotas.c)
# with real clients, sourced by compat/run.sh. Quotas are set with Kafka's
# kafka-configs and its Java Admin (QuotaAdmin.java, run by
# compat/kafka-tools/kt); confluent-kafka produces and consumes under them
# (quota_rate.py). QUOTA_REFERENCE=kafka runs the same against a real
# Kafka 4.4 (tests/kafka/run-kafka.sh), to show the expectations are
# Kafka's.

QUOTA_SRC=$COMPAT_SRC/quota

# quota_start [--override K=V]...: a gregor, or Kafka under QUOTA_REFERENCE
quota_start() {
    if [ "${QUOTA_REFERENCE:-gregor}" = kafka ]; then
        "$top_srcdir/tests/kafka/run-kafka.sh" --daemon --keep --tmp "$COMPAT_TMP" "$@" \
            >"$COMPAT_TMP/kafka.start" || { cat "$COMPAT_TMP/kafka.start"; return 1; }
        BROKER_DIR=$(sed -n 's/^kafka: dir //p' "$COMPAT_TMP/kafka.start")
        GR_BOOTSTRAP=$(sed -n 's/^kafka: listening on //p' "$COMPAT_TMP/kafka.start")
        echo "# against Kafka at $GR_BOOTSTRAP"
    else
        start_broker "$@"
    fi
}

quota_stop() {
    if [ "${QUOTA_REFERENCE:-gregor}" = kafka ]; then
        "$top_srcdir/tests/kafka/run-kafka.sh" --stop "$BROKER_DIR" >/dev/null
    else
        stop_broker
    fi
}

# quota_kt NAME TOOL ARG...: one of Kafka's tools, output to $BROKER_DIR/NAME
quota_kt() {
    local name=$1
    shift
    timeout 60 "$COMPAT_SRC/kafka-tools/kt" "$@" >"$BROKER_DIR/$name" 2>"$BROKER_DIR/$name.err" </dev/null || {
        echo "# kt $* failed:"
        sed 's/^/#   /' "$BROKER_DIR/$name" "$BROKER_DIR/$name.err" | tail -20
        return 1
    }
}

# A produce quota and a consume quota of 200 KB/s on their client ids hold
# each client's rate within 10 %, the clients see throttle_time_ms, and a
# producer on another client id running meanwhile is not slowed. The
# broker measures over quota.window.num=3 samples of 1 s (Kafka's default
# is 11): Kafka's rate lets a window's worth through at once and again as
# it expires, so the rate holds over whole windows; 3 s windows average
# out within a 24 s run (quota_rate.py). Kafka 4.4 with the same settings:
# produce 195,973 and consume 186,850 bytes/s; Gregor 197,126 and 184,219.
s_quota_rates() {
    need java || return 1
    pyc_ready || return 1
    local B rc=0 ppid
    quota_start --override quota.window.num=3 || return 1
    B=$GR_BOOTSTRAP
    quota_kt qp configs --bootstrap-server "$B" --alter --entity-type clients \
        --entity-name q-prod --add-config producer_byte_rate=200000 || return 1
    quota_kt qc configs --bootstrap-server "$B" --alter --entity-type clients \
        --entity-name q-cons --add-config consumer_byte_rate=200000 || return 1
    # what the consumer reads: 8 MB written first, no quota on that client
    PYC_LIMIT=60 pyc ../quota/quota_rate.py fill "$B" q-data 8000000 || return 1
    PYC_LIMIT=60 pyc ../quota/quota_rate.py produce "$B" q-prod-t q-prod 200000 24 \
        >"$BROKER_DIR/produce.out" 2>&1 &
    ppid=$!
    sleep 6
    # meanwhile another client id: 4 MB at 1 MB/s at least (unthrottled it
    # goes at tens of MB/s; the throttled one at 0.2)
    PYC_LIMIT=60 pyc ../quota/quota_rate.py free "$B" q-prod-t q-free 4000000 1000000 || rc=1
    wait $ppid || rc=1
    cat "$BROKER_DIR/produce.out"
    PYC_LIMIT=60 pyc ../quota/quota_rate.py consume "$B" q-data q-cons 200000 24 || rc=1
    quota_stop
    return $rc
}
LIMIT_quota_rates=150

# A quota on a SASL user principal (kafka-configs --entity-type users):
# alice (SASL/PLAIN) has producer_byte_rate and consumer_byte_rate of
# 200 KB/s and holds them within 10 %, seeing throttle_time_ms; bob
# (SCRAM-SHA-256, made through AlterUserScramCredentials) produces
# meanwhile under the same client id at 1 MB/s at least. The quota is the
# user's, not the client id's: both clients are "q-same".
s_quota_sasl_user() {
    need java || return 1
    pyc_ready || return 1
    local B S rc=0 ppid
    start_broker --log-level debug --override quota.window.num=3 \
        --override listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0 \
        --override sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256 \
        --override 'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-pw";' ||
        return 1
    B=$GR_BOOTSTRAP
    S=127.0.0.1:$(sed -n 's/^SASL_PLAINTEXT:.*://p' "$BROKER_DIR/listeners")
    PYC_LIMIT=60 pyc ../sasl/py_sasl.py scram ck "$B" set bob SCRAM-SHA-256 bob-pw 4096 || return 1
    quota_kt qu configs --bootstrap-server "$B" --alter --entity-type users \
        --entity-name alice --add-config producer_byte_rate=200000,consumer_byte_rate=200000 ||
        return 1
    PYC_LIMIT=60 pyc ../quota/quota_rate.py fill "$B" q-data 8000000 || return 1
    QUOTA_SASL=PLAIN:alice:alice-pw PYC_LIMIT=60 pyc ../quota/quota_rate.py produce "$S" \
        q-user-t q-same 200000 24 >"$BROKER_DIR/produce.out" 2>&1 &
    ppid=$!
    sleep 6
    QUOTA_SASL=SCRAM-SHA-256:bob:bob-pw PYC_LIMIT=60 pyc ../quota/quota_rate.py free "$S" \
        q-user-t q-same 4000000 1000000 || rc=1
    wait $ppid || rc=1
    cat "$BROKER_DIR/produce.out"
    QUOTA_SASL=PLAIN:alice:alice-pw PYC_LIMIT=60 pyc ../quota/quota_rate.py consume "$S" \
        q-data q-same 200000 24 || rc=1
    grep -q 'authenticated as User:bob with SASL/SCRAM-SHA-256' "$BROKER_DIR/broker.log" || {
        echo "# FAIL: bob did not log in with SCRAM-SHA-256"; rc=1; }
    stop_broker
    return $rc
}
LIMIT_quota_sasl_user=150

# Quotas managed by kafka-configs and the Java Admin (alterClientQuotas,
# describeClientQuotas with exact, default and any components, strict or
# not; validate_only; every refusal of Kafka's controller with its
# message) answer as Kafka 4.4 answers them (admin.want is its output), and
# survive a restart. kafka-configs --describe --entity-type users (alone)
# also asks for SCRAM credentials, which Gregor does not serve yet
# (DescribeUserScramCredentials): a user with a client-id is described.
s_quota_admin() {
    need java || return 1
    local B rc=0 KT=$COMPAT_SRC/kafka-tools/kt
    quota_start || return 1
    B=$GR_BOOTSTRAP
    quota_kt admin.out java "$QUOTA_SRC/QuotaAdmin.java" "$B" set || rc=1
    diff -u "$QUOTA_SRC/admin.want" "$BROKER_DIR/admin.out" >"$BROKER_DIR/admin.diff" || {
        echo "# the Admin's answers are not Kafka's (-Kafka +gregor):"
        sed 's/^/#   /' "$BROKER_DIR/admin.diff"
        rc=1
    }
    if [ "${QUOTA_REFERENCE:-gregor}" != kafka ]; then
        stop_broker
        REUSE_DIR=1 start_broker || return 1
        B=$GR_BOOTSTRAP
        echo "# restarted on the same data"
    fi
    quota_kt check.out java "$QUOTA_SRC/QuotaAdmin.java" "$B" check || rc=1
    sed -n '/^describe all/,$p' "$QUOTA_SRC/admin.want" |
        diff -u - "$BROKER_DIR/check.out" || {
        echo "# the quotas after the restart are not those set (-set +after)"
        rc=1
    }
    # kafka-configs: a user with a client-id, a client-id; a key deleted
    quota_kt cu configs --bootstrap-server "$B" --alter --entity-type users --entity-name ANONYMOUS \
        --entity-type clients --entity-name kc --add-config request_percentage=25,producer_byte_rate=1000000 || rc=1
    echo "Completed updating config for user ANONYMOUS." | diff -u - "$BROKER_DIR/cu" || rc=1
    quota_kt cc configs --bootstrap-server "$B" --alter --entity-type clients --entity-name kc \
        --add-config consumer_byte_rate=400000 || rc=1
    quota_kt cd configs --bootstrap-server "$B" --alter --entity-type users --entity-name ANONYMOUS \
        --entity-type clients --entity-name kc --delete-config producer_byte_rate || rc=1
    for round in before after; do
        quota_kt uc configs --bootstrap-server "$B" --describe --entity-type users --entity-name ANONYMOUS \
            --entity-type clients --entity-name kc || rc=1
        echo "Quota configs for user-principal 'ANONYMOUS', client-id 'kc' are request_percentage=25.0" |
            diff -u - "$BROKER_DIR/uc" || rc=1
        quota_kt cl configs --bootstrap-server "$B" --describe --entity-type clients --entity-name kc || rc=1
        echo "Quota configs for client-id 'kc' are consumer_byte_rate=400000.0" |
            diff -u - "$BROKER_DIR/cl" || rc=1
        [ "$round" = after ] || [ "${QUOTA_REFERENCE:-gregor}" = kafka ] && break
        stop_broker
        REUSE_DIR=1 start_broker || return 1
        B=$GR_BOOTSTRAP
        echo "# restarted again"
    done
    quota_stop
    return $rc
}
LIMIT_quota_admin=150

# controller_mutation_rate (KIP-599) on a client id, set by kafka-configs:
# CreateTopics v6 and DeleteTopics v5 refuse a topic with
# THROTTLING_QUOTA_EXCEEDED (89) once the bucket (rate x
# controller.quota.window.num x 1 s: Kafka's own pair, not quota.window.*)
# is below zero and give the time it needs; CreateTopics v4 creates
# everything and answers only that time; topics are created once the
# bucket has refilled; another client id is not throttled (mutation.py,
# its own encoder). Kafka 4.4 (QUOTA_REFERENCE=kafka) passes the same.
s_quota_mutation() {
    need java || return 1
    local B rc=0
    quota_start --override controller.quota.window.num=3 || return 1
    B=$GR_BOOTSTRAP
    quota_kt qm configs --bootstrap-server "$B" --alter --entity-type clients \
        --entity-name mut --add-config controller_mutation_rate=2 || return 1
    timeout 90 python3 "$QUOTA_SRC/mutation.py" "$B" || rc=1
    quota_stop
    return $rc
}
LIMIT_quota_mutation=150

# connection_creation_rate (KIP-612) on IP entities: an address over its
# rate has its connections accepted, left unanswered and closed after the
# throttle time, as Kafka's acceptor does (ip_rate.py, raw sockets from
# 127.0.0.1, .2 and .3); an address without a quota is not slowed; the
# default IP entity applies to the others; kafka-configs --entity-type ips
# describes what was set, and --alter sets and removes IP entities' quotas. Kafka 4.4 (QUOTA_REFERENCE=kafka) passes the same.
s_quota_ip_rate() {
    need java || return 1
    local B rc=0
    quota_start --override quota.window.num=3 || return 1
    B=$GR_BOOTSTRAP
    timeout 60 python3 "$QUOTA_SRC/ip_rate.py" "$B" || rc=1
    quota_kt ipd configs --bootstrap-server "$B" --describe --entity-type ips || rc=1
    printf '%s\n' "Quota configs for ip '127.0.0.1' are connection_creation_rate=2.0" \
        "Quota configs for the default ip are connection_creation_rate=1.0" |
        diff -u - <(LC_ALL=C sort "$BROKER_DIR/ipd") || { echo "# kafka-configs --describe --entity-type ips (-want +got)"; rc=1; }
    # and kafka-configs --alter sets an address's, removes the default's
    quota_kt ipa configs --bootstrap-server "$B" --alter --entity-type ips \
        --entity-name 127.0.0.3 --add-config connection_creation_rate=3 || rc=1
    quota_kt ipr configs --bootstrap-server "$B" --alter --entity-type ips \
        --entity-default --delete-config connection_creation_rate || rc=1
    quota_kt ipd2 configs --bootstrap-server "$B" --describe --entity-type ips || rc=1
    printf '%s\n' "Quota configs for ip '127.0.0.1' are connection_creation_rate=2.0" \
        "Quota configs for ip '127.0.0.3' are connection_creation_rate=3.0" |
        diff -u - <(LC_ALL=C sort "$BROKER_DIR/ipd2") || { echo "# after kafka-configs --alter --entity-type ips (-want +got)"; rc=1; }
    quota_stop
    return $rc
}
LIMIT_quota_ip_rate=90

SCENARIOS+=(quota_rates quota_sasl_user quota_admin quota_mutation quota_ip_rate)
