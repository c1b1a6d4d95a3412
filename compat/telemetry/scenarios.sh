# compat/telemetry/scenarios.sh: client telemetry (KIP-714) end to end,
# sourced by compat/run.sh. Real clients that push their metrics (the Java
# client 4.4.0 through compat/kafka-tools/kt, confluent-kafka 2.16 with
# librdkafka 2.16 from compat/python's venv; both push by default when
# subscribed), subscriptions made with Kafka's own kafka-client-metrics
# tool, and the pushes asserted in gregor.client.telemetry.file; then
# raw.py, frame by frame, on what a Kafka 4.4.0 broker answers (its
# transcript mode prints the answers for a diff against
# tests/kafka/run-kafka.sh --override telemetry.max.bytes=1000).
#
# Where Gregor differs from Kafka on purpose: pushed metrics go to a file
# of JSON lines (gregor.client.telemetry.file), not to exporter plugins
# (metric.reporters implementing ClientTelemetry), and with the file set
# the two telemetry APIs are advertised as Kafka advertises them with an
# exporter; match regexes are Java's common subset (core/regex.h), so
# Java-only syntax such as (?i) is an illegal pattern here; subscription
# changes take effect before the answer (Kafka's brokers learn of them
# from the metadata log a moment later).

TEL_SRC=$COMPAT_SRC/telemetry

# tel_start [ARG]...: a broker whose pushes go to $TEL_FILE, logging at
# DEBUG (the push lines)
tel_start() {
    local d
    d=$(mktemp -d "$COMPAT_TMP/telemetry.XXXXXX") || return 1
    TEL_FILE=$d/telemetry.jsonl
    start_broker --override "gregor.client.telemetry.file=$TEL_FILE" \
        --log-level debug "$@"
}

# tel_wait PATTERN COUNT SECONDS: until $TEL_FILE has COUNT lines with
# PATTERN (fixed string)
tel_wait() {
    local n=0
    for _ in $(seq 1 $(($3 * 10))); do
        n=$(grep -cF -- "$1" "$TEL_FILE" 2>/dev/null)
        [ "${n:-0}" -ge "$2" ] && return 0
        sleep 0.1
    done
    echo "# $TEL_FILE: ${n:-0} lines with $1, wanted $2"
    head -c 2000 "$TEL_FILE" 2>/dev/null | sed 's/^/#   /'
    return 1
}

tel_kt() {
    timeout 60 "$COMPAT_SRC/kafka-tools/kt" client-metrics \
        --bootstrap-server "$GR_BOOTSTRAP" "$@"
}

# the Java producer: a subscription for the producer metrics of Java
# clients (matched on the software its ApiVersions names), every 1000 ms;
# the producer's own client instance id in the lines, only the metrics
# asked for, the broker's DEBUG line per push; the subscription kept
# across a restart, then deleted
s_telemetry_java() {
    local out id
    need java || return 1
    [ -d "$GR_CLIENTS/kafka/libs" ] || {
        echo "Kafka's tools are not installed: run sh compat/kafka-tools/install.sh"
        return 1
    }
    tel_start || return 1
    tel_kt --alter --name compat-java --metrics org.apache.kafka.producer. \
        --interval 1000 --match client_software_name=apache-kafka-java ||
        return 1
    out=$(tel_kt --describe --name compat-java) || return 1
    echo "$out"
    echo "$out" | grep -qx '  interval.ms=1000' || return 1
    echo "$out" | grep -qx '  metrics=org.apache.kafka.producer.' || return 1
    out=$(GR_BOOTSTRAP=$GR_BOOTSTRAP timeout 90 "$COMPAT_SRC/kafka-tools/kt" \
        java "$TEL_SRC/TelemetryProducer.java" compat-telemetry 6) || {
        echo "$out"; return 1; }
    echo "$out"
    id=$(echo "$out" | sed -n 's/^client instance id //p')
    [ -n "$id" ] || return 1
    tel_wait "\"client_instance_id\":\"$id\",\"client_id\":\"telemetry-producer\",\"metric\":\"org.apache.kafka.producer." 20 20 ||
        return 1
    # nothing but the prefix asked for
    if grep -v '"metric":"org.apache.kafka.producer\.' "$TEL_FILE" | grep -q .; then
        echo "metrics outside the subscription:"
        grep -v '"metric":"org.apache.kafka.producer\.' "$TEL_FILE" | head -3
        return 1
    fi
    grep -q "client telemetry: client instance $id (client telemetry-producer, .*) pushed [0-9]* metrics" \
        "$BROKER_DIR/broker.log" || { echo "no DEBUG line for the pushes"; return 1; }
    stop_broker || return 1
    REUSE_DIR=1 start_broker || return 1
    tel_kt --list | grep -qx compat-java || { echo "not kept across the restart"; return 1; }
    tel_kt --delete --name compat-java || return 1
    [ -z "$(tel_kt --list)" ]
}

# librdkafka 2.16 (confluent-kafka): every metric, matched on the client
# id; its KIP-714 metric names in the lines
s_telemetry_librdkafka() {
    local py=$GR_CLIENTS/python/bin/python
    [ -x "$py" ] && "$py" -c 'import confluent_kafka' 2>/dev/null || {
        echo "confluent-kafka is not installed: run sh compat/python/install.sh"
        return 1
    }
    need java || return 1
    tel_start || return 1
    tel_kt --alter --name compat-librdkafka --metrics '*' --interval 1000 \
        --match client_id=telemetry-ck || return 1
    GR_BOOTSTRAP=$GR_BOOTSTRAP PYTHONUNBUFFERED=1 timeout 60 "$py" \
        "$TEL_SRC/ck_push.py" compat-telemetry-ck 5 || return 1
    tel_wait '"client_id":"telemetry-ck","metric":"org.apache.kafka.producer.node.request.latency.avg"' 3 20 ||
        return 1
    tel_wait '"client_id":"telemetry-ck","metric":"org.apache.kafka.producer.record.queue.time.max"' 3 5
}

# frame by frame: config resources, ListConfigResources, Get and Push, as
# Kafka 4.4.0 answers them; the pushed gauge in the file
s_telemetry_raw() {
    tel_start --override telemetry.max.bytes=1000 || return 1
    GR_TELEMETRY_FILE=$TEL_FILE timeout 120 $PY "$TEL_SRC/raw.py" check || return 1
    tel_wait '"client_id":"telemetry-raw","metric":"org.apache.kafka.producer.test.gauge","type":"gauge","value":1.5' 3 5 ||
        return 1
    broker_alive || { echo "broker died"; return 1; }
}

SCENARIOS+=(telemetry_java telemetry_librdkafka telemetry_raw)
LIMIT_telemetry_raw=150
