#!/bin/sh
# tests/kafka/install.sh: installs the pinned Apache Kafka of tests/kafka/pom.xml
# (kafka_2.13 and kafka-tools 4.4.0 with their runtime dependencies) into
# $GR_CLIENTS/kafka/libs, for tests/kafka/run-kafka.sh (a real Kafka broker to
# compare with) and compat/kafka-tools (Kafka's command-line tools).
#
# Maven resolves the jars from Maven Central (strict checksums); every jar is
# then checked against tests/kafka/jars.sha256, and the set of jars must be
# exactly the one listed there. Idempotent: when the stamp (the hash of the
# pom and the sums) matches and every jar is present, it does nothing.
# Installs Debian's JDK 17 and Maven when missing (as root, or with sudo).
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../compat/clients.sh"
dest=$GR_CLIENTS/kafka
sums=$here/jars.sha256
stamp_want=$(cat "$here/pom.xml" "$sums" | sha256sum | cut -d' ' -f1)

installed() {
    [ -f "$dest/stamp" ] && [ "$(cat "$dest/stamp")" = "$stamp_want" ] || return 1
    while read -r _ f; do
        [ -f "$dest/libs/$f" ] || return 1
    done <"$sums"
}
if installed; then
    exit 0
fi

need_pkgs=
command -v java >/dev/null 2>&1 || need_pkgs="$need_pkgs openjdk-17-jdk-headless"
command -v mvn >/dev/null 2>&1 || need_pkgs="$need_pkgs maven"
if [ -n "$need_pkgs" ]; then
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    echo "kafka install: installing$need_pkgs"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need_pkgs
fi

echo "kafka install: resolving $(grep -o '<kafka.version>[^<]*' "$here/pom.xml" |
    sed 's/.*>//') into $dest"
mkdir -p "$dest"
new=$dest/libs.new.$$
rm -rf "$new"
trap 'rm -rf "$new"' EXIT
mvn -B -q --strict-checksums -f "$here/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$new" >"$dest/mvn.log" 2>&1 || {
    tail -n 40 "$dest/mvn.log"
    echo "kafka install: maven failed (log: $dest/mvn.log)"
    exit 1
}
# exactly the listed jars, each with its listed hash
(cd "$new" && ls) >"$dest/got.list"
cut -d' ' -f3 "$sums" | sort >"$dest/want.list"
if ! sort "$dest/got.list" | cmp -s - "$dest/want.list"; then
    echo "kafka install: the resolved jars differ from tests/kafka/jars.sha256:"
    sort "$dest/got.list" | diff "$dest/want.list" - || true
    exit 1
fi
(cd "$new" && sha256sum -c --quiet "$sums") || {
    echo "kafka install: a jar's sha256 differs from tests/kafka/jars.sha256"
    exit 1
}
rm -rf "$dest/libs" "$dest/got.list" "$dest/want.list"
mv "$new" "$dest/libs"
trap - EXIT
echo "$stamp_want" >"$dest/stamp"
echo "kafka install: $(wc -l <"$sums") jars in $dest/libs"
