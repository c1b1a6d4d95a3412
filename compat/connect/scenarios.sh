# compat/connect/scenarios.sh: Kafka Connect 4.4.0 standalone with the
# FileStream connectors (compat/connect/pom.xml) against gregor. Sourced by
# compat/run.sh; installed by install.sh into $GR_CLIENTS/connect (the jars
# in lib/, our checker in classes/).

CONNECT_HOME=$GR_CLIENTS/connect
CONNECT_JAVA=(java -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
              -Djava.io.tmpdir="$COMPAT_TMP"
              -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
              -Dorg.slf4j.simpleLogger.showDateTime=true
              -Dorg.slf4j.simpleLogger.log.org.apache.kafka.connect.runtime.rest.RestServer=info
              -cp "$CONNECT_HOME/classes:$CONNECT_HOME/lib/*")
CONNECT_PIDS=()

connect_ready() {
    need java || return 1
    local here=$COMPAT_SRC/connect sum
    sum=$(cat "$here/pom.xml" "$here/jars.sha256" "$here"/src/*.java | sha256sum | cut -d' ' -f1)
    [ "$(cat "$CONNECT_HOME/.stamp" 2>/dev/null)" = "$sum" ] || {
        echo "Kafka Connect is not installed (or is stale): run sh compat/connect/install.sh"
        return 1
    }
}

# connect_start DIR LOG: ConnectStandalone with the file source and sink in
# the background; sets CONNECT_PID and CONNECT_URL (its REST API)
connect_start() {
    local d=$1 log=$2 url
    "${CONNECT_JAVA[@]}" org.apache.kafka.connect.cli.ConnectStandalone \
        "$d/worker.properties" "$d/source.properties" "$d/sink.properties" >>"$log" 2>&1 &
    CONNECT_PID=$!
    CONNECT_PIDS+=("$CONNECT_PID")
    echo "# connect standalone $CONNECT_PID"
    CONNECT_URL=
    for _ in $(seq 1 600); do
        url=$(sed -n 's|.*REST server listening at \(http://127.0.0.1:[0-9]*/\).*|\1|p' "$log" | tail -1)
        [ -n "$url" ] && { CONNECT_URL=$url; break; }
        kill -0 "$CONNECT_PID" 2>/dev/null || { echo "connect died"; tail -n 30 "$log"; return 1; }
        sleep 0.1
    done
    [ -n "$CONNECT_URL" ] || { echo "no REST server in 60 s"; tail -n 30 "$log"; return 1; }
    timeout 90 "${CONNECT_JAVA[@]}" ConnectTool status "$CONNECT_URL" 60 file-source file-sink || {
        tail -n 30 "$log"; return 1; }
}

# connect_stop LOG: SIGTERM, a clean stop (offsets flushed and committed)
connect_stop() {
    local rc
    kill -TERM "$CONNECT_PID"
    wait "$CONNECT_PID"
    rc=$?
    # the JVM exits 143 after its shutdown hook (Connect's stop) on SIGTERM
    [ $rc = 143 ] || [ $rc = 0 ] || { echo "connect exited $rc"; tail -n 30 "$1"; return 1; }
    grep -q 'ERROR' "$1" && { grep 'ERROR' "$1" | head -n 10; return 1; }
    return 0
}

# connect_wait_lines FILE N SECONDS: until the sink file has N lines
connect_wait_lines() {
    local n
    for _ in $(seq 1 $(($3 * 10))); do
        n=$(wc -l <"$1" 2>/dev/null || echo 0)
        [ "$n" -ge "$2" ] && return 0
        sleep 0.1
    done
    echo "the sink file has $n lines of $2 after $3 s"
    return 1
}

# FileStreamSource -> topic -> FileStreamSink: 1,000 lines in the file, 200
# more appended while Connect runs, a clean stop; 500 lines appended while
# it is stopped and 300 (some UTF-8) after it started again. The source
# keeps its position in offset.storage.file.filename and the sink its
# consumer offsets in the broker: only the new lines travel, and the sink
# file ends as a copy of the source file, every line once and in order.
# The topic is made by Connect (topic.creation.default.*) with its configs.
s_connect_file_roundtrip() {
    connect_ready || return 1
    connect_file_roundtrip
    local rc=$?
    [ ${#CONNECT_PIDS[@]} -gt 0 ] && kill -KILL "${CONNECT_PIDS[@]}" 2>/dev/null
    wait "${CONNECT_PIDS[@]}" 2>/dev/null
    return $rc
}

connect_file_roundtrip() {
    local d t0 tool=(timeout 60 "${CONNECT_JAVA[@]}" ConnectTool)
    start_broker || return 1
    d=$BROKER_DIR/connect
    mkdir -p "$d"
    cat >"$d/worker.properties" <<EOF
bootstrap.servers=$GR_BOOTSTRAP
listeners=http://127.0.0.1:0
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
offset.storage.file.filename=$d/connect.offsets
offset.flush.interval.ms=300
plugin.discovery=service_load
task.shutdown.graceful.timeout.ms=10000
producer.linger.ms=5
consumer.group.protocol=classic
consumer.session.timeout.ms=3000
consumer.heartbeat.interval.ms=500
consumer.fetch.max.wait.ms=100
consumer.allow.auto.create.topics=false
EOF
    cat >"$d/source.properties" <<EOF
name=file-source
connector.class=FileStreamSource
tasks.max=1
file=$d/source.txt
topic=connect-lines
topic.creation.default.partitions=1
topic.creation.default.replication.factor=1
topic.creation.default.compression.type=lz4
topic.creation.default.cleanup.policy=delete
topic.creation.default.retention.ms=86400000
EOF
    cat >"$d/sink.properties" <<EOF
name=file-sink
connector.class=FileStreamSink
tasks.max=1
file=$d/sink.txt
topics=connect-lines
EOF
    t0=$(($(date +%s) * 1000))
    "${tool[@]}" lines "$d/source.txt" 0 1000 || return 1

    connect_start "$d" "$d/run1.log" || return 1
    connect_wait_lines "$d/sink.txt" 1000 60 || return 1
    "${tool[@]}" lines "$d/source.txt" 1000 1200 || return 1
    connect_wait_lines "$d/sink.txt" 1200 60 || return 1
    connect_stop "$d/run1.log" || return 1
    cmp "$d/source.txt" "$d/sink.txt" || return 1
    grep -q 'position' "$d/connect.offsets" || { echo "no source offsets stored"; return 1; }
    "${tool[@]}" verify "$GR_BOOTSTRAP" connect-lines "$d/source.txt" connect-file-sink $t0 || return 1

    "${tool[@]}" lines "$d/source.txt" 1200 1700 || return 1
    connect_start "$d" "$d/run2.log" || return 1
    connect_wait_lines "$d/sink.txt" 1700 60 || return 1
    "${tool[@]}" lines "$d/source.txt" 1700 2000 utf8 || return 1
    connect_wait_lines "$d/sink.txt" 2000 60 || return 1
    connect_stop "$d/run2.log" || return 1
    cmp "$d/source.txt" "$d/sink.txt" || return 1
    "${tool[@]}" verify "$GR_BOOTSTRAP" connect-lines "$d/source.txt" connect-file-sink $t0 || return 1
    grep -c '' "$d/sink.txt" | sed 's/^/# sink file lines: /'
}

LIMIT_connect_file_roundtrip=120
SCENARIOS+=(connect_file_roundtrip)
