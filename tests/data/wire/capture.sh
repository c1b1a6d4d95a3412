#!/bin/bash
# Captures the request frames real clients send (librdkafka 2.0.2 through
# kcat and the compat programs, kafkajs 2.2.4, kafka-python 2.0.2) by
# running the compat suite with --dump-frames, and files each new
# (api, version) under tests/data/wire/<Api>/v<N>.captured.req.bin. Frames
# already captured are kept. Run from a build directory:
#   top_srcdir=/path/to/src top_builddir=. tests/data/wire/capture.sh
# Only requests are kept: they are the clients' bytes (responses in a dump
# are Gregor's own encoding, not an independent vector).
set -eu
src=${top_srcdir:?}
dump=$(mktemp -d /tmp/gregor-capture.XXXXXX)
GREGOR_DUMP_FRAMES=$dump "$src/compat/run.sh" >/dev/null 2>&1 || true
n=0
for f in "$dump"/*/v*.req.bin; do
    api=$(basename "$(dirname "$f")")
    v=$(basename "$f" .req.bin)
    out="$src/tests/data/wire/$api/$v.captured.req.bin"
    # kafka-python's own vectors (v<N>.req.bin) are a different source;
    # keep both
    if [ ! -e "$out" ]; then
        mkdir -p "$(dirname "$out")"
        cp "$f" "$out"
        n=$((n + 1))
    fi
done
rm -rf "$dump"
echo "capture: $n new request frames"
