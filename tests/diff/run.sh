#!/bin/bash
# tests/diff/run.sh: the differential tests. Starts one Apache Kafka 4.4.0
# (tests/kafka/run-kafka.sh) and one gregor with the same settings, runs
# tests/diff/diff.py against both (the same request sequences to each, the
# answers compared field by field; TAP on stdout), stops both by pid.
#
#   tests/diff/run.sh [diff.py option]...     e.g. --only groups --verbose
#
# Environment: GREGOR (default $top_builddir/src/gregor), GR_CLIENTS (where
# kafka-python's venv and Kafka are installed, compat/clients.sh),
# DIFF_LIMIT (bound on the comparison in seconds, default 170),
# KEEP_TMP=1 keeps the brokers' directories even when everything passed.
# On failure both brokers' logs, the full report (report.json: every step
# of every case, both answers) and the TAP output are kept, and their
# directory is named at the end. Nothing is skipped: a missing Kafka, Java
# or kafka-python fails the run.

set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/compat/clients.sh"
GREGOR=${GREGOR:-$top_builddir/src/gregor}
PY=$GR_CLIENTS/python/bin/python
limit=${DIFF_LIMIT:-170}

fail() { echo "not ok 1 - differential tests: $*"; exit 1; }
[ -x "$GREGOR" ] || fail "gregor not built at $GREGOR"
[ -x "$PY" ] && "$PY" -c 'import kafka' 2>/dev/null ||
    fail "kafka-python is not installed in $GR_CLIENTS/python (sh compat/python/install.sh)"
[ -d "$GR_CLIENTS/kafka/libs" ] ||
    fail "Kafka is not installed in $GR_CLIENTS/kafka (sh tests/kafka/install.sh)"

work=$(mktemp -d "${TMPDIR:-/tmp}/gregor-diff.XXXXXX") || fail "no temporary directory"
kdir= gpid=

# The settings test set-ups give Kafka, the same on both brokers: no wait
# for more members before a group's first rebalance, one partition for
# each internal topic, replication factor 1, and the timers the cases
# wait on turned down
SETTINGS=(group.initial.rebalance.delay.ms=0
          offsets.topic.num.partitions=1
          transaction.state.log.num.partitions=1
          offsets.topic.replication.factor=1
          transaction.state.log.replication.factor=1
          transaction.state.log.min.isr=1
          num.partitions=1
          auto.create.topics.enable=true
          group.min.session.timeout.ms=500
          transaction.abort.timed.out.transaction.cleanup.interval.ms=1000)
# DIFF_AUTHORIZER=1: both brokers run Kafka's StandardAuthorizer, open
# where no ACL says otherwise (the KRaft controller, User:ANONYMOUS from
# 127.0.0.1 like the cases, needs its cluster rights); the cases connect
# from 127.0.0.2 (GR_DIFF_SOURCE), so the ACLs of cases_acl.py deny them
# and not the controller. With --only acl.
if [ "${DIFF_AUTHORIZER:-0}" = 1 ]; then
    SETTINGS+=(authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
               allow.everyone.if.no.acl.found=true)
    export GR_DIFF_SOURCE=127.0.0.2
fi

stop_all() {
    if [ -n "$gpid" ]; then
        kill -TERM "$gpid" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.05; done
        kill -0 "$gpid" 2>/dev/null && kill -KILL "$gpid" 2>/dev/null
        wait "$gpid" 2>/dev/null
        gpid=
    fi
    if [ -n "$kdir" ]; then
        "$top_srcdir/tests/kafka/run-kafka.sh" --stop "$kdir" >/dev/null 2>&1
        kdir=
    fi
}
trap 'stop_all; exit 1' TERM INT HUP

t0=$(date +%s.%N)
# gregor: port 0, its own temporary directory, as compat/lib.sh starts it
mkdir -p "$work/gregor"
gargs=(--override listeners=PLAINTEXT://127.0.0.1:0
       --override "log.dirs=$work/gregor/data"
       --override node.id=1
       --override "gregor.client.telemetry.file=$work/gregor/telemetry.jsonl")
for s in "${SETTINGS[@]}"; do gargs+=(--override "$s"); done
"$GREGOR" "${gargs[@]}" --listeners-file "$work/gregor/listeners" \
    >"$work/gregor/stdout" 2>"$work/gregor/broker.log" &
gpid=$!

# Kafka. Its first retention pass comes log.initial.task.delay.ms (an
# internal key "for testing only", default 30 s) after its log manager
# starts, gregor's one log.retention.check.interval.ms (5 min) after its
# start: the cases' batches carry fixed 2023 timestamps, so a pass during
# the run deletes their segments on Kafka alone (log start offset 1 or 3
# against 0, OFFSET_OUT_OF_RANGE: txn_versions and txn_fetch on a loaded
# machine, where Kafka took 31 s to start). Both first passes at 5 min.
kargs=(--daemon --keep --tmp "$work" --timeout 90
       --override log.initial.task.delay.ms=300000)
for s in "${SETTINGS[@]}"; do kargs+=(--override "$s"); done
# (a second try: run-kafka.sh's random cluster id can start with "-",
# which kafka-storage format takes for an option, 1 start in 64)
for try in 1 2; do
    "$top_srcdir/tests/kafka/run-kafka.sh" "${kargs[@]}" >"$work/kafka.start" 2>&1 && break
    sed 's/^/# /' "$work/kafka.start"
    if [ $try = 2 ] || ! grep -q 'formatting node 1' "$work/kafka.start"; then
        stop_all
        fail "Kafka did not start (kept $work)"
    fi
done
kdir=$(sed -n 's/^kafka: dir //p' "$work/kafka.start")
kboot=$(sed -n 's/^kafka: listening on //p' "$work/kafka.start")

for _ in $(seq 1 200); do
    [ -s "$work/gregor/listeners" ] && break
    kill -0 "$gpid" 2>/dev/null || break
    sleep 0.05
done
[ -s "$work/gregor/listeners" ] || {
    sed 's/^/# /' "$work/gregor/broker.log" | tail -n 20
    stop_all
    fail "gregor did not start (kept $work)"
}
gboot=$(sed -n '1s#^PLAINTEXT://##p' "$work/gregor/listeners")
echo "# Kafka 4.4.0 at $kboot ($(sed -n 's/^kafka: started in //p' "$work/kafka.start")), gregor at $gboot; $work"

timeout -k 5 "$limit" "$PY" "$here/diff.py" --kafka "$kboot" --gregor "$gboot" \
    --report "$work/report.json" "$@" | tee "$work/tap.out"
rc=${PIPESTATUS[0]}
[ "$rc" = 124 ] && echo "not ok - the comparison did not end in $limit s"
kill -0 "$gpid" 2>/dev/null || { echo "not ok - gregor died during the run"; rc=1; }
stop_all
echo "# total $(echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1 - $2}') s"
if [ "$rc" = 0 ] && [ "${KEEP_TMP:-0}" != 1 ]; then
    rm -rf "$work"
else
    echo "# kept $work: report.json, tap.out, gregor/broker.log, kafka.*/node-1/kafka.log"
fi
exit "$rc"
