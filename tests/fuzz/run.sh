#!/bin/bash
# tests/fuzz/run.sh: builds the libFuzzer targets with clang (ASan+UBSan)
# in their own build directory and runs each for a while, one process per
# target at a time (or FUZZ_JOBS in parallel). `make fuzz` runs it.
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]    default: 60 s, every target
#   FUZZ_BUILD=dir        build and work directory (default: ./fuzz-build)
#   FUZZ_JOBS=n           targets fuzzed at the same time (default 1)
#   FUZZ_MERGE=1          afterwards, minimise seeds + findings into
#                         tests/fuzz/corpus/<target>/ (what git keeps)
#   FUZZ_ARGS="..."       more libFuzzer flags; for long unattended runs
#                         "-fork=1 -ignore_crashes=1" keeps going after a
#                         finding
#   FUZZ_SRC=dir          the source tree (default: where this script is)
#   SECONDS = 0           only build (and merge)
#
# Findings: $FUZZ_BUILD/crashes/<target>-*; reproduce one with
# `build/tests/fuzz/replay <target> FILE` (gcc) or `$FUZZ_BUILD/fuzz_<target>
# FILE`. Each run's CPU seconds go to $FUZZ_BUILD/cpu.log (target, seconds,
# executions, date), so the time fuzzed adds up across runs.
set -u
src=${FUZZ_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
secs=${1:-60}
shift 2>/dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(request records compress segment broker otlp fsess http oauth sasl meta epochs replica acl_zk)
targets_run=("${targets[@]}")
B=${FUZZ_BUILD:-$(pwd)/fuzz-build}
CC=${FUZZ_CC:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
mkdir -p "$B/obj" "$B/crashes" "$B/work"
B=$(cd "$B" && pwd)

command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (apt-get install clang libclang-rt-14-dev)"; exit 1; }

# 1. libgregor.a with coverage instrumentation, in $B/obj
if [ ! -f "$B/obj/Makefile" ]; then
    [ -x "$src/configure" ] || (cd "$src" && ./autogen.sh) || exit 1
    (cd "$B/obj" && "$src/configure" -q CC="$CC" \
        CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $SAN" \
        LDFLAGS="$SAN") || exit 1
fi
make -C "$B/obj" -s proto-gen.stamp && make -C "$B/obj" -s -j"$(nproc)" libgregor.a || exit 1
LIBS="$(pkg-config --libs libssl libcrypto zlib liblz4 libzstd) -lsnappy -lpthread"
INC="-include $B/obj/config.h -I$src/src -I$B/obj/src -I$src/protocol -I$src/include -I$B/obj"
for t in "${targets[@]}"; do
    "$CC" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer $SAN -DGR_LIBFUZZER \
        -std=gnu11 $INC "$src/tests/fuzz/fuzz_common.c" "$src/tests/fuzz/fuzz_$t.c" \
        "$B/obj/libgregor.a" $LIBS -o "$B/fuzz_$t" || exit 1
done

# 2. fuzz: the working corpus starts from git's and keeps what it finds
run_one() {
    local t=$1 w="$B/work/$1" log="$B/$1.log" t1 execs
    mkdir -p "$w"
    local TIMEFORMAT="%U %S" rc
    { time "$B/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$B/crashes/$t-" \
        ${FUZZ_ARGS:-} "$w" "$src/tests/fuzz/corpus/$t" $([ "$t" = request ] && echo "$src/tests/data/wire") \
        >"$log" 2>&1; } 2>"$B/$t.time"
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    t1=$(awk '{printf "%.0f", $1 + $2}' "$B/$t.time" 2>/dev/null)
    echo "$t ${t1:-0} ${execs:-0} $(date -u +%FT%TZ) rc=$rc" >>"$B/cpu.log"
    echo "fuzz: $t: ${t1:-?} CPU s, ${execs:-?} executions, exit $rc"
    [ $rc = 0 ] || grep -E 'ERROR|SUMMARY|fuzz check failed|==[0-9]+==' "$log" | head -20
    return $rc
}

rc=0
jobs=${FUZZ_JOBS:-1}
[ "$secs" -gt 0 ] || targets_run=() # 0 s: build (and merge) only
for t in ${targets_run[@]+"${targets_run[@]}"}; do
    if [ "$jobs" -le 1 ]; then
        run_one "$t" || rc=1
    else
        run_one "$t" &
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || rc=1; done
    fi
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || rc=1; done

# 3. optionally keep a small corpus in git: the seeds (seed-*, real client
#    traffic and files) and regression inputs (regress-*) always, then what
#    the fuzzing found that adds coverage, smallest first, up to
#    FUZZ_CORPUS_KB (default 400) per target
if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    for t in "${targets[@]}"; do
        g="$src/tests/fuzz/corpus/$t" m="$B/merged/$t"
        rm -rf "$m" && mkdir -p "$m" "$g"
        find "$g" -maxdepth 1 -type f \( -name 'seed-*' -o -name 'regress-*' \) -exec cp {} "$m/" \;
        "$B/fuzz_$t" -merge=1 -max_len=65536 "$m" "$B/work/$t" "$g" \
            >"$B/$t.merge.log" 2>&1 || { echo "fuzz: merge of $t failed"; rc=1; continue; }
        budget=$(( ${FUZZ_CORPUS_KB:-400} * 1024 ))
        find "$m" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -printf '%s %p\n' |
            sort -n | awk -v b="$budget" '{ s += $1; if (s > b) print $2 }' | xargs -r rm -f
        rm -rf "$g" && cp -r "$m" "$g"
        echo "fuzz: $t corpus: $(ls "$g" | wc -l) files, $(du -sh "$g" | cut -f1)"
    done
fi
awk '{s[$1]+=$2} END {for (t in s) printf "fuzz: %s: %d CPU s in total (cpu.log)\n", t, s[t]}' "$B/cpu.log"
ls "$B"/crashes/ 2>/dev/null | sed 's/^/fuzz: finding: /'
exit $rc
