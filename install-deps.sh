#!/bin/sh
# Installs what building and testing Gregor needs on Debian 12, skipping
# what is already there: the toolchain, the broker's libraries, Check, and the
# real Kafka clients the compat tests run (librdkafka, kcat, kafka-python,
# confluent-kafka, kafkajs) and ZooKeeper (the server the cluster-mode tests
# run as an ensemble, and the C client cluster mode loads). Uses sudo when
# not root.
set -e
cd "$(dirname "$0")"

PKGS="build-essential autoconf automake libtool pkg-config python3
libssl-dev zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
check librdkafka-dev kcat openssl python3-kafka python3-confluent-kafka valgrind
python3-snappy python3-lz4 python3-zstandard python3-xxhash
python3-prometheus-client python3-cryptography
zookeeper libzookeeper-mt-dev"
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

missing=
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    echo "install-deps: installing$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

# the client matrix: each compat/<client>/install.sh installs its pinned
# client from the registries (compat/clients.sh says where)
. ./compat/clients.sh
for f in compat/*/install.sh; do
    [ -f "$f" ] || continue
    sh "$f" || { echo "install-deps: $f failed"; exit 1; }
done
