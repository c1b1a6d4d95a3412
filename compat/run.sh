#!/bin/bash
# compat/run.sh: real clients against a real gregor, one scenario per TAP
# line. Run by `make check` (TESTS) with top_srcdir/top_builddir set; runs
# from a source tree too. A client or tool that is missing fails its
# scenario: CI installs them all (install-deps.sh), nothing is skipped.
#
#   compat/run.sh [SCENARIO...]      default: all
#   KEEP_TMP=1 VERBOSE=1 GR_DEBUG=protocol,broker  for diagnosis

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
COMPAT_SRC=$top_srcdir/compat
COMPAT_BIN=$top_builddir/compat
PY=/usr/bin/python3
export top_srcdir top_builddir

. "$COMPAT_SRC/lib.sh"
trap cleanup_all EXIT

# --- scenarios ---------------------------------------------------------

s_kcat_list() {
    need kcat || return 1
    start_broker || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t compat-kcat -m 10 | tee /dev/stderr >"$BROKER_DIR/kcat1" || return 1
    grep -q 'broker 1 at 127.0.0.1:'"$GR_PORT"' (controller)' "$BROKER_DIR/kcat1" || return 1
    grep -q 'topic "compat-kcat" with 1 partitions' "$BROKER_DIR/kcat1" || return 1
    grep -q 'partition 0, leader 1, replicas: 1, isrs: 1' "$BROKER_DIR/kcat1" || return 1
    # the all-topics listing now has it
    kcat -b "$GR_BOOTSTRAP" -L -m 10 >"$BROKER_DIR/kcat2" || return 1
    grep -q 'topic "compat-kcat"' "$BROKER_DIR/kcat2"
}

s_rdkafka_metadata() {
    start_broker --override num.partitions=3 || return 1
    "$COMPAT_BIN/bin/metadata" 3
}

s_kafka_python_connect() {
    start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/kafka_python_metadata.py"
}

s_kafkajs_connect() {
    need node || return 1
    node_modules_ready || return 1
    start_broker || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t compat-kafkajs -m 10 >/dev/null || return 1
    (cd "$COMPAT_SRC/node" && GR_TOPIC=compat-kafkajs timeout 60 node metadata.js)
}

s_hostile_frames() {
    start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/frames.py" || return 1
    broker_alive || { echo "broker died"; return 1; }
}

s_restart_keeps_topics() {
    start_broker || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t compat-keep -m 10 >/dev/null || return 1
    local id1
    id1=$(grep -o 'cluster.id=.*' "$BROKER_DIR/data/meta.properties")
    stop_broker || return 1
    [ "$BROKER_RC" = 0 ] || { echo "SIGTERM exit code $BROKER_RC"; return 1; }
    # the first start found a new directory, the second a clean shutdown
    grep -q 'log dir .*: new, nothing to recover' "$BROKER_DIR/broker.log" || return 1
    REUSE_DIR=1 start_broker --override auto.create.topics.enable=false || return 1
    kcat -b "$GR_BOOTSTRAP" -L -m 10 | grep -q 'topic "compat-keep" with 1 partitions' || return 1
    grep -q 'log dir .*: clean shutdown, 1 checkpointed logs' "$BROKER_DIR/broker.log" || return 1
    [ "$id1" = "$(grep -o 'cluster.id=.*' "$BROKER_DIR/data/meta.properties")" ]
}

s_config_handling() {
    local d
    d=$(mktemp -d "$COMPAT_TMP/conf.XXXXXX")
    # an invalid value for an implemented key stops start-up, naming both
    if "$GREGOR" --override num.partitions=zero --override "log.dirs=$d/x" \
        --override listeners=PLAINTEXT://127.0.0.1:0 >"$d/o" 2>"$d/e"; then
        echo "started with num.partitions=zero"; return 1
    fi
    grep -q 'num.partitions' "$d/e" && grep -q 'zero' "$d/e" || { cat "$d/e"; return 1; }
    # Kafka 4's KRaft sample: the controller listener is not bound, Kafka
    # keys Gregor does not use are accepted, unknown keys are logged
    cat >"$d/kraft.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=localhost:9093
listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://localhost:9093
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=$d/kraft-logs
num.partitions=1
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
log.retention.hours=168
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
zookeeper.connect=localhost:2181
gregor.no.such.key=1
PROPS
    "$GREGOR" "$d/kraft.properties" --listeners-file "$d/l" >"$d/o2" 2>"$d/e2" &
    BROKER_PID=$!
    for _ in $(seq 1 100); do [ -s "$d/l" ] && break; sleep 0.05; done
    [ -s "$d/l" ] || { cat "$d/e2"; return 1; }
    [ "$(wc -l <"$d/l")" = 1 ] && grep -q '^PLAINTEXT://127.0.0.1:' "$d/l" || { cat "$d/l"; return 1; }
    grep -q 'CONTROLLER is a controller listener' "$d/e2" || return 1
    grep -q "num.io.threads is a Kafka setting Gregor does not use" "$d/e2" || return 1
    grep -q "'gregor.no.such.key' was supplied but isn't a known config" "$d/e2" || return 1
    grep -q 'zookeeper.connect is set but not used: process.roles' "$d/e2" || return 1
    GR_BOOTSTRAP=127.0.0.1:$(sed 's/.*://' "$d/l")
    kcat -b "$GR_BOOTSTRAP" -L -m 10 | grep -q '1 brokers' || return 1
    stop_broker
    [ "$BROKER_RC" = 0 ]
}

# --- the data path

s_rdkafka_codecs() {
    start_broker --override num.partitions=3 || return 1
    for codec in none gzip snappy lz4 zstd; do
        "$COMPAT_BIN/bin/produce_consume" "pc-$codec" "$codec" 3000 200 3 || return 1
    done
    # large messages, several per batch
    "$COMPAT_BIN/bin/produce_consume" pc-large lz4 60 300000 1
}

s_rdkafka_longpoll() {
    start_broker || return 1
    "$COMPAT_BIN/bin/longpoll" compat-longpoll
}

s_kcat_roundtrip() {
    need kcat || return 1
    start_broker || return 1
    seq 1 1000 | sed 's/^/line-/' >"$BROKER_DIR/in"
    printf 'a:alpha\nb:beta\n' | kcat -b "$GR_BOOTSTRAP" -P -t kcat-rt -z snappy -K: || return 1
    kcat -b "$GR_BOOTSTRAP" -P -t kcat-rt -l "$BROKER_DIR/in" || return 1
    kcat -b "$GR_BOOTSTRAP" -C -t kcat-rt -o beginning -e -q -f '%k|%s|%o\n' \
        >"$BROKER_DIR/out" || return 1
    [ "$(head -2 "$BROKER_DIR/out")" = "$(printf 'a|alpha|0\nb|beta|1')" ] || {
        head -3 "$BROKER_DIR/out"; return 1; }
    [ "$(tail -n +3 "$BROKER_DIR/out" | cut -d'|' -f2)" = "$(cat "$BROKER_DIR/in")" ] || return 1
    [ "$(tail -1 "$BROKER_DIR/out" | cut -d'|' -f3)" = 1001 ] || return 1
    # offsets for times
    kcat -b "$GR_BOOTSTRAP" -Q -t kcat-rt:0:0 | grep -q 'offset 0' || return 1
}

s_kafka_python_data() {
    start_broker || return 1
    timeout 90 $PY "$COMPAT_SRC/kafka_python_data.py"
}

# consumers of old brokers (kafka-python's api_version 0.8.2, 0.9, 0.10:
# Fetch v0-v2, down-converted) read back what a current producer wrote,
# and a message past their fetch size raises RecordTooLargeError
s_kafka_python_legacy_fetch() {
    start_broker || return 1
    timeout 120 $PY "$COMPAT_SRC/kafka_python_legacy.py"
}

# librdkafka as a 0.9 client (Fetch v1, down-converted, 64 KiB a
# partition) meets a batch of 266 KB: the cut first message makes it
# grow its fetch size and read the batch (an empty answer held it for
# ever)
s_kcat_legacy_fetch() {
    need kcat || return 1
    start_broker || return 1
    local big
    big=$(head -c 200000 /dev/urandom | base64 -w0)
    printf 'small\n%s\n' "$big" | kcat -P -b "$GR_BOOTSTRAP" -t kclegacy -p 0 || return 1
    timeout 30 kcat -C -b "$GR_BOOTSTRAP" -t kclegacy -p 0 -o beginning -e \
        -X api.version.request=false -X broker.version.fallback=0.9.0.1 \
        -X fetch.message.max.bytes=65536 -f '%o %S\n' >"$BROKER_DIR/out" || return 1
    [ "$(cat "$BROKER_DIR/out")" = "$(printf '0 5\n1 %d' ${#big})" ]
}

s_kafkajs_produce() {
    need node || return 1
    node_modules_ready || return 1
    need kcat || return 1
    start_broker || return 1
    (cd "$COMPAT_SRC/node" && GR_TOPIC=kjs-p timeout 60 node produce.js) || return 1
    kcat -b "$GR_BOOTSTRAP" -C -t kjs-p -o beginning -e -q -f '%k=%s %h\n' >"$BROKER_DIR/out" || return 1
    [ "$(wc -l <"$BROKER_DIR/out")" = 100 ] || { wc -l "$BROKER_DIR/out"; return 1; }
    for i in 0 49 50 99; do
        grep -qx "k$i=kafkajs-$i n=$i" "$BROKER_DIR/out" || { echo "missing $i"; return 1; }
    done
}

s_raw_data_path() {
    start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_raw.py" || return 1
    timeout 60 $PY "$COMPAT_SRC/flex_raw.py"
}

# OffsetForLeaderEpoch v0-v4, hand-encoded (compat/epoch_raw.py), and the
# leader-epoch checkpoints; again after a SIGKILL with one partition's
# checkpoint removed (rebuilt from the batches at the unclean start)
s_leader_epochs() {
    need kcat || return 1
    start_broker --override num.partitions=2 || return 1
    printf 'a\nb\nc\n' | kcat -P -b "$GR_BOOTSTRAP" -t epr -p 0 || return 1
    GR_TOPIC=epr GR_DATA_DIR=$BROKER_DIR/data timeout 60 \
        $PY "$COMPAT_SRC/epoch_raw.py" || return 1
    stop_broker KILL
    rm "$BROKER_DIR/data/epr-0/leader-epoch-checkpoint" || return 1
    REUSE_DIR=1 start_broker --override num.partitions=2 || return 1
    GR_TOPIC=epr GR_DATA_DIR=$BROKER_DIR/data timeout 60 \
        $PY "$COMPAT_SRC/epoch_raw.py"
}

s_acks_and_isr() {
    start_broker --override min.insync.replicas=2 || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_acks.py"
}

# idempotent producers: librdkafka end to end, byte-level checks, and the
# producer state across a clean restart and a SIGKILL
s_idempotence() {
    start_broker --override num.partitions=3 || return 1
    "$COMPAT_BIN/bin/idempotence" idem 20000 3 || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_idem.py" "$BROKER_DIR/idem.json" || return 1
    stop_broker TERM
    REUSE_DIR=1 start_broker --override num.partitions=3 || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_idem.py" restart-check "$BROKER_DIR/idem.json" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_idem.py" "$BROKER_DIR/idem2.json" || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker --override num.partitions=3 || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_idem.py" restart-check "$BROKER_DIR/idem2.json"
}

# many partitions under a small fd limit: segment files open lazily and
# are closed least-recently-used; everything is still readable after a
# restart
s_many_partitions() {
    (
        ulimit -n 400
        start_broker --override num.partitions=1500 || exit 1
        "$COMPAT_BIN/bin/produce_consume" many none 3000 20 1500 || exit 1
        stop_broker TERM
        [ "$BROKER_RC" = 0 ] || exit 1
        REUSE_DIR=1 start_broker || exit 1
        [ "$(kcat -b "$GR_BOOTSTRAP" -C -t many -o beginning -e -q | wc -l)" = 3000 ] || exit 1
        stop_broker TERM
    )
}

# topics made off the event loop: led and usable when CreateTopics and
# CreatePartitions answer, Metadata served meanwhile, a topic deleted while
# it is being made leaves nothing; all of it there after a restart
s_topic_creation() {
    start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_creation.py" || return 1
    broker_alive || return 1
    stop_broker TERM
    [ "$BROKER_RC" = 0 ] || return 1
    REUSE_DIR=1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_creation.py" after
}

# a broker stopped while a worker makes the directories of 3,000 topics
# that one Metadata request auto-created stops cleanly and has them all,
# led, after a restart
s_topic_creation_stop() {
    start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 60 $PY "$COMPAT_SRC/topic_creation.py" stop || return 1
    stop_broker TERM
    [ "$BROKER_RC" = 0 ] || return 1
    REUSE_DIR=1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_creation.py" stop-after
}

# a deletion cut short by a crash (fault point trash.kill: the broker kills
# itself before renaming the topic's 8th directory aside, after the
# deletion's record is stored) is finished at the next start, as Kafka's
# controller resumes a deletion
s_topic_deletion_crash() {
    GREGOR_FAULTS=trash.kill@/cut-7:1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 60 $PY "$COMPAT_SRC/topic_creation.py" crash || return 1
    for _ in $(seq 1 100); do broker_alive || break; sleep 0.1; done
    broker_alive && { echo "the broker did not kill itself"; return 1; }
    stop_broker
    grep -q 'fault trash.kill: killed before renaming' "$BROKER_DIR/broker.log" || return 1
    ls -d "$BROKER_DIR"/data/cut-* >/dev/null || { echo "no directory left by the crash"; return 1; }
    REUSE_DIR=1 start_broker || return 1
    grep -q 'the deletion of topic cut .* was cut short' "$BROKER_DIR/broker.log" || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_creation.py" crash-after
}

# names Kafka accepts that look like something else on disk (".hidden", a
# deletion record's, 249 characters, <topic>-<p>.<id>-delete/-future/
# -stray): made with records, back after a restart, deleted, gone after
# the next (compat/topic_names.py)
s_topic_names_restart() {
    start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_names.py" make || return 1
    stop_broker || return 1
    REUSE_DIR=1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_names.py" after || return 1
    stop_broker || return 1
    REUSE_DIR=1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_names.py" gone
}

# their deletion cut short by a crash (fault point trash.kill, at the
# 249-character topic's second partition) is finished at the next start
s_topic_names_deletion_crash() {
    GREGOR_FAULTS=trash.kill@/LLLLLLLLLLLLLLLLLLLLLLLLLLLLLL:2 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_names.py" crash || return 1
    for _ in $(seq 1 100); do broker_alive || break; sleep 0.1; done
    broker_alive && { echo "the broker did not kill itself"; return 1; }
    stop_broker
    grep -q 'fault trash.kill: killed before renaming' "$BROKER_DIR/broker.log" || return 1
    REUSE_DIR=1 start_broker || return 1
    grep -q 'was cut short' "$BROKER_DIR/broker.log" || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 120 $PY "$COMPAT_SRC/topic_names.py" gone
}

# a topic whose metadata file cannot be written (fault point topic.store)
# is not created: KAFKA_STORAGE_ERROR, not listed, no directory, not there
# after a restart; the other topic of the request is
s_topic_store_fault() {
    GREGOR_FAULTS=topic.store@/bad:1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 60 $PY "$COMPAT_SRC/topic_creation.py" fault || return 1
    grep -q 'cannot write .*gregor-topics/bad' "$BROKER_DIR/broker.log" || { echo "no error logged"; return 1; }
    broker_alive || return 1
    stop_broker TERM
    [ "$BROKER_RC" = 0 ] || return 1
    REUSE_DIR=1 start_broker || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 60 $PY "$COMPAT_SRC/topic_creation.py" fault-after
}

# retention by size and time, with small segments; flush.messages=1 makes
# every acknowledgement wait for an fsync on the worker
s_retention_and_flush() {
    start_broker --override log.segment.bytes=1000 \
        --override log.retention.bytes=3000 \
        --override log.retention.check.interval.ms=300 \
        --override log.flush.interval.messages=1 || return 1
    timeout 90 $PY "$COMPAT_SRC/kpy_retention.py" "$BROKER_DIR/data/ret-size-0" ret-time
}

# localhost listens on both loopback addresses
s_localhost_dual_stack() {
    start_broker --override listeners=PLAINTEXT://localhost:0 || return 1
    kcat -b "127.0.0.1:$GR_PORT" -L -m 10 | grep -q 'broker 1 at localhost' || return 1
    kcat -b "[::1]:$GR_PORT" -L -m 10 | grep -q 'broker 1 at localhost'
}

# CI mode: data in a temporary directory that is gone after the broker;
# a test broker's defaults (no initial rebalance delay, one partition per
# internal topic, the control listener on loopback)
s_temp_data() {
    local d
    d=$(mktemp -d "$COMPAT_TMP/td.XXXXXX")
    "$GREGOR" --temp-data --override listeners=PLAINTEXT://127.0.0.1:0 \
        --listeners-file "$d/l" >"$d/o" 2>"$d/e" &
    BROKER_PID=$!
    for _ in $(seq 1 100); do [ -s "$d/l" ] && break; sleep 0.05; done
    GR_BOOTSTRAP=127.0.0.1:$(sed 's/.*://' "$d/l")
    echo hello | kcat -b "$GR_BOOTSTRAP" -P -t td || return 1
    [ "$(kcat -b "$GR_BOOTSTRAP" -C -t td -e -q)" = hello ] || return 1
    local data
    data=$(grep -o '/tmp/gregor-data\.[A-Za-z0-9]*' "$d/e" | head -1)
    [ -n "$data" ] && [ -d "$data/td-0" ] || { cat "$d/e"; return 1; }
    GR_BOOTSTRAP=$GR_BOOTSTRAP timeout 120 $PY "$COMPAT_SRC/ck_temp_data.py" "$data" || return 1
    local c
    c=$(sed -n 's/^gregor: control on //p' "$d/o")
    case "$c" in http://127.0.0.1:[0-9]*) ;; *) cat "$d/o"; return 1 ;; esac
    "$GREGOR" ctl "$c" requests api=Produce | grep -q '"outcome":"handled"' || return 1
    stop_broker TERM
    [ "$BROKER_RC" = 0 ] && [ ! -e "$data" ]
}

# idempotence when the broker loses a Produce response after the append
# (fault point produce.response): librdkafka and kafkajs retry, the broker
# answers the duplicate with its offsets and appends nothing twice
s_idempotence_lost_response() {
    GREGOR_FAULTS=produce.response:3 start_broker --log-level debug || return 1
    "$COMPAT_BIN/bin/idempotence" idem-lost 3000 1 || return 1
    grep -q 'fault produce.response' "$BROKER_DIR/broker.log" || { echo "no response dropped"; return 1; }
    grep -q 'duplicate batch of producer' "$BROKER_DIR/broker.log" || { echo "no duplicate seen"; return 1; }
    stop_broker
    need node && node_modules_ready || return 1
    GREGOR_FAULTS=produce.response:4 start_broker --log-level debug || return 1
    (cd "$COMPAT_SRC/node" && GR_MODE=idempotent GR_TOPIC=kjs-idem-lost timeout 60 node txn.js) || return 1
    grep -q 'duplicate batch of producer' "$BROKER_DIR/broker.log" || { echo "kafkajs: no duplicate seen"; return 1; }
    kcat -b "$GR_BOOTSTRAP" -C -t kjs-idem-lost -o beginning -e -q >"$BROKER_DIR/kjs" || return 1
    [ "$(wc -l <"$BROKER_DIR/kjs")" = 200 ] && [ -z "$(sort "$BROKER_DIR/kjs" | uniq -d)" ] || {
        wc -l "$BROKER_DIR/kjs"; return 1; }
}

# an idempotent librdkafka producer keeps producing while the broker is
# killed and restarted: every value once, in order
s_idempotence_restart() {
    local d cpid
    start_broker || return 1
    d=$(mktemp -d "$COMPAT_TMP/idem.XXXXXX")
    "$COMPAT_BIN/bin/txn" idem-restart idem-restart "$d" 20000 >"$d/out" 2>&1 &
    cpid=$!
    for _ in $(seq 1 600); do [ -f "$d/ready" ] && break; sleep 0.05; done
    [ -f "$d/ready" ] || { cat "$d/out"; kill $cpid; return 1; }
    stop_broker KILL
    REUSE_DIR=1 start_broker --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" || return 1
    wait $cpid || { tail -20 "$d/out"; return 1; }
    tail -1 "$d/out"
}

# transactions at the byte level: every transaction API, the state machine
# and its errors, LSO, markers, aborted transactions, Describe*/List*
# kpy_txn.py's epochs are transaction version 1's (no bump per end): the
# brokers of these two run at that level; version 2 is the unit tests'
# (txn/coordinator, txn/txn) and the Java clients' and Streams' scenarios
s_txn_frames() {
    start_broker --override transaction.state.log.num.partitions=5 \
        --override gregor.transaction.version=1 || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" basic
}

# a transaction left in PrepareCommit (its markers fail) and one left
# Ongoing survive a SIGKILL: the first is completed at start-up, the second
# times out and is aborted with a bumped epoch
s_txn_frames_restart() {
    local o="--override transaction.abort.timed.out.transaction.cleanup.interval.ms=500
             --override gregor.transaction.version=1"
    GREGOR_FAULTS=txn.marker:1:0 start_broker $o || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" prepare "$BROKER_DIR/prep.json" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" ongoing "$BROKER_DIR/ong.json" || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker $o || return 1
    grep -q 'completing PrepareCommit after a restart' "$BROKER_DIR/broker.log" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" prepare-check "$BROKER_DIR/prep.json" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" ongoing-check "$BROKER_DIR/ong.json"
}

TXN_OPTS=(--override transaction.abort.timed.out.transaction.cleanup.interval.ms=500)

# librdkafka transactions: commit and abort, fencing by a second instance,
# an abandoned transaction timed out; all of it holds after a clean restart
# and after a SIGKILL; DescribeTransactions, ListTransactions and
# DescribeProducers report it
s_rdkafka_txn() {
    start_broker --override num.partitions=3 "${TXN_OPTS[@]}" || return 1
    "$COMPAT_BIN/bin/txn" commit_abort rdk-ca 3 500 || return 1
    "$COMPAT_BIN/bin/txn" fence rdk-fence || return 1
    "$COMPAT_BIN/bin/txn" abandon rdk-abandon || return 1
    grep -q 'compat-txn-abandon: transaction of producer .* timed out' \
        "$BROKER_DIR/broker.log" || { echo "no timeout abort logged"; return 1; }
    cat >"$BROKER_DIR/expect.json" <<JSON
{"txns": {"compat-txn-ca": "CompleteCommit", "compat-txn-fence": "CompleteCommit",
          "compat-txn-abandon": "CompleteCommit", "compat-txn-witness": "CompleteCommit"},
 "topic": "rdk-ca", "partitions": 3, "producers_min": 1}
JSON
    for sig in TERM KILL; do
        stop_broker $sig
        REUSE_DIR=1 start_broker --override num.partitions=3 "${TXN_OPTS[@]}" || return 1
        "$COMPAT_BIN/bin/txn" expect rdk-ca 3 1000 1500 || return 1
        "$COMPAT_BIN/bin/txn" expect rdk-fence 1 10 20 || return 1
        "$COMPAT_BIN/bin/txn" expect rdk-abandon 1 11 21 || return 1
        timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" describe "$BROKER_DIR/expect.json" || return 1
    done
}

# a librdkafka producer in the middle of a transaction while the broker
# restarts (SIGKILL, then SIGTERM): it commits (aborts) after the restart
s_rdkafka_txn_restart() {
    local d cpid topic
    for mode in open:KILL open-abort:TERM; do
        topic=rdk-${mode%:*}
        start_broker "${TXN_OPTS[@]}" || return 1
        d=$(mktemp -d "$COMPAT_TMP/txnopen.XXXXXX")
        "$COMPAT_BIN/bin/txn" "${mode%:*}" "$topic" "$d" 200 >"$d/out" 2>&1 &
        cpid=$!
        for _ in $(seq 1 600); do [ -f "$d/ready" ] && break; sleep 0.05; done
        [ -f "$d/ready" ] || { cat "$d/out"; kill $cpid; return 1; }
        stop_broker "${mode#*:}"
        REUSE_DIR=1 start_broker --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" \
            "${TXN_OPTS[@]}" || return 1
        touch "$d/go"
        wait $cpid || { cat "$d/out"; return 1; }
        cat "$d/out"
        if [ "${mode%:*}" = open ]; then
            "$COMPAT_BIN/bin/txn" expect "$topic" 1 200 200 || return 1
        else
            "$COMPAT_BIN/bin/txn" expect "$topic" 1 0 200 || return 1
        fi
        stop_broker
    done
}

# confluent-kafka-python's transactional producer and read_committed
# consumer (over librdkafka)
s_confluent_txn() {
    start_broker || return 1
    timeout 120 $PY "$COMPAT_SRC/ck_txn.py"
}

# kafkajs transactions (commit, abort, a fenced zombie), read back by
# librdkafka's read_committed consumer
s_kafkajs_txn() {
    need node && node_modules_ready || return 1
    start_broker || return 1
    (cd "$COMPAT_SRC/node" && GR_TOPIC=kjs-txn timeout 60 node txn.js) || return 1
    "$COMPAT_BIN/bin/txn" expect kjs-txn 1 60 90
}

# consume-transform-produce: librdkafka's send_offsets_to_transaction (one
# transaction aborted and redone) and kafkajs's sendOffsets commit input
# offsets atomically with the output; both hold after a SIGKILL
s_txn_consume_transform_produce() {
    start_broker "${TXN_OPTS[@]}" || return 1
    "$COMPAT_BIN/bin/txn" ctp ctp-in ctp-out ctp-group 2000 || return 1
    need node && node_modules_ready || return 1
    (cd "$COMPAT_SRC/node" && GR_IN=kjs-ctp-in GR_OUT=kjs-ctp-out timeout 90 node ctp.js) || return 1
    "$COMPAT_BIN/bin/txn" expect kjs-ctp-out 1 300 300 || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker "${TXN_OPTS[@]}" || return 1
    "$COMPAT_BIN/bin/txn" ctp-check ctp-in ctp-out ctp-group 2000 || return 1
    "$COMPAT_BIN/bin/txn" expect kjs-ctp-out 1 300 300
}

# transactional offset commits by frames: pending (UNSTABLE_OFFSET_COMMIT),
# dropped on abort, visible on commit; one left in PrepareCommit is
# committed after a SIGKILL while the group partition loads
s_txn_offsets_frames() {
    start_broker "${TXN_OPTS[@]}" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" offsets || return 1
    stop_broker
    GREGOR_FAULTS=txn.marker:1:0 start_broker "${TXN_OPTS[@]}" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" offsets-prepare "$BROKER_DIR/op.json" || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker "${TXN_OPTS[@]}" || return 1
    timeout 60 $PY "$COMPAT_SRC/kpy_txn.py" offsets-check "$BROKER_DIR/op.json"
}

# acknowledged data survives a clean stop and a SIGKILL
s_restart_durability() {
    start_broker || return 1
    "$COMPAT_BIN/bin/produce_consume" dur lz4 2000 100 1 || return 1
    stop_broker TERM
    [ "$BROKER_RC" = 0 ] || { echo "exit $BROKER_RC"; return 1; }
    [ -f "$BROKER_DIR/data/.kafka_cleanshutdown" ] || { echo "no clean marker"; return 1; }
    REUSE_DIR=1 start_broker || return 1
    [ "$(kcat -b "$GR_BOOTSTRAP" -C -t dur -o beginning -e -q | wc -l)" = 2000 ] || return 1
    seq 1 500 | kcat -b "$GR_BOOTSTRAP" -P -t dur -X acks=all || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker || return 1
    [ "$(kcat -b "$GR_BOOTSTRAP" -C -t dur -o beginning -e -q | wc -l)" = 2500 ] || return 1
    grep -q 'unclean shutdown' "$BROKER_DIR/broker.log" || { echo "no recovery after SIGKILL"; return 1; }
}

# the topic's compression.type rewrites batches; LogAppendTime stamps them
s_broker_compression() {
    start_broker --override compression.type=lz4 \
        --override log.message.timestamp.type=LogAppendTime || return 1
    "$COMPAT_BIN/bin/produce_consume" recomp none 500 100 1 || return 1
    $PY "$COMPAT_SRC/segment_attrs.py" "$BROKER_DIR/data/recomp-0/00000000000000000000.log" 3 1
}

# --- admin (issue 6): topics, configs, partitions, records, compaction

s_rdkafka_admin() {
    start_broker --override log.cleaner.backoff.ms=200 \
        --override ssl.key.password=hunter2 || return 1
    "$COMPAT_BIN/bin/admin" radm || return 1
    # deleted topics' directories are removed
    for _ in $(seq 1 50); do
        ls "$BROKER_DIR/data" | grep -q '^radm-a' || break
        sleep 0.1
    done
    ! ls "$BROKER_DIR/data" | grep -q '^radm-a' || { ls "$BROKER_DIR/data"; return 1; }
    ! grep -q hunter2 "$BROKER_DIR/broker.log"
}

s_kafkajs_admin() {
    need node || return 1
    node_modules_ready || return 1
    start_broker --override log.retention.check.interval.ms=200 || return 1
    (cd "$COMPAT_SRC/node" && GR_TOPIC=kjs-adm timeout 90 node admin.js)
}

# configs (a topic's, this broker's dynamic ones) survive a restart
s_kafka_python_admin() {
    start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/kafka_python_admin.py" setup || return 1
    stop_broker || return 1
    [ -f "$BROKER_DIR/data/gregor-configs/broker-1" ] || return 1
    REUSE_DIR=1 start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/kafka_python_admin.py" verify
}

# what kcat sees of admin changes: compaction (latest value per key at its
# original offset), new partitions, a deleted topic
kpy_admin() { # python statements with `a` a KafkaAdminClient
    timeout 30 $PY -c "
from kafka.admin import *
a = KafkaAdminClient(bootstrap_servers='$GR_BOOTSTRAP')
$1
a.close()"
}

s_kcat_admin_effects() {
    need kcat || return 1
    start_broker --override log.cleaner.backoff.ms=200 || return 1
    kpy_admin "a.create_topics([NewTopic('kc', 1, 1, topic_configs={
        'cleanup.policy': 'compact', 'segment.ms': '300',
        'min.cleanable.dirty.ratio': '0.01', 'segment.bytes': '600'})])" || return 1
    for r in 0 1 2; do
        for k in $(seq 0 19); do echo "k$k:v$r"; done |
            kcat -b "$GR_BOOTSTRAP" -P -t kc -K: || return 1
    done
    sleep 0.5
    echo "zz:end" | kcat -b "$GR_BOOTSTRAP" -P -t kc -K: || return 1
    for _ in $(seq 1 50); do
        kcat -b "$GR_BOOTSTRAP" -C -t kc -o beginning -e -q -f '%k=%s@%o\n' >"$BROKER_DIR/out" || return 1
        [ "$(wc -l <"$BROKER_DIR/out")" = 21 ] && break
        sleep 0.2
    done
    cat "$BROKER_DIR/out"
    [ "$(wc -l <"$BROKER_DIR/out")" = 21 ] || return 1
    for k in $(seq 0 19); do
        grep -qx "k$k=v2@$((40 + k))" "$BROKER_DIR/out" || { echo "k$k"; return 1; }
    done
    grep -qx "zz=end@60" "$BROKER_DIR/out" || return 1
    kpy_admin "a.create_partitions({'kc': NewPartitions(3)})" || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kc | grep -q 'topic "kc" with 3 partitions' || return 1
    kpy_admin "a.delete_topics(['kc'])" || return 1
    ! kcat -b "$GR_BOOTSTRAP" -L | grep -q 'topic "kc"'
}

# admin APIs and versions no client here sends, byte by byte
s_admin_raw() {
    start_broker --override ssl.key.password=hunter2 || return 1
    timeout 60 $PY "$COMPAT_SRC/admin_raw.py"
}

s_rdkafka_compaction() {
    start_broker --override log.cleaner.backoff.ms=200 || return 1
    "$COMPAT_BIN/bin/compaction" compacted || return 1
    grep -q 'cleaned offsets up to' "$BROKER_DIR/broker.log"
}

# --- consumer groups (compat/group.c, kafka_python_group.py, node/group.js)

# produce_keyed TOPIC N: values 1..N, keyed, spread over the partitions
produce_keyed() {
    seq 1 "$2" | awk '{print "k" $1 ":" $1}' |
        kcat -b "$GR_BOOTSTRAP" -P -t "$1" -K: -X acks=all
}

# check_exactly_once FILE N: FILE holds 1..N, each once
check_exactly_once() {
    local got dups
    got=$(sort -n "$1" | uniq | wc -l)
    dups=$(sort -n "$1" | uniq -d | wc -l)
    echo "read $(wc -l <"$1") values, $got distinct, $dups duplicated (want $2)"
    [ "$got" = "$2" ] && [ "$dups" = 0 ] &&
        [ "$(sort -n "$1" | uniq | head -1)" = 1 ] &&
        [ "$(sort -n "$1" | uniq | tail -1)" = "$2" ]
}

GROUP_OPTS=(--override num.partitions=3 --override offsets.topic.num.partitions=5)

# commit and resume across consumer restarts, a clean broker restart and a
# SIGKILL of the broker: no value lost, none read twice
s_rdkafka_group_resume() {
    start_broker "${GROUP_OPTS[@]}" || return 1
    produce_keyed gres 1000 || return 1
    local out=$BROKER_DIR/values
    "$COMPAT_BIN/bin/group" consume gres g1 300 "$out" || return 1
    "$COMPAT_BIN/bin/group" consume gres g1 200 "$out" || return 1
    stop_broker TERM
    REUSE_DIR=1 start_broker "${GROUP_OPTS[@]}" || return 1
    "$COMPAT_BIN/bin/group" consume gres g1 250 "$out" || return 1
    stop_broker KILL
    REUSE_DIR=1 start_broker "${GROUP_OPTS[@]}" || return 1
    "$COMPAT_BIN/bin/group" consume gres g1 100000 "$out" || return 1
    check_exactly_once "$out" 1000 || return 1
    grep -q 'loaded 1 group(s)' "$BROKER_DIR/broker.log" || {
        echo "no group loaded at start-up"; return 1; }
}

# a member stays through a broker restart: the group is loaded back Stable,
# its heartbeats are accepted, it reads everything exactly once
s_rdkafka_group_broker_restart() {
    start_broker "${GROUP_OPTS[@]}" || return 1
    produce_keyed gfol 400 || return 1
    "$COMPAT_BIN/bin/group" follow gfol gf 800 "$BROKER_DIR/values" &
    local pid=$!
    for _ in $(seq 1 100); do
        [ -f "$BROKER_DIR/values" ] &&
            [ "$(wc -l <"$BROKER_DIR/values")" -ge 400 ] && break
        sleep 0.1
    done
    stop_broker TERM
    # the member keeps its bootstrap address: same port
    REUSE_DIR=1 start_broker "${GROUP_OPTS[@]}" \
        --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" || { kill $pid; return 1; }
    seq 401 800 | awk '{print "k" $1 ":" $1}' |
        kcat -b "$GR_BOOTSTRAP" -P -t gfol -K: -X acks=all || { kill $pid; return 1; }
    wait $pid || return 1
    check_exactly_once "$BROKER_DIR/values" 800
}

s_rdkafka_group_split() {
    start_broker --override num.partitions=6 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t gsplit >/dev/null || return 1
    for a in range roundrobin cooperative-sticky; do
        "$COMPAT_BIN/bin/group" split gsplit "split-$a-3" "$a" 3 6 || return 1
        "$COMPAT_BIN/bin/group" split gsplit "split-$a-2" "$a" 2 6 || return 1
    done
}

s_rdkafka_group_session_timeout() {
    start_broker --override num.partitions=4 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t gkill >/dev/null || return 1
    "$COMPAT_BIN/bin/group" kill gkill gk-range range 4 || return 1
    "$COMPAT_BIN/bin/group" kill gkill gk-coop cooperative-sticky 4
}

s_rdkafka_group_static() {
    start_broker --override num.partitions=4 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t gstatic >/dev/null || return 1
    "$COMPAT_BIN/bin/group" static gstatic gs 4 || return 1
    grep -q 'static member instance-1 of group gs rejoins' "$BROKER_DIR/broker.log"
}

s_rdkafka_group_admin() {
    start_broker --override num.partitions=2 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t gadmin >/dev/null || return 1
    "$COMPAT_BIN/bin/group" admin ga gadmin
}

s_kafka_python_group_resume() {
    start_broker "${GROUP_OPTS[@]}" || return 1
    produce_keyed kpres 600 || return 1
    local out=$BROKER_DIR/values kpy="timeout 90 $PY $COMPAT_SRC/kafka_python_group.py"
    $kpy consume kpres kg 150 "$out" || return 1
    $kpy consume kpres kg 150 "$out" || return 1
    stop_broker TERM
    REUSE_DIR=1 start_broker "${GROUP_OPTS[@]}" || return 1
    $kpy consume kpres kg 100000 "$out" || return 1
    check_exactly_once "$out" 600
}

s_kafka_python_group_split() {
    start_broker --override num.partitions=4 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kpsplit >/dev/null || return 1
    for a in range roundrobin; do
        timeout 90 $PY "$COMPAT_SRC/kafka_python_group.py" split kpsplit \
            "kp-$a" "$a" 3 4 || return 1
    done
}

s_kafka_python_group_session_timeout() {
    start_broker --override num.partitions=4 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kpkill >/dev/null || return 1
    timeout 90 $PY "$COMPAT_SRC/kafka_python_group.py" kill kpkill kpk range 4
}

s_kafka_python_group_admin() {
    start_broker --override num.partitions=2 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kpadmin >/dev/null || return 1
    timeout 90 $PY "$COMPAT_SRC/kafka_python_group.py" admin kpadmin kpa
}

s_kafkajs_group_resume() {
    need node || return 1
    node_modules_ready || return 1
    start_broker "${GROUP_OPTS[@]}" || return 1
    produce_keyed kjres 600 || return 1
    local out=$BROKER_DIR/values
    (cd "$COMPAT_SRC/node" && timeout 90 node group.js consume kjres jg 150 "$out") || return 1
    (cd "$COMPAT_SRC/node" && timeout 90 node group.js consume kjres jg 150 "$out") || return 1
    stop_broker TERM
    REUSE_DIR=1 start_broker "${GROUP_OPTS[@]}" || return 1
    (cd "$COMPAT_SRC/node" && timeout 90 node group.js consume kjres jg 100000 "$out") || return 1
    check_exactly_once "$out" 600
}

s_kafkajs_group_split() {
    need node || return 1
    node_modules_ready || return 1
    start_broker --override num.partitions=4 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kjsplit >/dev/null || return 1
    (cd "$COMPAT_SRC/node" && timeout 90 node group.js split kjsplit kj-rr 3 4)
}

s_kafkajs_group_session_timeout() {
    need node || return 1
    node_modules_ready || return 1
    start_broker --override num.partitions=4 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kjkill >/dev/null || return 1
    (cd "$COMPAT_SRC/node" && timeout 90 node group.js kill kjkill kjk 4)
}

s_kafkajs_group_admin() {
    need node || return 1
    node_modules_ready || return 1
    start_broker --override num.partitions=2 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t kjadmin >/dev/null || return 1
    (cd "$COMPAT_SRC/node" && timeout 90 node group.js admin kjadmin kja)
}

s_group_api_versions() {
    start_broker --override num.partitions=2 || return 1
    kcat -b "$GR_BOOTSTRAP" -L -t gv >/dev/null || return 1
    timeout 60 "$COMPAT_BIN/bin/group_versions"
}

# a partition directory whose topic metadata was never written (a crash
# during creation, found by crash_loop) or already deleted: the topic can
# be created again; the old directory is kept aside as <dir>.<id>-stray
s_stray_partition_dir() {
    need kcat || return 1
    start_broker || return 1
    echo old | kcat -b "$GR_BOOTSTRAP" -P -t stray -X acks=all -X message.timeout.ms=10000 || return 1
    stop_broker KILL
    rm "$BROKER_DIR/data/gregor-topics/stray" || return 1
    REUSE_DIR=1 start_broker || return 1
    echo new | kcat -b "$GR_BOOTSTRAP" -P -t stray -X acks=all -X message.timeout.ms=10000 || return 1
    [ "$(kcat -b "$GR_BOOTSTRAP" -C -t stray -o beginning -e -q)" = new ] || return 1
    ls -d "$BROKER_DIR"/data/stray-0.*-stray || return 1
}

# storage faults armed at run time (GREGOR_FAULTS, src/core/fault.h): the
# faulty partitions answer KAFKA_STORAGE_ERROR and keep only what they
# acknowledged, the others keep serving, the broker stays up
s_storage_faults() {
    GREGOR_FAULTS=log.write@/flt-w-0:2:3,log.write.short@/flt-s-0:2:1,log.nospace@/flt-n-0:2:0,log.fsync@/flt-f-0:1:0 \
        start_broker --override log.flush.interval.messages=1 || return 1
    GR_DATA_DIR=$BROKER_DIR/data timeout 60 $PY "$COMPAT_SRC/faults.py" || return 1
    broker_alive || { echo "broker died"; return 1; }
    grep -q 'fault injection armed' "$BROKER_DIR/broker.log" || return 1
    # librdkafka retries a failed write (nothing was written): each
    # message arrives exactly once. Not in order: without idempotence
    # librdkafka 2.0.2 sends the next batch while a failed one waits out
    # its retry backoff, even with one request in flight (seen under ASan:
    # k641.. landed at offset 0)
    stop_broker
    GREGOR_FAULTS=log.write@/pc-fault-0:1:3 REUSE_DIR=1 start_broker || return 1
    PC_MAX_IN_FLIGHT=1 PC_UNORDERED=1 "$COMPAT_BIN/bin/produce_consume" pc-fault none 2000 100 1 || return 1
    [ "$(grep -c 'pc-fault-0/00000000000000000000.log: append of' "$BROKER_DIR/broker.log")" = 3 ] || {
        echo "expected 3 failed appends"; return 1; }
    stop_broker
    REUSE_DIR=1 start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/faults.py" after
}

# SIGKILL at random moments under acks=all producers, one plain and one
# idempotent, and a transactional client: every acknowledged record is
# there after the restarts, at its offset, in order; the idempotent
# producer's exactly once, the plain one's duplicates counted; every
# committed transaction visible and whole, and the offsets committed in
# them and outside them where they were acknowledged. GR_CRASH_CYCLES
# (default 10) cycles; GR_CRASH_SEED picks the moments (printed, so a run
# can be replayed).
s_crash_loop() {
    local cycles=${GR_CRASH_CYCLES:-10} seed=${GR_CRASH_SEED:-$RANDOM} port i ms pids
    local opts=(--override num.partitions=4 --override log.segment.bytes=262144
                --override log.index.interval.bytes=1024
                --override transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
                --override group.initial.rebalance.delay.ms=0)
    echo "crash loop: $cycles cycles, GR_CRASH_SEED=$seed"
    RANDOM=$seed
    start_broker "${opts[@]}" || return 1
    port=$GR_PORT
    opts+=(--override "listeners=PLAINTEXT://127.0.0.1:$port")
    "$COMPAT_BIN/bin/crash_produce" crash 4 "$BROKER_DIR/acked" >"$BROKER_DIR/producer.out" 2>&1 &
    pids=($!)
    "$COMPAT_BIN/bin/crash_produce" crash-idem 4 "$BROKER_DIR/acked-idem" idempotent \
        >"$BROKER_DIR/producer-idem.out" 2>&1 &
    pids+=($!)
    "$COMPAT_BIN/bin/crash_txn" crash-txn 4 crash-group "$BROKER_DIR/acked-txn" \
        >"$BROKER_DIR/txn.out" 2>"$BROKER_DIR/txn.err" &
    pids+=($!)
    for i in $(seq 1 "$cycles"); do
        ms=$((50 + RANDOM % 1200))
        sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
        stop_broker KILL
        if [ $((RANDOM % 4)) = 0 ]; then
            # killed again while starting (recovery, loading)
            "$GREGOR" "${opts[@]}" --override "log.dirs=$BROKER_DIR/data" \
                >>"$BROKER_DIR/stdout" 2>>"$BROKER_DIR/broker.log" &
            sleep "0.0$((RANDOM % 10))"
            kill -KILL $! 2>/dev/null
            wait $! 2>/dev/null
        fi
        REUSE_DIR=1 start_broker "${opts[@]}" || { kill "${pids[@]}"; return 1; }
        kill -0 "${pids[@]}" 2>/dev/null || {
            cat "$BROKER_DIR"/producer*.out "$BROKER_DIR"/txn.*; kill "${pids[@]}"; return 1; }
    done
    sleep 1
    kill -TERM "${pids[@]}"
    for i in "${pids[@]}"; do
        wait "$i" || { cat "$BROKER_DIR"/producer*.out "$BROKER_DIR"/txn.*; return 1; }
    done
    cat "$BROKER_DIR"/producer*.out "$BROKER_DIR/txn.out"
    [ "$(grep -c 'unclean shutdown' "$BROKER_DIR/broker.log")" -ge "$cycles" ] || return 1
    kcat -b "$GR_BOOTSTRAP" -C -t crash -o beginning -e -q -X check.crcs=true \
        -f '%p %o %s\n' >"$BROKER_DIR/consumed" || return 1
    $PY "$COMPAT_SRC/crash_check.py" "$BROKER_DIR/acked" "$BROKER_DIR/consumed" 4 \
        "$(sed -n 's/^crash_produce: \([0-9]*\) produced.*/\1/p' "$BROKER_DIR/producer.out")" || return 1
    kcat -b "$GR_BOOTSTRAP" -C -t crash-idem -o beginning -e -q -X check.crcs=true \
        -f '%p %o %s\n' >"$BROKER_DIR/consumed-idem" || return 1
    $PY "$COMPAT_SRC/crash_check.py" "$BROKER_DIR/acked-idem" "$BROKER_DIR/consumed-idem" 4 \
        "$(sed -n 's/^crash_produce: \([0-9]*\) produced.*/\1/p' "$BROKER_DIR/producer-idem.out")" \
        exactly-once || return 1
    timeout 120 $PY "$COMPAT_SRC/crash_txn_check.py" "$BROKER_DIR/acked-txn" crash-txn 4 crash-group \
        "$(sed -n 's/^crash_txn: \([0-9]*\) attempted.*/\1/p' "$BROKER_DIR/txn.out")"
}

# torn writes: a log left by SIGKILL, its last segment cut, overwritten or
# torn and index tails damaged at random points before each start-up; the
# broker must come back with exactly the batches before the damage.
# GR_TORN_ROUNDS (default 10) rounds; GR_TORN_SEED replays a run.
s_torn_tails() {
    local rounds=${GR_TORN_ROUNDS:-10} seed=${GR_TORN_SEED:-$RANDOM} pristine i end
    local opts=(--override log.segment.bytes=16384 --override log.index.interval.bytes=512)
    echo "torn tails: $rounds rounds, GR_TORN_SEED=$seed"
    start_broker "${opts[@]}" || return 1
    timeout 60 $PY "$COMPAT_SRC/torn.py" fill 200 || return 1
    stop_broker KILL
    pristine=$BROKER_DIR/pristine
    cp -a "$BROKER_DIR/data" "$pristine"
    for i in $(seq 1 "$rounds"); do
        rm -rf "$BROKER_DIR/data"
        cp -a "$pristine" "$BROKER_DIR/data"
        end=$($PY "$COMPAT_SRC/torn.py" damage "$BROKER_DIR/data" $((seed * 1000 + i))) || return 1
        REUSE_DIR=1 start_broker "${opts[@]}" || return 1
        timeout 60 $PY "$COMPAT_SRC/torn.py" check "$end" || return 1
        stop_broker KILL
    done
}

# resource bounds: clients that never read, stall mid-frame or say
# nothing; queued.max.request.bytes across connections
s_resource_limits() {
    start_broker --override connections.max.idle.ms=2000 || return 1
    GR_BROKER_PID=$BROKER_PID timeout 60 $PY "$COMPAT_SRC/limits.py" stall || return 1
    GR_BROKER_PID=$BROKER_PID timeout 60 $PY "$COMPAT_SRC/limits.py" sessions || return 1
    stop_broker
    start_broker --override max.connections=4 || return 1
    GR_BROKER_PID=$BROKER_PID timeout 60 $PY "$COMPAT_SRC/limits.py" maxconn || return 1
    broker_alive || return 1
    stop_broker
    GREGOR_LOG_LEVEL=debug start_broker --override socket.request.max.bytes=4194304 \
        --override queued.max.request.bytes=8388608 --override message.max.bytes=5000000 || return 1
    GR_BROKER_PID=$BROKER_PID timeout 60 $PY "$COMPAT_SRC/limits.py" queued || return 1
    grep -q 'waits for request memory' "$BROKER_DIR/broker.log" || return 1
    # the bound must let the largest request in (Kafka's rule)
    ! "$GREGOR" --override socket.request.max.bytes=4194304 \
        --override queued.max.request.bytes=1000000 --override listeners=PLAINTEXT://127.0.0.1:0 \
        --override "log.dirs=$BROKER_DIR/d2" 2>"$BROKER_DIR/e2" >/dev/null &&
        grep -q 'queued.max.request.bytes' "$BROKER_DIR/e2"
}

SCENARIOS=(kcat_list rdkafka_metadata kafka_python_connect kafkajs_connect
           hostile_frames restart_keeps_topics config_handling
           rdkafka_codecs rdkafka_longpoll kcat_roundtrip kafka_python_data
           kafka_python_legacy_fetch kcat_legacy_fetch
           kafkajs_produce raw_data_path leader_epochs restart_durability
           broker_compression
           acks_and_isr idempotence temp_data many_partitions topic_creation
           topic_store_fault topic_creation_stop topic_deletion_crash
           retention_and_flush localhost_dual_stack
           rdkafka_admin rdkafka_compaction kafkajs_admin kafka_python_admin
           admin_raw kcat_admin_effects
           rdkafka_group_resume rdkafka_group_broker_restart rdkafka_group_split
           rdkafka_group_session_timeout rdkafka_group_static
           rdkafka_group_admin kafka_python_group_resume
           kafka_python_group_split kafka_python_group_session_timeout
           kafka_python_group_admin kafkajs_group_resume kafkajs_group_split
           kafkajs_group_session_timeout kafkajs_group_admin
           group_api_versions)
# exactly-once: idempotence under lost responses, transactions
# compaction of transactional data: latest committed value per key at its
# offset, aborted records gone, markers kept
s_txn_compaction() {
    start_broker --override log.cleaner.backoff.ms=200 \
        --override transaction.state.log.num.partitions=3 || return 1
    timeout 90 $PY "$COMPAT_SRC/txn_compact.py"
}

SCENARIOS+=(idempotence_lost_response idempotence_restart txn_frames
            txn_frames_restart rdkafka_txn rdkafka_txn_restart kafkajs_txn
            confluent_txn txn_consume_transform_produce txn_offsets_frames
            txn_compaction)
# the benchmark harness of issue 8 (tests/bench/run-matrix.sh), a tenth of
# its matrix once against gregor and librdkafka's mock: every run of every
# cell completes (gbench fails a run that loses or misses messages) and the
# report has a figure in every place. No figure is compared: benchmarks are
# not timed tests.
s_bench_harness() {
    local d=$COMPAT_TMP/bench rep
    mkdir -p "$d" || return 1
    rep=$d/report.md
    timeout 180 "$top_srcdir/tests/bench/run-matrix.sh" --b mock --workdir "$d" \
        --reps 1 --quick --out "$rep" >"$d/progress.log" 2>&1 || {
        tail -n 30 "$d/progress.log"
        return 1
    }
    # the raw lines: cell, broker, rep, exit status, figures
    awk -F'\t' 'NF >= 5 { n++; if ($4 != 0) { bad++; print "failed run: " $0 } }
        END { print n " runs, " bad + 0 " failed"; exit !(n >= 60 && bad == 0) }' "$rep" ||
        return 1
    if grep -n 'FAIL\|DIED\|died' "$rep"; then
        return 1
    fi
    grep -q '^## The 1 GiB produce against the least a disk-writing broker can do' "$rep"
}

SCENARIOS+=(stray_partition_dir storage_faults crash_loop torn_tails
            resource_limits bench_harness)
SCENARIOS+=(topic_names_restart topic_names_deletion_crash)
# the client matrix: each compat/<client>/scenarios.sh defines its s_*
# functions (and LIMIT_* bounds) and adds them to SCENARIOS
for f in "$COMPAT_SRC"/*/scenarios.sh; do
    [ -f "$f" ] && . "$f"
done
[ $# -gt 0 ] && SCENARIOS=("$@")
[ -x "$GREGOR" ] || { echo "1..1"; echo "not ok 1 - gregor not built at $GREGOR"; exit 1; }
echo "1..${#SCENARIOS[@]}"
# time bounds of the scenarios whose length is configurable
LIMIT_crash_loop=$((60 + ${GR_CRASH_CYCLES:-10} * 3))
LIMIT_torn_tails=$((60 + ${GR_TORN_ROUNDS:-10} * 3))
LIMIT_bench_harness=200
# Scenarios run COMPAT_JOBS at a time (default 3: most of a scenario's
# time is a client or broker waiting on a timer, not CPU), each in its own
# temp directory with its own broker on its own port. Those that measure
# latency or load, or load the machine themselves, run alone afterwards.
# TAP lines come out in the order of SCENARIOS, each with its duration.
serial_scenario() {
    case $1 in
    attack_* | bench_harness | resource_limits | *_figures | crash_loop | \
        torn_tails | storage_faults | many_partitions | quota_rates | quota_sasl_user) return 0 ;;
    esac
    return 1
}
jobs_max=${COMPAT_JOBS:-3}
[ -n "$COMPAT_SERIAL" ] && jobs_max=1
order=()
for s in "${SCENARIOS[@]}"; do
    serial_scenario "$s" || order+=("$s")
done
for s in "${SCENARIOS[@]}"; do
    serial_scenario "$s" && order+=("$s")
done
res=$COMPAT_TMP/results
mkdir -p "$res"
# one scenario in the background: its TAP line and diagnostics go to
# res/N, then res/N.done marks it complete
start_scenario() { # index name
    local i=$1 s=$2 limit=LIMIT_$2
    (
        t0=$(date +%s)
        T_N=$((i - 1)) T_FAILED=0
        run_scenario "$s" "s_$s" "${!limit:-120}"
        echo "# $s: $(( $(date +%s) - t0 )) s"
    ) >"$res/$i" 2>&1 </dev/null &
    running[$i]=$!
}
declare -A running=()
next=0 printed=0 total=${#order[@]}
while [ "$printed" -lt "$total" ]; do
    # a serial scenario starts only when nothing else runs
    while [ "$next" -lt "$total" ] && [ ${#running[@]} -lt "$jobs_max" ]; do
        if serial_scenario "${order[$next]}" && [ ${#running[@]} -gt 0 ]; then
            break
        fi
        start_scenario $((next + 1)) "${order[$next]}"
        next=$((next + 1))
        serial_scenario "${order[$((next - 1))]}" && break
    done
    wait -n 2>/dev/null
    for i in "${!running[@]}"; do
        kill -0 "${running[$i]}" 2>/dev/null && continue
        wait "${running[$i]}" 2>/dev/null
        unset "running[$i]"
    done
    # print, in order, every result that is complete
    while [ "$printed" -lt "$next" ] && [ -z "${running[$((printed + 1))]}" ]; do
        printed=$((printed + 1))
        cat "$res/$printed"
        grep -q '^not ok ' "$res/$printed" && T_FAILED=$((T_FAILED + 1))
    done
done
[ "$T_FAILED" = 0 ]
