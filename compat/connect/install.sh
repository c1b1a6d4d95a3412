#!/bin/sh
# compat/connect/install.sh: Kafka Connect 4.4.0 (connect-runtime, with
# connect-file 4.3.1) and its dependencies into $GR_CLIENTS/connect/lib
# (Maven resolves compat/connect/pom.xml; its repository cache is
# $GR_CLIENTS/connect/m2), each jar checked against
# compat/connect/jars.sha256, and the scenario's programs (src/*.java)
# compiled into $GR_CLIENTS/connect/classes. Run from the repository top by
# install-deps.sh (as root on Debian 12 in CI). Quick when done: the stamp
# holds the checksum of the pom, the sums and the sources.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../clients.sh"
dest=$GR_CLIENTS/connect
sum=$(cat "$here/pom.xml" "$here/jars.sha256" "$here"/src/*.java | sha256sum | cut -d' ' -f1)

if [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$sum" ] && [ -d "$dest/classes" ]; then
    exit 0
fi

if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jdk-headless maven
fi

echo "compat/connect: installing into $dest"
mkdir -p "$dest"
rm -rf "$dest/lib.new" "$dest/classes.new"
mvn -B -Dstyle.color=never --strict-checksums -Dmaven.repo.local="$dest/m2" -f "$here/pom.xml" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dest/lib.new" \
    >"$dest/mvn.log" 2>&1 || { tail -n 40 "$dest/mvn.log"; exit 1; }
# exactly the jars listed, each with its sum
(cd "$dest/lib.new" && ls -1 *.jar) >"$dest/jars.got"
awk '{ print $2 }' "$here/jars.sha256" | sort >"$dest/jars.want"
sort "$dest/jars.got" | cmp -s - "$dest/jars.want" || {
    echo "compat/connect: resolved jars differ from jars.sha256:"
    sort "$dest/jars.got" | diff "$dest/jars.want" - || true
    exit 1
}
(cd "$dest/lib.new" && sha256sum -c --quiet "$here/jars.sha256")
mkdir -p "$dest/classes.new"
javac -nowarn --release 17 -encoding UTF-8 -cp "$dest/lib.new/*" -d "$dest/classes.new" "$here"/src/*.java
rm -rf "$dest/lib" "$dest/classes"
mv "$dest/lib.new" "$dest/lib"
mv "$dest/classes.new" "$dest/classes"
rm -f "$dest/jars.got" "$dest/jars.want"
echo "$sum" >"$dest/.stamp"
