#!/bin/bash
# tests/bench/run-matrix.sh: the fixed benchmark matrix of issue 8, against
# one broker or two side by side, written as a Markdown report.
#
#   tests/bench/run-matrix.sh [--a SPEC] [--b SPEC] [--reps N] [--quick]
#                             [--out FILE] [--workdir DIR]
#
#   SPEC   gregor            $GREGOR, default $top_builddir/src/gregor
#          gregor=PATH       another gregor binary (two builds side by side)
#          mock              tests/bench/mock_cluster (librdkafka's mock)
#   --a    broker A (default gregor); --b broker B (default none)
#   --reps runs of every cell on each broker (default 2): with B, the runs
#          alternate A B A B and the report gives medians and A/B
#   --quick a tenth of the messages, shorter latency runs (smoke test)
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
# topics with CreateTopics; gregor's num.partitions matches too); in a phase
# both brokers run side by side on 127.0.0.1 port 0, each in its own
# directory under the work dir, removed at the end (KEEP_TMP=1 keeps it).
#
# Benchmarks are never tests: nothing here runs in `make check`. `make bench`
# builds the programs and runs this script against src/gregor.

set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
top_builddir=$(cd "$top_builddir" && pwd)
BIN=${BENCH_BIN:-$top_builddir/tests/bench}
GREGOR=${GREGOR:-$top_builddir/src/gregor}

A_SPEC=gregor
B_SPEC=
REPS=2
QUICK=0
OUT=-
WORKBASE=${TMPDIR:-/tmp}

usage() {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --a) A_SPEC=$2; shift 2 ;;
    --b) B_SPEC=$2; shift 2 ;;
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
LAT_RATE=2000
LAT_SECS=5
STARTUP_RUNS=20
if [ "$QUICK" = 1 ]; then
    BIG_N=131072
    LAT_SECS=2
    STARTUP_RUNS=5
fi
BIG_BYTES=$((BIG_N * 1024))

WORK=$(mktemp -d "$WORKBASE/gregor-bench.XXXXXX")
RES=$WORK/results # cell <TAB> broker <TAB> rep <TAB> rc <TAB> key=value line
NOTES=$WORK/notes # Markdown lines about failures, for the report
: >"$RES"
: >"$NOTES"
declare -A CMD    # cell -> command that made it (broker A, rep 1)
CELLS=()          # in report order

log() { echo "run-matrix: $*" >&2; }

# --- brokers -----------------------------------------------------------
# Per broker X (A or B): KIND_X, PROG_X, PID_X, BOOT_X, DIR_X, RESTARTS_X.
declare -A KIND PROG PID BOOT DIR RESTARTS
ALL_TOPICS=()

parse_spec() { # X SPEC
    local x=$1 spec=$2
    case $spec in
    gregor) KIND[$x]=gregor; PROG[$x]=$GREGOR ;;
    gregor=*) KIND[$x]=gregor; PROG[$x]=${spec#gregor=} ;;
    mock) KIND[$x]=mock; PROG[$x]=$BIN/mock_cluster ;;
    *) echo "run-matrix.sh: bad broker spec '$spec'" >&2; exit 2 ;;
    esac
    if [ ! -x "${PROG[$x]}" ]; then
        echo "run-matrix.sh: ${PROG[$x]} is not executable" >&2
        exit 1
    fi
    RESTARTS[$x]=0
}

broker_cmd() { # X DIR: the command line that starts broker X in DIR
    local x=$1 d=$2
    if [ "${KIND[$x]}" = gregor ]; then
        echo "${PROG[$x]} --override listeners=PLAINTEXT://127.0.0.1:0" \
            "--override log.dirs=$d/data --override num.partitions=$NUMPART" \
            "--listeners-file $d/listeners ${GREGOR_ARGS:-}"
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

start_broker() { # X
    local x=$1 d
    d=$(mktemp -d "$WORK/broker-$x.XXXXXX")
    DIR[$x]=$d
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

cleanup() {
    for x in "${BROKERS[@]}" M S V W P; do stop_broker "$x"; done
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
for r in $(seq 1 "$REPS"); do
    for s in $SIZES; do for p in $PARTS; do for a in $ACKS; do
        for z in $CODECS; do ALL_TOPICS+=("$(ptopic $s $p $a $z $r):$p"); done
    done; done; done
    ALL_TOPICS+=("b-big-r$r:1" "b-lat-r$r:1")
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
    case $x in A | B) check_broker "$x" "$cell" ;; esac
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
declare -A STARTUP_CMD
for x in "${BROKERS[@]}"; do
    if [ "${KIND[$x]}" = gregor ]; then
        STARTUP_CMD[$x]="${PROG[$x]} --override listeners=PLAINTEXT://127.0.0.1:0 --override log.dirs={dir}/data ${GREGOR_ARGS:-}"
    else
        STARTUP_CMD[$x]="${PROG[$x]}"
    fi
    # shellcheck disable=SC2086
    "$BIN/startup" -n "$STARTUP_RUNS" --label "$x" -- ${STARTUP_CMD[$x]} \
        >"$WORK/startup.$x" 2>&1 || log "startup $x: some runs failed"
    grep -v '^startup' "$WORK/startup.$x" | sed 's/^/  /' >&2
    grep '^startup [^l]' "$WORK/startup.$x" | sed 's/^/  /' >&2
done

declare -A HWM # "X p" -> VmHWM KiB at the end of phase p
for p in $PARTS; do
    NUMPART=$p
    for x in "${BROKERS[@]}"; do start_broker "$x"; done
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

    # Peak RSS of the long-running brokers, after the phase.
    for x in "${BROKERS[@]}"; do
        HWM[$x $p]=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' \
            "/proc/${PID[$x]}/status")
        stop_broker "$x"
        du -sh "${DIR[$x]}" 2>/dev/null | sed "s/^/  broker $x data: /" >&2
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
    case $1 in FAIL | "") echo "FAIL" ;; *) printf "%.${2}f" "$1" ;; esac
}
ratio() { # A B -> A/B
    case "$1$2" in *FAIL*) echo "-" ;; *)
        awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f", a / b }' ;;
    esac
}
base_med() { # phase key
    cat "$WORK"/baseline.* 2>/dev/null | grep "^baseline phase=$1 " |
        sed -n "s/.* $2=\([^ ]*\).*/\1/p" | sort -g |
        awk '{ v[n++] = $1 } END { if (n == 0) print "FAIL"; else print (n % 2) ? v[int(n/2)] : (v[n/2-1] + v[n/2]) / 2 }'
}
startup_kv() { # X key
    sed -n "s/^startup_summary .* $2=\([^ ]*\).*/\1/p" "$WORK/startup.$1"
}

report() {
    local x c has_b=0 a b
    [ -n "$B_SPEC" ] && has_b=1
    echo "# Gregor benchmark matrix"
    echo
    echo "Made by \`tests/bench/run-matrix.sh --a $A_SPEC${B_SPEC:+ --b $B_SPEC} --reps $REPS$([ "$QUICK" = 1 ] && echo ' --quick')\`"
    echo "on $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)),"
    echo "$(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r), librdkafka $(pkg-config --modversion rdkafka 2>/dev/null || echo '?'),"
    echo "gregor $(git -C "$top_srcdir" describe --always --dirty 2>/dev/null || echo '?'); the matrix took $((T_END - T_START)) s;"
    echo "load average (1, 5, 15 min) $LOAD_START at the start, $LOAD_END at the end: other"
    echo "processes on the machine share its CPUs (each run's 1-minute load is in the raw lines)."
    echo
    for x in "${BROKERS[@]}"; do
        echo "- $x = ${KIND[$x]}: \`$(NUMPART='$P' broker_cmd "$x" '$DIR' | sed 's/ --topic .*/ --topic NAME:PARTS.../')\`"
    done
    echo
    echo "Every figure is the median of $REPS runs$([ $has_b = 1 ] && echo ', alternating A B A B'). MiB = 2^20 B and GiB = 2^30 B of"
    echo "payload (uncompressed values); CPU is the broker process's CPU time over the run"
    echo "(its CPU clock, clock_getcpuclockid(); /proc/PID/stat gives the usr/sys split in the raw"
    echo "lines), per GiB of payload. \`\$BOOTSTRAP\` and \`\$BROKER_PID\` are the broker's"
    echo "address and process id. Producers send message i to partition i % P with"
    echo "librdkafka's defaults (linger.ms=5, batch.size=1000000) unless a flag says otherwise;"
    echo "consumers read from the log start with the simple consumer (no group). The cells run"
    echo "in two phases, P = 1 then P = 8 partitions, on brokers started fresh for each phase"
    echo "(gbench creates each topic with CreateTopics; gregor also gets num.partitions=P)."
    [ "${KIND[A]}" = mock ] || [ "${KIND[B]:-}" = mock ] && {
        echo "The mock keeps about 5 MiB per partition, so its consume cells reread"
        echo "that (\`--loop\`, which also sets fetch.wait.max.ms=1), while gregor reads what was produced."
    }
    echo

    table() { # TITLE FILTER: throughput table of cells matching FILTER
        echo "## $1"
        echo
        if [ $has_b = 1 ]; then
            echo "| cell | A MiB/s | B MiB/s | A/B | A msg/s | B msg/s | A CPU s/GiB | B CPU s/GiB | command (A) |"
            echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        else
            echo "| cell | MiB/s | msg/s | CPU s/GiB | runs | command |"
            echo "| --- | ---: | ---: | ---: | ---: | --- |"
        fi
        for c in "${CELLS[@]}"; do
            case $c in $2) ;; *) continue ;; esac
            case $c in rawfetch*) continue ;; esac # a table of its own
            a=$(med "$c" A mib_s)
            if [ $has_b = 1 ]; then
                b=$(med "$c" B mib_s)
                echo "| $c | $(fmt "$a" 1) | $(fmt "$b" 1) | $(ratio "$a" "$b") | $(fmt "$(med "$c" A msgs_s)" 0) | $(fmt "$(med "$c" B msgs_s)" 0) | $(fmt "$(med "$c" A cpu_s_per_gib)" 2) | $(fmt "$(med "$c" B cpu_s_per_gib)" 2) | \`${CMD[$c]}\` |"
            else
                echo "| $c | $(fmt "$a" 1) | $(fmt "$(med "$c" A msgs_s)" 0) | $(fmt "$(med "$c" A cpu_s_per_gib)" 2) | $(runs_ok "$c" A) | \`${CMD[$c]}\` |"
            fi
        done
        echo
    }
    table "Produce" "produce s=*"
    table "Consume" "consume s=*"
    table "1 GiB through one partition" "* 1 GiB *"

    ref_table() { # CELL REFS: the cell on A, B and the membroker runs
        local x a
        echo "| server | MiB/s | vs B | broker CPU s/GiB | client CPU s | client's busiest thread, share of the run | CPUs busy (client + server) | at all CPUs, MiB/s | runs | command |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        for x in "${BROKERS[@]}" $2; do
            a=$(med "$1" $x mib_s)
            echo "| $x (${KIND[$x]:-membroker}) | $(fmt "$a" 1) | $([ $has_b = 1 ] && ratio "$a" "$(med "$1" B mib_s)" || echo -) | $(fmt "$(med "$1" $x cpu_s_per_gib)" 2) | $(fmt "$(med "$1" $x client_cpu_s)" 3) | $(fmt "$(med "$1" $x client_busiest_share)" 2) | $(fmt "$(med "$1" $x pair_cpus_busy)" 2) | $(fmt "$(med "$1" $x pair_cpu_ceiling_mib_s)" 0) | $(runs_ok "$1" $x) | \`${REF_CMD[$x]:-${CMD[$1]}}\` |"
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
        echo "of any broker under this client on this machine). Odd repetitions run A and B"
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
        echo "but each new page-cache page is zeroed first). B keeps the bytes in memory only."
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
            echo "| $c | $x | $(fmt "$(med "$c" $x mib_s)" 1) | $(fmt "$(med "$c" $x broker_cpu_s_per_gib)" 3) | $(fmt "$(med "$c" $x client_cpu_s_per_gib)" 3) | \`${CMD[$c]}\` |"
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
            echo "| $c | $x | $(fmt "$(med "$c" $x p50_us)" 0) | $(fmt "$(med "$c" $x p99_us)" 0) | $(fmt "$(med "$c" $x p999_us)" 0) | $(fmt "$(med "$c" $x max_us)" 0) | $(runs_ok "$c" $x) runs, $(fmt "$(med "$c" $x received)" 0) msgs | \`${CMD[$c]}\` |"
        done
    done
    echo

    echo "## Startup and memory"
    echo
    echo "| broker | exec to first Metadata answer, median (min) ms | idle RSS KiB | peak RSS (VmHWM) KiB after the 1-partition phase (incl. 1 GiB, latency) / the 8-partition phase | command |"
    echo "| --- | ---: | ---: | ---: | --- |"
    for x in "${BROKERS[@]}"; do
        echo "| $x (${KIND[$x]}) | $(startup_kv $x ready_ms) ($(startup_kv $x ready_min_ms)) | $(startup_kv $x rss_kb) | ${HWM[$x 1]:-?} / ${HWM[$x 8]:-?} | \`tests/bench/startup -n $STARTUP_RUNS -- ${STARTUP_CMD[$x]}\`; VmHWM from /proc/\$BROKER_PID/status |"
    done
    echo

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
    report | sed "s|$top_builddir/||g"
else
    report | sed "s|$top_builddir/||g" >"$OUT"
    log "report written to $OUT"
fi
