# compat/kafka-tools/scenarios.sh: Apache Kafka's own command-line tools
# (kafka_2.13 and kafka-tools 4.4.0, installed by compat/kafka-tools/install.sh
# into $GR_CLIENTS/kafka/libs, run by compat/kafka-tools/kt) against gregor.
# Sourced by compat/run.sh. What is asserted is what the same tool prints
# against Kafka 4.4.0 (tests/kafka/run-kafka.sh), less what differs from one
# run to the next (ids, times, ports, directories), which is checked against
# what the clients wrote instead. Every check of a scenario runs and reports
# ("# FAIL: ..."); the scenario fails if any did.

KT_SRC=$COMPAT_SRC/kafka-tools
KT_BIN=$KT_SRC/kt

# kt_start [--override KEY=VALUE]...: a gregor (start_broker), or with
# KT_REFERENCE=kafka a real Kafka 4.4.0 (tests/kafka/run-kafka.sh), to show
# that every assertion here is what Kafka does; KT_DATA is its log.dirs and
# KT_OUT where the tools' outputs go
kt_start() {
    need java || return 1
    [ -d "$GR_CLIENTS/kafka/libs" ] || {
        echo "Kafka's tools are not installed: run sh compat/kafka-tools/install.sh"
        return 1
    }
    KT_FAILS=0
    if [ "${KT_REFERENCE:-gregor}" = kafka ]; then
        "$top_srcdir/tests/kafka/run-kafka.sh" --daemon --keep --tmp "$COMPAT_TMP" "$@" \
            >"$COMPAT_TMP/kafka.start" || { cat "$COMPAT_TMP/kafka.start"; return 1; }
        BROKER_DIR=$(sed -n 's/^kafka: dir //p' "$COMPAT_TMP/kafka.start")
        GR_BOOTSTRAP=$(sed -n 's/^kafka: listening on //p' "$COMPAT_TMP/kafka.start")
        ln -sf node-1/kafka.log "$BROKER_DIR/broker.log"
        KT_DATA=$BROKER_DIR/node-1/data
        echo "# against Kafka at $GR_BOOTSTRAP"
    else
        start_broker "$@" || return 1
        KT_DATA=$BROKER_DIR/data
    fi
    KT_OUT=$BROKER_DIR/kt
    mkdir -p "$KT_OUT"
}

# kt_stop: a clean stop (SIGTERM); gregor's exit status must be 0
kt_stop() {
    if [ "${KT_REFERENCE:-gregor}" = kafka ]; then
        "$top_srcdir/tests/kafka/run-kafka.sh" --stop "$BROKER_DIR" >/dev/null
    else
        stop_broker
        [ "$BROKER_RC" = 0 ] || kt_fail "gregor's exit status after SIGTERM: $BROKER_RC"
    fi
}

# ktr NAME TOOL [ARG]...: runs a tool under a time bound, stdout to
# $KT_OUT/NAME.out, stderr to NAME.err; its exit status in KT_RC
ktr() {
    local name=$1
    shift
    echo "# kt $*"
    timeout "${KT_LIMIT:-60}" "$KT_BIN" "$@" >"$KT_OUT/$name.out" 2>"$KT_OUT/$name.err" </dev/null
    KT_RC=$?
}

# ktr_bg NAME TOOL ARG...: ktr in the background, its status kept for
# kt_wait (tools that read and do not depend on each other run side by
# side: each is a JVM start of seconds on a loaded machine)
KT_BG=()
ktr_bg() {
    local name=$1
    ( ktr "$@"; echo "$KT_RC" >"$KT_OUT/$name.rc" ) &
    KT_BG+=($!)
}

# kt_wait NAME...: waits for the background tools (by pid: the broker is
# a child too), then kt_rc on each
kt_wait() {
    local n p
    for p in "${KT_BG[@]}"; do wait "$p"; done
    KT_BG=()
    for n in "$@"; do
        KT_RC=$(cat "$KT_OUT/$n.rc" 2>/dev/null || echo missing)
        kt_rc "$n"
    done
}

kt_fail() {
    echo "# FAIL: $*"
    KT_FAILS=$((KT_FAILS + 1))
}

kt_show() { # NAME: what the tool printed, for a failure
    sed "s/^/#   out: /" "$KT_OUT/$1.out" | head -n 10
    sed "s/^/#   err: /" "$KT_OUT/$1.err" | head -n 10
}

# kt_rc NAME [STATUS]: the tool exited STATUS (0); its stderr has no ERROR
# and no exception unless it failed on purpose
kt_rc() {
    local want=${2:-0}
    if [ "$KT_RC" != "$want" ]; then
        kt_fail "$1: exit status $KT_RC, Kafka's is $want"
        kt_show "$1"
        return 1
    fi
    if [ "$want" = 0 ] && grep -q 'ERROR\|Exception' "$KT_OUT/$1.err"; then
        kt_fail "$1: errors on stderr"
        kt_show "$1"
        return 1
    fi
    return 0
}

# kt_out NAME: stdout is exactly stdin (what Kafka prints)
kt_out() {
    if ! diff -u - "$KT_OUT/$1.out" >"$KT_OUT/$1.diff"; then
        kt_fail "$1: stdout is not Kafka's (-Kafka +gregor):"
        sed 1,2d "$KT_OUT/$1.diff" | head -n 30 | sed 's/^/#   /'
        return 1
    fi
}

# kt_lines NAME: every line of stdin is a line of NAME's stdout (for a
# missing "  key=value ..." line, the one gregor printed for the key is shown)
kt_lines() {
    local l k bad=0
    while IFS= read -r l; do
        grep -qxF -- "$l" "$KT_OUT/$1.out" && continue
        kt_fail "$1: no line \"$l\""
        k=${l%%=*}
        case $k in
        "  "*) grep -F -- "$k=" "$KT_OUT/$1.out" | grep "^$k=" | sed 's/^/#   gregor: /' ;;
        esac
        bad=1
    done
    return $bad
}

kt_done() {
    [ "$KT_FAILS" = 0 ] || { echo "# $KT_FAILS checks failed"; return 1; }
}

# --- kafka-topics, kafka-configs, kafka-leader-election -------------------
s_kafka_tools_topics_configs() {
    local B d id
    kt_start || return 1
    B=$GR_BOOTSTRAP
    ktr create topics --bootstrap-server "$B" --create --topic kt-a --partitions 3 \
        --replication-factor 1 --config retention.ms=3600000 --config cleanup.policy=compact
    kt_rc create && echo "Created topic kt-a." | kt_out create
    ktr create2 topics --bootstrap-server "$B" --create --topic kt-del --partitions 2
    kt_rc create2 && echo "Created topic kt-del." | kt_out create2
    # creating it again: TopicExistsException, exit status 1
    ktr exists topics --bootstrap-server "$B" --create --topic kt-a --partitions 3
    kt_rc exists 1 && echo "Error while executing topic command : Topic 'kt-a' already exists." |
        kt_out exists
    grep -q "TopicExistsException: Topic 'kt-a' already exists." "$KT_OUT/exists.err" ||
        kt_fail "exists: no TopicExistsException on stderr"
    ktr list topics --bootstrap-server "$B" --list
    kt_rc list && printf 'kt-a\nkt-del\n' | kt_out list
    ktr alter topics --bootstrap-server "$B" --alter --topic kt-a --partitions 5
    kt_rc alter && kt_out alter </dev/null
    ktr describe topics --bootstrap-server "$B" --describe --topic kt-a
    if kt_rc describe; then
        # Kafka 4.4 lists a cluster-wide min.insync.replicas=1 first among
        # the Configs (a default its storage format sets); not asked here
        head -1 "$KT_OUT/describe.out" | grep -Eq \
            $'^Topic: kt-a\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 5\tReplicationFactor: 1\tConfigs: (min.insync.replicas=1,)?cleanup.policy=compact,retention.ms=3600000$' ||
            { kt_fail "describe: topic line"; kt_show describe; }
        # the id is the one in the partition directories' partition.metadata
        id=$(head -1 "$KT_OUT/describe.out" | sed -n 's/.*TopicId: \([^[:space:]]*\).*/\1/p')
        for p in 0 1 2 3 4; do
            grep -qx "topic_id: $id" "$KT_DATA/kt-a-$p/partition.metadata" ||
                kt_fail "describe: topic id $id is not kt-a-$p/partition.metadata's"
        done
        # DescribeTopicPartitions (Kafka 4.4 answers it: empty ELR lists;
        # without it the tool falls back to Metadata and prints N/A)
        for p in 0 1 2 3 4; do
            printf '\tTopic: kt-a\tPartition: %s\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n' $p
        done | tail -n +1 >"$KT_OUT/describe.want"
        tail -n +2 "$KT_OUT/describe.out" >"$KT_OUT/describe.parts"
        diff -u "$KT_OUT/describe.want" "$KT_OUT/describe.parts" >/dev/null || {
            kt_fail "describe: partition lines are not Kafka's (-Kafka +gregor):"
            diff -u "$KT_OUT/describe.want" "$KT_OUT/describe.parts" | sed 1,2d | sed 's/^/#   /'
        }
    fi
    ktr delete topics --bootstrap-server "$B" --delete --topic kt-del
    kt_rc delete && kt_out delete </dev/null
    ktr list2 topics --bootstrap-server "$B" --list
    kt_rc list2 && echo kt-a | kt_out list2

    # kafka-configs: a topic's dynamic configs, altered (add and delete)
    ktr cfg_topic configs --bootstrap-server "$B" --describe --entity-type topics --entity-name kt-a
    kt_rc cfg_topic && kt_out cfg_topic <<'OUT'
Dynamic configs for topic kt-a are:
  cleanup.policy=compact sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact, DEFAULT_CONFIG:log.cleanup.policy=delete}
  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000}
OUT
    ktr cfg_alter configs --bootstrap-server "$B" --alter --entity-type topics --entity-name kt-a \
        --add-config retention.ms=7200000,max.message.bytes=2000000 --delete-config cleanup.policy
    kt_rc cfg_alter && echo "Completed updating config for topic kt-a." | kt_out cfg_alter
    ktr cfg_all configs --bootstrap-server "$B" --describe --all --entity-type topics --entity-name kt-a
    if kt_rc cfg_all; then
        kt_lines cfg_all <<'OUT'
All configs for topic kt-a are:
  cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}
  compression.type=producer sensitive=false synonyms={DEFAULT_CONFIG:compression.type=producer}
  max.message.bytes=2000000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:max.message.bytes=2000000, DEFAULT_CONFIG:message.max.bytes=1048588}
  message.timestamp.after.max.ms=3600000 sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.after.max.ms=3600000}
  message.timestamp.type=CreateTime sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.type=CreateTime}
  retention.bytes=-1 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.bytes=-1}
  retention.ms=7200000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=7200000}
  segment.bytes=1073741824 sensitive=false synonyms={DEFAULT_CONFIG:log.segment.bytes=1073741824}
  segment.index.bytes=10485760 sensitive=false synonyms={DEFAULT_CONFIG:log.index.size.max.bytes=10485760}
  unclean.leader.election.enable=false sensitive=false synonyms={DEFAULT_CONFIG:unclean.leader.election.enable=false}
OUT
        # the topic configs Kafka 4.4 has, no more, no fewer
        sed -n 's/^  \([^=]*\)=.*/\1/p' "$KT_OUT/cfg_all.out" >"$KT_OUT/cfg_all.names"
        diff -u - "$KT_OUT/cfg_all.names" >"$KT_OUT/cfg_all.ndiff" <<'NAMES' || {
cleanup.policy
compression.gzip.level
compression.lz4.level
compression.type
compression.zstd.level
delete.retention.ms
errors.deadletterqueue.group.enable
file.delete.delay.ms
flush.messages
flush.ms
follower.replication.throttled.replicas
index.interval.bytes
leader.replication.throttled.replicas
local.retention.bytes
local.retention.ms
max.compaction.lag.ms
max.decompressed.message.bytes
max.message.bytes
message.timestamp.after.max.ms
message.timestamp.before.max.ms
message.timestamp.type
min.cleanable.dirty.ratio
min.compaction.lag.ms
min.insync.replicas
preallocate
remote.copy.lag.bytes
remote.copy.lag.ms
remote.log.copy.disable
remote.log.delete.on.disable
remote.storage.enable
retention.bytes
retention.ms
segment.bytes
segment.index.bytes
segment.jitter.ms
segment.ms
unclean.leader.election.enable
NAMES
            kt_fail "cfg_all: the topic config names are not Kafka 4.4's (-Kafka +gregor):"
            grep '^[-+][^-+]' "$KT_OUT/cfg_all.ndiff" | sed 's/^/#   /'
        }
    fi
    # a broker's dynamic config and the cluster-wide default (--entity-default)
    ktr cfg_b1 configs --bootstrap-server "$B" --alter --entity-type brokers --entity-name 1 \
        --add-config log.cleaner.threads=2
    kt_rc cfg_b1 && echo "Completed updating config for broker 1." | kt_out cfg_b1
    ktr cfg_def configs --bootstrap-server "$B" --alter --entity-type brokers --entity-default \
        --add-config log.retention.ms=86400000
    kt_rc cfg_def && echo "Completed updating default config for brokers in the cluster." |
        kt_out cfg_def
    ktr cfg_def_d configs --bootstrap-server "$B" --describe --entity-type brokers --entity-default
    # (Kafka 4.4 also lists the min.insync.replicas=1 its format set)
    kt_rc cfg_def_d && kt_lines cfg_def_d <<'OUT'
Default configs for brokers in the cluster are:
  log.retention.ms=86400000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=86400000}
OUT
    ktr cfg_b1_d configs --bootstrap-server "$B" --describe --entity-type brokers --entity-name 1
    kt_rc cfg_b1_d && kt_out cfg_b1_d <<'OUT'
Dynamic configs for broker 1 are:
  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}
OUT
    ktr cfg_b1_all configs --bootstrap-server "$B" --describe --all --entity-type brokers --entity-name 1
    kt_rc cfg_b1_all && kt_lines cfg_b1_all <<OUT
All configs for broker 1 are:
  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}
  log.retention.ms=86400000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=86400000, DEFAULT_CONFIG:log.retention.hours=168}
  log.retention.hours=168 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.hours=168}
  group.initial.rebalance.delay.ms=0 sensitive=false synonyms={STATIC_BROKER_CONFIG:group.initial.rebalance.delay.ms=0, DEFAULT_CONFIG:group.initial.rebalance.delay.ms=3000}
  log.dirs=$KT_DATA sensitive=false synonyms={STATIC_BROKER_CONFIG:log.dirs=$KT_DATA}
  message.max.bytes=1048588 sensitive=false synonyms={DEFAULT_CONFIG:message.max.bytes=1048588}
  log.message.timestamp.after.max.ms=3600000 sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.after.max.ms=3600000}
OUT
    # the clients' default quotas (DescribeClientQuotas, AlterClientQuotas)
    ktr cfg_cdef configs --bootstrap-server "$B" --alter --entity-type clients --entity-default \
        --add-config producer_byte_rate=1048576,consumer_byte_rate=2097152
    kt_rc cfg_cdef && echo "Completed updating default config for clients in the cluster." |
        kt_out cfg_cdef
    ktr cfg_cdef_d configs --bootstrap-server "$B" --describe --entity-type clients --entity-default
    kt_rc cfg_cdef_d && echo "Quota configs for the default client-id are consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0" |
        kt_out cfg_cdef_d
    # kafka-leader-election: one replica each, so nothing to elect
    ktr elect_pref leader-election --bootstrap-server "$B" --election-type preferred \
        --all-topic-partitions
    kt_rc elect_pref && kt_out elect_pref </dev/null
    ktr elect_uncl leader-election --bootstrap-server "$B" --election-type unclean \
        --topic kt-a --partition 0
    kt_rc elect_uncl && echo "Valid replica already elected for partitions kt-a-0" |
        kt_out elect_uncl
    kt_stop
    kt_done
}
LIMIT_kafka_tools_topics_configs=150

# --- console producer and consumer, consumer groups, offsets, records ------
s_kafka_tools_console_groups() {
    local B T1 pp live lpid
    kt_start || return 1
    B=$GR_BOOTSTRAP
    ktr create topics --bootstrap-server "$B" --create --topic kt-c --partitions 2
    kt_rc create && echo "Created topic kt-c." | kt_out create
    # headers#key|value; NULL: no headers
    printf '%s\n' 'src:kt,n:0#k0|value-0' 'src:kt,n:1#k1|value-1' 'NULL#k2|value-2' \
        'src:kt,n:3#k3|value-3' 'src:kt,n:4#k4|value-4' 'src:kt,n:5#k5|value-5' >"$KT_OUT/in1"
    printf '%s\n' 'n:6#k6|value-6' 'n:7#k7|value-7' 'n:8#k8|value-8' 'n:9#k9|value-9' >"$KT_OUT/in2"
    pp=(--reader-property parse.key=true --reader-property 'key.separator=|'
        --reader-property parse.headers=true --reader-property 'headers.delimiter=#'
        --reader-property null.marker=NULL)
    echo "# kt console-producer ... <in1"
    timeout 60 "$KT_BIN" console-producer --bootstrap-server "$B" --topic kt-c "${pp[@]}" \
        <"$KT_OUT/in1" >"$KT_OUT/prod1.out" 2>"$KT_OUT/prod1.err"
    KT_RC=$?
    kt_rc prod1 && kt_out prod1 </dev/null
    sleep 0.05
    T1=$(date -u +%Y-%m-%dT%H:%M:%S.%3N)
    echo "$T1" >"$KT_OUT/T1"
    sleep 0.05
    echo "# kt console-producer --compression-codec lz4 ... <in2"
    timeout 60 "$KT_BIN" console-producer --bootstrap-server "$B" --topic kt-c "${pp[@]}" \
        --compression-codec lz4 <"$KT_OUT/in2" >"$KT_OUT/prod2.out" 2>"$KT_OUT/prod2.err"
    KT_RC=$?
    kt_rc prod2 && kt_out prod2 </dev/null
    ktr consume console-consumer --bootstrap-server "$B" --topic kt-c --group kt-g \
        --from-beginning --max-messages 10 --formatter-property print.key=true \
        --formatter-property print.headers=true --formatter-property print.partition=true \
        --formatter-property print.offset=true --formatter-property print.timestamp=true
    kt_rc consume && grep -qx 'Processed a total of 10 messages' "$KT_OUT/consume.err" ||
        kt_fail "consume: no 'Processed a total of 10 messages'"
    ktr glist consumer-groups --bootstrap-server "$B" --list
    kt_rc glist && echo kt-g | kt_out glist
    ktr gdesc consumer-groups --bootstrap-server "$B" --describe --group kt-g
    kt_rc gdesc
    ktr reset_earliest consumer-groups --bootstrap-server "$B" --reset-offsets --group kt-g \
        --topic kt-c --to-earliest --execute
    kt_rc reset_earliest
    ktr reset_dt consumer-groups --bootstrap-server "$B" --reset-offsets --group kt-g \
        --topic kt-c --to-datetime "$T1" --execute
    kt_rc reset_dt
    ktr reset_shift consumer-groups --bootstrap-server "$B" --reset-offsets --group kt-g \
        --all-topics --shift-by -1 --execute
    kt_rc reset_shift
    ktr delete_offsets consumer-groups --bootstrap-server "$B" --delete-offsets --group kt-g \
        --topic kt-c:0
    kt_rc delete_offsets && kt_out delete_offsets <<'OUT'
Request succeeded for deleting offsets from group kt-g.

TOPIC           PARTITION  STATUS         
kt-c            0          Successful     
OUT
    ktr gdesc2 consumer-groups --bootstrap-server "$B" --describe --group kt-g --offsets
    kt_rc gdesc2
    ktr off_latest get-offsets --bootstrap-server "$B" --topic kt-c
    kt_rc off_latest
    ktr off_earliest get-offsets --bootstrap-server "$B" --topic kt-c --time -2
    kt_rc off_earliest && printf 'kt-c:0:0\nkt-c:1:0\n' | kt_out off_earliest
    ktr off_maxts get-offsets --bootstrap-server "$B" --topic kt-c --time -3
    kt_rc off_maxts
    ktr logdirs log-dirs --bootstrap-server "$B" --describe --topic-list kt-c
    kt_rc logdirs
    # kafka-delete-records with its JSON offsets file
    echo '{"partitions":[{"topic":"kt-c","partition":0,"offset":2},{"topic":"kt-c","partition":1,"offset":1}],"version":1}' \
        >"$KT_OUT/delete.json"
    ktr delrec delete-records --bootstrap-server "$B" --offset-json-file "$KT_OUT/delete.json"
    kt_rc delrec && kt_lines delrec <<'OUT'
Executing records delete operation
Records delete operation completed:
partition: kt-c-0	low_watermark: 2
partition: kt-c-1	low_watermark: 1
OUT
    ktr off_earliest2 get-offsets --bootstrap-server "$B" --topic-partitions kt-c:0,kt-c:1 --time -2
    kt_rc off_earliest2 && printf 'kt-c:0:2\nkt-c:1:1\n' | kt_out off_earliest2
    ktr consume_p0 console-consumer --bootstrap-server "$B" --topic kt-c --partition 0 \
        --offset earliest --max-messages 3 --formatter-property print.offset=true \
        --formatter-property print.key=true --timeout-ms 20000
    kt_rc consume_p0
    ktr gdelete consumer-groups --bootstrap-server "$B" --delete --group kt-g
    kt_rc gdelete && echo "Deletion of requested consumer groups ('kt-g') was successful." |
        kt_out gdelete
    ktr glist2 consumer-groups --bootstrap-server "$B" --list
    kt_rc glist2 && kt_out glist2 </dev/null
    # a group with a live member: described with its member and state; it
    # cannot be reset or deleted
    live=$KT_OUT/live.out
    timeout 90 "$KT_BIN" console-consumer --bootstrap-server "$B" --topic kt-c --group kt-live \
        --from-beginning --command-property client.id=kt-live-client \
        --command-property session.timeout.ms=10000 >"$live" 2>"$KT_OUT/live.err" </dev/null &
    lpid=$!
    for _ in $(seq 1 400); do
        [ "$(wc -l <"$live")" -ge 7 ] && break # (records 2.. of p0, 1.. of p1)
        sleep 0.05
    done
    [ "$(wc -l <"$live")" -ge 7 ] || kt_fail "live: the consumer read $(wc -l <"$live") of 7 records"
    ktr members consumer-groups --bootstrap-server "$B" --describe --group kt-live --members --verbose
    kt_rc members
    ktr state consumer-groups --bootstrap-server "$B" --describe --group kt-live --state
    kt_rc state
    ktr reset_live consumer-groups --bootstrap-server "$B" --reset-offsets --group kt-live \
        --topic kt-c --to-earliest --execute
    kt_rc reset_live && kt_out reset_live <<'OUT'

Error: Assignments can only be reset if the group 'kt-live' is inactive, but the current state is Stable.

GROUP           TOPIC           PARTITION  NEW-OFFSET
OUT
    ktr gdelete_live consumer-groups --bootstrap-server "$B" --delete --group kt-live
    kt_rc gdelete_live && kt_out gdelete_live <<'OUT'

Error: Deletion of some consumer groups failed:
* Group 'kt-live' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.
OUT
    kill "$lpid" 2>/dev/null
    wait "$lpid" 2>/dev/null
    kt_stop
    # the outputs against what was produced
    timeout 60 $PY "$KT_SRC/check.py" console "$KT_OUT" "$KT_DATA" || KT_FAILS=$((KT_FAILS + 1))
    kt_done
}
LIMIT_kafka_tools_console_groups=180

SCENARIOS+=(kafka_tools_topics_configs kafka_tools_console_groups)

# --- kafka-consumer-groups on a group of the consumer protocol (KIP-848) ---
# Two console consumers with group.protocol=consumer share a topic of three
# partitions; kafka-consumer-groups lists the group's type and state and
# describes its members (epochs, current and target assignments), its state
# (the uniform assignor, group and target assignment epochs) and its
# offsets, as it does against Kafka 4.4.0 (KT_REFERENCE=kafka)
s_kafka_tools_consumer_protocol() {
    local B c pids=() n
    kt_start || return 1
    B=$GR_BOOTSTRAP
    ktr create topics --bootstrap-server "$B" --create --topic kt-cp --partitions 3
    kt_rc create
    printf '%s\n' a b c d e f >"$KT_OUT/in"
    timeout 60 "$KT_BIN" console-producer --bootstrap-server "$B" --topic kt-cp \
        <"$KT_OUT/in" >"$KT_OUT/prod.out" 2>"$KT_OUT/prod.err"
    for c in 1 2; do
        timeout 120 "$KT_BIN" console-consumer --bootstrap-server "$B" --topic kt-cp --group kt-cp \
            --from-beginning --command-property group.protocol=consumer \
            --command-property client.id=kt-cp-$c >"$KT_OUT/cons$c.out" 2>"$KT_OUT/cons$c.err" \
            </dev/null &
        pids+=($!)
        # the second joins once the first has everything
        for _ in $(seq 1 200); do
            [ "$(wc -l <"$KT_OUT/cons1.out")" -ge 6 ] && break
            sleep 0.1
        done
    done
    # until both members have their target (each with a partition)
    for _ in $(seq 1 60); do
        timeout 60 "$KT_BIN" consumer-groups --bootstrap-server "$B" --describe --group kt-cp \
            --members >"$KT_OUT/poll.out" 2>/dev/null
        n=$(awk '$1 == "kt-cp" && $5 != "0" {n++} END {print n+0}' "$KT_OUT/poll.out")
        [ "$n" = 2 ] && break
        sleep 0.5
    done
    ktr members consumer-groups --bootstrap-server "$B" --describe --group kt-cp --members --verbose
    kt_rc members
    ktr state consumer-groups --bootstrap-server "$B" --describe --group kt-cp --state
    kt_rc state
    ktr statev consumer-groups --bootstrap-server "$B" --describe --group kt-cp --state --verbose
    kt_rc statev
    ktr offsets consumer-groups --bootstrap-server "$B" --describe --group kt-cp --offsets
    kt_rc offsets
    ktr types consumer-groups --bootstrap-server "$B" --list --type
    kt_rc types
    ktr states consumer-groups --bootstrap-server "$B" --list --state
    kt_rc states
    kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    kt_stop
    timeout 60 $PY "$KT_SRC/check.py" consumer-protocol "$KT_OUT" "$KT_DATA" ||
        KT_FAILS=$((KT_FAILS + 1))
    kt_done
}
LIMIT_kafka_tools_consumer_protocol=150
SCENARIOS+=(kafka_tools_consumer_protocol)

# --- kafka-transactions, then kafka-dump-log over gregor's own files -------
# Kafka's Java producer (KtWriter.java) writes plain, compressed (every
# codec) and transactional records (a commit, an abort, one left open) with
# keys and headers; kafka-transactions lists and describes them and aborts
# the open one; read_committed consumers read around the aborted ones.
# Then the broker stops (SIGTERM) and kafka-dump-log reads every .log
# (--deep-iteration --print-data-log), .index, .timeindex, .txnindex and
# .snapshot of the partitions (and --index-sanity-check, --verify-index-only,
# the offsets and transaction log decoders over the internal topics):
# check.py holds every batch, record, marker, index entry and producer
# state to what Kafka writes for the same records.
s_kafka_tools_txn_dump_log() {
    local B f
    kt_start || return 1
    B=$GR_BOOTSTRAP
    ktr writer java "$KT_SRC/KtWriter.java" "$B" "$KT_OUT/report"
    kt_rc writer || { kt_stop; kt_done; return 1; }
    ktr_bg list transactions --bootstrap-server "$B" list
    ktr_bg desc_txn transactions --bootstrap-server "$B" describe --transactional-id kt-txn
    ktr_bg desc_hang transactions --bootstrap-server "$B" describe --transactional-id kt-hang
    kt_wait list desc_txn desc_hang
    ktr_bg prod_log transactions --bootstrap-server "$B" describe-producers --topic kt-log --partition 0
    ktr_bg prod_hang transactions --bootstrap-server "$B" describe-producers --topic kt-hang --partition 0
    ktr_bg hanging transactions --bootstrap-server "$B" find-hanging --broker-id 1
    kt_wait prod_log prod_hang hanging
    ktr abort transactions --bootstrap-server "$B" abort --topic kt-hang --partition 0 --start-offset 0
    kt_rc abort
    ktr prod_hang2 transactions --bootstrap-server "$B" describe-producers --topic kt-hang --partition 0
    kt_rc prod_hang2
    ktr rc_hang console-consumer --bootstrap-server "$B" --topic kt-hang --from-beginning \
        --isolation-level read_committed --max-messages 1 --timeout-ms 20000 \
        --formatter-property print.offset=true --formatter-property print.key=true
    kt_rc rc_hang
    ktr rc_log console-consumer --bootstrap-server "$B" --topic kt-log --group kt-rc --from-beginning \
        --isolation-level read_committed --max-messages 27 --timeout-ms 20000 \
        --formatter-property print.timestamp=true --formatter-property print.offset=true \
        --formatter-property print.headers=true --formatter-property print.key=true
    kt_rc rc_log
    kt_stop
    # kafka-dump-log over the stopped broker's files, three at a time
    f=$(ls "$KT_DATA"/kt-log-0/*.log "$KT_DATA"/kt-hang-0/*.log "$KT_DATA"/kt-roll-0/*.log | paste -sd,)
    ktr_bg dump_logs dump-log --deep-iteration --print-data-log --files "$f"
    f=$(ls "$KT_DATA"/kt-{log,hang,roll}-0/*.{index,timeindex,txnindex,snapshot} 2>/dev/null | paste -sd,)
    ktr_bg dump_idx dump-log --files "$f"
    f=$(ls "$KT_DATA"/kt-{log,hang,roll}-0/*.{index,timeindex} | paste -sd,)
    ktr_bg sanity dump-log --index-sanity-check --files "$f"
    kt_wait dump_logs dump_idx sanity
    ktr_bg verify dump-log --verify-index-only --files "$f"
    f=$(find "$KT_DATA" -path '*/__consumer_offsets-*' -name '*.log' -size +0 | sort | paste -sd,)
    ktr_bg dump_offsets dump-log --offsets-decoder --files "$f"
    f=$(find "$KT_DATA" -path '*/__transaction_state-*' -name '*.log' -size +0 | sort | paste -sd,)
    ktr_bg dump_txnlog dump-log --transaction-log-decoder --files "$f"
    kt_wait verify dump_offsets dump_txnlog
    timeout 60 $PY "$KT_SRC/check.py" txn "$KT_OUT" "$KT_DATA" || KT_FAILS=$((KT_FAILS + 1))
    kt_done
}
LIMIT_kafka_tools_txn_dump_log=180

SCENARIOS+=(kafka_tools_txn_dump_log)

# --- kafka-configs on SCRAM users ------------------------------------------
# kt_scram_login NAME MECH USER PW: kcat logs in on the SASL listener and
# lists the cluster; stdout and stderr to $KT_OUT/NAME.*; its status in KT_RC
kt_scram_login() {
    timeout 30 kcat -b "127.0.0.1:$KT_SASL" -X security.protocol=SASL_PLAINTEXT \
        -X "sasl.mechanisms=$2" -X "sasl.username=$3" -X "sasl.password=$4" \
        -L -m 5 >"$KT_OUT/$1.out" 2>"$KT_OUT/$1.err"
    KT_RC=$?
}

# kt_scram_step NAME OPTION VALUE: kafka-configs --alter OPTION VALUE on
# user frank, then --describe of frank prints stdin
kt_scram_step() {
    ktr "$1" configs --bootstrap-server "$GR_BOOTSTRAP" --alter "$2" "$3" \
        --entity-type users --entity-name frank
    kt_rc "$1" && echo "Completed updating config for user frank." | kt_out "$1"
    ktr "$1-desc" configs --bootstrap-server "$GR_BOOTSTRAP" --describe \
        --entity-type users --entity-name frank
    kt_rc "$1-desc" && kt_out "$1-desc"
}

# kafka-configs.sh makes a SCRAM user (--add-config 'SCRAM-SHA-256=[...]'
# --entity-type users), --describe lists it with its iterations, a client
# logs in with it at once; a second mechanism is added beside it; each
# --delete-config removes one (that login then fails with Kafka's
# message, the other still works); deleting one that is gone fails with
# Kafka's ResourceNotFoundException. Every output of the tool here is what
# it prints against Kafka 4.4.0 (run by hand with tests/kafka/run-kafka.sh:
# the same lines, the same exit statuses).
s_kafka_tools_scram() {
    local l="SCRAM credential configs for user-principal 'frank' are"
    need kcat || return 1
    kt_start --override listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0 \
        --override sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512 || return 1
    KT_SASL=$(sed -n 's/^SASL_PLAINTEXT:.*://p' "$BROKER_DIR/listeners")
    [ -n "$KT_SASL" ] || return 1
    kt_scram_login before SCRAM-SHA-256 frank frank-pw
    [ "$KT_RC" != 0 ] || kt_fail "frank logged in before he was made"
    kt_scram_step add256 --add-config 'SCRAM-SHA-256=[iterations=8192,password=frank-pw]' \
        <<<"$l SCRAM-SHA-256=iterations=8192"
    ktr descall configs --bootstrap-server "$GR_BOOTSTRAP" --describe --entity-type users
    kt_rc descall && kt_out descall <<<"$l SCRAM-SHA-256=iterations=8192"
    kt_scram_login login256 SCRAM-SHA-256 frank frank-pw
    [ "$KT_RC" = 0 ] || { kt_fail "frank (SCRAM-SHA-256) did not log in"; kt_show login256; }
    kt_scram_step add512 --add-config 'SCRAM-SHA-512=[password=frank-pw5]' \
        <<<"$l SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096"
    kt_scram_login login512 SCRAM-SHA-512 frank frank-pw5
    [ "$KT_RC" = 0 ] || { kt_fail "frank (SCRAM-SHA-512) did not log in"; kt_show login512; }
    kt_scram_step del256 --delete-config SCRAM-SHA-256 <<<"$l SCRAM-SHA-512=iterations=4096"
    kt_scram_login gone256 SCRAM-SHA-256 frank frank-pw
    if [ "$KT_RC" = 0 ]; then
        kt_fail "frank logged in with a removed SCRAM-SHA-256 credential"
    elif ! grep -q 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256' "$KT_OUT/gone256.err"; then
        kt_fail "the refused login did not carry Kafka's message"; kt_show gone256
    fi
    kt_scram_login still512 SCRAM-SHA-512 frank frank-pw5
    [ "$KT_RC" = 0 ] || { kt_fail "frank (SCRAM-SHA-512) lost his login"; kt_show still512; }
    kt_scram_step del512 --delete-config SCRAM-SHA-512 </dev/null
    ktr descall2 configs --bootstrap-server "$GR_BOOTSTRAP" --describe --entity-type users
    kt_rc descall2 && kt_out descall2 </dev/null
    kt_scram_login gone512 SCRAM-SHA-512 frank frank-pw5
    [ "$KT_RC" != 0 ] || kt_fail "frank logged in with a removed SCRAM-SHA-512 credential"
    ktr delagain configs --bootstrap-server "$GR_BOOTSTRAP" --alter --delete-config SCRAM-SHA-512 \
        --entity-type users --entity-name frank
    kt_rc delagain 1 && grep -q '^Caused by: org.apache.kafka.common.errors.ResourceNotFoundException: Attempt to delete a user credential that does not exist$' \
        "$KT_OUT/delagain.err" || { kt_fail "delagain: not Kafka's ResourceNotFoundException"; kt_show delagain; }
    kt_stop
    kt_done
}
LIMIT_kafka_tools_scram=150
SCENARIOS+=(kafka_tools_scram)
