#!/bin/sh
# compat/java/install.sh: the Java client matrix, kafka-clients 4.4.0 and
# 3.9.2 (the newest 3.9.x), each resolved by Maven from its pom-<v>.xml into
# $GR_CLIENTS/java/<v>/ and every jar checked against jars-<v>.sha256 (the
# resolved set must be exactly the listed jars). Idempotent: a version whose
# installed sums file matches the lock is left alone. Installs a JDK and
# Maven from Debian when they are missing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../clients.sh"
dest=$GR_CLIENTS/java
VERSIONS="4.4.0 3.9.2"

todo=
for v in $VERSIONS; do
    cmp -s "$here/jars-$v.sha256" "$dest/$v/jars.sha256" 2>/dev/null || todo="$todo $v"
done
[ -n "$todo" ] || exit 0

if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    echo "compat/java: installing a JDK and Maven"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jdk-headless maven
fi

mkdir -p "$dest"
for v in $todo; do
    echo "compat/java: kafka-clients $v"
    tmp=$dest/$v.tmp
    rm -rf "$tmp"
    mkdir -p "$tmp"
    mvn -q -B -Dstyle.color=never -f "$here/pom-$v.xml" dependency:copy-dependencies \
        -DoutputDirectory="$tmp" >"$dest/mvn-$v.log" 2>&1 || {
        cat "$dest/mvn-$v.log"; echo "compat/java: mvn failed for kafka-clients $v"; exit 1; }
    (cd "$tmp" && sha256sum --quiet -c "$here/jars-$v.sha256") || {
        echo "compat/java: checksum mismatch for kafka-clients $v"; exit 1; }
    (cd "$tmp" && ls *.jar) | sort >"$tmp/.have"
    awk '{print $2}' "$here/jars-$v.sha256" | sort >"$tmp/.want"
    cmp -s "$tmp/.have" "$tmp/.want" || {
        echo "compat/java: resolved jars differ from jars-$v.sha256:"
        diff "$tmp/.want" "$tmp/.have" || true
        exit 1
    }
    rm -f "$tmp/.have" "$tmp/.want"
    cp "$here/jars-$v.sha256" "$tmp/jars.sha256"
    rm -rf "$dest/$v"
    mv "$tmp" "$dest/$v"
done
