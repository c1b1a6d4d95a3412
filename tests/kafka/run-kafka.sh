#!/bin/bash
# tests/kafka/run-kafka.sh: a real Apache Kafka (the pinned kafka_2.13 of
# tests/kafka/pom.xml, installed by tests/kafka/install.sh into
# $GR_CLIENTS/kafka/libs) on loopback, in KRaft combined mode, in a fresh
# temporary directory: the reference Gregor is compared with.
#
#   run-kafka.sh [OPTION]...          start; wait (foreground) until a signal
#   run-kafka.sh --daemon [OPTION]... start, print, exit leaving it running
#   run-kafka.sh --stop DIR           stop a --daemon one by its pids
#
# Options:
#   --brokers N          N combined broker+controller processes forming one
#                        quorum (default 1; 3 for cluster work)
#   --auto-create on|off auto.create.topics.enable (default on, as Kafka)
#   --partitions N       num.partitions (default 1)
#   --override KEY=VAL   any server.properties key (repeatable, applied last)
#   --tmp DIR            where the temporary directory is made ($TMPDIR)
#   --bootstrap-file F   write the bootstrap (host:port,...) to F once serving
#   --keep               keep the directory (data, logs) after the stop
#   --timeout S          bound on the start (default 90 s)
#
# Prints, once every node serves:
#   kafka: dir DIR
#   kafka: node 1 listening on 127.0.0.1:PORT (pid PID)    (one per node)
#   kafka: listening on 127.0.0.1:PORT[,127.0.0.1:PORT...]
#   kafka: started in S s
# DIR/env has KAFKA_BOOTSTRAP, KAFKA_PIDS and KAFKA_DIR for `.`; each node's
# log is DIR/node-N/kafka.log (INFO), its stdout/stderr DIR/node-N/out.
#
# Ports: free loopback ports are chosen by binding port 0 and releasing it
# (one for each node's PLAINTEXT listener and one for its CONTROLLER); a start
# that loses a port to someone else in between is retried with new ones.
#
# Storage: one cluster id (random, kafka.tools.StorageTool random-uuid is
# not needed: any 16 random bytes base64url), each node's log.dirs formatted by
# `kafka.tools.StorageTool format -t ID -c server.properties` (the nodes in
# parallel) with a static controller.quorum.voters, so no --standalone or
# --initial-controllers is needed.
#
# JVM: as bin/kafka-server-start.sh and bin/kafka-run-class.sh set by default
# for the broker: KAFKA_HEAP_OPTS "-Xmx1G -Xms1G" and KAFKA_JVM_PERFORMANCE_OPTS
# "-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
# -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
# -XX:MaxInlineLevel=15 -Djava.awt.headless=true". Not set: the start
# script's -loggc GC log (-Xlog:gc*:file=...) and JMX (off there too unless
# JMX_PORT is given). Added for start-up speed only: an application class-data
# sharing archive of Kafka's classes (-XX:SharedArchiveFile, made once by the
# first start with -XX:ArchiveClassesAtExit, kept in $GR_CLIENTS/kafka/cds/;
# RUN_KAFKA_CDS=0 turns it off); it changes what is loaded from where, not
# how the broker behaves. KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS and
# KAFKA_OPTS from the environment replace/extend these as in Kafka's scripts.
#
# Start-up here (2 cores shared, format included, until "kafka: listening"):
# 1.9-2.4 s for one node with the archive, 3.0 s without; 4.9 s for three.
#
# Timers turned down for tests (each overridable with --override):
# group.initial.rebalance.delay.ms=0 (Kafka's default is 3000).
# Internal topics' replication factors and min ISR are 1 on one node (as
# Kafka's config/server.properties for KRaft has them); on more nodes Kafka's
# defaults hold (3 and 2, capped at the node count).

set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../../compat/clients.sh"
KAFKA_HOME=$GR_CLIENTS/kafka
JAVA=${JAVA:-java}
[ -n "${JAVA_HOME:-}" ] && [ "$JAVA" = java ] && JAVA=$JAVA_HOME/bin/java

die() { echo "run-kafka: $*" >&2; exit 1; }

# --stop DIR: stop the nodes listed in DIR/pids, then remove DIR unless kept
stop_nodes() {
    local dir=$1 pid n
    [ -f "$dir/pids" ] || return 0
    for pid in $(cat "$dir/pids"); do kill -TERM "$pid" 2>/dev/null; done
    for n in $(seq 1 300); do
        local alive=0
        for pid in $(cat "$dir/pids"); do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for pid in $(cat "$dir/pids"); do
        if kill -0 "$pid" 2>/dev/null; then
            echo "run-kafka: pid $pid did not stop in 30 s; killing" >&2
            kill -KILL "$pid" 2>/dev/null
        fi
    done
    rm -f "$dir/pids"
    # the class-data archive the first node wrote at its exit
    if [ -f "$dir/cds-pending" ]; then
        local tmpa final
        read -r tmpa final <"$dir/cds-pending"
        [ -s "$tmpa" ] && mv -f "$tmpa" "$final"
        rm -f "$tmpa" "$dir/cds-pending"
    fi
    if [ -f "$dir/keep" ]; then
        echo "kafka: stopped; kept $dir"
    else
        rm -rf "$dir"
        echo "kafka: stopped"
    fi
}

brokers=1 auto_create=true partitions=1 tmp=${TMPDIR:-/tmp} bootstrap_file=
keep=0 daemon=0 start_timeout=90
overrides=()
while [ $# -gt 0 ]; do
    case $1 in
    --stop) [ $# -ge 2 ] || die "--stop DIR"; stop_nodes "$2"; exit 0 ;;
    --daemon) daemon=1 ;;
    --brokers) brokers=$2; shift ;;
    --auto-create)
        case $2 in on|true) auto_create=true ;; off|false) auto_create=false ;;
        *) die "--auto-create on|off" ;; esac
        shift ;;
    --partitions) partitions=$2; shift ;;
    --override) overrides+=("$2"); shift ;;
    --tmp) tmp=$2; shift ;;
    --bootstrap-file) bootstrap_file=$2; shift ;;
    --keep) keep=1 ;;
    --timeout) start_timeout=$2; shift ;;
    -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown option $1 (--help)" ;;
    esac
    shift
done
case $brokers in ''|*[!0-9]*|0) die "--brokers takes a positive count" ;; esac
case $partitions in ''|*[!0-9]*|0) die "--partitions takes a positive count" ;; esac
[ -d "$KAFKA_HOME/libs" ] || die "Kafka is not installed in $KAFKA_HOME: run tests/kafka/install.sh"
command -v "$JAVA" >/dev/null 2>&1 || die "no java ($JAVA)"

CP=$(printf '%s:' "$KAFKA_HOME"/libs/*.jar)
CP=${CP%:}
heap=${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G}
perf=${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true}

# the class-data sharing archive, one per JVM build and installed jar set
cds_opts=() cds_make=
if [ "${RUN_KAFKA_CDS:-1}" = 1 ]; then
    jvm_id=$(readlink -f "$(command -v "$JAVA")")
    jvm_id=$(printf '%s %s %s' "$jvm_id" "$(stat -c %Y "$jvm_id" 2>/dev/null)" \
        "$(cat "$KAFKA_HOME/stamp" 2>/dev/null)" | sha256sum | cut -c1-16)
    cds=$KAFKA_HOME/cds/broker-$jvm_id.jsa
    if [ -f "$cds" ]; then
        cds_opts=(-XX:SharedArchiveFile="$cds" -Xlog:cds=off -Xlog:cds+dynamic=off)
    else
        mkdir -p "$KAFKA_HOME/cds"
        cds_make=$cds.tmp.$$
    fi
fi

DIR=$(mktemp -d "$tmp/kafka.XXXXXX") || die "cannot make a directory in $tmp"
[ $keep = 1 ] && touch "$DIR/keep"
# a start that fails removes its directory (unless --keep) after showing why
started=0
trap '[ $started = 1 ] || [ $keep = 1 ] || rm -rf "$DIR"' EXIT
t0=$(date +%s.%N)

# N free loopback ports, printed one a line
free_ports() {
    python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print("\n".join(str(s.getsockname()[1]) for s in socks))
PY
}

write_config() { # node-number broker-port
    local n=$1 bport=$2 rf isr
    rf=$(( brokers < 3 ? brokers : 3 ))
    isr=$(( brokers < 2 ? 1 : 2 ))
    cat >"$DIR/node-$n/server.properties" <<PROPS
# written by tests/kafka/run-kafka.sh
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$bport,CONTROLLER://127.0.0.1:${cports[$n]}
advertised.listeners=PLAINTEXT://127.0.0.1:$bport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DIR/node-$n/data
num.partitions=$partitions
auto.create.topics.enable=$auto_create
offsets.topic.replication.factor=$rf
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
group.initial.rebalance.delay.ms=0
PROPS
    local o
    for o in ${overrides[@]+"${overrides[@]}"}; do
        echo "$o" >>"$DIR/node-$n/server.properties"
    done
    # log4j2: INFO to the node's kafka.log, as Kafka's log4j2.yaml (one file
    # here rather than server/controller/state-change files)
    cat >"$DIR/node-$n/log4j2.properties" <<LOG
status = error
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $DIR/node-$n/kafka.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = FILE
logger.kafka.name = org.apache.kafka
logger.kafka.level = info
LOG
}

pids=()
cleanup_start() { # a failed or interrupted start: kill what started
    local pid
    for pid in ${pids[@]+"${pids[@]}"}; do kill -KILL "$pid" 2>/dev/null; done
    wait 2>/dev/null
    pids=()
}

start_once() {
    local ports n i bootstrap=
    mapfile -t ports < <(free_ports $((2 * brokers)))
    [ ${#ports[@]} = $((2 * brokers)) ] || die "could not choose ports"
    bports=() cports=() voters=
    for n in $(seq 1 "$brokers"); do
        bports[$n]=${ports[$((2 * n - 2))]}
        cports[$n]=${ports[$((2 * n - 1))]}
        voters=${voters:+$voters,}$n@127.0.0.1:${cports[$n]}
    done
    local cluster_id
    cluster_id=$(python3 -c 'import base64,os;print(base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("="))')
    for n in $(seq 1 "$brokers"); do
        rm -rf "$DIR/node-$n"
        mkdir -p "$DIR/node-$n"
        write_config "$n" "${bports[$n]}"
    done
    # format every node's storage (in parallel: each is a JVM start)
    local fpids=()
    for n in $(seq 1 "$brokers"); do
        "$JAVA" -Xmx256M $perf ${cds_opts[@]+"${cds_opts[@]}"} -Dlog4j2.configurationFile="$here/tools-log4j2.properties" \
            -cp "$CP" kafka.tools.StorageTool format -t "$cluster_id" \
            -c "$DIR/node-$n/server.properties" >"$DIR/node-$n/format.out" 2>&1 &
        fpids+=($!)
    done
    for i in "${!fpids[@]}"; do
        wait "${fpids[$i]}" || {
            cat "$DIR/node-$((i + 1))/format.out" >&2
            die "formatting node $((i + 1))'s storage failed"
        }
    done
    # start the nodes
    for n in $(seq 1 "$brokers"); do
        local jopts=()
        if [ -n "$cds_make" ] && [ "$n" = 1 ]; then
            jopts=(-XX:ArchiveClassesAtExit="$cds_make" -Xlog:cds=off -Xlog:cds+dynamic=off)
        elif [ ${#cds_opts[@]} -gt 0 ]; then
            jopts=("${cds_opts[@]}")
        fi
        # shellcheck disable=SC2086
        (cd "$DIR/node-$n" && exec "$JAVA" $heap $perf ${jopts[@]+"${jopts[@]}"} \
            -Dlog4j2.configurationFile="$DIR/node-$n/log4j2.properties" \
            ${KAFKA_OPTS:-} -cp "$CP" kafka.Kafka "$DIR/node-$n/server.properties" \
            >"$DIR/node-$n/out" 2>&1 </dev/null) &
        pids[$n]=$!
    done
    echo "${pids[*]}" >"$DIR/pids"
    [ -n "$cds_make" ] && echo "$cds_make $cds" >"$DIR/cds-pending"
    # serving: each node logs "Kafka Server started" once its broker is
    # unfenced and its listener accepts requests
    local deadline ready
    deadline=$(( $(date +%s) + start_timeout ))
    while :; do
        ready=0
        for n in $(seq 1 "$brokers"); do
            grep -q 'Kafka Server started' "$DIR/node-$n/kafka.log" 2>/dev/null &&
                ready=$((ready + 1))
            if ! kill -0 "${pids[$n]}" 2>/dev/null; then
                if grep -qi 'Address already in use' "$DIR/node-$n/kafka.log" \
                    "$DIR/node-$n/out" 2>/dev/null; then
                    cleanup_start
                    return 2 # retry with other ports
                fi
                echo "run-kafka: node $n exited at start-up:" >&2
                tail -n 30 "$DIR/node-$n/out" "$DIR/node-$n/kafka.log" >&2
                cleanup_start
                return 1
            fi
        done
        [ $ready = "$brokers" ] && break
        if [ "$(date +%s)" -ge $deadline ]; then
            echo "run-kafka: not serving after $start_timeout s" >&2
            for n in $(seq 1 "$brokers"); do
                tail -n 20 "$DIR/node-$n/out" "$DIR/node-$n/kafka.log" >&2
            done
            cleanup_start
            return 1
        fi
        sleep 0.05
    done
    return 0
}

trap 'cleanup_start; exit 1' TERM INT HUP
rc=2
for attempt in 1 2 3; do
    start_once
    rc=$?
    [ $rc = 2 ] || break
done
[ $rc = 0 ] || { [ $rc = 2 ] && echo "run-kafka: ports kept being taken" >&2; exit 1; }
started=1
trap - EXIT

bootstrap=
for n in $(seq 1 "$brokers"); do
    bootstrap=${bootstrap:+$bootstrap,}127.0.0.1:${bports[$n]}
done
cat >"$DIR/env" <<ENV
KAFKA_DIR=$DIR
KAFKA_BOOTSTRAP=$bootstrap
KAFKA_PIDS="${pids[*]}"
ENV
[ -n "$bootstrap_file" ] && echo "$bootstrap" >"$bootstrap_file"
echo "kafka: dir $DIR"
for n in $(seq 1 "$brokers"); do
    echo "kafka: node $n listening on 127.0.0.1:${bports[$n]} (pid ${pids[$n]})"
done
echo "kafka: listening on $bootstrap"
echo "kafka: started in $(echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1 - $2}') s"

if [ $daemon = 1 ]; then
    echo "kafka: stop with: $0 --stop $DIR"
    exit 0
fi
# foreground: stop on a signal or when a node exits
trap 'stop_nodes "$DIR"; exit 0' TERM INT HUP
while :; do
    for n in $(seq 1 "$brokers"); do
        if ! kill -0 "${pids[$n]}" 2>/dev/null; then
            echo "run-kafka: node $n (pid ${pids[$n]}) exited" >&2
            stop_nodes "$DIR"
            exit 1
        fi
    done
    sleep 0.5 &
    wait $!
done
