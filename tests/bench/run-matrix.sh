#!/bin/bash
# tests/bench/run-matrix.sh: the fixed benchmark matrix of issues 8 and 18,
# against one broker or up to three side by side, written as a Markdown
# report.
#
#   tests/bench/run-matrix.sh [--a SPEC] [--b SPEC] [--c SPEC] [--reps N]
#                             [--quick] [--perf-tools auto|on|off]
#                             [--out FILE] [--workdir DIR]
#
#   SPEC   gregor            $GREGOR, default $top_builddir/src/gregor
#          gregor=PATH       another gregor binary (two builds side by side)
#          mock              tests/bench/mock_cluster (librdkafka's mock)
#          kafka             Apache Kafka (tests/kafka/run-kafka.sh)
#   --a    broker A (default gregor); --b broker B, --c broker C (default
#          none; C needs B)
#   --reps runs of every cell on each broker (default 2): the runs
#          alternate A B C A B C and the report gives medians and A/B, A/C
#   --quick a tenth of the messages, shorter latency runs (smoke test)
#   --perf-tools  Kafka's kafka-producer-perf-test and kafka-consumer-perf-
#          test as a second load generator (default auto: when Kafka's jars
#          are installed, tests/kafka/install.sh)
#   --out  the Markdown report (default stdout); progress goes to stderr
#
# The matrix: produce and consume of 100 B and 1 KiB messages, 1 and 8
# partitions, acks=1 and all, compression none, lz4 and zstd; a 1 GiB
# produce and consume (1 KiB, 1 partition, acks=1), the same read again
# by tests/bench/rawfetch (a minimal client) and served to librdkafka by
# tests/bench/membroker (the least a broker can do), with broker CPU per GiB
# next to tests/bench/baseline (write() of the same bytes to a new file and
# sendfile() of it to a socket), end-to-end latency at 2,000 msg/s
# (linger.ms=0), startup time and idle RSS (tests/bench/startup), and each
# broker's peak RSS (VmHWM). The matrix runs in two phases, 1 and 8
# partitions, with brokers started fresh for each (gbench creates its
# topics with CreateTopics; gregor's and Kafka's num.partitions match too);
# in a phase the brokers run side by side on 127.0.0.1, each in its own
# directory under the work dir, removed at the end (KEEP_TMP=1 keeps it).
# With the perf tools, the 1-partition phase also runs Kafka's producer and
# consumer perf tests (1 KiB and 100 B, acks 1 and all) on every broker
# whose protocol versions Kafka 4.4's Java clients can use.
#
# Kafka: one combined broker+controller per phase, started by
# tests/kafka/run-kafka.sh --daemon in the broker's directory with the JVM
# settings of Kafka's start script (stated in the report), stopped by its
# pid (run-kafka.sh --stop); its start-up is timed by tests/bench/startup
# exec-ing the same java command line on storage formatted beforehand.
#
# Benchmarks are never tests: no figure is compared anywhere. `make bench`
# builds the programs and runs this script against src/gregor; `make
# check` runs a tenth of it once (compat bench_harness) so that it keeps
# working.

set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
top_builddir=$(cd "$top_builddir" && pwd)
BIN=${BENCH_BIN:-$top_builddir/tests/bench}
GREGOR=${GREGOR:-$top_builddir/src/gregor}

A_SPEC=gregor
B_SPEC=
C_SPEC=
REPS=2
QUICK=0
PERF_TOOLS=auto
RUN_KAFKA=$top_srcdir/tests/kafka/run-kafka.sh
OUT=-
WORKBASE=${TMPDIR:-/tmp}

usage() {
    sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --a) A_SPEC=$2; shift 2 ;;
    --b) B_SPEC=$2; shift 2 ;;
    --c) C_SPEC=$2; shift 2 ;;
    --perf-tools) PERF_TOOLS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --out) OUT=$2; shift 2 ;;
    --workdir) WORKBASE=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "run-matrix.sh: unknown argument $1" >&2; usage ;;
    esac
done

for p in gbench startup mock_cluster baseline rawfetch membroker; do
    if [ ! -x "$BIN/$p" ]; then
        echo "run-matrix.sh: $BIN/$p is missing: run 'make bench' (or" \
            "'make tests/bench/$p') in the build directory" >&2
        exit 1
    fi
done

# --- sizes -------------------------------------------------------------
SIZES="100 1024"
PARTS="1 8"
ACKS="1 all"
CODECS="none lz4 zstd"
n_for_size() { # messages per cell: about 95 MiB of 100 B, 195 MiB of 1 KiB
    local n
    case $1 in 100) n=1000000 ;; *) n=200000 ;; esac
    [ "$QUICK" = 1 ] && n=$((n / 10))
    echo $n
}
BIG_N=1048576 # 1 GiB of 1 KiB messages
WARM_MIB=100   # the warm-up of each size, MiB
IDLE_SECS=10   # the idle CPU sample
LAT_RATE=2000
LAT_SECS=5
STARTUP_RUNS=20
KSTARTUP_RUNS=10 # Kafka's: each run is a JVM start and stop of seconds
if [ "$QUICK" = 1 ]; then
    BIG_N=131072
    LAT_SECS=2
    STARTUP_RUNS=5
    KSTARTUP_RUNS=3
    WARM_MIB=10
    IDLE_SECS=2
fi
# the perf tools' cells (a JVM start each): in --quick mode only the 1 KiB
# acks=1 produce and its consume, so that the smoke run stays short
PERF_SIZES="1024 100"
PERF_ACKS=$ACKS
if [ "$QUICK" = 1 ]; then
    PERF_SIZES=1024
    PERF_ACKS=1
fi
BIG_BYTES=$((BIG_N * 1024))

WORK=$(mktemp -d "$WORKBASE/gregor-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT # until cleanup() below takes over
RES=$WORK/results # cell <TAB> broker <TAB> rep <TAB> rc <TAB> key=value line
NOTES=$WORK/notes # Markdown lines about failures, for the report
: >"$RES"
: >"$NOTES"
declare -A CMD    # cell -> command that made it (broker A, rep 1)
CELLS=()          # in report order

log() { echo "run-matrix: $*" >&2; }

# --- brokers -----------------------------------------------------------
# Per broker X (A, B or C): KIND_X, PROG_X, PID_X, BOOT_X, DIR_X, RESTARTS_X;
# for Kafka also KDIR_X (run-kafka.sh's directory, inside DIR_X).
declare -A KIND PROG PID BOOT DIR RESTARTS KDIR LBL
ALL_TOPICS=()
. "$top_srcdir/compat/clients.sh"
KAFKA_LIBS=$GR_CLIENTS/kafka/libs
JAVA=${JAVA:-java}
[ -n "${JAVA_HOME:-}" ] && [ "$JAVA" = java ] && JAVA=$JAVA_HOME/bin/java
KAFKA_JVM=   # the Kafka broker's java command line, from /proc (report)
KAFKA_STARTS=() # run-kafka.sh's own "started in S s" of each phase

parse_spec() { # X SPEC
    local x=$1 spec=$2
    case $spec in
    gregor) KIND[$x]=gregor; PROG[$x]=$GREGOR ;;
    gregor=*) KIND[$x]=gregor; PROG[$x]=${spec#gregor=} ;;
    mock) KIND[$x]=mock; PROG[$x]=$BIN/mock_cluster ;;
    kafka) KIND[$x]=kafka; PROG[$x]=$RUN_KAFKA ;;
    *) echo "run-matrix.sh: bad broker spec '$spec'" >&2; exit 2 ;;
    esac
    if [ ! -x "${PROG[$x]}" ]; then
        echo "run-matrix.sh: ${PROG[$x]} is not executable" >&2
        exit 1
    fi
    if [ "${KIND[$x]}" = kafka ] && [ ! -d "$KAFKA_LIBS" ]; then
        echo "run-matrix.sh: Kafka is not installed in $KAFKA_LIBS:" \
            "run tests/kafka/install.sh" >&2
        exit 1
    fi
    RESTARTS[$x]=0
}

broker_cmd() { # X DIR: the command line that starts broker X in DIR
    local x=$1 d=$2
    if [ "${KIND[$x]}" = gregor ]; then
        echo "${PROG[$x]} --override listeners=PLAINTEXT://127.0.0.1:0" \
            "--override log.dirs=$d/data --override num.partitions=$NUMPART" \
            "--override group.initial.rebalance.delay.ms=0" \
            "--listeners-file $d/listeners ${GREGOR_ARGS:-}"
    elif [ "${KIND[$x]}" = kafka ]; then
        echo "${PROG[$x]} --daemon --tmp $d --partitions $NUMPART" \
            "$([ "${KEEP_TMP:-0}" = 1 ] && echo --keep) ${KAFKA_ARGS:-}"
    else
        local t args=""
        for t in "${ALL_TOPICS[@]}"; do args="$args --topic $t"; done
        echo "${PROG[$x]} --listeners-file $d/listeners$args"
    fi
}

# Waits up to 30 s for broker X to write ${DIR[X]}/listeners; BOOT[X].
wait_listening() { # X
    local x=$1
    for _ in $(seq 1 1200); do
        if [ -s "${DIR[$x]}/listeners" ]; then
            BOOT[$x]=$(sed -n '1s|.*://||p' "${DIR[$x]}/listeners")
            return 0
        fi
        kill -0 "${PID[$x]}" 2>/dev/null || return 1
        sleep 0.025
    done
    return 1
}

# Kafka: run-kafka.sh --daemon returns once the broker serves (bounded by
# its --timeout, 90 s) and leaves DIR/kafka.*/env naming its pid and
# bootstrap; the JVM's log is linked as DIR/broker.log.
start_kafka() { # X
    local x=$1 d=${DIR[$1]} env KAFKA_DIR= KAFKA_BOOTSTRAP= KAFKA_PIDS=
    # shellcheck disable=SC2046 # word splitting is wanted
    if ! $(broker_cmd "$x" "$d") >"$d/stdout" 2>"$d/run-kafka.err"; then
        log "broker $x (kafka) did not start:"
        tail -n 20 "$d/run-kafka.err" >&2
        exit 1
    fi
    env=$(ls "$d"/kafka.*/env 2>/dev/null | head -n 1)
    [ -n "$env" ] && . "$env"
    if [ -z "$KAFKA_PIDS" ] || ! kill -0 "$KAFKA_PIDS" 2>/dev/null; then
        log "broker $x (kafka): no pid after run-kafka.sh:"
        cat "$d/stdout" "$d/run-kafka.err" >&2
        exit 1
    fi
    KDIR[$x]=$KAFKA_DIR
    PID[$x]=$KAFKA_PIDS
    BOOT[$x]=$KAFKA_BOOTSTRAP
    ln -sf "$KAFKA_DIR/node-1/kafka.log" "$d/broker.log"
    KAFKA_STARTS+=("$(sed -n 's/^kafka: started in \([0-9.]*\) s/\1/p' "$d/stdout")")
    if [ -z "$KAFKA_JVM" ]; then
        KAFKA_JVM=$(tr '\0' ' ' <"/proc/$KAFKA_PIDS/cmdline")
        KAFKA_JVM=${KAFKA_JVM//$KAFKA_DIR/\$KAFKA_DIR}
    fi
    log "broker $x (kafka) pid ${PID[$x]} at ${BOOT[$x]}"
}

start_broker() { # X
    local x=$1 d
    d=$(mktemp -d "$WORK/broker-$x.XXXXXX")
    DIR[$x]=$d
    if [ "${KIND[$x]}" = kafka ]; then
        start_kafka "$x"
        return 0
    fi
    # shellcheck disable=SC2046 # word splitting is wanted
    $(broker_cmd "$x" "$d") >"$d/stdout" 2>"$d/broker.log" &
    PID[$x]=$!
    if wait_listening "$x"; then
        log "broker $x (${KIND[$x]}) pid ${PID[$x]} at ${BOOT[$x]}"
        return 0
    fi
    log "broker $x did not start:"
    tail -n 20 "$d/broker.log" >&2
    exit 1
}

stop_broker() { # X
    local x=$1
    [ -n "${PID[$x]:-}" ] || return 0
    if [ "${KIND[$x]}" = kafka ]; then
        # by the pid in its directory: TERM, 30 s, then KILL
        "$RUN_KAFKA" --stop "${KDIR[$x]}" >/dev/null
        PID[$x]=
        return 0
    fi
    kill -TERM "${PID[$x]}" 2>/dev/null
    for _ in $(seq 1 200); do
        kill -0 "${PID[$x]}" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "${PID[$x]}" 2>/dev/null
    wait "${PID[$x]}" 2>/dev/null
    PID[$x]=
}

# After a run: a broker that died is noted with its log and restarted, so
# the rest of the matrix still runs (its data, and later consume cells of
# that repetition, are gone: those cells then fail and say so).
check_broker() { # X CELL
    local x=$1 cell=$2 st
    kill -0 "${PID[$x]}" 2>/dev/null && return 0
    wait "${PID[$x]}" 2>/dev/null
    st=$?
    log "broker $x DIED during '$cell' (wait status $st)"
    {
        echo "- broker $x (${KIND[$x]}) died during \`$cell\` (shell wait" \
            "status $st). Last lines of its log:"
        echo '  ```'
        tail -n 15 "${DIR[$x]}/broker.log" | sed 's/^/  /'
        echo '  ```'
    } >>"$NOTES"
    cp "${DIR[$x]}/broker.log" "$WORK/died-$x-${RESTARTS[$x]}.log"
    RESTARTS[$x]=$((RESTARTS[$x] + 1))
    # a dead Kafka's directory (and its pid file) is removed
    stop_broker "$x"
    PID[$x]=
    start_broker "$x"
}

# The reference servers of the 1 GiB cells (see membroker.c): for consume,
# membroker on A's copy of the partition, M from memory (writev), S with
# sendfile, V from memory by reference (vmsplice and splice);
# for produce, W appends with write() and P receives into a mapping.
start_ref() { # X PARTITION_DIR TOPIC
    local x=$1 d args
    d=$(mktemp -d "$WORK/ref-$x.XXXXXX")
    KIND[$x]=membroker
    DIR[$x]=$d
    case $x in
    M) args=(--dir "$2") ;;
    S) args=(--dir "$2" --sendfile) ;;
    V) args=(--dir "$2" --vmsplice) ;;
    W) args=(--sink "$d/sink.log") ;;
    P) args=(--sink "$d/sink.log" --sink-mmap) ;;
    esac
    REF_CMD[$x]="tests/bench/membroker ${args[*]} --topic NAME"
    REF_CMD[$x]=${REF_CMD[$x]//$2/\$PARTITION_DIR}
    REF_CMD[$x]=${REF_CMD[$x]//$d/\$DIR}
    "$BIN/membroker" "${args[@]}" --topic "$3" \
        --listeners-file "$d/listeners" >"$d/stdout" 2>"$d/broker.log" &
    PID[$x]=$!
    wait_listening "$x" && return 0
    log "membroker $x did not start:"
    tail -n 5 "$d/broker.log" >&2
    echo "- membroker ($x) did not start on $2" >>"$NOTES"
    return 1
}
declare -A REF_CMD

BROKERS=(A)
parse_spec A "$A_SPEC"
if [ -n "$B_SPEC" ]; then
    parse_spec B "$B_SPEC"
    BROKERS=(A B)
fi
if [ -n "$C_SPEC" ]; then
    [ -n "$B_SPEC" ] || { echo "run-matrix.sh: --c needs --b" >&2; exit 2; }
    parse_spec C "$C_SPEC"
    BROKERS=(A B C)
fi
# report labels: the kind where each broker's kind differs, else the letter
for x in "${BROKERS[@]}"; do
    LBL[$x]=${KIND[$x]}
    for y in "${BROKERS[@]}"; do
        [ "$x" != "$y" ] && [ "${KIND[$x]}" = "${KIND[$y]}" ] && LBL[$x]=$x
    done
done
case $PERF_TOOLS in
auto)
    PERF_TOOLS=off
    [ -d "$KAFKA_LIBS" ] && command -v "$JAVA" >/dev/null 2>&1 && PERF_TOOLS=on ;;
on)
    [ -d "$KAFKA_LIBS" ] || {
        echo "run-matrix.sh: --perf-tools on: no Kafka in $KAFKA_LIBS" \
            "(tests/kafka/install.sh)" >&2
        exit 1
    } ;;
off) ;;
*) echo "run-matrix.sh: --perf-tools auto|on|off" >&2; exit 2 ;;
esac
KAFKA_CP=
if [ -d "$KAFKA_LIBS" ]; then
    KAFKA_CP=$(printf '%s:' "$KAFKA_LIBS"/*.jar)
    KAFKA_CP=${KAFKA_CP%:}
fi

cleanup() {
    for x in "${BROKERS[@]}" M S V W P; do stop_broker "$x"; done
    [ -n "${KSTART_INST:-}" ] && "$RUN_KAFKA" --stop "$KSTART_INST" >/dev/null
    if [ "${KEEP_TMP:-0}" = 1 ]; then
        log "kept $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- topics (the mock must have them before it starts) ---------------------
ptopic() { echo "b-s$1-p$2-a$3-$4-r$5"; } # size parts acks codec rep
ktopic() { echo "k-s$1-p1-a$2-r$3"; }      # the perf tools': size acks rep
for r in $(seq 1 "$REPS"); do
    for s in $SIZES; do for p in $PARTS; do for a in $ACKS; do
        for z in $CODECS; do ALL_TOPICS+=("$(ptopic $s $p $a $z $r):$p"); done
    done; done; done
    ALL_TOPICS+=("b-big-r$r:1" "b-lat-r$r:1")
done
for p in $PARTS; do
    for s in $SIZES; do ALL_TOPICS+=("b-warm-s$s-p$p:$p"); done
done

# --- running one cell --------------------------------------------------
# run CELL X REP gbench ARGS...: runs gbench against broker X, records its
# key=value line (or the failure) in $RES, keeps the command of A's first run.
# (run CELL X REP rawfetch ARGS...: the same with tests/bench/rawfetch)
run() {
    local cell=$1 x=$2 rep=$3 out rc line prog=gbench
    shift 3
    [ "$1" = rawfetch ] && { prog=rawfetch; shift; }
    out=$WORK/run.$$.out
    if [ "$x" = A ] && [ "$rep" = 1 ]; then
        CMD[$cell]="tests/bench/$prog $* -b \$BOOTSTRAP --broker-pid \$BROKER_PID"
    fi
    timeout 120 "$BIN/$prog" "$@" -b "${BOOT[$x]}" --broker-pid "${PID[$x]}" \
        --label "$x" >"$out" 2>"$out.err"
    rc=$?
    line=$(grep -E '^(gbench|rawfetch) ' "$out" | tail -n 1)
    grep -v '^gbench ' "$out" | sed "s/^/  [$x r$rep] /" >&2
    if [ $rc -ne 0 ]; then
        log "FAILED ($rc): $cell on $x rep $rep"
        sed 's/^/    /' "$out.err" | tail -n 5 >&2
        {
            echo "- \`$cell\` on $x (${KIND[$x]}), rep $rep: gbench exit $rc:"
            echo '  ```'
            tail -n 5 "$out.err" | sed 's/^/  /'
            echo '  ```'
        } >>"$NOTES"
    fi
    printf '%s\t%s\t%s\t%s\t%s loadavg1=%s\n' "$cell" "$x" "$rep" "$rc" "$line" \
        "$(cut -d' ' -f1 /proc/loadavg)" >>"$RES"
    case $x in A | B | C) check_broker "$x" "$cell" ;; esac
}

# Cells that cannot run on a broker: NA["CELL|X"] is why (the report says
# n/a and gives the reason once).
declare -A NA

# --- Kafka's perf tools ------------------------------------------------
# As bin/kafka-producer-perf-test.sh and bin/kafka-consumer-perf-test.sh run
# them: kafka-run-class.sh's JVM settings with the scripts' heap
# (KAFKA_HEAP_OPTS=-Xmx512M), log4j2 at WARN to stderr as the tools' own
# log4j2 file has it; everything else is the tools' and the Java clients'
# defaults (producer: linger.ms=5, batch.size=16384, buffer.memory=32 MiB,
# idempotence with acks=all; consumer: a group, fetch.max.bytes=50 MiB).
PERF_JVM="-Xmx512M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20
-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent
-XX:MaxInlineLevel=15 -Djava.awt.headless=true"
PERF_NA_MOCK="librdkafka 2.0.2's mock answers the Java 4.4 client's ApiVersions v5 with an UNSUPPORTED_VERSION body the client reads as a throttle of 1179648 ms, so it never sends Metadata (seen with log4j2 at DEBUG)"
CLK_TCK=$(getconf CLK_TCK)

proc_cpu_ticks() { # PID: its utime + stime from /proc/PID/stat, in ticks
    awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}

# perf_run CELL X REP produce TOPIC N SIZE ACKS
# perf_run CELL X REP consume TOPIC N SIZE: one run of a perf tool against
# broker X; its figures (the tool's own clock) and the broker's CPU over the
# tool's whole process (/proc/PID/stat, 10 ms ticks) go to $RES as a
# "perf ..." line. The producer's topic is made first by gbench create
# (CreateTopics, as gbench makes every other topic), untimed.
perf_run() {
    local cell=$1 x=$2 rep=$3 mode=$4 topic=$5 n=$6 size=$7 acks=${8:-}
    local out=$WORK/perf.$$.out cls shown rc=0 c0 c1 line= nums cpu
    local args=()
    if [ "${KIND[$x]}" = mock ]; then
        NA[$cell|$x]=$PERF_NA_MOCK
        return 0
    fi
    : >"$out"
    : >"$out.err"
    if [ "$mode" = produce ]; then
        timeout 60 "$BIN/gbench" create -t "$topic" -p 1 -b "${BOOT[$x]}" \
            >/dev/null 2>"$out.err" || rc=$?
        cls=org.apache.kafka.tools.ProducerPerformance
        args=(--topic "$topic" --num-records "$n" --record-size "$size"
            --throughput -1 --command-property "acks=$acks")
        shown=kafka-producer-perf-test
    else
        cls=org.apache.kafka.tools.ConsumerPerformance
        args=(--topic "$topic" --num-records "$n" --group "perf-$x-r$rep-s$size"
            --timeout 30000 --hide-header)
        shown=kafka-consumer-perf-test
    fi
    if [ "$x" = A ] && [ "$rep" = 1 ]; then
        CMD[$cell]="$shown --bootstrap-server \$BOOTSTRAP ${args[*]}"
        CMD[$cell]=${CMD[$cell]//$topic/NAME}
        CMD[$cell]=${CMD[$cell]//perf-A-r1-s$size/perf-X-rR-s$size}
    fi
    c0=$(proc_cpu_ticks "${PID[$x]}")
    if [ $rc = 0 ]; then
        # shellcheck disable=SC2086 # PERF_JVM is words
        timeout 120 "$JAVA" $PERF_JVM \
            -Dlog4j2.configurationFile="$top_srcdir/tests/kafka/tools-log4j2.properties" \
            -cp "$KAFKA_CP" "$cls" --bootstrap-server "${BOOT[$x]}" "${args[@]}" \
            >"$out" 2>>"$out.err"
        rc=$?
    fi
    c1=$(proc_cpu_ticks "${PID[$x]}")
    cpu=$(awk -v a="${c0:-0}" -v b="${c1:-0}" -v t="$CLK_TCK" -v by=$((n * size)) \
        'BEGIN { c = (b - a) / t; printf "broker_cpu_s=%.2f cpu_s_per_gib=%.3f", c, c * 1073741824 / by }')
    if [ "$mode" = produce ]; then
        # "N records sent, R records/sec (M MB/sec), A ms avg latency,
        # X ms max latency, P ms 50th, P ms 95th, P ms 99th, P ms 99.9th."
        nums=($(grep 'records sent,' "$out" | tail -n 1 | grep -oE '[0-9]+(\.[0-9]+)?'))
        if [ ${#nums[@]} -ge 12 ]; then
            line="perf mode=produce records=${nums[0]} msgs_s=${nums[1]} mib_s=${nums[2]} avg_ms=${nums[3]} max_ms=${nums[4]} p50_ms=${nums[5]} p95_ms=${nums[7]} p99_ms=${nums[9]} p999_ms=${nums[11]} $cpu"
            [ "${nums[0]}" = "$n" ] || { [ "$rc" = 0 ] && rc=1; }
        fi
        grep -q 'Exception' "$out" "$out.err" && { [ "$rc" = 0 ] && rc=1; }
    else
        # start, end, MB, MB/s, records, records/s, rebalance ms, fetch ms,
        # fetch MB/s, fetch records/s (MB = 2^20 B)
        nums=($(tail -n 1 "$out" | awk -F', ' 'NF >= 10 { print $3, $4, $5, $6, $7, $8, $9, $10 }'))
        if [ ${#nums[@]} = 8 ]; then
            line="perf mode=consume mib=${nums[0]} total_mib_s=${nums[1]} records=${nums[2]} rebalance_ms=${nums[4]} fetch_ms=${nums[5]} mib_s=${nums[6]} msgs_s=${nums[7]} $cpu"
            [ "${nums[2]%.*}" -ge "$n" ] 2>/dev/null || { [ "$rc" = 0 ] && rc=1; }
        fi
    fi
    [ -n "$line" ] || { [ "$rc" = 0 ] && rc=1; }
    sed "s/^/  [$x r$rep] $mode: /" "$out" | tail -n 2 >&2
    if [ "$rc" != 0 ]; then
        log "FAILED ($rc): $cell on $x rep $rep"
        {
            echo "- \`$cell\` on $x (${KIND[$x]}), rep $rep: exit $rc:"
            echo '  ```'
            tail -n 5 "$out" "$out.err" | sed 's/^/  /'
            echo '  ```'
        } >>"$NOTES"
    fi
    printf '%s\t%s\t%s\t%s\t%s loadavg1=%s\n' "$cell" "$x" "$rep" "$rc" "$line" \
        "$(cut -d' ' -f1 /proc/loadavg)" >>"$RES"
    check_broker "$x" "$cell"
}

# --- Kafka's start-up --------------------------------------------------
# Timed as the others' (tests/bench/startup, exec to the first Metadata
# answered), exec-ing the broker's own java command line: taken from
# /proc/PID/cmdline of a broker run-kafka.sh started, so that the JVM
# settings are the same. Kafka serves only formatted storage, and
# formatting is a step of its own before a first start (kafka-storage.sh
# format): it is done once here by kafka.tools.StorageTool, and each run
# starts on a copy of that storage (the --pre command, untimed), with a
# config naming fixed loopback ports that the same run-kafka.sh start chose.
# Two variants: Kafka's start script (no class-data archive of Kafka's own
# classes) and run-kafka.sh's (with its archive, -XX:SharedArchiveFile).
# Sets KSTART_CMD_PLAIN, KSTART_CMD_CDS (strings, "{dir}" for the run's
# directory), KSTART_PRE and KSTART_PORT; 1 if it could not.
kafka_startup_prepare() {
    local t=$WORK/kafka-startup kd pid cid a nd java
    local plain=() cds=()
    mkdir -p "$t"
    "$RUN_KAFKA" --daemon --keep --tmp "$t" >"$t/run.out" 2>&1 || {
        tail -n 20 "$t/run.out" >&2
        return 1
    }
    kd=$(sed -n 's/^kafka: dir //p' "$t/run.out")
    KSTART_INST=$kd
    pid=$(sed -n 's/^kafka: node 1 listening on .* (pid \([0-9]*\))$/\1/p' "$t/run.out")
    mapfile -d '' -t KARGV <"/proc/$pid/cmdline"
    "$RUN_KAFKA" --stop "$kd" >/dev/null
    KSTART_INST=
    nd=$kd/node-1
    sed "s|$nd|@DIR@|g" "$nd/server.properties" >"$t/server.properties"
    sed "s|$nd|@DIR@|g" "$nd/log4j2.properties" >"$t/log4j2.properties"
    sed "s|@DIR@|$t|g" "$t/server.properties" >"$t/format.properties"
    cid=$(sed -n 's/^cluster.id=//p' "$nd/data/meta.properties")
    rm -rf "$kd"
    "$JAVA" -Xmx256M -cp "$KAFKA_CP" kafka.tools.StorageTool format -t "$cid" \
        -c "$t/format.properties" >"$t/format.out" 2>&1 || {
        cat "$t/format.out" >&2
        return 1
    }
    KSTART_PORT=$(sed -n 's|^listeners=PLAINTEXT://\([^,]*\),.*|\1|p' "$t/server.properties")
    KSTART_PRE="cp -a $t/data {dir}/data && sed 's|@DIR@|{dir}|g' $t/server.properties >{dir}/server.properties && sed 's|@DIR@|{dir}|g' $t/log4j2.properties >{dir}/log4j2.properties"
    java=$(command -v "${KARGV[0]}")
    plain=("$java") cds=("$java")
    for a in "${KARGV[@]:1}"; do
        case $a in
        -Dlog4j2.configurationFile=*) a="-Dlog4j2.configurationFile={dir}/log4j2.properties" ;;
        */server.properties) a="{dir}/server.properties" ;;
        -XX:ArchiveClassesAtExit=*) continue ;; # the archive's first run
        esac
        cds+=("$a")
        case $a in -XX:SharedArchiveFile=* | -Xlog:cds*) continue ;; esac
        plain+=("$a")
    done
    KSTART_CMD_PLAIN="${plain[*]}"
    KSTART_CMD_CDS=
    [ "${#cds[@]}" != "${#plain[@]}" ] && KSTART_CMD_CDS="${cds[*]}"
    return 0
}

# The untimed warm-up of broker X at the start of a phase: WARM_MIB MiB of
# each size produced (acks=1) and read back once. Gregor and the mock need
# none; Kafka's JVM interprets its code until it has run often enough to
# be compiled, which the first seconds of load would otherwise measure.
warm_n() { echo $((WARM_MIB * 1048576 / $1)); } # size -> messages
WARM_CMD="tests/bench/gbench produce -t NAME -p P -n N -s S (S = $(echo $SIZES | sed 's/ / and /'), N = $WARM_MIB MiB of them)"
warm_up() { # X
    local x=$1 s loop= rc=0
    [ "${KIND[$x]}" = mock ] && loop=--loop
    for s in $SIZES; do
        timeout 120 "$BIN/gbench" produce -t "b-warm-s$s-p$NUMPART" -p "$NUMPART" \
            -n "$(warm_n $s)" -s "$s" -b "${BOOT[$x]}" >/dev/null 2>"$WORK/warm.err" &&
            timeout 120 "$BIN/gbench" consume -t "b-warm-s$s-p$NUMPART" \
                -n "$(warm_n $s)" $loop -b "${BOOT[$x]}" >/dev/null 2>>"$WORK/warm.err" ||
            rc=1
    done
    if [ $rc != 0 ]; then
        log "warm-up of $x failed:"
        tail -n 5 "$WORK/warm.err" >&2
        echo "- the warm-up of broker $x (${KIND[$x]}) failed in phase P=$NUMPART." >>"$NOTES"
    fi
}

add_cell() { # keeps the report order
    local c
    for c in "${CELLS[@]}"; do [ "$c" = "$1" ] && return; done
    CELLS+=("$1")
}

# --- the matrix --------------------------------------------------------
# Two phases, by partition count: gbench creates its topics with
# CreateTopics (gregor's num.partitions is set per phase as well, for
# auto-creation; the mock gets its topics at start).
# The brokers are started fresh for each phase and run side by side in it.
T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "work dir $WORK; brokers: ${BROKERS[*]}; reps $REPS"

for s in $SIZES; do for p in $PARTS; do for a in $ACKS; do for z in $CODECS; do
    add_cell "produce s=$s p=$p acks=$a $z"
done; done; done; done
for s in $SIZES; do for p in $PARTS; do for z in $CODECS; do
    add_cell "consume s=$s p=$p $z"
done; done; done

# Startup first, on a quiet machine (after a sync: gregor fsyncs its new
# data directory at start): fresh processes, not the ones below.
sync
declare -A STARTUP_CMD STARTUP_OPTS
startup_runs() { # NAME LABEL RUNS [STARTUP-OPTION...] -- COMMAND...
    local name=$1 label=$2 n=$3
    shift 3
    "$BIN/startup" -n "$n" --label "$label" "$@" >"$WORK/startup.$name" 2>&1 ||
        log "startup $label: some runs failed"
    grep -v '^startup' "$WORK/startup.$name" | sed 's/^/  /' >&2
    grep '^startup [^l]' "$WORK/startup.$name" | sed 's/^/  /' >&2
}
for x in "${BROKERS[@]}"; do
    case ${KIND[$x]} in
    gregor)
        STARTUP_CMD[$x]="${PROG[$x]} --override listeners=PLAINTEXT://127.0.0.1:0 --override log.dirs={dir}/data ${GREGOR_ARGS:-}" ;;
    mock)
        STARTUP_CMD[$x]="${PROG[$x]}" ;;
    kafka)
        # fewer runs: each is a JVM start and stop of some seconds
        if ! kafka_startup_prepare; then
            echo "- Kafka's start-up was not measured: preparing its storage failed." >>"$NOTES"
            continue
        fi
        STARTUP_OPTS[$x]="--pre \"\$PRE\" --connect $KSTART_PORT --wait 90 --exit-ok 143"
        for v in plain cds; do
            [ $v = plain ] && c=$KSTART_CMD_PLAIN || c=$KSTART_CMD_CDS
            [ -n "$c" ] || continue
            [ $v = plain ] && STARTUP_CMD[$x]=$c || STARTUP_CMD[$x-cds]=$c
            # shellcheck disable=SC2086 # the command is words
            startup_runs "$x$([ $v = cds ] && echo -cds)" "$x" "$KSTARTUP_RUNS" \
                --pre "$KSTART_PRE" --connect "$KSTART_PORT" --wait 90 \
                --exit-ok 143 -- $c
        done
        continue ;;
    esac
    # shellcheck disable=SC2086
    startup_runs "$x" "$x" "$STARTUP_RUNS" -- ${STARTUP_CMD[$x]}
done

declare -A HWM LRSS # "X p" -> VmHWM, VmRSS KiB at the end of phase p
declare -A IDLE0 IDLE_CPU # X -> CPU ticks, % of one CPU when idle
for p in $PARTS; do
    NUMPART=$p
    for x in "${BROKERS[@]}"; do start_broker "$x"; done
    for x in "${BROKERS[@]}"; do warm_up "$x"; done
    if [ "$p" = 1 ]; then
        # what each broker burns doing nothing, after the warm-up, over the
        # same IDLE_SECS (/proc/PID/stat: part of every CPU figure below)
        sleep 1
        for x in "${BROKERS[@]}"; do IDLE0[$x]=$(proc_cpu_ticks "${PID[$x]}"); done
        sleep "$IDLE_SECS"
        for x in "${BROKERS[@]}"; do
            IDLE_CPU[$x]=$(awk -v a="${IDLE0[$x]}" -v b="$(proc_cpu_ticks "${PID[$x]}")" \
                -v t="$CLK_TCK" -v s="$IDLE_SECS" 'BEGIN { printf "%.2f", 100 * (b - a) / t / s }')
        done
    fi
    for r in $(seq 1 "$REPS"); do
        for s in $SIZES; do for a in $ACKS; do for z in $CODECS; do
            cell="produce s=$s p=$p acks=$a $z"
            for x in "${BROKERS[@]}"; do
                run "$cell" "$x" "$r" produce -t "$(ptopic $s $p $a $z $r)" \
                    -p "$p" -n "$(n_for_size $s)" -s "$s" -a "$a" -z "$z"
            done
        done; done; done
        # consume what acks=1 produced in this repetition
        for s in $SIZES; do for z in $CODECS; do
            cell="consume s=$s p=$p $z"
            for x in "${BROKERS[@]}"; do
                loop=
                [ "${KIND[$x]}" = mock ] && loop=--loop
                run "$cell" "$x" "$r" consume -t "$(ptopic $s $p 1 $z $r)" \
                    -n "$(n_for_size $s)" -z "$z" $loop
            done
        done; done
        # the second load generator: Kafka's perf tools, then their
        # consumer on what the acks=1 producer wrote
        if [ "$p" = 1 ] && [ "$PERF_TOOLS" = on ]; then
            for s in $PERF_SIZES; do for a in $PERF_ACKS; do
                cell="perf-test produce s=$s p=1 acks=$a"
                add_cell "$cell"
                for x in "${BROKERS[@]}"; do
                    perf_run "$cell" "$x" "$r" produce "$(ktopic $s $a $r)" \
                        "$(n_for_size $s)" "$s" "$a"
                done
            done; done
            for s in $PERF_SIZES; do
                cell="perf-test consume s=$s p=1"
                add_cell "$cell"
                for x in "${BROKERS[@]}"; do
                    perf_run "$cell" "$x" "$r" consume "$(ktopic $s 1 $r)" \
                        "$(n_for_size $s)" "$s"
                done
            done
        fi
    done

    if [ "$p" = 1 ]; then
        # 1 GiB through one partition, next to the plain-program floor. The
        # dirty pages of the cells above are written back first (untimed), so
        # that no run here is throttled by them; each broker's 1 GiB produce
        # follows the baseline, whose removed files left reusable pages.
        sync
        for r in $(seq 1 "$REPS"); do
            "$BIN/baseline" --bytes "$BIG_BYTES" --dir "$WORK" --label "r$r" \
                >"$WORK/baseline.$r" 2>&1 || log "baseline failed"
            grep -v '^baseline phase' "$WORK/baseline.$r" | sed 's/^/  /' >&2
            cell="produce 1 GiB s=1024 p=1 acks=1 none"
            add_cell "$cell"
            for x in "${BROKERS[@]}"; do
                run "$cell" "$x" "$r" produce -t "b-big-r$r" -p 1 -n "$BIG_N" \
                    -s 1024 -a 1 -z none
            done
            # the same producer against the least a broker that writes to
            # disk can do (membroker --sink: write(); --sink-mmap: received
            # into a mapping of the file)
            if [ "${KIND[A]}" = gregor ]; then
                for x in W P; do
                    start_ref "$x" "" "b-big-r$r" &&
                        run "$cell" "$x" "$r" produce -t "b-big-r$r" -p 1 \
                            -n "$BIG_N" -s 1024 -a 1 -z none
                    stop_broker "$x"
                    rm -rf "${DIR[$x]}"
                done
            fi
            # the data held, not still being written back: the produce
            # above left 1 GiB of dirty pages whose writeback would share
            # the CPUs with the first consume only
            sync
            cell="consume 1 GiB s=1024 p=1 none"
            add_cell "$cell"
            # the brokers, and the same bytes served by the least a broker
            # can do (membroker, from memory and with sendfile) to the same
            # client: the ceiling of any broker under librdkafka's consumer
            # here. Odd repetitions read with the brokers first, even ones
            # with membroker first, so that neither side always meets the
            # pages the produce just wrote.
            order="brokers refs"
            [ $((r % 2)) = 0 ] && order="refs brokers"
            for side in $order; do
                if [ "$side" = brokers ]; then
                    for x in "${BROKERS[@]}"; do
                        loop=
                        [ "${KIND[$x]}" = mock ] && loop=--loop
                        run "$cell" "$x" "$r" consume -t "b-big-r$r" \
                            -n "$BIG_N" $loop
                    done
                elif [ "${KIND[A]}" = gregor ]; then
                    for x in M S V; do
                        start_ref "$x" "${DIR[A]}/data/b-big-r$r-0" \
                            "b-big-r$r" &&
                            run "$cell" "$x" "$r" consume -t "b-big-r$r" \
                                -n "$BIG_N"
                        stop_broker "$x"
                    done
                fi
            done
            # the same bytes read by the least a client can do: where it
            # is faster than librdkafka, the client was the limit
            for fb in 1048576 8388608; do
                cell="rawfetch 1 GiB p=1 fetch=$((fb >> 20)) MiB"
                add_cell "$cell"
                for x in "${BROKERS[@]}"; do
                    loop=
                    [ "${KIND[$x]}" = mock ] && loop=--loop
                    run "$cell" "$x" "$r" rawfetch -t "b-big-r$r" -n "$BIG_BYTES" \
                        --fetch-bytes "$fb" $loop
                done
            done
        done
        for r in $(seq 1 "$REPS"); do
            cell="latency $LAT_RATE msg/s s=100 p=1 acks=1"
            add_cell "$cell"
            for x in "${BROKERS[@]}"; do
                run "$cell" "$x" "$r" latency -t "b-lat-r$r" -p 1 -s 100 \
                    -a 1 -r "$LAT_RATE" -d "$LAT_SECS"
            done
        done
    fi

    # Peak and current RSS of the long-running brokers, after the phase.
    for x in "${BROKERS[@]}"; do
        HWM[$x $p]=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' \
            "/proc/${PID[$x]}/status")
        LRSS[$x $p]=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' \
            "/proc/${PID[$x]}/status")
        du -sh "${DIR[$x]}" 2>/dev/null | sed "s/^/  broker $x data: /" >&2
        stop_broker "$x"
        [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "${DIR[$x]}"
    done
done

T_END=$(date +%s)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the report --------------------------------------------------------
# med CELL X KEY: median of KEY over the successful runs of CELL on X.
med() {
    awk -F'\t' -v c="$1" -v x="$2" -v k="$3" '
        $1 == c && $2 == x && $4 == 0 {
            n = split($5, f, " ")
            for (i = 1; i <= n; i++)
                if (index(f[i], k "=") == 1) v[m++] = substr(f[i], length(k) + 2) + 0
        }
        END {
            if (m == 0) { print "FAIL"; exit }
            for (i = 0; i < m; i++)       # insertion sort: m is small
                for (j = i; j > 0 && v[j] < v[j-1]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
            print (m % 2) ? v[int(m/2)] : (v[m/2-1] + v[m/2]) / 2
        }' "$RES"
}
runs_ok() { # CELL X -> "ok/total"
    awk -F'\t' -v c="$1" -v x="$2" '$1 == c && $2 == x { t++; if ($4 == 0) o++ }
        END { printf "%d/%d", o, t }' "$RES"
}
fmt() { # NUMBER DECIMALS
    case $1 in FAIL | "") echo "FAIL" ;; n/a) echo "n/a" ;; *) printf "%.${2}f" "$1" ;; esac
}
ratio() { # A B -> A/B
    [ -n "$1" ] && [ -n "$2" ] || { echo "-"; return; }
    case "$1$2" in *FAIL* | *n/a*) echo "-" ;; *)
        awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else if (a / b < 0.1) printf "%.2g", a / b; else printf "%.2f", a / b }' ;;
    esac
}
base_med() { # phase key
    cat "$WORK"/baseline.* 2>/dev/null | grep "^baseline phase=$1 " |
        sed -n "s/.* $2=\([^ ]*\).*/\1/p" | sort -g |
        awk '{ v[n++] = $1 } END { if (n == 0) print "FAIL"; else print (n % 2) ? v[int(n/2)] : (v[n/2-1] + v[n/2]) / 2 }'
}
startup_kv() { # NAME key
    sed -n "s/^startup_summary .* $2=\([^ ]*\).*/\1/p" "$WORK/startup.$1" 2>/dev/null
}
is_kind() { # KIND: is one of the brokers of that kind?
    local x
    for x in "${BROKERS[@]}"; do [ "${KIND[$x]}" = "$1" ] && return 0; done
    return 1
}
short_cmd() { # a command line with Kafka's class path and the work dir named
    local c=$1
    [ -n "$KAFKA_CP" ] && c=${c//$KAFKA_CP/\$KAFKA_LIBS/*.jar}
    echo "${c//$WORK/\$WORK}"
}
# Table pieces over the brokers, in order: a column per broker, a ratio
# column of A to each other broker.
cols() { # TEXT
    local x
    for x in "${BROKERS[@]}"; do printf ' %s %s |' "${LBL[$x]}" "$1"; done
}
ratio_hdr() {
    local x
    for x in "${BROKERS[@]:1}"; do printf ' %s/%s |' "${LBL[A]}" "${LBL[$x]}"; done
}
aligns() { # N
    local i
    for ((i = 0; i < $1; i++)); do printf ' ---: |'; done
}
val() { # CELL X KEY DECIMALS: the median, or n/a
    if [ -n "${NA[$1|$2]:-}" ]; then echo "n/a"; else fmt "$(med "$1" "$2" "$3")" "$4"; fi
}
vals() { # CELL KEY DECIMALS
    local x
    for x in "${BROKERS[@]}"; do printf ' %s |' "$(val "$1" "$x" "$2" "$3")"; done
}
ratios() { # CELL KEY
    local x
    for x in "${BROKERS[@]:1}"; do
        if [ -n "${NA[$1|$x]:-}${NA[$1|A]:-}" ]; then printf ' - |'
        else printf ' %s |' "$(ratio "$(med "$1" A "$2")" "$(med "$1" "$x" "$2")")"; fi
    done
}
runs_all() { # CELL: ok/total per broker
    local x r=
    for x in "${BROKERS[@]}"; do
        [ -n "${NA[$1|$x]:-}" ] && r="$r n/a" || r="$r $(runs_ok "$1" "$x")"
    done
    echo "${r# }"
}
na_notes() { # why each n/a is one, once per broker kind
    local k x seen=
    for k in "${!NA[@]}"; do
        x=${k##*|}
        case " $seen " in *" ${KIND[$x]} "*) continue ;; esac
        seen="$seen ${KIND[$x]}"
        echo "n/a on $x (${KIND[$x]}): ${NA[$k]}."
        echo
    done
}
table() { # TITLE FILTER: throughput table of the cells matching FILTER
    local c
    echo "## $1"
    echo
    echo "| cell |$(cols MiB/s)$(ratio_hdr)$(cols msg/s)$(cols 'CPU s/GiB') runs | command (A) |"
    echo "| --- |$(aligns $((${#BROKERS[@]} * 4 - 1))) ---: | --- |"
    for c in "${CELLS[@]}"; do
        case $c in $2) ;; *) continue ;; esac
        case $c in rawfetch*) continue ;; esac # a table of its own
        echo "| $c |$(vals "$c" mib_s 1)$(ratios "$c" mib_s)$(vals "$c" msgs_s 0)$(vals "$c" cpu_s_per_gib 2) $(runs_all "$c") | \`${CMD[$c]}\` |"
    done
    echo
}
# hrow LABEL DECIMALS VALUE...: one headline row, a value per broker and
# the ratios of A's to the others'
hrow() {
    local label=$1 dec=$2 a=$3 v r=
    shift 2
    printf '| %s |' "$label"
    for v in "$@"; do printf ' %s |' "$(fmt "$v" "$dec")"; done
    shift
    for v in "$@"; do
        case "$a$v" in *n/a*) r="$r -" ;; *) r="$r $(ratio "$a" "$v")" ;; esac
        r="$r |"
    done
    echo "$r"
}
hcell() { # CELL KEY DECIMALS LABEL (nothing if the matrix had no such cell)
    local x v=()
    case " ${CELLS[*]} " in *" $1 "*) ;; *) return 0 ;; esac
    for x in "${BROKERS[@]}"; do
        if [ -n "${NA[$1|$x]:-}" ]; then v+=(n/a); else v+=("$(med "$1" "$x" "$2")"); fi
    done
    hrow "$4" "$3" "${v[@]}"
}
headline() {
    local x v=() w=() h=()
    echo "## Headline"
    echo
    echo "Medians from the tables below; the last columns are ratios of A ($(echo "${LBL[A]}")) to each other broker."
    echo
    echo "| figure |$(for x in "${BROKERS[@]}"; do printf ' %s (%s) |' "${LBL[$x]}" "$x"; done)$(ratio_hdr)"
    echo "| --- |$(aligns $((${#BROKERS[@]} * 2 - 1)))"
    hcell "produce s=1024 p=1 acks=1 none" mib_s 1 "produce 1 KiB, 1 partition, acks=1, MiB/s (gbench)"
    hcell "produce s=1024 p=1 acks=all none" mib_s 1 "produce 1 KiB, 1 partition, acks=all, MiB/s (gbench)"
    hcell "produce s=100 p=1 acks=1 none" mib_s 1 "produce 100 B, 1 partition, acks=1, MiB/s (gbench)"
    hcell "produce s=1024 p=8 acks=1 none" mib_s 1 "produce 1 KiB, 8 partitions, acks=1, MiB/s (gbench)"
    hcell "produce 1 GiB s=1024 p=1 acks=1 none" mib_s 1 "produce 1 GiB, 1 KiB, 1 partition, MiB/s (gbench)"
    hcell "consume s=1024 p=1 none" mib_s 1 "consume 1 KiB, 1 partition, MiB/s (gbench)"
    hcell "consume 1 GiB s=1024 p=1 none" mib_s 1 "consume 1 GiB, 1 partition, MiB/s (gbench)"
    if [ "$PERF_TOOLS" = on ]; then
        hcell "perf-test produce s=1024 p=1 acks=1" mib_s 1 "produce 1 KiB, acks=1, MiB/s (kafka-producer-perf-test)"
        hcell "perf-test produce s=1024 p=1 acks=all" mib_s 1 "produce 1 KiB, acks=all, MiB/s (kafka-producer-perf-test)"
        hcell "perf-test consume s=1024 p=1" mib_s 1 "consume 1 KiB, fetch MiB/s (kafka-consumer-perf-test)"
    fi
    c="latency $LAT_RATE msg/s s=100 p=1 acks=1"
    hcell "$c" p50_us 0 "end-to-end latency at $LAT_RATE msg/s, p50 µs"
    hcell "$c" p99_us 0 "end-to-end latency at $LAT_RATE msg/s, p99 µs"
    hcell "produce 1 GiB s=1024 p=1 acks=1 none" cpu_s_per_gib 2 "broker CPU s per GiB produced (1 GiB cell)"
    hcell "consume 1 GiB s=1024 p=1 none" cpu_s_per_gib 2 "broker CPU s per GiB consumed (1 GiB cell)"
    for x in "${BROKERS[@]}"; do
        v+=("$(startup_kv "$x" ready_ms)")
        w+=("$(startup_kv "$x" rss_kb)")
        h+=("${HWM[$x 1]:-}")
    done
    hrow "exec to first Metadata answer, ms (median)" 1 "${v[@]}"
    hrow "idle RSS, KiB" 0 "${w[@]}"
    hrow "peak RSS (VmHWM) after the 1-partition phase, KiB" 0 "${h[@]}"
    v=()
    for x in "${BROKERS[@]}"; do v+=("${IDLE_CPU[$x]:-}"); done
    hrow "idle CPU, % of one CPU" 2 "${v[@]}"
    echo
}

report() {
    local x y c has_b=0 a b
    local others=("${BROKERS[@]:1}") # the brokers A is compared with
    [ -n "$B_SPEC" ] && has_b=1
    echo "# Gregor benchmark matrix"
    echo
    echo "Made by \`tests/bench/run-matrix.sh --a $A_SPEC${B_SPEC:+ --b $B_SPEC}${C_SPEC:+ --c $C_SPEC} --reps $REPS$([ "$QUICK" = 1 ] && echo ' --quick')$([ "$PERF_TOOLS" = off ] && echo ' --perf-tools off')\`"
    echo "on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)),"
    echo "$(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r), librdkafka $(pkg-config --modversion rdkafka 2>/dev/null || echo '?'),"
    echo "gregor $(git -C "$top_srcdir" describe --always --dirty 2>/dev/null || echo '?'); the matrix took $((T_END - T_START)) s;"
    echo "load average (1, 5, 15 min) $LOAD_START at the start, $LOAD_END at the end: other"
    echo "processes on the machine share its CPUs (each run's 1-minute load is in the raw lines)."
    echo
    for x in "${BROKERS[@]}"; do
        echo "- $x = ${KIND[$x]}: \`$(NUMPART='$P' broker_cmd "$x" '$DIR' | sed 's/ --topic .*/ --topic NAME:PARTS.../;s/  *$//')\`"
    done
    if [ -n "$KAFKA_JVM" ]; then
        echo
        echo "Kafka $(ls "$KAFKA_LIBS" | sed -n 's/^kafka_2\.13-\(.*\)\.jar$/\1/p' | head -n 1) ($(ls "$KAFKA_LIBS" | wc -l) jars in \$KAFKA_LIBS = $KAFKA_LIBS), $("$JAVA" -version 2>&1 | head -n 1),"
        echo "JVM settings as Kafka's bin/kafka-server-start.sh and kafka-run-class.sh set them by"
        echo "default (heap -Xmx1G -Xms1G, G1), plus run-kafka.sh's class-data sharing archive of Kafka's"
        echo "classes (start-up only). The broker's command line, read from /proc/\$BROKER_PID/cmdline:"
        echo
        echo "    $(short_cmd "$KAFKA_JVM" | sed 's/ *$//')"
        echo
        echo "with run-kafka.sh's server.properties: one node as broker and controller (KRaft),"
        echo "PLAINTEXT on 127.0.0.1, log.dirs in \$DIR, num.partitions=\$P, auto-creation on,"
        echo "replication factors 1, group.initial.rebalance.delay.ms=0 (gregor gets the same);"
        echo "everything else Kafka's defaults (no fsync per write: page cache, as gregor; 1 GiB"
        echo "segments). Kafka's own start (run-kafka.sh: format + JVM start until \"Kafka Server"
        echo "started\") took ${KAFKA_STARTS[*]} s for the phases here."
    fi
    echo
    echo "Every figure is the median of $REPS runs$([ ${#BROKERS[@]} -gt 1 ] && echo ", alternating ${BROKERS[*]} ${BROKERS[*]} ..."), after an untimed warm-up"
    echo "of each broker at the start of each phase (\`$WARM_CMD\`, each topic read back"
    echo "once by gbench consume): a JVM compiles its hot code during the first seconds of load."
    echo "Ratios are ${LBL[A]}'s figure over the other broker's: above 1 is more MiB/s (or CPU, ms)."
    echo "MiB = 2^20 B and GiB = 2^30 B of"
    echo "payload (uncompressed values); CPU is the broker process's CPU time over the run"
    echo "(its CPU clock, clock_getcpuclockid(); /proc/PID/stat gives the usr/sys split in the raw"
    echo "lines), per GiB of payload. \`\$BOOTSTRAP\` and \`\$BROKER_PID\` are the broker's"
    echo "address and process id. Producers send message i to partition i % P with"
    echo "librdkafka's defaults (linger.ms=5, batch.size=1000000) unless a flag says otherwise;"
    echo "consumers read from the log start with the simple consumer (no group). The cells run"
    echo "in two phases, P = 1 then P = 8 partitions, on brokers started fresh for each phase"
    echo "(gbench creates each topic with CreateTopics; gregor and Kafka also get num.partitions=P)."
    is_kind mock && {
        echo "The mock keeps about 5 MiB per partition, so its consume cells reread"
        echo "that (\`--loop\`, which also sets fetch.wait.max.ms=1), while the others read what was produced."
    }
    echo

    headline
    table "Produce" "produce s=*"
    table "Consume" "consume s=*"
    table "1 GiB through one partition" "* 1 GiB *"

    if [ "$PERF_TOOLS" = on ]; then
        echo "## Kafka's perf tools as the load generator"
        echo
        echo "kafka-producer-perf-test and kafka-consumer-perf-test (org.apache.kafka.tools"
        echo "ProducerPerformance and ConsumerPerformance from the same jars) in the same runs,"
        echo "run as their bin/ scripts run them: java $(echo $PERF_JVM) -cp \$KAFKA_LIBS/*.jar,"
        echo "every producer and consumer setting the Java client's default (producer: linger.ms=5,"
        echo "batch.size=16384, buffer.memory=32 MiB, idempotent with acks=all; consumer: a group,"
        echo "fetch.max.bytes=50 MiB). The topics are made by \`gbench create\` (CreateTopics), as"
        echo "the others. The figures are the tools' own (their clock starts at the first send,"
        echo "and at the consumer's start; fetch MiB/s leaves out the group join); the broker's CPU"
        echo "is its /proc/PID/stat utime+stime over the tool's whole process (10 ms ticks)."
        echo "Latency here is the producer's, from send() to its acknowledgement, at full rate."
        echo
        echo "| cell |$(cols MiB/s)$(ratio_hdr)$(cols msg/s)$(cols 'p50 ms')$(cols 'p99 ms')$(cols 'CPU s/GiB') runs | command (A) |"
        echo "| --- |$(aligns $((${#BROKERS[@]} * 5 + ${#others[@]}))) ---: | --- |"
        for c in "${CELLS[@]}"; do
            case $c in "perf-test produce"*) ;; *) continue ;; esac
            echo "| $c |$(vals "$c" mib_s 1)$(ratios "$c" mib_s)$(vals "$c" msgs_s 0)$(vals "$c" p50_ms 0)$(vals "$c" p99_ms 0)$(vals "$c" cpu_s_per_gib 2) $(runs_all "$c") | \`${CMD[$c]}\` |"
        done
        echo
        echo "| cell |$(cols 'fetch MiB/s')$(ratio_hdr)$(cols 'MiB/s with the join')$(cols 'rebalance ms')$(cols 'CPU s/GiB') runs | command (A) |"
        echo "| --- |$(aligns $((${#BROKERS[@]} * 4 + ${#others[@]}))) ---: | --- |"
        for c in "${CELLS[@]}"; do
            case $c in "perf-test consume"*) ;; *) continue ;; esac
            echo "| $c |$(vals "$c" mib_s 1)$(ratios "$c" mib_s)$(vals "$c" total_mib_s 1)$(vals "$c" rebalance_ms 0)$(vals "$c" cpu_s_per_gib 2) $(runs_all "$c") | \`${CMD[$c]}\` |"
        done
        echo
        na_notes
    fi

    ref_table() { # CELL REFS: the cell on the brokers and the membroker runs
        local x y a
        echo "| server | MiB/s |$(for y in "${others[@]}"; do printf ' vs %s |' "${LBL[$y]}"; done) broker CPU s/GiB | client CPU s | client's busiest thread, share of the run | CPUs busy (client + server) | at all CPUs, MiB/s | runs | command |"
        echo "| --- | ---: |$(aligns ${#others[@]}) ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        for x in "${BROKERS[@]}" $2; do
            a=$(med "$1" $x mib_s)
            echo "| $x (${KIND[$x]:-membroker}) | $(fmt "$a" 1) |$(for y in "${others[@]}"; do printf ' %s |' "$(ratio "$a" "$(med "$1" $y mib_s)")"; done) $(fmt "$(med "$1" $x cpu_s_per_gib)" 2) | $(fmt "$(med "$1" $x client_cpu_s)" 3) | $(fmt "$(med "$1" $x client_busiest_share)" 2) | $(fmt "$(med "$1" $x pair_cpus_busy)" 2) | $(fmt "$(med "$1" $x pair_cpu_ceiling_mib_s)" 0) | $(runs_ok "$1" $x) | \`${REF_CMD[$x]:-${CMD[$1]}}\` |"
        done
        echo
        echo "CPUs busy: the client's and the server's CPU seconds over the run's;"
        echo "at all CPUs: the rate at which that CPU per byte would keep all $(nproc)"
        echo "CPUs busy (no scheduling of the same work passes it)."
        echo
    }
    if [ "${KIND[A]}" = gregor ]; then
        c="consume 1 GiB s=1024 p=1 none"
        echo "## The 1 GiB consume against the least a broker can do"
        echo
        echo "The same librdkafka consumer (\`${CMD[$c]}\`) against"
        echo "tests/bench/membroker serving A's copy of the partition: M holds it in memory and"
        echo "answers each Fetch with one writev() (which copies it into new socket-buffer pages),"
        echo "S sends the same ranges with sendfile() (the ceiling of a broker that sends from the"
        echo "page cache, as gregor and Kafka do), V sends them from memory by reference"
        echo "(vmsplice() into a pipe, splice() to the socket: no copy, no new page; the ceiling"
        echo "of any broker under this client on this machine). Odd repetitions run the brokers"
        echo "first, even ones M, S and V."
        echo
        ref_table "$c" "M S V"
        c="produce 1 GiB s=1024 p=1 acks=1 none"
        echo "## The 1 GiB produce against the least a disk-writing broker can do"
        echo
        echo "The same librdkafka producer (\`${CMD[$c]}\`) against"
        echo "tests/bench/membroker --sink: W numbers each request's batches and appends them to a"
        echo "new file with one write() (no CRC, no record walk: less than a broker must check); P"
        echo "receives them straight into a shared mapping of the file (one copy instead of two,"
        echo "but each new page-cache page is zeroed first).$(is_kind mock && echo ' The mock keeps the bytes in memory only.')"
        echo
        ref_table "$c" "W P"
        if [ $has_b = 1 ]; then
            # what the CPUs allow any broker that writes to disk, with the
            # client B's run needed (its CPU per GiB of payload)
            local cc fl fw fr extra
            cc=$(awk -v c="$(med "$c" B client_cpu_s)" -v b="$BIG_BYTES" \
                'BEGIN { print c * 1073741824 / b }')
            fl=$(base_med recvwrite cpu_s_per_gib)
            fw=$(base_med write cpu_s_per_gib)
            fr=$(base_med rewrite cpu_s_per_gib)
            # what new pages cost over reused ones
            extra=$(awk -v w="$fw" -v r="$fr" 'BEGIN { print (w > r ? w - r : 0) }')
            all_cpus() { # CPU s per GiB... -> MiB/s that keeps every CPU busy
                awk -v n="$(nproc)" 'BEGIN { t = 0; for (i = 1; i < ARGC; i++) t += ARGV[i]
                    if (t > 0) printf "%.0f", n * 1024 / t; else print "-" }' "$@"
            }
            echo "A broker that spent no more than the floor of the baseline table below"
            echo "(a socket read and a write() into reused page-cache pages: $(fmt "$fl" 3) s/GiB),"
            echo "with B's client ($(fmt "$cc" 3) CPU s per GiB), would keep all CPUs busy at"
            echo "$(all_cpus "$cc" "$fl") MiB/s;"
            echo "on new page-cache pages (write() to a new file $(fmt "$fw" 3) s/GiB against $(fmt "$fr" 3)"
            echo "on reused ones, same run), at $(all_cpus "$cc" "$fl" "$extra") MiB/s."
            echo
        fi
    fi

    echo "## The same 1 GiB read by a minimal client"
    echo
    echo "tests/bench/rawfetch: one Fetch v5 in flight, responses read into one buffer and"
    echo "walked for batch headers only (no CRC, no decompression, no per-record work)."
    echo "Bytes are record-batch bytes on the wire."
    echo
    echo "| cell | broker | MiB/s | broker CPU s/GiB | reader CPU s/GiB | command (A) |"
    echo "| --- | --- | ---: | ---: | ---: | --- |"
    for c in "${CELLS[@]}"; do
        case $c in rawfetch*) ;; *) continue ;; esac
        for x in "${BROKERS[@]}"; do
            echo "| $c | $x (${KIND[$x]}) | $(fmt "$(med "$c" $x mib_s)" 1) | $(fmt "$(med "$c" $x broker_cpu_s_per_gib)" 3) | $(fmt "$(med "$c" $x client_cpu_s_per_gib)" 3) | \`${CMD[$c]}\` |"
        done
    done
    echo

    echo "Plain-program floor on the same file system, same run (median of $REPS):"
    echo
    echo "| baseline | MiB/s | CPU s/GiB | command |"
    echo "| --- | ---: | ---: | --- |"
    echo "| write() to a new file, 1 MiB calls | $(fmt "$(base_med write mib_s)" 0) | $(fmt "$(base_med write cpu_s_per_gib)" 3) | \`tests/bench/baseline --bytes $BIG_BYTES --dir \$WORKDIR\` |"
    echo "| the same to a second new file, on the pages the first freed | $(fmt "$(base_med rewrite mib_s)" 0) | $(fmt "$(base_med rewrite cpu_s_per_gib)" 3) | (same run) |"
    echo "| sendfile() of the second file to a TCP socket on 127.0.0.1 | $(fmt "$(base_med sendfile mib_s)" 0) | $(fmt "$(base_med sendfile cpu_s_per_gib)" 3) | (same run) |"
    echo "| read() from a TCP socket on 127.0.0.1 + write() to a new file (produce's floor) | $(fmt "$(base_med recvwrite mib_s)" 0) | $(fmt "$(base_med recvwrite cpu_s_per_gib)" 3) | (same run) |"
    echo

    echo "## Latency"
    echo
    echo "| cell | broker | p50 µs | p99 µs | p999 µs | max µs | received | command |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
    for c in "${CELLS[@]}"; do
        case $c in latency*) ;; *) continue ;; esac
        for x in "${BROKERS[@]}"; do
            echo "| $c | $x (${KIND[$x]}) | $(fmt "$(med "$c" $x p50_us)" 0) | $(fmt "$(med "$c" $x p99_us)" 0) | $(fmt "$(med "$c" $x p999_us)" 0) | $(fmt "$(med "$c" $x max_us)" 0) | $(runs_ok "$c" $x) runs, $(fmt "$(med "$c" $x received)" 0) msgs | \`${CMD[$c]}\` |"
        done
    done
    echo

    echo "## Startup and memory"
    echo
    echo "| broker | exec to first Metadata answer, median (min) ms | runs | idle RSS KiB | peak RSS (VmHWM) KiB after the 1-partition phase (incl. 1 GiB, latency) / the 8-partition phase | RSS (VmRSS) KiB at the end of each phase | idle CPU, % of one CPU | command |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    for x in "${BROKERS[@]}"; do
        for v in "" -cds; do
            [ -f "$WORK/startup.$x$v" ] || continue
            echo "| $x (${KIND[$x]}$([ "$v" = -cds ] && echo ', with run-kafka.sh'"'"'s class-data archive')) | $(startup_kv $x$v ready_ms) ($(startup_kv $x$v ready_min_ms)) | $(startup_kv $x$v ok)/$(startup_kv $x$v runs) | $(startup_kv $x$v rss_kb) | ${HWM[$x 1]:-?} / ${HWM[$x 8]:-?} | ${LRSS[$x 1]:-?} / ${LRSS[$x 8]:-?} | ${IDLE_CPU[$x]:-?} | \`tests/bench/startup -n $(startup_kv $x$v runs) ${STARTUP_OPTS[$x]:+${STARTUP_OPTS[$x]} }-- $(short_cmd "${STARTUP_CMD[$x$v]}")\`; VmHWM, VmRSS from /proc/\$BROKER_PID/status |"
        done
    done
    echo
    echo "Idle CPU: the broker's utime+stime over $IDLE_SECS s doing nothing, after the warm-up of the"
    echo "1-partition phase; it is part of every CPU figure above, most in the short cells."
    echo
    if is_kind kafka; then
        echo "Kafka's start-up: tests/bench/startup execs the broker's java command line above on a"
        echo "copy of storage that kafka.tools.StorageTool formatted once before (\`kafka-storage.sh"
        echo "format\` is a step of its own before a first start; the --pre command copies it into"
        echo "each run's directory, untimed) and retries Metadata v0 on the fixed port every"
        echo "millisecond from the exec on; \"idle RSS\" is the JVM's VmRSS just after that first"
        echo "answer. The first row has the JVM settings of Kafka's start script alone, the second"
        echo "adds run-kafka.sh's application class-data sharing archive. Fewer runs than the"
        echo "others: each is a JVM start and a controlled shutdown of seconds. \$PRE is"
        echo
        echo "    $(short_cmd "$KSTART_PRE")"
        echo
    fi

    echo "## Notes from this run"
    echo
    for x in "${BROKERS[@]}"; do
        [ "${RESTARTS[$x]}" -gt 0 ] &&
            echo "- broker $x was restarted ${RESTARTS[$x]} time(s) after dying."
    done
    if [ -s "$NOTES" ]; then cat "$NOTES"; else echo "- every run succeeded."; fi
    echo
    echo "<details><summary>Raw output: every run (cell, broker, rep, exit code, gbench line), baseline, startup</summary>"
    echo
    echo '```'
    cat "$RES"
    cat "$WORK"/baseline.* 2>/dev/null | grep '^baseline phase='
    cat "$WORK"/startup.* 2>/dev/null | grep '^startup_summary'
    echo '```'
    echo
    echo "</details>"
}

# Paths relative to the build directory, where the commands run.
if [ "$OUT" = - ]; then
    report | sed "s|$top_builddir/||g;s|$top_srcdir/||g"
else
    report | sed "s|$top_builddir/||g;s|$top_srcdir/||g" >"$OUT"
    log "report written to $OUT"
fi
