# compat/lib.sh: starts and stops a real gregor for compat scenarios.
# Sourced by compat/run.sh. Every broker runs on 127.0.0.1 port 0 in its own
# temp directory; its bound port is read from --listeners-file; it is
# stopped by pid (SIGTERM, then SIGKILL after a bound).

. "${COMPAT_SRC:-$(dirname "${BASH_SOURCE[0]}")}/clients.sh"
GREGOR=${GREGOR:-${top_builddir:-.}/src/gregor}
COMPAT_TMP=${COMPAT_TMP:-$(mktemp -d /tmp/gregor-compat.XXXXXX)}
BROKER_PID=
BROKER_DIR=
GR_BOOTSTRAP=
GR_PORT=

# start_broker [--override k=v]... : starts a broker with a new data dir
# (or $BROKER_DIR when REUSE_DIR=1) and waits until it serves.
start_broker() {
    if [ "${REUSE_DIR:-0}" != 1 ] || [ -z "$BROKER_DIR" ]; then
        BROKER_DIR=$(mktemp -d "$COMPAT_TMP/broker.XXXXXX")
    fi
    rm -f "$BROKER_DIR/listeners"
    "$GREGOR" --override listeners=PLAINTEXT://127.0.0.1:0 \
        --override "log.dirs=$BROKER_DIR/data" \
        --override group.initial.rebalance.delay.ms=0 \
        --override group.min.session.timeout.ms=500 \
        --override offsets.topic.replication.factor=1 \
        --override transaction.state.log.replication.factor=1 \
        --override transaction.state.log.min.isr=1 \
        --listeners-file "$BROKER_DIR/listeners" \
        ${GREGOR_DUMP_FRAMES:+--dump-frames "$GREGOR_DUMP_FRAMES"} \
        "$@" >>"$BROKER_DIR/stdout" 2>>"$BROKER_DIR/broker.log" &
    BROKER_PID=$!
    for _ in $(seq 1 200); do
        if [ -s "$BROKER_DIR/listeners" ]; then
            GR_PORT=$(sed -n '1s/.*://p' "$BROKER_DIR/listeners")
            GR_BOOTSTRAP=127.0.0.1:$GR_PORT
            export GR_BOOTSTRAP GR_PORT
            return 0
        fi
        if ! kill -0 "$BROKER_PID" 2>/dev/null; then
            echo "# broker exited at start-up:" >&2
            sed 's/^/#   /' "$BROKER_DIR/broker.log" >&2
            BROKER_PID=
            return 1
        fi
        sleep 0.05
    done
    echo "# broker did not start in 10 s" >&2
    stop_broker
    return 1
}

# control_url: the control listener's URL the broker printed on stdout
# ("gregor: control on URL"; start_broker --temp-data or with
# gregor.control.listener set)
control_url() {
    local u
    for _ in $(seq 1 100); do
        u=$(sed -n 's/^gregor: control on //p' "$BROKER_DIR/stdout" | tail -1)
        [ -n "$u" ] && { echo "$u"; return 0; }
        sleep 0.05
    done
    echo "# no 'gregor: control on' line in $BROKER_DIR/stdout" >&2
    return 1
}

# stop_broker [SIGNAL]: SIGTERM by default; SIGKILL after 10 s.
stop_broker() {
    local sig=${1:-TERM}
    [ -n "$BROKER_PID" ] || return 0
    kill -"$sig" "$BROKER_PID" 2>/dev/null
    for _ in $(seq 1 200); do
        kill -0 "$BROKER_PID" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$BROKER_PID" 2>/dev/null; then
        echo "# broker $BROKER_PID did not stop; killing" >&2
        kill -KILL "$BROKER_PID" 2>/dev/null
    fi
    wait "$BROKER_PID" 2>/dev/null
    BROKER_RC=$?
    BROKER_PID=
}

broker_alive() {
    [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null
}

show_broker_log() {
    if [ -n "$BROKER_DIR" ] && [ -f "$BROKER_DIR/broker.log" ]; then
        # what the broker refused or warned of, which the last lines may
        # no longer show
        if grep -qE ' (WARN|ERROR) |refused' "$BROKER_DIR/broker.log"; then
            echo "--- broker log: warnings, errors and refusals (last 30) ---"
            grep -E ' (WARN|ERROR) |refused' "$BROKER_DIR/broker.log" | tail -n 30
        fi
        echo "--- broker log (last 40 lines) ---"
        tail -n 40 "$BROKER_DIR/broker.log"
    fi
}

# TAP
T_N=0
T_FAILED=0
ok() {
    T_N=$((T_N + 1))
    echo "ok $T_N - $*"
}
not_ok() {
    T_N=$((T_N + 1))
    T_FAILED=$((T_FAILED + 1))
    echo "not ok $T_N - $*"
}

# run_scenario NAME FUNCTION [LIMIT_SECONDS]: runs FUNCTION in its own
# process group under a time bound (default 120 s). The function starts and
# stops its own broker; on failure the broker log is shown as diagnostics.
run_scenario() {
    local name=$1 fn=$2 limit=${3:-120} out rc pid wd
    out=$(mktemp "$COMPAT_TMP/out.XXXXXX")
    set -m
    (
        "$fn"
        rc=$?
        [ $rc -ne 0 ] && show_broker_log
        stop_broker
        exit $rc
    ) >"$out" 2>&1 &
    pid=$!
    set +m
    ( sleep "$limit"; echo "# timed out after $limit s" >>"$out";
      kill -TERM -- -"$pid" 2>/dev/null; sleep 2;
      kill -KILL -- -"$pid" 2>/dev/null ) >/dev/null 2>&1 &
    wd=$!
    wait "$pid"
    rc=$?
    kill "$wd" 2>/dev/null
    wait "$wd" 2>/dev/null
    if [ $rc -eq 0 ]; then
        ok "$name"
        [ "${VERBOSE:-0}" = 1 ] && sed 's/^/#   /' "$out"
    else
        not_ok "$name (exit $rc)"
        # a long output loses its failure above the last lines: its
        # failure lines come first, with their line numbers
        if [ "$(wc -l <"$out")" -gt 80 ]; then
            echo "#   --- lines naming a failure (first 20 of the whole output) ---"
            grep -nE 'FAIL|not ok|[Ee]rror|Exception|Traceback|[Aa]ssert|timed out' "$out" |
                head -n 20 | sed 's/^/#   /'
            echo "#   --- the last 80 lines ---"
        fi
        sed 's/^/#   /' "$out" | tail -n 80
    fi
    if [ "${KEEP_TMP:-0}" = 1 ]; then
        mv "$out" "$COMPAT_TMP/$name.out" && echo "# the whole output: $COMPAT_TMP/$name.out"
    else
        rm -f "$out"
    fi
}

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "missing tool: $1 (CI installs it; a missing client fails, never skips)"
        return 1
    fi
}

cleanup_all() {
    stop_broker KILL
    [ -n "$COMPAT_TMP" ] && [ "${KEEP_TMP:-0}" != 1 ] && rm -rf "$COMPAT_TMP"
}
