#!/bin/sh
# compat/go/install.sh: the Go clients (franz-go with kadm and kmsg,
# IBM/sarama, segmentio/kafka-go) at the versions go.mod and go.sum pin,
# built into $GR_CLIENTS/go/bin (franz, sarama, kafkago). Quick when the
# stamp (the Go version and every source file's hash) matches.
#   --offline  build from the module cache only (the scenarios use it to
#              rebuild after a source change; they never download)
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../clients.sh"
dest=$GR_CLIENTS/go
GO=$(command -v go 2>/dev/null || echo /usr/local/go/bin/go)
if ! [ -x "$GO" ]; then
    echo "compat/go: no go toolchain (Go 1.26 is needed; Debian 12's golang is too old)"
    exit 1
fi
export GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false"
stamp=$(cd "$here" && { "$GO" version; find . -name '*.go' -o -name go.mod -o -name go.sum |
    LC_ALL=C sort | xargs sha256sum; } | sha256sum | cut -d' ' -f1)
built=yes
for d in "$here"/cmd/*/; do
    [ -x "$dest/bin/$(basename "$d")" ] || built=no
done
if [ "$built" = yes ] && [ -f "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "$stamp" ]; then
    exit 0
fi
cd "$here"
if [ "${1:-}" = --offline ]; then
    export GOPROXY=off
else
    echo "compat/go: downloading the modules go.sum pins"
    "$GO" mod download
fi
"$GO" mod verify >/dev/null
mkdir -p "$dest/bin"
"$GO" build -trimpath -o "$dest/bin/" ./cmd/...
echo "$stamp" >"$dest/stamp"
echo "compat/go: built $(cd cmd && echo *) into $dest/bin"
