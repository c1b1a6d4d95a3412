#!/bin/bash
# tests/zk/ensemble.sh: a throw-away ZooKeeper ensemble for tests, from
# Debian's zookeeper package run as plain java (no systemd, no zkServer.sh),
# every node on 127.0.0.1 ports the kernel picked free, in DIR.
#
#   ensemble.sh start DIR [N]   N nodes (default 3); waits until each one
#                               serves (srvr says Mode:), at most
#                               ZK_START_TIMEOUT s (default 90); prints the
#                               connect string, also kept in DIR/connect
#   ensemble.sh stop DIR        TERM each recorded pid, KILL after 5 s
#   ensemble.sh kill DIR I [SIG]  signals node I (default KILL)
#
# A node's JVM pid is recorded (exec), so it is stopped by pid, never by
# name; a watchdog kills it after ZK_MAX_LIFETIME s (default 900) should
# the test that started it die first. tickTime 500 ms: sessions may ask
# for 1000..10000 ms. The AdminServer (Jetty on 0.0.0.0:8080) is off.
set -u

JARS=/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar
HEAP=${ZK_HEAP:-96m}
MAXLIFE=${ZK_MAX_LIFETIME:-900}

four() { # PORT WORD: a four-letter word's answer
    timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$1 && printf %s "$2" >&3 && cat <&3' \
        four "$1" "$2" 2>/dev/null
}

free_ports() { # N: N loopback ports free now
    python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

node_start() { # DIR I
    local d=$1/n$2 pid
    ( cd "$d" || exit 1
      bash -c 'echo $$ > zk.pid; exec java -Xms'"$HEAP"' -Xmx'"$HEAP"' \
          -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
          -Dzookeeper.admin.enableServer=false \
          -Dorg.slf4j.simpleLogger.showDateTime=true \
          -cp '"$JARS"' org.apache.zookeeper.server.quorum.QuorumPeerMain \
          "$PWD/zoo.cfg"' >>zk.log 2>&1 </dev/null &
      for _ in $(seq 1 50); do [ -s zk.pid ] && break; sleep 0.02; done
      pid=$(cat zk.pid)
      # the watchdog checks the pid still runs this node's config before
      # it kills, so a recycled pid is never hit; TERM ends it
      bash -c 'sleep "$1" & s=$!; trap "kill $s; exit 0" TERM; wait $s
               tr "\0" " " <"/proc/$2/cmdline" 2>/dev/null | grep -qF -- "$3" &&
                 kill -KILL "$2"' watchdog "$MAXLIFE" "$pid" "$d/zoo.cfg" \
          >/dev/null 2>&1 </dev/null &
      echo $! >watchdog.pid )
}

cmd=${1:-}
case $cmd in
start)
    DIR=$2 N=${3:-3}
    mkdir -p "$DIR" && DIR=$(cd "$DIR" && pwd) || exit 1
    read -r -a P <<<"$(free_ports $((3 * N)))"
    [ "${#P[@]}" = $((3 * N)) ] || { echo "ensemble: no free ports" >&2; exit 1; }
    conn=
    for i in $(seq 1 "$N"); do
        d=$DIR/n$i
        mkdir -p "$d/data" && echo "$i" >"$d/data/myid"
        {
            echo "tickTime=500"
            echo "initLimit=20"
            echo "syncLimit=10"
            echo "dataDir=$d/data"
            echo "clientPort=${P[$((i - 1))]}"
            echo "clientPortAddress=127.0.0.1"
            echo "maxClientCnxns=0"
            echo "4lw.commands.whitelist=srvr,ruok,mntr"
            echo "admin.enableServer=false"
            for j in $(seq 1 "$N"); do
                [ "$N" -gt 1 ] &&
                    echo "server.$j=127.0.0.1:${P[$((N + j - 1))]}:${P[$((2 * N + j - 1))]}"
            done
        } >"$d/zoo.cfg"
        echo "${P[$((i - 1))]}" >"$d/port"
        conn=$conn${conn:+,}127.0.0.1:${P[$((i - 1))]}
        node_start "$DIR" "$i"
    done
    echo "$N" >"$DIR/nodes"
    echo "$conn" >"$DIR/connect"
    end=$((SECONDS + ${ZK_START_TIMEOUT:-90}))
    for i in $(seq 1 "$N"); do
        until four "$(cat "$DIR/n$i/port")" srvr | grep -q '^Mode: '; do
            if [ $SECONDS -ge $end ]; then
                echo "ensemble: node $i does not serve after ${ZK_START_TIMEOUT:-90} s" >&2
                tail -n 20 "$DIR/n$i/zk.log" >&2
                exit 1
            fi
            sleep 0.1
        done
    done
    echo "$conn"
    ;;
stop)
    DIR=$2
    [ -f "$DIR/nodes" ] || exit 0
    N=$(cat "$DIR/nodes")
    for i in $(seq 1 "$N"); do
        for f in zk.pid watchdog.pid; do
            p=$(cat "$DIR/n$i/$f" 2>/dev/null) || continue
            kill -CONT "$p" 2>/dev/null
            kill -TERM "$p" 2>/dev/null
        done
    done
    for i in $(seq 1 "$N"); do
        p=$(cat "$DIR/n$i/zk.pid" 2>/dev/null) || continue
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        rm -f "$DIR/n$i/zk.pid" "$DIR/n$i/watchdog.pid"
    done
    ;;
kill)
    DIR=$2 I=$3 SIG=${4:-KILL}
    kill -"$SIG" "$(cat "$DIR/n$I/zk.pid")"
    ;;
*)
    sed -n '2,17p' "$0"
    exit 2
    ;;
esac
