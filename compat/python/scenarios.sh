# compat/python/scenarios.sh: the current Python clients (confluent-kafka
# with its own current librdkafka, kafka-python 3, aiokafka), from the venv
# compat/python/install.sh makes in $GR_CLIENTS/python. Sourced by
# compat/run.sh.

PYC_DIR=$COMPAT_SRC/python
PYC=$GR_CLIENTS/python/bin/python

pyc_ready() {
    [ -x "$PYC" ] && "$PYC" -c 'import confluent_kafka, kafka, aiokafka' 2>/dev/null || {
        echo "the Python clients are not installed: run sh compat/python/install.sh"
        return 1
    }
}

# pyc SCRIPT ARGS...: runs compat/python/SCRIPT under a time bound
pyc() {
    local s=$1
    shift
    PYTHONPATH=$PYC_DIR PYTHONUNBUFFERED=1 timeout "${PYC_LIMIT:-90}" "$PYC" "$PYC_DIR/$s" "$@"
}

# confluent-kafka: metadata, every codec, large records, a long poll,
# idempotence, offsets for times and list_offsets
s_py_confluent_data() {
    pyc_ready || return 1
    start_broker --override num.partitions=3 || return 1
    pyc ck_data.py
}

SCENARIOS+=(py_confluent_data)

# confluent-kafka admin: topics, describe_topics/cluster, configs
# (incremental too; Kafka 3.x's message.format.version, logged as without
# effect), partitions, records, compaction, SCRAM users
s_py_confluent_admin() {
    pyc_ready || return 1
    start_broker --override log.cleaner.backoff.ms=200 \
        --override ssl.key.password=hunter2 || return 1
    pyc ck_admin.py admin || return 1
    # the 3.x key is kept with a line saying it does nothing
    grep -q 'topic ca-a: message.format.version=0.10.0 is kept as Kafka 3.x kept it .*; it has no effect' \
        "$BROKER_DIR/broker.log" || { echo "no log line for message.format.version"; return 1; }
    ! grep -q hunter2 "$BROKER_DIR/broker.log"
}

# KIP-467: per-record errors of a batch to a compacted topic
s_py_confluent_record_errors() {
    pyc_ready || return 1
    start_broker || return 1
    pyc ck_admin.py kip467
}

SCENARIOS+=(py_confluent_admin py_confluent_record_errors)

PYC_TXN_OPTS=(--override num.partitions=3
              --override transaction.abort.timed.out.transaction.cleanup.interval.ms=500)

# confluent-kafka transactions: commit/abort, fencing, an abandoned
# transaction timed out, consume-transform-produce; across one SIGKILL of
# the broker a transaction left open commits after the restart and an
# idempotent producer's values arrive once each, in order; all of it holds
s_py_confluent_txn() {
    local d t i
    pyc_ready || return 1
    start_broker "${PYC_TXN_OPTS[@]}" || return 1
    pyc ck_txn.py basic || return 1
    d=$(mktemp -d "$COMPAT_TMP/pyctxn.XXXXXX")
    mkdir "$d/t" "$d/i"
    pyc ck_txn.py open "$d/t" >"$d/t/out" 2>&1 &
    t=$!
    pyc ck_txn.py idem "$d/i" 20000 >"$d/i/out" 2>&1 &
    i=$!
    for _ in $(seq 1 600); do [ -f "$d/t/ready" ] && [ -f "$d/i/ready" ] && break; sleep 0.05; done
    [ -f "$d/t/ready" ] && [ -f "$d/i/ready" ] || {
        cat "$d"/*/out; kill $t $i; return 1; }
    stop_broker KILL
    REUSE_DIR=1 start_broker "${PYC_TXN_OPTS[@]}" \
        --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" || { kill $t $i; return 1; }
    touch "$d/t/go"
    wait $t || { cat "$d/t/out"; kill $i; return 1; }
    cat "$d/t/out"
    wait $i || { cat "$d/i/out"; return 1; }
    cat "$d/i/out"
    pyc ck_txn.py check
}

LIMIT_py_confluent_txn=180
SCENARIOS+=(py_confluent_txn)

PYC_GROUP_OPTS=(--override num.partitions=6 --override offsets.topic.num.partitions=5)

# confluent-kafka groups: commits resumed across consumer restarts, a
# clean broker restart and a SIGKILL; range, roundrobin and
# cooperative-sticky splits; a killed member's session timing out; a
# static member back without a rebalance; group admin
s_py_confluent_groups() {
    local f
    pyc_ready || return 1
    start_broker "${PYC_GROUP_OPTS[@]}" || return 1
    f=$BROKER_DIR/values
    pyc ck_group.py resume "$f" 600 150 || return 1
    pyc ck_group.py resume "$f" 600 150 || return 1
    stop_broker TERM
    REUSE_DIR=1 start_broker "${PYC_GROUP_OPTS[@]}" || return 1
    pyc ck_group.py resume "$f" 600 150 || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker "${PYC_GROUP_OPTS[@]}" || return 1
    pyc ck_group.py resume "$f" 600 100000 || return 1
    pyc ck_group.py resume-check "$f" 600 || return 1
    pyc ck_group.py split,kill,static,admin
}

LIMIT_py_confluent_groups=180
SCENARIOS+=(py_confluent_groups)

# confluent-kafka consumer groups of the KIP-848 protocol
# (group.protocol=consumer): three members joining and leaving with
# incremental callbacks, a member SIGKILLed under load (nothing lost or
# read twice by committed position), the broker SIGKILLed and restarted
# under two members (the group, its members' assignments and commits
# loaded again); the session timeout turned down
s_py_confluent_consumer_groups() {
    local d r opts=(--override group.consumer.session.timeout.ms=6000
                    --override group.consumer.heartbeat.interval.ms=500)
    pyc_ready || return 1
    start_broker "${opts[@]}" || return 1
    PYC_LIMIT=150 pyc ck_cgroup.py join,kill || return 1
    # a SIGKILL and restart under two live members (same port)
    d=$(mktemp -d "$COMPAT_TMP/pyccg.XXXXXX")
    pyc ck_cgroup.py restart "$d" >"$d/out" 2>&1 &
    r=$!
    for _ in $(seq 1 600); do [ -f "$d/ready" ] && break; sleep 0.05; done
    [ -f "$d/ready" ] || { cat "$d/out"; kill $r; return 1; }
    stop_broker KILL
    REUSE_DIR=1 start_broker "${opts[@]}" \
        --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" || { kill $r; return 1; }
    touch "$d/go"
    wait $r || { cat "$d/out"; return 1; }
    cat "$d/out"
}

LIMIT_py_confluent_consumer_groups=180
SCENARIOS+=(py_confluent_consumer_groups)

# how long 20 members (librdkafka) take to form a group over 60
# partitions, to take a 21st in and to let it go, by protocol: KIP-848
# (the broker's defaults: heartbeat interval 5 s, assignment interval 1 s),
# classic cooperative-sticky and classic range (eager). A figure; the
# check is only that each settles within a minute
s_py_confluent_rebalance_figures() {
    pyc_ready || return 1
    start_broker || return 1
    for p in consumer cooperative eager; do
        PYC_LIMIT=200 pyc ck_rebalance.py $p 20 60 || return 1
    done
}

LIMIT_py_confluent_rebalance_figures=620
SCENARIOS+=(py_confluent_rebalance_figures)

# kafka-python 3: every codec with keys, headers, timestamps and murmur2
# partitioning, 1 MB records, offsets by time, idempotence, transactions
# (fencing, send_offsets_to_transaction, List/DescribeTransactions,
# DescribeProducers), four assignors, resumed commits, admin and its errors
s_py_kafka_python() {
    pyc_ready || return 1
    start_broker "${PYC_TXN_OPTS[@]}" || return 1
    pyc kp3.py data,idem,txn,groups,admin
}

SCENARIOS+=(py_kafka_python)

# aiokafka: every codec with keys, headers, timestamps and murmur2
# partitioning, send_batch, 1 MB records, offsets by time, idempotence,
# transactions (send_offsets_to_transaction, fencing), three assignors,
# resumed commits, admin
s_py_aiokafka() {
    pyc_ready || return 1
    start_broker "${PYC_TXN_OPTS[@]}" || return 1
    pyc aio.py data,idem,txn,groups,admin
}

SCENARIOS+=(py_aiokafka)

# the control interface for tests (src/control/): `gregor ctl` from a
# shell, then faults injected over HTTP and what confluent-kafka and
# kafka-python make of them (compat/python/control_faults.py): retries
# after NOT_LEADER_OR_FOLLOWER and a lost Produce answer with nothing
# duplicated, COORDINATOR_LOAD_IN_PROGRESS, throttle times, a delayed API,
# a blackholed client timing out
s_control_faults() {
    local c out rc
    pyc_ready || return 1
    start_broker --override gregor.control.listener=http://127.0.0.1:0 || return 1
    c=$(control_url) || return 1
    case "$c" in http://127.0.0.1:*) ;; *) echo "control on $c"; return 1 ;; esac
    # each check names itself and shows what it read when it fails
    out=$("$GREGOR" ctl "$c" info 2>&1)
    grep -q "\"control\":\"$c\"" <<<"$out" || { echo "ctl info: $out"; return 1; }
    out=$("$GREGOR" ctl "$c" push Produce NOT_LEADER_OR_FOLLOWER NONE \
        THROTTLING_QUOTA_EXCEEDED:throttle_ms=500 topic=nowhere 2>&1)
    grep -q '"ids":\[1,2,3\]' <<<"$out" || { echo "ctl push: $out"; return 1; }
    out=$("$GREGOR" ctl "$c" faults 2>&1)
    [ "$(grep -o '"id":' <<<"$out" | wc -l)" = 3 ] || { echo "ctl faults, 3 wanted: $out"; return 1; }
    out=$("$GREGOR" ctl "$c" clear faults 2>&1)
    grep -q '"removed":3' <<<"$out" || { echo "ctl clear faults: $out"; return 1; }
    # refused with a reason and exit code 1; a dead URL is 2
    "$GREGOR" ctl "$c" fault api=Nope error=6 >"$BROKER_DIR/ctl.out" 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q 'unknown or unserved API' "$BROKER_DIR/ctl.out" ||
        { echo "ctl fault api=Nope: exit $rc, $(cat "$BROKER_DIR/ctl.out")"; return 1; }
    "$GREGOR" ctl http://127.0.0.1:1 info 2>/dev/null
    rc=$?
    [ $rc = 2 ] || { echo "ctl on a dead URL: exit $rc, 2 wanted"; return 1; }
    GR_CONTROL=$c PYC_LIMIT=150 pyc control_faults.py ||
        { echo "control_faults.py: exit $?"; return 1; }
    # fail-closed: no authentication, so no address but loopback unless
    # allowed; a URL that does not parse stops start-up too
    local d=$BROKER_DIR
    if "$GREGOR" --override listeners=PLAINTEXT://127.0.0.1:0 \
        --override "log.dirs=$d/nr" --override gregor.control.listener=http://0.0.0.0:0 \
        >"$d/nr.out" 2>"$d/nr.err"; then
        echo "started with the control listener on 0.0.0.0"; return 1
    fi
    grep -q 'is not a loopback address' "$d/nr.err" || { cat "$d/nr.err"; return 1; }
    if "$GREGOR" --override listeners=PLAINTEXT://127.0.0.1:0 \
        --override "log.dirs=$d/nu" --override gregor.control.listener=ftp://x \
        >"$d/nu.out" 2>"$d/nu.err"; then
        echo "started with gregor.control.listener=ftp://x"; return 1
    fi
    grep -q 'expected http://host:port' "$d/nu.err" || { cat "$d/nu.err"; return 1; }
}

LIMIT_control_faults=180
SCENARIOS+=(control_faults)

# --virtual-clock: timeouts in milliseconds (compat/python/virtual_clock.py):
# a killed classic-group member expires exactly at its session timeout of
# virtual time, an open transaction is aborted once the clock passes its
# timeout, LogAppendTime is the virtual time, retention.ms deletes after
# advancing; `gregor ctl advance` from a shell, refused on a real clock
s_virtual_clock() {
    local c out rc
    pyc_ready || return 1
    start_broker --virtual-clock \
        --override gregor.control.listener=http://127.0.0.1:0 || return 1
    c=$(control_url) || return 1
    GR_CONTROL=$c pyc virtual_clock.py || { echo "virtual_clock.py: exit $?"; return 1; }
    out=$("$GREGOR" ctl "$c" clock 2>&1)
    grep -q '"virtual":true' <<<"$out" || { echo "ctl clock: $out"; return 1; }
    local before=${out#*\"advanced_ms\":}
    before=${before%%[,\}]*}
    out=$("$GREGOR" ctl "$c" advance 1m30s 2>&1)
    grep -q "\"advanced_ms\":$((before + 90000))," <<<"$out" ||
        { echo "ctl advance 1m30s after $before: $out"; return 1; }
    "$GREGOR" ctl "$c" advance soon >"$BROKER_DIR/ctl.out" 2>&1
    rc=$?
    [ $rc = 2 ] && grep -q 'not a duration' "$BROKER_DIR/ctl.out" ||
        { echo "ctl advance soon: exit $rc, $(cat "$BROKER_DIR/ctl.out")"; return 1; }
    # a broker on real time refuses, saying how to get a virtual clock
    stop_broker || return 1
    start_broker --override gregor.control.listener=http://127.0.0.1:0 || return 1
    c=$(control_url) || return 1
    "$GREGOR" ctl "$c" advance 30s >"$BROKER_DIR/ctl.out" 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q -- '--virtual-clock' "$BROKER_DIR/ctl.out" ||
        { echo "ctl advance on a real clock: exit $rc, $(cat "$BROKER_DIR/ctl.out")"; return 1; }
}

SCENARIOS+=(virtual_clock)

# --emulate: a broker started as Kafka 3.6 and switched through every
# release of the table at run time, as confluent-kafka and kafka-python 3
# see it (compat/python/emulate.py): the versions librdkafka negotiates,
# kafka-python's broker version guess, the ApiVersions answer recorded
# from each release's brokers; `gregor ctl emulate` from a shell
s_emulate_versions() {
    local c
    pyc_ready || return 1
    start_broker --emulate 3.6 \
        --override gregor.control.listener=http://127.0.0.1:0 || return 1
    c=$(control_url) || return 1
    "$GREGOR" ctl "$c" emulate | grep -q '"version":"3.6"' || return 1
    "$GREGOR" ctl "$c" emulate 9.9 >/dev/null 2>&1 && return 1
    GR_CONTROL=$c pyc emulate.py || return 1
    # a release the table does not have stops start-up
    if "$GREGOR" --emulate 2.7 --override listeners=PLAINTEXT://127.0.0.1:0 \
        --override log.dirs="$BROKER_DIR/nx" >"$BROKER_DIR/nx.out" \
        2>"$BROKER_DIR/nx.err"; then
        echo "started with --emulate 2.7"; return 1
    fi
    grep -q 'no such Kafka release' "$BROKER_DIR/nx.err"
}

SCENARIOS+=(emulate_versions)

# /metrics against what kafka-python 3 and confluent-kafka did
# (compat/python/metrics_scrape.py: records and bytes per topic, a group's
# lag and state, requests per API against the request log, an injected
# error, pushed client telemetry); the same text on the metrics-only
# listener, which serves nothing else; when Debian's
# python3-prometheus-client is there, its parser reads the scrape too; and
# every metric the Grafana dashboard (etc/grafana-dashboard.json) draws is
# in the scrape
s_metrics_scrape() {
    local c m out
    pyc_ready || return 1
    start_broker --override num.partitions=3 \
        --override gregor.control.listener=http://127.0.0.1:0 \
        --override gregor.metrics.listener=http://127.0.0.1:0 || return 1
    c=$(control_url) || return 1
    m=$(sed -n 's|^gregor: metrics on \(.*\)/metrics$|\1|p' "$BROKER_DIR/stdout")
    case "$m" in http://127.0.0.1:*) ;; *) echo "metrics on '$m'"; return 1 ;; esac
    out=$BROKER_DIR/metrics.txt
    GR_CONTROL=$c GR_METRICS=$m GR_METRICS_OUT=$out PYC_LIMIT=120 \
        pyc metrics_scrape.py || return 1
    # the metrics listener serves /metrics and nothing else
    "$GREGOR" ctl "$m" get /metrics | grep -q '^# TYPE kafka_log_log_size gauge$' ||
        return 1
    "$GREGOR" ctl "$m" info >/dev/null 2>&1
    [ $? = 1 ] || { echo "the metrics listener answered /v1"; return 1; }
    if /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
        /usr/bin/python3 - "$out" <<'PY' || return 1
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(open(sys.argv[1]).read()))
n = sum(len(f.samples) for f in fams)
names = {f.name for f in fams}
assert "kafka_server_brokertopicmetrics_messagesin" in names, sorted(names)[:20]
assert any(f.type == "histogram" for f in fams)
print("prometheus_client parsed %d families, %d samples" % (len(fams), n))
PY
    else
        echo "# python3-prometheus-client not installed: no second parser"
    fi
    # every metric etc/grafana-dashboard.json draws is in the scrape
    "$PYC" - "$COMPAT_SRC/../etc/grafana-dashboard.json" "$out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
have = {l.split("{")[0].split(" ")[0] for l in open(sys.argv[2]) if l[0] != "#"}
want = {m for p in d["panels"] for t in p.get("targets", [])
        for m in re.findall(r"\b(?:kafka|gregor|process)_[a-z0-9_]+", t["expr"])}
missing = sorted(want - have)
print("the dashboard draws %d metrics%s" % (len(want), ", missing: %s" % missing if missing else ""))
sys.exit(1 if missing else 0)
PY
}

LIMIT_metrics_scrape=150
SCENARIOS+=(metrics_scrape)
