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

node_modules_ready() {
    [ -d "$COMPAT_SRC/node/node_modules/kafkajs" ] || {
        echo "kafkajs is not installed: run (cd compat/node && npm ci)"
        return 1
    }
}

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
    REUSE_DIR=1 start_broker --override auto.create.topics.enable=false || return 1
    kcat -b "$GR_BOOTSTRAP" -L -m 10 | grep -q 'topic "compat-keep" with 1 partitions' || return 1
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
    grep -q 'zookeeper.connect is set but not used' "$d/e2" || return 1
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
    timeout 60 $PY "$COMPAT_SRC/kpy_raw.py"
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
    # message arrives once
    stop_broker
    GREGOR_FAULTS=log.write@/pc-fault-0:1:3 REUSE_DIR=1 start_broker || return 1
    "$COMPAT_BIN/bin/produce_consume" pc-fault none 2000 100 1 || return 1
    [ "$(grep -c 'pc-fault-0/00000000000000000000.log: append of' "$BROKER_DIR/broker.log")" = 3 ] || {
        echo "expected 3 failed appends"; return 1; }
    stop_broker
    REUSE_DIR=1 start_broker || return 1
    timeout 60 $PY "$COMPAT_SRC/faults.py" after
}

# SIGKILL at random moments under acks=all producers: every acknowledged
# record is there after the restarts, at its offset, in order; duplicates
# (idempotence is off) are counted. GR_CRASH_CYCLES (default 10) cycles;
# GR_CRASH_SEED picks the moments (printed, so a run can be replayed).
s_crash_loop() {
    local cycles=${GR_CRASH_CYCLES:-10} seed=${GR_CRASH_SEED:-$RANDOM} port pid i ms
    local opts=(--override num.partitions=4 --override log.segment.bytes=262144
                --override log.index.interval.bytes=1024)
    echo "crash loop: $cycles cycles, GR_CRASH_SEED=$seed"
    RANDOM=$seed
    start_broker "${opts[@]}" || return 1
    port=$GR_PORT
    opts+=(--override "listeners=PLAINTEXT://127.0.0.1:$port")
    "$COMPAT_BIN/bin/crash_produce" crash 4 "$BROKER_DIR/acked" >"$BROKER_DIR/producer.out" 2>&1 &
    pid=$!
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
        REUSE_DIR=1 start_broker "${opts[@]}" || { kill $pid; return 1; }
        kill -0 $pid 2>/dev/null || { cat "$BROKER_DIR/producer.out"; return 1; }
    done
    sleep 1
    kill -TERM $pid
    wait $pid || { cat "$BROKER_DIR/producer.out"; return 1; }
    cat "$BROKER_DIR/producer.out"
    [ "$(grep -c 'unclean shutdown' "$BROKER_DIR/broker.log")" -ge "$cycles" ] || return 1
    kcat -b "$GR_BOOTSTRAP" -C -t crash -o beginning -e -q -X check.crcs=true \
        -f '%p %o %s\n' >"$BROKER_DIR/consumed" || return 1
    $PY "$COMPAT_SRC/crash_check.py" "$BROKER_DIR/acked" "$BROKER_DIR/consumed" 4 \
        "$(sed -n 's/^crash_produce: \([0-9]*\) produced.*/\1/p' "$BROKER_DIR/producer.out")"
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
           kafkajs_produce raw_data_path restart_durability broker_compression
           stray_partition_dir storage_faults crash_loop torn_tails
           resource_limits)
[ $# -gt 0 ] && SCENARIOS=("$@")
[ -x "$GREGOR" ] || { echo "1..1"; echo "not ok 1 - gregor not built at $GREGOR"; exit 1; }
echo "1..${#SCENARIOS[@]}"
# time bounds of the scenarios whose length is configurable
LIMIT_crash_loop=$((60 + ${GR_CRASH_CYCLES:-10} * 3))
LIMIT_torn_tails=$((60 + ${GR_TORN_ROUNDS:-10} * 3))
for s in "${SCENARIOS[@]}"; do
    limit=LIMIT_$s
    run_scenario "$s" "s_$s" "${!limit:-120}"
done
[ "$T_FAILED" = 0 ]
