# compat/go/scenarios.sh: the Go clients against gregor (sourced by
# compat/run.sh). Programs in cmd/, built by install.sh into
# $GR_CLIENTS/go/bin; each subcommand prints "# <client>: ok: ..." for what
# it checked, "# <client>: ..." for what the client cannot express, and
# "FAIL <client>: ..." for each answer that is not Kafka's (an error name
# differing goes on to the next check; anything else stops), exiting 1 if
# any failed. Every check holds against Apache Kafka 4.4.0 (KRaft, one
# node, these scenarios' settings): GR_BOOTSTRAP=host:port "$GO_BIN/franz"
# data runs one against any broker.

GO_BIN=$GR_CLIENTS/go/bin

# the programs, rebuilt from the module cache if a source changed
go_ready() {
    # scenarios run in parallel: one rebuilds, the others wait for it
    mkdir -p "$GR_CLIENTS/go" &&
        flock "$GR_CLIENTS/go/.lock" sh "$COMPAT_SRC/go/install.sh" --offline || {
        echo "the Go clients are not built: run compat/go/install.sh"
        return 1
    }
}

# franz-go (kgo, kmsg) data path: every codec with null/empty keys and
# values, headers and CreateTime timestamps back at their murmur2
# partitions and offsets; offsets by time; a LogAppendTime topic; ~1 MB
# records and MESSAGE_TOO_LARGE; idempotent batches by frames (duplicate,
# gap, new epoch); an unknown topic with auto-creation off
s_go_franz_data() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/franz" data
}

# franz-go consumer group: cooperative-sticky rebalance as a second member
# joins and leaves, each record processed once, committed offsets and lag
# read back (kadm), a new member resuming from the commits
s_go_franz_group() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/franz" group
}

# franz-go with the KIP-848 protocol (kgo.ServerSideBalancer): the broker's
# uniform assignor moves half the partitions to a second member, kadm's
# DescribeConsumerGroups, commits with member epochs, a leave
s_go_franz_group848() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/franz" group848
}

# franz-go transactions: commit/abort/commit with read_committed and
# read_uncommitted readers, DescribeTransactions/ListTransactions/
# DescribeProducers and the LSO while one is open, a fenced producer
# (PRODUCER_FENCED), GroupTransactSession consume-transform-produce
s_go_franz_txn() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/franz" txn
}

# kadm: cluster, topics (nine refusals by error name), partitions,
# configs (sources, incremental ops, legacy replace), groups and offsets,
# DeleteRecords, log dirs, leader election, topic deletion
s_go_franz_admin() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false --override num.partitions=3 || return 1
    timeout 100 "$GO_BIN/franz" admin
}

# sarama (Config.Version newest, murmur2 partitioner, idempotent
# producer): every codec's messages back with every field; offsets by
# time (-1 past the end); LogAppendTime; ~1 MB messages and
# MESSAGE_TOO_LARGE; an unknown topic with auto-creation off
s_go_sarama_data() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/sarama" data
}

# sarama ConsumerGroup: eager range rebalance as a member joins and
# leaves, each message processed once, DescribeConsumerGroups, committed
# offsets, a sticky member resuming, a roundrobin assignment
s_go_sarama_group() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/sarama" group
}

# sarama transactions: commit/abort/commit read back both ways, the LSO
# while one is open, PRODUCER_FENCED, consume-transform-produce through a
# group with AddMessageToTxn (generation and member id), one aborted
s_go_sarama_txn() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/sarama" txn
}

# sarama ClusterAdmin: cluster, topics and refusals, partitions, configs,
# consumer group offsets and deletion, DeleteRecords, log dirs, elections
s_go_sarama_admin() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/sarama" admin
}

# segmentio/kafka-go Writer (murmur2 balancer) and Readers: every codec's
# messages back; Client.Fetch for the stored batches (codec, nulls,
# producer ids); offsets by time; LogAppendTime; ~1 MB messages and
# MESSAGE_TOO_LARGE; idempotent batches by Client requests; unknown topic
s_go_kafkago_data() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/kafkago" data
}

# kafka-go group Readers (range): a member joins and leaves, assignments
# by DescribeGroups, every message processed, committed offsets
s_go_kafkago_group() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/kafkago" group
}

# transactions by kafka-go Client requests: commit/abort/commit with
# transactional offsets, the batches and markers as stored, the LSO, a
# fenced producer (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH)
s_go_kafkago_txn() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/kafkago" txn
}

# kafka-go Client admin requests: metadata, topics and refusals,
# partitions, configs, group offsets and deletion, elections, deletion
s_go_kafkago_admin() {
    go_ready || return 1
    start_broker --override auto.create.topics.enable=false || return 1
    timeout 100 "$GO_BIN/kafkago" admin
}

SCENARIOS+=(go_franz_data go_franz_group go_franz_group848 go_franz_txn go_franz_admin
            go_sarama_data go_sarama_group go_sarama_txn go_sarama_admin
            go_kafkago_data go_kafkago_group go_kafkago_txn go_kafkago_admin)

# franz-go against failures made over the control interface's HTTP API
# (cmd/franz/control.go): NOT_LEADER_OR_FOLLOWER on Produce three times
# (retried, every record once, in order), a 600 ms delay on Produce (the
# client's call takes it) and a throttle time (OnBrokerThrottle), Fetch
# connections dropped (the consumer reconnects and reads everything)
s_go_franz_control() {
    go_ready || return 1
    start_broker --override gregor.control.listener=http://127.0.0.1:0 || return 1
    GR_CONTROL=$(control_url) timeout 100 "$GO_BIN/franz" control
}

SCENARIOS+=(go_franz_control)

# franz-go against --virtual-clock (cmd/franz/vclock.go; the Python side is
# compat/python/virtual_clock.py): a SIGKILLed classic-group member stays
# through real time and 29.999 s of virtual time, and is gone at 30 s
# (kadm DescribeGroups: Empty); a transaction left open is aborted once
# the clock passes its 60 s timeout, its producer's commit PRODUCER_FENCED
s_go_franz_virtual_clock() {
    go_ready || return 1
    start_broker --virtual-clock \
        --override gregor.control.listener=http://127.0.0.1:0 || return 1
    GR_CONTROL=$(control_url) timeout 100 "$GO_BIN/franz" vclock
}

SCENARIOS+=(go_franz_virtual_clock)

# franz-go over SASL/SCRAM-SHA-256 and -512 (cmd/franzsasl, franz-go's
# pkg/sasl/scram): kadm makes the credentials, each mechanism produces 20
# records and consumes them back; a wrong password, the other mechanism's
# password and an unknown user fail with SASL_AUTHENTICATION_FAILED and
# Kafka's message (compat/sasl's scram_refusals); nothing of theirs is
# appended and the broker stays up for a good login after them
s_go_franz_scram() {
    go_ready && need kcat || return 1
    scram_broker || return 1
    local m user pw text
    GR_ADMIN_BOOTSTRAP=$GR_BOOTSTRAP timeout 30 "$GO_BIN/franzsasl" users sam sam-pw256 sam-pw512 || return 1
    for m in SCRAM-SHA-256 SCRAM-SHA-512; do
        GR_BOOTSTRAP=$SCRAM_BOOT GR_SASL_MECHANISM=$m GR_SASL_USER=sam GR_SASL_PASSWORD=sam-pw${m##*-} \
            timeout 30 "$GO_BIN/franzsasl" ok "fs-$m" || return 1
    done
    while IFS='|' read -r m user pw text; do
        GR_BOOTSTRAP=$SCRAM_BOOT GR_SASL_MECHANISM=$m GR_SASL_USER=$user GR_SASL_PASSWORD=$pw \
            timeout 30 "$GO_BIN/franzsasl" refused "fs-$m" "$text" </dev/null || return 1
    done < <(scram_refusals)
    # a good login after the refusals
    GR_BOOTSTRAP=$SCRAM_BOOT GR_SASL_MECHANISM=SCRAM-SHA-512 GR_SASL_USER=sam GR_SASL_PASSWORD=sam-pw512 \
        timeout 30 "$GO_BIN/franzsasl" ok fs-after || return 1
    scram_up franz-go fs
}

SCENARIOS+=(go_franz_scram)

# franz-go over SASL_SSL with SCRAM-SHA-256 and -512, across a restart:
# kadm makes the credentials (over PLAINTEXT), each mechanism produces and
# consumes 20 records over TLS and a wrong password is refused; the broker
# is stopped and started on the same data, and the same logins succeed
# (and the wrong one is still refused) without the users being made again
s_go_franz_scram_ssl() {
    go_ready && need kcat || return 1
    scram_ssl_broker || return 1
    local m round prefix
    GR_ADMIN_BOOTSTRAP=$GR_BOOTSTRAP timeout 30 "$GO_BIN/franzsasl" users sam sam-pw256 sam-pw512 || return 1
    for round in made again; do
        prefix=fss
        [ $round = again ] && prefix=fss-again
        for m in SCRAM-SHA-256 SCRAM-SHA-512; do
            GR_BOOTSTRAP=$SCRAM_SSL_BOOT GR_SASL_CA=$SCRAM_CA GR_SASL_MECHANISM=$m GR_SASL_USER=sam \
                GR_SASL_PASSWORD=sam-pw${m##*-} timeout 30 "$GO_BIN/franzsasl" ok "$prefix-$m" || return 1
            GR_BOOTSTRAP=$SCRAM_SSL_BOOT GR_SASL_CA=$SCRAM_CA GR_SASL_MECHANISM=$m GR_SASL_USER=sam \
                GR_SASL_PASSWORD=wrong timeout 30 "$GO_BIN/franzsasl" refused "$prefix-$m" \
                "Authentication failed during authentication due to invalid credentials with SASL mechanism $m" ||
                return 1
        done
        scram_up "franz-go over SASL_SSL ($round)" "$prefix" || return 1
        [ $round = again ] || scram_restart || return 1
    done
    scram_up "franz-go over SASL_SSL (after the restart, the first records)" fss
}

SCENARIOS+=(go_franz_scram_ssl)
