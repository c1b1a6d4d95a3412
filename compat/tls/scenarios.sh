# compat/tls/scenarios.sh: SSL listeners (src/net/tls.c) with real clients,
# sourced by compat/run.sh. Certificates are made fresh by certs.sh (a CA,
# a server certificate for 127.0.0.1 and localhost, a client certificate,
# and a second CA with its own client). One broker serves three listeners:
# PLAINTEXT, CLIENT (SSL, a PEM keystore whose key is encrypted) and MTLS
# (SSL, per-listener overrides: a PKCS12 keystore and truststore,
# ssl.client.auth=required); kcat (Debian's librdkafka), kafka-python and
# confluent-kafka produce and consume on both, a client without a
# certificate and one trusting another CA are refused; a second broker
# has inline PEM stores and ssl.client.auth=requested, TLS 1.2 only with
# one IANA-named suite; start-up refusals (a JKS keystore, an unknown
# cipher suite, a missing file, a setting of Java's engine) each with its
# message.

TLS_SRC=$COMPAT_SRC/tls

# tls_refused WHY PATTERN ARG...: a broker started with ARG... exits at
# start-up with PATTERN (fixed string) in its log
tls_refused() {
    local why=$1 pat=$2 d
    shift 2
    d=$(mktemp -d "$COMPAT_TMP/tlsbad.XXXXXX") || return 1
    timeout 20 "$GREGOR" --temp-data \
        --override listeners=SSL://127.0.0.1:0 "$@" >"$d/out" 2>"$d/log"
    if [ $? -eq 0 ] || [ $? -eq 124 ] || ! grep -qF -- "$pat" "$d/log"; then
        echo "# $why: not refused with '$pat':" >&2
        sed 's/^/#   /' "$d/log" >&2
        return 1
    fi
    echo "# refused ($why): $(grep -F -- "$pat" "$d/log" | head -1 | cut -c1-200)"
}

# tls_kcat PORT ARG...: kcat over SSL to 127.0.0.1:PORT trusting the CA
tls_kcat() {
    local port=$1
    shift
    timeout 30 kcat -b "localhost:$port" -X security.protocol=SSL \
        -X "ssl.ca.location=$TLS_CERTS/ca.pem" "$@"
}

s_tls() {
    need kcat || return 1
    pyc_ready || return 1
    local c=$COMPAT_TMP/tls-certs plain cl m n
    TLS_CERTS=$c
    sh "$TLS_SRC/certs.sh" "$c" || return 1
    start_broker --log-level debug \
        --override listeners=PLAINTEXT://127.0.0.1:0,CLIENT://127.0.0.1:0,MTLS://localhost:0 \
        --override listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CLIENT:SSL,MTLS:SSL \
        --override ssl.keystore.type=PEM \
        --override "ssl.keystore.location=$c/server.keystore.pem" \
        --override ssl.key.password=keypass \
        --override listener.name.mtls.ssl.keystore.type=PKCS12 \
        --override "listener.name.mtls.ssl.keystore.location=$c/server.p12" \
        --override listener.name.mtls.ssl.keystore.password=secret \
        --override listener.name.mtls.ssl.client.auth=required \
        --override listener.name.mtls.ssl.truststore.type=PKCS12 \
        --override "listener.name.mtls.ssl.truststore.location=$c/truststore.p12" \
        --override listener.name.mtls.ssl.truststore.password=secret || return 1
    cl=$(sed -n 's/^CLIENT:.*://p' "$BROKER_DIR/listeners")
    m=$(sed -n 's/^MTLS:.*://p' "$BROKER_DIR/listeners")
    [ -n "$cl" ] && [ -n "$m" ] || return 1
    # kcat: 2000 records of 1 KB on the server-authenticated listener,
    # consumed back whole over it (Fetch file ranges through TLS)
    seq -f '%07g' 1 2000 | sed 's/$/ xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/' >"$BROKER_DIR/in.txt"
    tls_kcat "$cl" -P -t tls-kcat <"$BROKER_DIR/in.txt" || return 1
    tls_kcat "$cl" -C -t tls-kcat -o beginning -e -q >"$BROKER_DIR/out.txt" || return 1
    cmp "$BROKER_DIR/in.txt" "$BROKER_DIR/out.txt" || return 1
    echo "# kcat: 2000 records produced and consumed over SSL"
    # mTLS: with the client certificate, without it, and one from another CA
    tls_kcat "$m" -X "ssl.certificate.location=$c/client.pem" \
        -X "ssl.key.location=$c/client.key" -C -t tls-kcat -o beginning \
        -e -q >"$BROKER_DIR/out2.txt" || return 1
    cmp "$BROKER_DIR/in.txt" "$BROKER_DIR/out2.txt" || return 1
    if tls_kcat "$m" -L -m 3 >/dev/null 2>&1; then
        echo "# kcat without a certificate was let in on MTLS" >&2
        return 1
    fi
    if tls_kcat "$m" -X "ssl.certificate.location=$c/stranger.pem" \
        -X "ssl.key.location=$c/stranger.key" -L -m 3 >/dev/null 2>&1; then
        echo "# a certificate from an untrusted CA was let in" >&2
        return 1
    fi
    grep -q 'principal User:CN=client,OU=test,O=Gregor' "$BROKER_DIR/broker.log" || {
        echo "# no principal User:CN=client,OU=test,O=Gregor logged" >&2
        return 1
    }
    grep -q 'failed authentication with .* on MTLS (SSL handshake failed)' \
        "$BROKER_DIR/broker.log" || return 1
    # the Python clients
    for n in kpy ck; do
        PYC_LIMIT=60 pyc ../tls/py_tls.py "$n" "localhost:$cl" "$c" server || return 1
        PYC_LIMIT=60 pyc ../tls/py_tls.py "$n" "localhost:$m" "$c" mtls || return 1
        PYC_LIMIT=60 pyc ../tls/py_tls.py "$n" "localhost:$m" "$c" nocert || return 1
        PYC_LIMIT=60 pyc ../tls/py_tls.py "$n" "localhost:$cl" "$c" wrongca || return 1
    done
    # the plaintext listener still serves the same records
    timeout 30 kcat -b "$GR_BOOTSTRAP" -C -t tls-kcat -o beginning -e -q \
        >"$BROKER_DIR/out3.txt" || return 1
    cmp "$BROKER_DIR/in.txt" "$BROKER_DIR/out3.txt" || return 1
    stop_broker || return 1

    # inline PEM (newlines as a properties file's continued lines leave
    # them: none), client auth requested, TLS 1.2 with one IANA suite
    start_broker \
        --override listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0 \
        --override ssl.keystore.type=PEM \
        --override "ssl.keystore.certificate.chain=$(tr '\n' ' ' <"$c/server.pem")" \
        --override "ssl.keystore.key=$(tr '\n' ' ' <"$c/server.enc.key")" \
        --override ssl.key.password=keypass \
        --override ssl.truststore.type=PEM \
        --override "ssl.truststore.certificates=$(cat "$c/ca.pem")" \
        --override ssl.client.auth=requested \
        --override ssl.enabled.protocols=TLSv1.2 \
        --override ssl.cipher.suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 || return 1
    cl=$(sed -n 's/^SSL:.*://p' "$BROKER_DIR/listeners")
    tls_kcat "$cl" -L -m 5 >/dev/null || return 1
    tls_kcat "$cl" -X "ssl.certificate.location=$c/client.pem" \
        -X "ssl.key.location=$c/client.key" -L -m 5 >/dev/null || return 1
    echo | timeout 10 openssl s_client -connect "127.0.0.1:$cl" -tls1_2 \
        -CAfile "$c/ca.pem" 2>/dev/null | grep -q 'Cipher is ECDHE-RSA-AES128-GCM-SHA256' || {
        echo "# TLS 1.2 with ECDHE-RSA-AES128-GCM-SHA256 not negotiated" >&2
        return 1
    }
    if echo | timeout 10 openssl s_client -connect "127.0.0.1:$cl" -tls1_3 \
        -CAfile "$c/ca.pem" 2>/dev/null | grep -q 'Cipher is TLS_'; then
        echo "# TLS 1.3 accepted with ssl.enabled.protocols=TLSv1.2" >&2
        return 1
    fi
    stop_broker || return 1

    # start-up refusals, each naming what is wrong
    tls_refused JKS "keytool -importkeystore -srckeystore $c/server.jks" \
        --override "ssl.keystore.location=$c/server.jks" \
        --override ssl.keystore.password=secret || return 1
    tls_refused cipher "ssl.cipher.suites: TLS_NOT_A_SUITE is not a cipher suite" \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=secret \
        --override ssl.cipher.suites=TLS_AES_128_GCM_SHA256,TLS_NOT_A_SUITE || return 1
    tls_refused missing "ssl.keystore.location=$c/absent.p12: No such file" \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/absent.p12" || return 1
    tls_refused password "wrong ssl.keystore.password" \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=wrong || return 1
    tls_refused provider "ssl.provider=SunJSSE" \
        --override ssl.provider=SunJSSE \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=secret || return 1
    tls_refused nokeystore "an SSL listener needs a keystore" || return 1
    tls_refused clientauth "invalid value maybe for configuration ssl.client.auth" \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=secret \
        --override ssl.client.auth=maybe || return 1
}

SCENARIOS+=(tls)
LIMIT_tls=400

# tls_serial PORT: the serial of the certificate the listener presents
tls_serial() {
    echo | timeout 10 openssl s_client -connect "127.0.0.1:$1" \
        -CAfile "$TLS_CERTS/ca.pem" 2>/dev/null |
        openssl x509 -noout -serial 2>/dev/null
}

# Certificate reload without restart: the PKCS12 keystore rewritten with
# a new certificate is what the next connection gets; one that does not
# load (cut short) leaves the previous one serving; kcat consumes across
# both changes.
s_tls_reload() {
    need kcat || return 1
    local c=$COMPAT_TMP/tls-reload-certs p s1 s2 s3
    TLS_CERTS=$c
    sh "$TLS_SRC/certs.sh" "$c" || return 1
    cp "$c/server.p12" "$c/live.p12"
    start_broker \
        --override listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0 \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/live.p12" \
        --override ssl.keystore.password=secret || return 1
    p=$(sed -n 's/^SSL:.*://p' "$BROKER_DIR/listeners")
    seq 1 100 | tls_kcat "$p" -P -t tls-reload || return 1
    s1=$(tls_serial "$p")
    # a new server certificate from the same CA, renamed over the old file
    openssl x509 -req -in "$c/server.csr" -CA "$c/ca.pem" -CAkey "$c/ca.key" \
        -CAcreateserial -out "$c/server2.pem" -days 2 \
        -extfile "$c/server.ext" >/dev/null 2>&1 || return 1
    openssl pkcs12 -export -in "$c/server2.pem" -inkey "$c/server.key" \
        -certfile "$c/ca.pem" -passout pass:secret -out "$c/new.p12" || return 1
    mv "$c/new.p12" "$c/live.p12"
    sleep 1.2
    s2=$(tls_serial "$p")
    [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ] || {
        echo "# the certificate was not reloaded: '$s1' then '$s2'" >&2
        return 1
    }
    grep -q 'keystore or truststore changed; new connections use it' \
        "$BROKER_DIR/broker.log" || return 1
    # a truncated file: the previous certificate stays
    head -c 100 "$c/server.p12" >"$c/live.p12"
    sleep 1.2
    s3=$(tls_serial "$p")
    [ "$s3" = "$s2" ] || { echo "# after a bad file: '$s3', not '$s2'" >&2; return 1; }
    grep -q 'could not be loaded (above); connections keep the previous' \
        "$BROKER_DIR/broker.log" || return 1
    [ "$(tls_kcat "$p" -C -t tls-reload -o beginning -e -q | wc -l)" = 100 ] || return 1
    echo "# reloaded: $s1 -> $s2; kept $s3 after a truncated file"
}

SCENARIOS+=(tls_reload)

# The Java client 4.4.0 (Kafka's console producer and consumer through
# compat/kafka-tools/kt) over mTLS: a truststore made by keytool, the
# client's PKCS12 keystore by openssl; without a keystore it is refused.
s_tls_java() {
    need java || return 1
    need keytool || return 1
    [ -d "$GR_CLIENTS/kafka/libs" ] || {
        echo "Kafka's tools are not installed: run sh compat/kafka-tools/install.sh"
        return 1
    }
    local c=$COMPAT_TMP/tls-java-certs m kt=$COMPAT_SRC/kafka-tools/kt
    TLS_CERTS=$c
    sh "$TLS_SRC/certs.sh" "$c" || return 1
    keytool -importcert -noprompt -alias ca -file "$c/ca.pem" \
        -keystore "$c/java-trust.p12" -storetype PKCS12 -storepass secret \
        >/dev/null 2>&1 || return 1
    printf '%s\n' security.protocol=SSL \
        "ssl.truststore.location=$c/java-trust.p12" ssl.truststore.type=PKCS12 \
        ssl.truststore.password=secret >"$c/server-only.properties"
    { cat "$c/server-only.properties"
      printf '%s\n' "ssl.keystore.location=$c/client.p12" \
          ssl.keystore.type=PKCS12 ssl.keystore.password=secret
    } >"$c/mtls.properties"
    start_broker \
        --override listeners=PLAINTEXT://127.0.0.1:0,MTLS://localhost:0 \
        --override listener.security.protocol.map=PLAINTEXT:PLAINTEXT,MTLS:SSL \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=secret \
        --override ssl.client.auth=required \
        --override ssl.truststore.type=PEM \
        --override "ssl.truststore.location=$c/ca.pem" || return 1
    m=$(sed -n 's/^MTLS:.*://p' "$BROKER_DIR/listeners")
    seq 1 50 | timeout 60 "$kt" console-producer --bootstrap-server "localhost:$m" \
        --topic tls-java --command-config "$c/mtls.properties" || return 1
    timeout 60 "$kt" console-consumer --bootstrap-server "localhost:$m" \
        --topic tls-java --from-beginning --max-messages 50 \
        --command-config "$c/mtls.properties" >"$BROKER_DIR/java.out" 2>/dev/null
    [ "$(seq 1 50)" = "$(cat "$BROKER_DIR/java.out")" ] || {
        echo "# the Java consumer read: $(head -c 200 "$BROKER_DIR/java.out")" >&2
        return 1
    }
    echo "# Java 4.4.0: 50 records produced and consumed over mTLS"
    if timeout 40 "$kt" console-consumer --bootstrap-server "localhost:$m" \
        --topic tls-java --from-beginning --max-messages 1 --timeout-ms 20000 \
        --command-config "$c/server-only.properties" >"$BROKER_DIR/java2.out" \
        2>"$BROKER_DIR/java2.err"; then
        [ -s "$BROKER_DIR/java2.out" ] && {
            echo "# the Java client without a keystore read records" >&2
            return 1
        }
    fi
    grep -q 'SslAuthenticationException\|SSL handshake failed' "$BROKER_DIR/java2.err" || {
        echo "# no SSL authentication failure reported:" >&2
        tail -5 "$BROKER_DIR/java2.err" >&2
        return 1
    }
    echo "# Java 4.4.0 without a keystore: refused"
}

SCENARIOS+=(tls_java)

# A silent TLS peer and one that stops halfway through its ClientHello
# are closed after connections.max.idle.ms, as any connection; a real
# client is served meanwhile.
s_tls_silent() {
    need kcat || return 1
    local c=$COMPAT_TMP/tls-silent-certs p
    TLS_CERTS=$c
    sh "$TLS_SRC/certs.sh" "$c" || return 1
    start_broker --override connections.max.idle.ms=1500 \
        --override listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0 \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$c/server.p12" \
        --override ssl.keystore.password=secret || return 1
    p=$(sed -n 's/^SSL:.*://p' "$BROKER_DIR/listeners")
    timeout 30 python3 - "$p" <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
silent = socket.create_connection(("127.0.0.1", port))
half = socket.create_connection(("127.0.0.1", port))
# a TLS record header announcing 512 bytes of handshake, then 5 of them
half.sendall(bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]))
t0 = time.time()
for s in (silent, half):
    s.settimeout(10)
    try:
        while s.recv(4096):
            pass
    except ConnectionResetError:
        pass
took = time.time() - t0
print("# both closed after %.1f s" % took)
sys.exit(0 if took < 6 else 1)
PY
    local py=$!
    seq 1 20 | tls_kcat "$p" -P -t tls-silent || return 1
    [ "$(tls_kcat "$p" -C -t tls-silent -o beginning -e -q | wc -l)" = 20 ] || return 1
    wait "$py"
}

SCENARIOS+=(tls_silent)
