# compat/sasl/scenarios.sh: SASL listeners (src/net/sasl.c) with real
# clients, sourced by compat/run.sh. One broker serves PLAINTEXT (the
# admin's), SASL_PLAINTEXT and SASL_SSL (certificates from
# compat/tls/certs.sh) with PLAIN (users from the JAAS entry),
# SCRAM-SHA-256 and SCRAM-SHA-512 (users made through
# AlterUserScramCredentials). kcat (Debian's librdkafka), confluent-kafka
# (its current librdkafka) and kafka-python produce and consume with each
# mechanism over both listeners; wrong passwords are refused and nothing
# of theirs is appended; a request before authentication is closed; the
# v0 handshake's raw tokens (librdkafka with api.version.request=false);
# SCRAM users made and removed through the admin clients count at once
# and survive a restart; Kafka's errors of the SCRAM admin APIs; start-up
# refusals (GSSAPI, a malformed JAAS entry, PLAIN without users).

SASL_SRC=$COMPAT_SRC/sasl
SASL_JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-pw" user_admin="admin-pw" user_alice="alice-pw";'

# sasl_broker [ARG...]: the three listeners; SASL_PT and SASL_TLS their ports
sasl_broker() {
    start_broker --log-level debug \
        --override listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://localhost:0 \
        --override sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512 \
        --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$SASL_JAAS" \
        --override "listener.name.sasl_ssl.plain.sasl.jaas.config=$SASL_JAAS" \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$SASL_CERTS/server.p12" \
        --override ssl.keystore.password=secret "$@" || return 1
    SASL_PT=$(sed -n 's/^SASL_PLAINTEXT:.*://p' "$BROKER_DIR/listeners")
    SASL_TLS=$(sed -n 's/^SASL_SSL:.*://p' "$BROKER_DIR/listeners")
    [ -n "$SASL_PT" ] && [ -n "$SASL_TLS" ]
}

# scram_broker [ARG...]: PLAINTEXT (the admin's, GR_BOOTSTRAP) and
# SASL_PLAINTEXT with SCRAM-SHA-256 and -512 only; SCRAM_BOOT is the
# latter's host:port. The scenarios make user sam (passwords sam-pw256
# and sam-pw512) through AlterUserScramCredentials.
# For the client directories' SCRAM scenarios (java_scram_*,
# go_franz_scram, kafkajs_scram).
scram_broker() {
    start_broker --log-level debug \
        --override listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0 \
        --override sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512 "$@" || return 1
    SCRAM_BOOT=127.0.0.1:$(sed -n 's/^SASL_PLAINTEXT:.*://p' "$BROKER_DIR/listeners")
    [ "$SCRAM_BOOT" != 127.0.0.1: ]
}

# scram_ssl_broker: PLAINTEXT (the admin's, GR_BOOTSTRAP) and SASL_SSL
# with SCRAM-SHA-256 and -512 on localhost (compat/tls/certs.sh's server
# certificate, made once a run); SCRAM_SSL_BOOT is the latter's
# localhost:port, SCRAM_CA the CA's PEM. With REUSE_DIR=1, the same broker
# again on its data (scram_restart). For the client directories'
# SCRAM-over-TLS scenarios (java_scram_ssl, go_franz_scram_ssl,
# kafkajs_scram_ssl): users made through the Admin API log in over
# SASL_SSL, and again after a restart.
scram_ssl_broker() {
    local c=$COMPAT_TMP/scram-certs t
    SCRAM_CA=$c/ca.pem
    # made once a run; scenarios run side by side, so made aside and
    # renamed into place (the loser of a race drops its own)
    if [ ! -s "$c/server.p12" ]; then
        t=$(mktemp -d "$c.XXXXXX") && sh "$COMPAT_SRC/tls/certs.sh" "$t" || return 1
        mv -T "$t" "$c" 2>/dev/null || rm -rf "$t"
    fi
    start_broker --log-level debug \
        --override listeners=PLAINTEXT://127.0.0.1:0,SASL_SSL://localhost:0 \
        --override sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512 \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=secret || return 1
    SCRAM_SSL_BOOT=localhost:$(sed -n 's/^SASL_SSL:.*://p' "$BROKER_DIR/listeners" | head -1)
    [ "$SCRAM_SSL_BOOT" != localhost: ]
}

# scram_restart: the broker stopped and started again on the same data
# (new ports); what the SCRAM users logged in to before is still there
scram_restart() {
    stop_broker
    REUSE_DIR=1 scram_ssl_broker || return 1
    echo "# restarted on the same data; SASL_SSL now at $SCRAM_SSL_BOOT"
}

# scram_refusals: the bad logins of the client SCRAM scenarios, one a
# line "MECH|USER|PW|TEXT" (users from scram_users): for each mechanism a
# wrong password, the other mechanism's password and an unknown user, all
# refused with Kafka's message (TEXT)
scram_refusals() {
    local m other up
    for m in SCRAM-SHA-256 SCRAM-SHA-512; do
        other=sam-pw512
        [ "$m" = SCRAM-SHA-512 ] && other=sam-pw256
        for up in sam:wrong sam:$other nobody:sam-pw${m##*-}; do
            echo "$m|${up%%:*}|${up#*:}|Authentication failed during authentication due to invalid credentials with SASL mechanism $m"
        done
    done
}

# scram_up CLIENT PREFIX: after a client's refused logins the broker still
# runs and logged a refusal of each mechanism, and each topic PREFIX-MECH
# holds the 20 records of the good login, none of a refused one (read
# over PLAINTEXT)
scram_up() {
    local m n
    broker_alive || { echo "# the broker died under $1's SCRAM logins" >&2; return 1; }
    for m in SCRAM-SHA-256 SCRAM-SHA-512; do
        grep -q "Failed authentication with .*invalid credentials with SASL mechanism $m" \
            "$BROKER_DIR/broker.log" || { echo "# no refused $m login logged" >&2; return 1; }
        n=$(timeout 30 kcat -b "$GR_BOOTSTRAP" -C -t "$2-$m" -o beginning -e -q | wc -l)
        [ "$n" = 20 ] || { echo "# $2-$m holds $n records, not 20" >&2; return 1; }
    done
    echo "# $1: the broker is up after the refused SCRAM logins; $2-SCRAM-SHA-256 and -512 hold 20 records each"
}

# sasl_kcat PORT TLS MECH USER PW ARG...: kcat over SASL (TLS 1: SASL_SSL)
sasl_kcat() {
    local port=$1 tls=$2 mech=$3 user=$4 pw=$5
    shift 5
    if [ "$tls" = 1 ]; then
        set -- -X security.protocol=SASL_SSL -X "ssl.ca.location=$SASL_CERTS/ca.pem" "$@"
    else
        set -- -X security.protocol=SASL_PLAINTEXT "$@"
    fi
    timeout 30 kcat -b "localhost:$port" -X "sasl.mechanisms=$mech" \
        -X "sasl.username=$user" -X "sasl.password=$pw" "$@"
}

# sasl_py ARG...: compat/sasl/py_sasl.py in the Python clients' venv
sasl_py() {
    PYC_LIMIT=${PYC_LIMIT:-60} pyc ../sasl/py_sasl.py "$@"
}

# sasl_refused WHY PATTERN ARG...: a broker started with ARG... exits at
# start-up with PATTERN (fixed string) in its log
sasl_refused() {
    local why=$1 pat=$2 d rc
    shift 2
    d=$(mktemp -d "$COMPAT_TMP/saslbad.XXXXXX") || return 1
    timeout 20 "$GREGOR" --temp-data \
        --override listeners=SASL_PLAINTEXT://127.0.0.1:0 "$@" >"$d/out" 2>"$d/log"
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -qF -- "$pat" "$d/log"; then
        echo "# $why: not refused with '$pat':" >&2
        sed 's/^/#   /' "$d/log" >&2
        return 1
    fi
    echo "# refused ($why): $(grep -F -- "$pat" "$d/log" | head -1 | cut -c1-200)"
}

s_sasl() {
    need kcat || return 1
    pyc_ready || return 1
    local c=$COMPAT_TMP/sasl-certs m tls port in out n
    SASL_CERTS=$c
    sh "$COMPAT_SRC/tls/certs.sh" "$c" || return 1
    sasl_broker || return 1
    in=$BROKER_DIR/in.txt
    seq -f 'rec-%05g' 1 500 >"$in"
    # SCRAM users through the admin API (confluent-kafka), over PLAINTEXT
    sasl_py scram ck "$GR_BOOTSTRAP" set carol SCRAM-SHA-256 carol-pw 4096 || return 1
    sasl_py scram ck "$GR_BOOTSTRAP" set carol SCRAM-SHA-512 carol-pw5 8192 || return 1
    # kcat (librdkafka 2.0.2): each mechanism over both listeners
    for tls in 0 1; do
        port=$SASL_PT
        [ "$tls" = 1 ] && port=$SASL_TLS
        for m in PLAIN:alice:alice-pw SCRAM-SHA-256:carol:carol-pw SCRAM-SHA-512:carol:carol-pw5; do
            IFS=: read -r mech user pw <<EOF
$m
EOF
            out=$BROKER_DIR/out-$tls-$mech.txt
            sasl_kcat "$port" "$tls" "$mech" "$user" "$pw" -P -t "kc-$tls-$mech" <"$in" || return 1
            sasl_kcat "$port" "$tls" "$mech" "$user" "$pw" -C -t "kc-$tls-$mech" \
                -o beginning -e -q >"$out" || return 1
            cmp "$in" "$out" || return 1
            echo "# kcat: $mech as $user over $([ "$tls" = 1 ] && echo SASL_SSL || echo SASL_PLAINTEXT): 500 records"
        done
    done
    grep -q 'authenticated as User:carol with SASL/SCRAM-SHA-512' "$BROKER_DIR/broker.log" || {
        echo "# no SCRAM-SHA-512 authentication of User:carol logged" >&2; return 1; }
    # the v0 handshake and raw tokens (no ApiVersions: SaslHandshake v0)
    for m in PLAIN:alice:alice-pw SCRAM-SHA-256:carol:carol-pw; do
        IFS=: read -r mech user pw <<EOF
$m
EOF
        sasl_kcat "$SASL_PT" 0 "$mech" "$user" "$pw" -X api.version.request=false \
            -X broker.version.fallback=0.10.0 -C -t kc-0-PLAIN -o beginning -e -q \
            >"$BROKER_DIR/out-v0.txt" || return 1
        cmp "$in" "$BROKER_DIR/out-v0.txt" || return 1
        echo "# kcat: $mech with SaslHandshake v0 and raw tokens"
    done
    # a wrong password: refused, nothing appended
    n=$(wc -l <"$BROKER_DIR/out-0-PLAIN.txt")
    if echo nope | sasl_kcat "$SASL_PT" 0 PLAIN alice wrong -P -t kc-0-PLAIN 2>"$BROKER_DIR/kc.err"; then
        echo "# kcat with a wrong password produced" >&2; return 1
    fi
    grep -q 'Authentication failed: Invalid username or password' "$BROKER_DIR/kc.err" || {
        echo "# kcat did not see Kafka's PLAIN message:" >&2; cat "$BROKER_DIR/kc.err" >&2; return 1; }
    timeout 30 kcat -b "$GR_BOOTSTRAP" -C -t kc-0-PLAIN -o beginning -e -q >"$BROKER_DIR/after.txt" || return 1
    [ "$(wc -l <"$BROKER_DIR/after.txt")" = "$n" ] || { echo "# a refused producer appended" >&2; return 1; }
    echo "# kcat: a wrong PLAIN password refused with Kafka's message; nothing appended"
    # confluent-kafka and kafka-python: each mechanism over both listeners
    for cl in ck kpy; do
        for m in PLAIN:alice:alice-pw SCRAM-SHA-256:carol:carol-pw SCRAM-SHA-512:carol:carol-pw5; do
            IFS=: read -r mech user pw <<EOF
$m
EOF
            sasl_py pc "$cl" "127.0.0.1:$SASL_PT" "" "$mech" "$user" "$pw" || return 1
            sasl_py pc "$cl" "localhost:$SASL_TLS" "$c/ca.pem" "$mech" "$user" "$pw" || return 1
            sasl_py refused "$cl" "127.0.0.1:$SASL_PT" "" "$mech" "$user" wrong \
                kc-0-PLAIN "$GR_BOOTSTRAP" || return 1
        done
    done
    # a request before authentication: the connection is closed unanswered
    "$PYC" - "$SASL_PT" <<'EOF' || return 1
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
hdr = struct.pack(">hhih", 3, 1, 7, 4) + b"test"  # Metadata v1
s.sendall(struct.pack(">i", len(hdr) + 4) + hdr + struct.pack(">i", 0))
got = s.recv(100)
if got:
    print("FAIL: Metadata before authentication answered: %r" % got)
    sys.exit(1)
print("# a Metadata request before authentication: closed, no answer")
EOF
    grep -q 'unexpected Kafka request of type Metadata during SASL handshake' \
        "$BROKER_DIR/broker.log" || { echo "# the refusal was not logged" >&2; return 1; }
    # Kafka's errors of the SCRAM admin APIs
    sasl_py errors "$GR_BOOTSTRAP" || return 1
    # a user made with kafka-python's admin logs in at once; removed, not
    sasl_py scram kpy "$GR_BOOTSTRAP" set dave SCRAM-SHA-256 dave-pw 4096 || return 1
    sasl_kcat "$SASL_PT" 0 SCRAM-SHA-256 dave dave-pw -L -m 5 >/dev/null || return 1
    sasl_py scram ck "$GR_BOOTSTRAP" delete dave SCRAM-SHA-256 || return 1
    if sasl_kcat "$SASL_PT" 0 SCRAM-SHA-256 dave dave-pw -L -m 5 >/dev/null 2>&1; then
        echo "# a removed SCRAM user logged in" >&2; return 1
    fi
    echo "# kcat: dave logs in once made, not once removed"
    # the credentials survive a restart
    REUSE_DIR=1
    stop_broker || return 1
    sasl_broker || { REUSE_DIR=0; return 1; }
    REUSE_DIR=0
    sasl_kcat "$SASL_TLS" 1 SCRAM-SHA-512 carol carol-pw5 -C -t kc-1-PLAIN -o beginning -e -q \
        >"$BROKER_DIR/out-restart.txt" || return 1
    cmp "$in" "$BROKER_DIR/out-restart.txt" || return 1
    if sasl_kcat "$SASL_PT" 0 SCRAM-SHA-256 dave dave-pw -L -m 5 >/dev/null 2>&1; then
        echo "# a removed SCRAM user logged in after a restart" >&2; return 1
    fi
    echo "# after a restart: carol (SCRAM-SHA-512) logs in over SASL_SSL, dave does not"
    stop_broker || return 1
    # start-up refusals
    sasl_refused gssapi "SASL mechanism GSSAPI (Kerberos) is not supported" || return 1
    sasl_refused jaas "JAAS config entry not terminated by semi-colon" \
        --override sasl.enabled.mechanisms=PLAIN \
        --override 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_a="b"' || return 1
    sasl_refused nousers "SASL/PLAIN has no users" \
        --override sasl.enabled.mechanisms=PLAIN || return 1
}

SCENARIOS+=(sasl)
LIMIT_sasl=400

# sasl_cases PREFIX: the cases of SaslCompat.java and node/sasl.js, one a
# line: PLAIN (alice) and SCRAM-SHA-512 (erin) over both listeners, each
# producing and consuming to PREFIX-PROTO-MECH, then a wrong password for
# each with Kafka's message (PLAIN's from PlainSaslServer, SCRAM's from
# SaslServerAuthenticator)
sasl_cases() {
    local p m boot ca mech user pw text
    for p in SASL_PLAINTEXT SASL_SSL; do
        boot=127.0.0.1:$SASL_PT ca=
        [ "$p" = SASL_SSL ] && boot=localhost:$SASL_TLS ca=$SASL_CERTS/ca.pem
        for m in PLAIN:alice:alice-pw SCRAM-SHA-512:erin:erin-pw; do
            IFS=: read -r mech user pw <<EOF2
$m
EOF2
            echo "$boot|$p|$ca|$mech|$user|$pw|$1-$p-$mech|"
        done
    done
    for p in SASL_PLAINTEXT SASL_SSL; do
        boot=127.0.0.1:$SASL_PT ca=
        [ "$p" = SASL_SSL ] && boot=localhost:$SASL_TLS ca=$SASL_CERTS/ca.pem
        echo "$boot|$p|$ca|PLAIN|alice|wrong|$1-$p-PLAIN|Authentication failed: Invalid username or password"
        echo "$boot|$p|$ca|SCRAM-SHA-512|erin|wrong|$1-$p-SCRAM-SHA-512|Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
    done
}

# sasl_counts PREFIX: each topic of PREFIX holds the 20 records of its
# good client, none of the refused one's (read over PLAINTEXT)
sasl_counts() {
    local p m n
    for p in SASL_PLAINTEXT SASL_SSL; do
        for m in PLAIN SCRAM-SHA-512; do
            n=$(timeout 30 kcat -b "$GR_BOOTSTRAP" -C -t "$1-$p-$m" -o beginning -e -q | wc -l)
            [ "$n" = 20 ] || { echo "# $1-$p-$m holds $n records, not 20" >&2; return 1; }
        done
    done
    echo "# $1: 20 records in each topic, nothing from a refused login"
}

# The Java client (4.4.0 and 3.9.2, compat/sasl/SaslCompat.java), franz-go
# (compat/go/cmd/franzsasl) and kafkajs (compat/node/sasl.js) log in with
# PLAIN (JAAS users) and SCRAM-SHA-512 (a user made with confluent-kafka's
# admin) over SASL_PLAINTEXT and SASL_SSL, produce and consume; a wrong
# password fails with each client's authentication error holding Kafka's
# message, and nothing of it is appended
s_sasl_clients() {
    need kcat && need node && need javac || return 1
    pyc_ready && go_ready && node_modules_ready || return 1
    local c v jars d cases=() t boot p ca mech user pw topic text
    c=$(mktemp -d "$COMPAT_TMP/sasl-certs.XXXXXX") &&
        sh "$COMPAT_SRC/tls/certs.sh" "$c" || return 1
    SASL_CERTS=$c
    sasl_broker || return 1
    sasl_py scram ck "$GR_BOOTSTRAP" set erin SCRAM-SHA-512 erin-pw 4096 || return 1
    for v in 4.4.0 3.9.2; do
        jars=$GR_CLIENTS/java/$v
        [ -f "$jars/jars.sha256" ] || {
            echo "kafka-clients $v is not installed: run sh compat/java/install.sh"; return 1; }
        d=$(mktemp -d "$COMPAT_TMP/sasl-java.XXXXXX") &&
            javac -nowarn -d "$d" -cp "$jars/*" "$SASL_SRC/SaslCompat.java" || return 1
        mapfile -t cases < <(sasl_cases "java${v%%.*}")
        timeout 120 java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx256m \
            -Dorg.slf4j.simpleLogger.defaultLogLevel=off \
            -cp "$d:$jars/*" SaslCompat "$v" "${cases[@]}" || return 1
        sasl_counts "java${v%%.*}" || return 1
    done
    mapfile -t cases < <(sasl_cases kafkajs)
    (cd "$COMPAT_SRC/node" && timeout 120 node sasl.js "${cases[@]}") || return 1
    sasl_counts kafkajs || return 1
    mapfile -t cases < <(sasl_cases franz)
    for t in "${cases[@]}"; do
        IFS='|' read -r boot p ca mech user pw topic text <<EOF
$t
EOF
        GR_BOOTSTRAP=$boot GR_SASL_CA=$ca GR_SASL_MECHANISM=$mech GR_SASL_USER=$user \
            GR_SASL_PASSWORD=$pw timeout 60 "$GO_BIN/franzsasl" \
            $([ -n "$text" ] && echo refused || echo ok) "$topic" ${text:+"$text"} || return 1
    done
    sasl_counts franz
}

SCENARIOS+=(sasl_clients)
LIMIT_sasl_clients=400
