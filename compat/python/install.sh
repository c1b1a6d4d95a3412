#!/bin/sh
# compat/python/install.sh: a venv in $GR_CLIENTS/python with the current
# Python clients (confluent-kafka, kafka-python, aiokafka) and their codecs,
# pinned with hashes by compat/python/requirements.txt. Run from the
# repository top by install-deps.sh (as root on Debian 12 in CI). Quick when
# done: the venv's stamp holds the requirements' checksum.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../clients.sh"
dest=$GR_CLIENTS/python
req=$here/requirements.txt
sum=$(sha256sum "$req" | cut -d' ' -f1)

if [ -x "$dest/bin/python" ] && [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$sum" ] &&
    "$dest/bin/python" -c 'import confluent_kafka, kafka, aiokafka' 2>/dev/null; then
    exit 0
fi

# the wheels are CPython 3.11's: pyenv's python3 (on PATH), else Debian's
py=
for c in python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 &&
        [ "$("$c" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = 3.11 ]; then
        py=$(command -v "$c")
        break
    fi
done
[ -n "$py" ] || { echo "compat/python: no python 3.11 found"; exit 1; }
if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv
fi

echo "compat/python: installing into $dest with $py"
rm -rf "$dest"
mkdir -p "$GR_CLIENTS"
"$py" -m venv "$dest"
"$dest/bin/python" -m pip install -q --disable-pip-version-check --no-input \
    --require-hashes --only-binary :all: --no-deps -r "$req"
"$dest/bin/python" -c 'import confluent_kafka, kafka, aiokafka, snappy, lz4, zstandard, cramjam'
echo "$sum" >"$dest/.stamp"
