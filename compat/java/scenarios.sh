# compat/java/scenarios.sh: the Java client, kafka-clients 4.4.0 and 3.9.2
# (installed by compat/java/install.sh), sourced by compat/run.sh. The test
# programs (compat/java/src/*.java) are compiled once per version and
# content into $COMPAT_BIN/java/build/; every scenario runs once per
# version, each against its own broker: java_<area>_4_4 and _3_9.

JAVA_CLIENT_VERSIONS=(4.4.0 3.9.2)
JAVA_OPTS_COMPAT=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -Xmx512m
                  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
                  -Dorg.slf4j.simpleLogger.showDateTime=true
                  -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS)

# java_build VERSION: compiles the sources against that version's jars
# (cached by the sources' and the lock's content); sets JAVA_CP
java_build() {
    local v=$1 jars=$GR_CLIENTS/java/$1 hash dir tmp
    need java && need javac || return 1
    [ -f "$jars/jars.sha256" ] || {
        echo "kafka-clients $v is not installed: run sh compat/java/install.sh"; return 1; }
    hash=$(cat "$COMPAT_SRC"/java/src/*.java "$jars/jars.sha256" | sha256sum | cut -c1-16)
    dir=$COMPAT_BIN/java/build/$v-$hash
    mkdir -p "$COMPAT_BIN/java/build" || return 1
    # scenarios run in parallel: one builds, the others wait for it
    exec 8>"$COMPAT_BIN/java/build/.lock" && flock 8 || return 1
    if [ ! -f "$dir/.built" ]; then
        tmp=$(mktemp -d "$COMPAT_BIN/java/build/tmp.XXXXXX") || return 1
        javac -nowarn -XDsuppressNotes -encoding UTF-8 -d "$tmp" -cp "$jars/*" "$COMPAT_SRC"/java/src/*.java || {
            rm -rf "$tmp"; return 1; }
        touch "$tmp/.built"
        rm -rf "$COMPAT_BIN/java/build/$v"-*
        mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
    fi
    exec 8>&-
    JAVA_CP=$dir:$jars/*
}

# java_run VERSION TEST: runs one test program against $GR_BOOTSTRAP
java_run() {
    java_build "$1" || return 1
    timeout "${JAVA_TIMEOUT:-90}" java "${JAVA_OPTS_COMPAT[@]}" -cp "$JAVA_CP" Compat "$2" "$1"
}

# producer: acks 0/1/all, every codec (and a topic's compression.type),
# small fetches and fetches inside a batch, keys and the default
# partitioner, headers, CreateTime and LogAppendTime (compressed too); then
# (auto-creation off) a record at message.max.bytes and one byte over, a
# topic's max.message.bytes, timestamp bounds, min.insync.replicas over
# the replica count, a compacted topic, an unknown topic, invalid topics
java_producer() {
    start_broker --override auto.create.topics.enable=false || return 1
    java_run "$1" producer || return 1
    java_run "$1" producer-errors
}

# idempotent and transactional producers: sequences and DescribeProducers,
# commit/abort and the offsets of markers, a fenced producer,
# consume-transform-produce with sendOffsetsToTransaction, a transaction
# timed out, interleaved producers, pending transactional offsets
java_txn() {
    start_broker --override auto.create.topics.enable=false \
        --override transaction.abort.timed.out.transaction.cleanup.interval.ms=500 || return 1
    java_run "$1" txn
}

# consumer groups: eager (range) and cooperative-sticky rebalances as a
# second member joins, commitSync/commitAsync resumed by a new member,
# auto-commit, static membership across a restart and its removal by the
# admin, a pattern subscription, what the coordinator refuses
java_group() {
    start_broker --override auto.create.topics.enable=false --override num.partitions=4 || return 1
    java_run "$1" group
}

# consumer groups of the KIP-848 protocol (group.protocol=consumer):
# three members joining and leaving with cooperative callbacks, a member
# killed under load (no record lost or read twice by committed position),
# the range assignor, the Admin's view; the session timeout turned down so
# that the killed member is fenced within seconds
java_consumer_group() {
    start_broker --override auto.create.topics.enable=false \
        --override group.consumer.session.timeout.ms=6000 \
        --override group.consumer.heartbeat.interval.ms=500 || return 1
    JAVA_TIMEOUT=240 java_run "$1" consumer-group
}

# the consumer without a group: read_committed against read_uncommitted and
# the LSO, seek, seekToBeginning/End, pause/resume, offsetsForTimes,
# beginning/end offsets after DeleteRecords, out-of-range resets
java_positions() {
    start_broker --override auto.create.topics.enable=false || return 1
    java_run "$1" positions
}

# Admin: topics, partitions, configs (topic and broker), groups and their
# offsets, records, cluster, offsets by spec, transactions, producers,
# leaders, log dirs
java_admin() {
    start_broker --override auto.create.topics.enable=false || return 1
    GR_DATA_DIR=$BROKER_DIR/data java_run "$1" admin
}

# SASL/SCRAM-SHA-256 and -512 (compat/java/src/Scrams.java): the Admin
# makes the credentials; producer, group consumer and Admin log in with
# each; wrong, crossed, unknown and removed credentials fail with
# SaslAuthenticationException and Kafka's message; the broker stays up
java_scram() {
    need kcat || return 1
    scram_broker || return 1
    GR_SASL_BOOTSTRAP=$SCRAM_BOOT java_run "$1" scram || return 1
    scram_up "java $1" scram
}

# SCRAM-SHA-256 and -512 over SASL_SSL (Scrams.tls), across a restart:
# the Admin makes the credentials; a producer (20 records each) and an
# Admin log in with each over TLS and a wrong password is refused; the
# broker is stopped and started on the same data, the credentials are
# described as made, the same logins succeed and the wrong one is still
# refused. The current client only (java_scram_* cover the rest).
s_java_scram_ssl() {
    need kcat || return 1
    scram_ssl_broker || return 1
    GR_SASL_BOOTSTRAP=$SCRAM_SSL_BOOT GR_SASL_CA=$SCRAM_CA java_run "${JAVA_CLIENT_VERSIONS[0]}" scram-ssl-made ||
        return 1
    scram_up "java over SASL_SSL" scram || return 1
    scram_restart || return 1
    GR_SASL_BOOTSTRAP=$SCRAM_SSL_BOOT GR_SASL_CA=$SCRAM_CA java_run "${JAVA_CLIENT_VERSIONS[0]}" scram-ssl-again ||
        return 1
    scram_up "java over SASL_SSL (after the restart)" scram-again || return 1
    scram_up "java over SASL_SSL (after the restart, the first records)" scram
}
LIMIT_java_scram_ssl=240
SCENARIOS+=(java_scram_ssl)

for _jv in "${JAVA_CLIENT_VERSIONS[@]}"; do
    _js=$(echo "$_jv" | cut -d. -f1-2 | tr . _)
    for _ja in producer txn group consumer_group positions admin scram; do
        eval "s_java_${_ja}_$_js() { java_$_ja $_jv; }"
        SCENARIOS+=("java_${_ja}_$_js")
    done
done
unset _jv _js _ja
