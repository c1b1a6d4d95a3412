# compat/streams/scenarios.sh: Kafka Streams 4.4.0 (compat/streams/pom.xml)
# against gregor. Sourced by compat/run.sh; installed by install.sh into
# $GR_CLIENTS/streams (the jars in lib/, our programs in classes/).

STREAMS_HOME=$GR_CLIENTS/streams
STREAMS_JAVA=(java -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
              -Djava.io.tmpdir="$COMPAT_TMP"
              -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
              -Dorg.slf4j.simpleLogger.showDateTime=true
              -cp "$STREAMS_HOME/classes:$STREAMS_HOME/lib/*")
STREAMS_PIDS=()

streams_ready() {
    need java || return 1
    local here=$COMPAT_SRC/streams sum
    sum=$(cat "$here/pom.xml" "$here/jars.sha256" "$here"/src/*.java | sha256sum | cut -d' ' -f1)
    [ "$(cat "$STREAMS_HOME/.stamp" 2>/dev/null)" = "$sum" ] || {
        echo "Kafka Streams is not installed (or is stale): run sh compat/streams/install.sh"
        return 1
    }
}

# streams_start STATE_DIR LOG PAUSE_MS: a word count
# instance in the background, each line taking PAUSE_MS more (2: at most
# 500 lines a second, so that the instance is killed mid-stream)
streams_start() {
    local dir=$1 log=$2 pause=$3
    "${STREAMS_JAVA[@]}" WordCount "$GR_BOOTSTRAP" wc "$dir" wc-in wc-out "$pause" >>"$log" 2>&1 &
    STREAMS_PID=$!
    STREAMS_PIDS+=("$STREAMS_PID")
    echo "# streams instance $STREAMS_PID, state dir $dir"
}

# streams_wait_processed LOG N SECONDS: until the instance has taken N lines
# (at 500 a second, a score of transactions committed meanwhile)
streams_wait_processed() {
    local n
    for _ in $(seq 1 $(($3 * 10))); do
        n=$(sed -n 's/^processed \([0-9]*\)$/\1/p' "$1" | tail -1)
        [ -n "$n" ] && [ "$n" -ge "$2" ] && return 0
        kill -0 "$STREAMS_PID" 2>/dev/null || { echo "streams instance died"; tail -n 30 "$1"; return 1; }
        sleep 0.1
    done
    echo "streams instance took ${n:-0} lines of $2 in $3 s"
    tail -n 30 "$1"
    return 1
}

# streams_wait_counts LOG LINES SECONDS: until the output has every word's
# count in the first LINES lines; fails at once if the instance dies
streams_wait_counts() {
    local w
    timeout $(($3 + 10)) "${STREAMS_JAVA[@]}" StreamsTool wait "$GR_BOOTSTRAP" wc-out "$2" "$3" &
    w=$!
    while kill -0 "$w" 2>/dev/null; do
        if ! kill -0 "$STREAMS_PID" 2>/dev/null; then
            kill "$w" 2>/dev/null
            wait "$w" 2>/dev/null
            echo "the streams instance died:"
            grep -v '^processed' "$1" | tail -n 30
            return 1
        fi
        sleep 0.2
    done
    wait "$w" || { grep -v '^processed' "$1" | tail -n 30; return 1; }
}

# the word count under exactly_once_v2, fed 4,000 lines while its instance
# is SIGKILLed twice mid-stream (restarted on the same state dir),
# then started on a wiped state dir (the store restored from the changelog,
# the killed instance's open transaction aborted by the broker's timeout)
# and fed 2,000 more. The output
# read_committed holds each word's counts 1..n exactly once, in order, with
# the right timestamps; the internal topics Streams created have Streams'
# configs; the group's offsets cover all the input; DeleteRecords purged
# the repartition topic; no transaction is left open.
s_streams_wordcount_eos() {
    streams_ready || return 1
    streams_wordcount_eos
    local rc=$?
    [ ${#STREAMS_PIDS[@]} -gt 0 ] && kill -KILL "${STREAMS_PIDS[@]}" 2>/dev/null
    wait "${STREAMS_PIDS[@]}" 2>/dev/null
    return $rc
}

streams_wordcount_eos() {
    local lines=6000 part=4000 t0 d feed rc
    start_broker --override transaction.abort.timed.out.transaction.cleanup.interval.ms=500 \
        --override log.cleaner.backoff.ms=500 || return 1
    d=$BROKER_DIR/streams
    mkdir -p "$d"
    t0=$(($(date +%s) * 1000 - 30000))
    timeout 60 "${STREAMS_JAVA[@]}" StreamsTool setup "$GR_BOOTSTRAP" wc-in wc-out 2 || return 1
    # the first 4,000 lines over 4 s: runs 1 and 2 are killed with lines
    # still to take
    "${STREAMS_JAVA[@]}" StreamsTool feed "$GR_BOOTSTRAP" wc-in 0 $part 1000 $t0 >"$d/feed.out" 2>&1 &
    feed=$!
    STREAMS_PIDS+=("$feed")

    streams_start "$d/state" "$d/run1.out" 2
    streams_wait_processed "$d/run1.out" 1200 60 || return 1
    kill -KILL "$STREAMS_PID"
    wait "$STREAMS_PID" 2>/dev/null
    echo "# run 1 killed after $(sed -n 's/^processed //p' "$d/run1.out" | tail -1) lines"

    streams_start "$d/state" "$d/run2.out" 2
    streams_wait_processed "$d/run2.out" 1200 60 || return 1
    kill -KILL "$STREAMS_PID"
    wait "$STREAMS_PID" 2>/dev/null
    echo "# run 2 (same state dir) killed after $(sed -n 's/^processed //p' "$d/run2.out" | tail -1) lines"
    wait "$feed" || { echo "feed failed"; cat "$d/feed.out"; return 1; }
    cat "$d/feed.out"

    # run 3 restores its wiped store, then counts the last 2,000 lines
    rm -rf "$d/state"
    streams_start "$d/state" "$d/run3.out" 0
    for _ in $(seq 1 600); do
        grep -q '^state RUNNING' "$d/run3.out" && break
        kill -0 "$STREAMS_PID" 2>/dev/null || break
        sleep 0.1
    done
    grep -q '^state RUNNING' "$d/run3.out" || { echo "run 3 not RUNNING in 60 s"; tail -n 40 "$d/run3.out"; return 1; }
    timeout 60 "${STREAMS_JAVA[@]}" StreamsTool feed "$GR_BOOTSTRAP" wc-in $part $lines 1000 $t0 || return 1
    streams_wait_counts "$d/run3.out" $lines 90 || return 1
    kill -TERM "$STREAMS_PID"
    wait "$STREAMS_PID"
    rc=$?
    echo "# run 3 (state dir wiped) stopped, exit $rc: $(grep '^closed' "$d/run3.out")"
    [ $rc = 0 ] || [ $rc = 143 ] || { tail -n 40 "$d/run3.out"; return 1; }
    grep -q 'state PENDING_SHUTDOWN' "$d/run3.out" && grep -q '^closed' "$d/run3.out" || {
        tail -n 40 "$d/run3.out"; return 1; }
    [ "$(sed -n 's/^closed, processed //p' "$d/run3.out")" -ge $((lines - part)) ] || {
        echo "run 3 did not count the last $((lines - part)) lines"; return 1; }
    # the wiped store was restored from the changelog, both partitions
    grep '^restored ' "$d/run3.out" | sed 's/^/# run 3 /'
    [ "$(grep -c '^restored wc-counts-changelog-[01] [1-9][0-9]* records' "$d/run3.out")" = 2 ] || {
        echo "run 3 did not restore both store partitions from the changelog"; return 1; }
    echo "# $(cat "$d"/run*.out | grep -c 'TaskCorruptedException') TaskCorruptedException lines" \
        "(EOS wiping a store that a SIGKILL left without a checkpoint, as with Kafka)"
    # what the broker did about the killed instances' open transactions
    # (run 2 has run 1's transactional id: the process id is kept in the
    # state dir; run 3 has a new one, so run 2's is aborted by its timeout)
    grep -E 'transactional id wc-.*(fencing|timed out)' "$BROKER_DIR/broker.log" | sed 's/^/# broker: /'
    timeout 100 "${STREAMS_JAVA[@]}" StreamsTool verify "$GR_BOOTSTRAP" wc wc-in wc-out $lines 2 $t0
}

# the word count reading input batches of about 16 KiB with a consumer
# that fetches at most 4 KiB a partition (max.partition.fetch.bytes=4096,
# the repartition topic's batches kept under it). Kafka returns the first
# batch of the response's first partition whole (KIP-74) and no records
# for the others when their first batch is over their limit (Fetch v3+),
# so the consumer always makes progress; the counts are exact as above.
s_streams_large_batches() {
    streams_ready || return 1
    streams_large_batches
    local rc=$?
    [ ${#STREAMS_PIDS[@]} -gt 0 ] && kill -KILL "${STREAMS_PIDS[@]}" 2>/dev/null
    wait "${STREAMS_PIDS[@]}" 2>/dev/null
    return $rc
}

streams_large_batches() {
    local lines=3000 t0 d rc
    start_broker || return 1
    d=$BROKER_DIR/streams
    mkdir -p "$d"
    t0=$(($(date +%s) * 1000 - 30000))
    timeout 60 "${STREAMS_JAVA[@]}" StreamsTool setup "$GR_BOOTSTRAP" wc-in wc-out 2 || return 1
    timeout 60 "${STREAMS_JAVA[@]}" StreamsTool feed "$GR_BOOTSTRAP" wc-in 0 $lines 100000 $t0 \
        16384 200 || return 1
    streams_start "$d/state" "$d/run.out" 0
    streams_wait_counts "$d/run.out" $lines 60 || return 1
    # Streams purges the repartition topic at a commit once
    # repartition.purge.interval.ms (500) has passed since its last purge:
    # a backlog worked through within that time is never purged, so more
    # lines come a second later, and their commit purges
    sleep 1
    timeout 60 "${STREAMS_JAVA[@]}" StreamsTool feed "$GR_BOOTSTRAP" wc-in $lines $((lines + 100)) \
        100000 $t0 16384 200 || return 1
    lines=$((lines + 100))
    streams_wait_counts "$d/run.out" $lines 60 || return 1
    kill -TERM "$STREAMS_PID"
    wait "$STREAMS_PID"
    rc=$?
    [ $rc = 0 ] || [ $rc = 143 ] || { tail -n 40 "$d/run.out"; return 1; }
    timeout 100 "${STREAMS_JAVA[@]}" StreamsTool verify "$GR_BOOTSTRAP" wc wc-in wc-out $lines 2 $t0
}

LIMIT_streams_wordcount_eos=150
LIMIT_streams_large_batches=100
SCENARIOS+=(streams_wordcount_eos streams_large_batches)
