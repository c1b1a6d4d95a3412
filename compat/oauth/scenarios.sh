# compat/oauth/scenarios.sh: SASL/OAUTHBEARER (src/net/sasl_oauth.c) with
# real clients, sourced by compat/run.sh. Each broker serves PLAINTEXT (to
# count what was appended), SASL_PLAINTEXT and SASL_SSL (certificates from
# compat/tls/certs.sh) with OAUTHBEARER only. Clients: confluent-kafka
# (librdkafka's builtin unsecured JWT, and oauth_cb), kafka-python 3 (a
# token provider), franz-go (pkg/sasl/oauth, compat/go/cmd/franzsasl) and
# the Java client 4.4 (OAuthBearerLoginModule's unsecured login; signed
# tokens from a file, compat/oauth/OAuthCompat.java). Tokens and the JWKS
# file are made by compat/oauth/tokens.py with python3-cryptography. Every
# check here was run against Apache Kafka 4.4.0 configured the same way
# (tests/kafka/run-kafka.sh, the SASL listener in place of PLAINTEXT) and
# holds there; compat/oauth/probe.py reads the exchange frame by frame.

OAUTH_SRC=$COMPAT_SRC/oauth
OAUTH_MODULE=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule
OAUTH_SIGNED=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler

oauth_tokens() { python3 "$OAUTH_SRC/tokens.py" "$@"; }
oauth_py() { PYC_LIMIT=${PYC_LIMIT:-60} pyc ../oauth/clients.py "$@"; }

# oauth_start ARG...: a broker with the three listeners (ports in
# OAUTH_SP, OAUTH_SS) and the certificates in OAUTH_CERTS
oauth_start() {
    local c
    # each scenario its own (compat/run.sh runs several at once)
    c=$(mktemp -d "$COMPAT_TMP/oauth-certs.XXXXXX") &&
        sh "$COMPAT_SRC/tls/certs.sh" "$c" || return 1
    OAUTH_CERTS=$c
    start_broker \
        --override listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://localhost:0 \
        --override sasl.enabled.mechanisms=OAUTHBEARER \
        --override ssl.keystore.type=PEM \
        --override "ssl.keystore.location=$c/server.keystore.pem" \
        --override ssl.key.password=keypass "$@" || return 1
    OAUTH_SP=$(sed -n 's/^SASL_PLAINTEXT:.*://p' "$BROKER_DIR/listeners")
    OAUTH_SS=$(sed -n 's/^SASL_SSL:.*://p' "$BROKER_DIR/listeners")
    [ -n "$OAUTH_SP" ] && [ -n "$OAUTH_SS" ]
}

# oauth_boot PROTO: host:port of that listener; oauth_ca PROTO: the CA or -
oauth_boot() {
    case $1 in
    SASL_SSL) echo "localhost:$OAUTH_SS" ;;
    *) echo "127.0.0.1:$OAUTH_SP" ;;
    esac
}
oauth_ca() { [ "$1" = SASL_SSL ] && echo "$OAUTH_CERTS/ca.pem" || echo -; }

# the Java client's class path: kafka-clients 4.4 and the jackson and
# jose4j jars its OAuth code loads (from the Kafka distribution of
# tests/kafka, as a Kafka client application ships them)
oauth_java_build() {
    local j=$GR_CLIENTS/java/4.4.0 k=$GR_CLIENTS/kafka/libs d x
    need java && need javac || return 1
    [ -f "$j/jars.sha256" ] || { echo "kafka-clients 4.4.0 is not installed: run sh compat/java/install.sh"; return 1; }
    x=$(ls "$k"/jackson-annotations-*.jar "$k"/jackson-core-*.jar \
        "$k"/jackson-databind-*.jar "$k"/jose4j-*.jar 2>/dev/null | tr '\n' ':')
    [ -n "$x" ] || { echo "the Kafka distribution is not installed: run sh tests/kafka/install.sh"; return 1; }
    if [ -z "${OAUTH_JAVA_DIR:-}" ]; then
        d=$(mktemp -d "$COMPAT_TMP/oauth-java.XXXXXX") &&
            javac -nowarn -d "$d" -cp "$j/*" "$OAUTH_SRC/OAuthCompat.java" || return 1
        OAUTH_JAVA_DIR=$d
    fi
    d=$OAUTH_JAVA_DIR
    OAUTH_JAVA_CP=$d:$j/*:$x
}

# oauth_java ALLOWED-FILE ARG...: runs OAuthCompat
oauth_java() {
    local allowed=$1
    shift
    oauth_java_build || return 1
    timeout 90 java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx256m \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
        ${allowed:+-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file://$allowed} \
        -cp "$OAUTH_JAVA_CP" OAuthCompat "$@"
}

oauth_franz() { # MODE TOPIC [TEXT] with GR_OAUTH_TOKEN and PROTO set
    GR_BOOTSTRAP=$(oauth_boot "$PROTO") \
        GR_SASL_CA=$([ "$PROTO" = SASL_SSL ] && echo "$OAUTH_CERTS/ca.pem") \
        timeout 60 "$GO_BIN/franzsasl" "$@"
}

# oauth_none_appended TOPIC: nothing reached the log of TOPIC
oauth_none_appended() {
    local n
    n=$(oauth_py count "$GR_BOOTSTRAP" "$1") || return 1
    [ "$n" = 0 ] || { echo "# $n records appended to $1 by refused clients" >&2; return 1; }
    echo "# nothing appended to $1"
}

# Kafka's default validator (unsecured JWS, alg none) with the
# OAuthBearerLoginModule's options: every client produces and consumes
# over SASL_PLAINTEXT and SASL_SSL; an expired token and one without the
# required scope are refused with Kafka's JSON error and nothing of
# theirs is appended; the exchange frame by frame (probe.py)
s_oauth_unsecured() {
    pyc_ready || return 1
    go_ready || return 1
    local ok exp noscope PROTO
    oauth_start --override "sasl.jaas.config=$OAUTH_MODULE required unsecuredValidatorRequiredScope=\"produce\" unsecuredValidatorAllowableClockSkewMs=\"1000\";" || return 1
    ok=$(oauth_tokens none sub=alice scope='["produce","x"]') || return 1
    exp=$(oauth_tokens none sub=alice scope=produce exp=-60 iat=-120) || return 1
    noscope=$(oauth_tokens none sub=alice) || return 1
    for PROTO in SASL_PLAINTEXT SASL_SSL; do
        B=$(oauth_boot $PROTO)
        CA=$(oauth_ca $PROTO)
        oauth_py kp-token "$B" $PROTO "$CA" "kp-$PROTO" "$ok" || return 1
        oauth_py ck-token "$B" $PROTO "$CA" "ck-$PROTO" "$ok" || return 1
        GR_OAUTH_TOKEN=$ok oauth_franz ok "fg-$PROTO" || return 1
        oauth_py ck-refused "$B" $PROTO "$CA" "refused-$PROTO" "$exp" '{"status":"invalid_token"}' || return 1
        oauth_py kp-refused "$B" $PROTO "$CA" "refused-$PROTO" "$noscope" '{"status":"insufficient_scope", "scope":"[produce]"}' || return 1
        GR_OAUTH_TOKEN=$exp oauth_franz refused "refused-$PROTO" '{"status":"invalid_token"}' || return 1
        oauth_none_appended "refused-$PROTO" || return 1
    done
    grep -q 'OAUTHBEARER token refused.*Expiration Time' "$BROKER_DIR/broker.log" || {
        echo "# no log line naming the expired token" >&2; return 1; }
    stop_broker || return 1
    # librdkafka's and the Java client's own unsecured tokens (no scope:
    # a broker that requires none)
    oauth_start --override "sasl.jaas.config=$OAUTH_MODULE required;" || return 1
    timeout 30 $PY "$OAUTH_SRC/probe.py" "$(oauth_boot SASL_PLAINTEXT)" unsecured || return 1
    for PROTO in SASL_PLAINTEXT SASL_SSL; do
        oauth_py ck-unsecure "$(oauth_boot $PROTO)" $PROTO "$(oauth_ca $PROTO)" "rdk-$PROTO" || return 1
        oauth_java "" unsecure "$(oauth_boot $PROTO)" $PROTO "$(oauth_ca $PROTO)" "java-$PROTO" || return 1
    done
}

# OAuthBearerValidatorCallbackHandler: RS256 and ES256 tokens signed by
# the test against a JWKS file (file://, allowed by
# org.apache.kafka.sasl.oauthbearer.allowed.urls) are accepted by every
# client on both listeners; a forged signature, a wrong audience, a wrong
# issuer, an expired token and an unsecured one are refused with
# {"status":"invalid_token"} and nothing appended; a key rotated into the
# file is used within seconds, without a restart
s_oauth_signed() {
    pyc_ready || return 1
    go_ready || return 1
    local d rs es bad t PROTO B CA
    d=$(mktemp -d "$COMPAT_TMP/oauth-keys.XXXXXX") && oauth_tokens keys "$d" || return 1
    oauth_start --override "sasl.jaas.config=$OAUTH_MODULE required;" \
        --override "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=$OAUTH_SIGNED" \
        --override "listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class=$OAUTH_SIGNED" \
        --override "sasl.oauthbearer.jwks.endpoint.url=file://$d/jwks.json" \
        --override "org.apache.kafka.sasl.oauthbearer.allowed.urls=file://$d/jwks.json" \
        --override sasl.oauthbearer.expected.audience=kafka \
        --override sasl.oauthbearer.expected.issuer=https://issuer.example || return 1
    rs=$(oauth_tokens sign "$d" r1 sub=svc-rs) || return 1
    es=$(oauth_tokens sign "$d" e1 sub=svc-es) || return 1
    oauth_tokens sign "$d" r1 sub=svc-java >"$d/java.tok" || return 1
    oauth_tokens sign "$d" r1 aud=other >"$d/java-aud.tok" || return 1
    for PROTO in SASL_PLAINTEXT SASL_SSL; do
        B=$(oauth_boot $PROTO)
        CA=$(oauth_ca $PROTO)
        oauth_py ck-token "$B" $PROTO "$CA" "s-ck-$PROTO" "$rs" || return 1
        oauth_py kp-token "$B" $PROTO "$CA" "s-kp-$PROTO" "$es" || return 1
        GR_OAUTH_TOKEN=$rs oauth_franz ok "s-fg-$PROTO" || return 1
        oauth_java "$d/java.tok" file "$B" $PROTO "$CA" "s-java-$PROTO" "$d/java.tok" || return 1
        oauth_java "$d/java-aud.tok" file "$B" $PROTO "$CA" "s-refused-$PROTO" "$d/java-aud.tok" refused '{"status":"invalid_token"}' || return 1
        for t in "forge $d e1" "sign $d r1 aud=other" \
            "sign $d e1 iss=https://evil.example" "sign $d r1 exp=-100 iat=-200" none; do
            # shellcheck disable=SC2086
            bad=$(oauth_tokens $t) || return 1
            oauth_py ck-refused "$B" $PROTO "$CA" "s-refused-$PROTO" "$bad" '{"status":"invalid_token"}' || return 1
        done
        bad=$(oauth_tokens forge "$d" r1) || return 1
        oauth_py kp-refused "$B" $PROTO "$CA" "s-refused-$PROTO" "$bad" invalid_token || return 1
        GR_OAUTH_TOKEN=$bad oauth_franz refused "s-refused-$PROTO" '{"status":"invalid_token"}' || return 1
        oauth_none_appended "s-refused-$PROTO" || return 1
    done
    for w in "JWS signature is invalid" "Audience (aud) claim" "Issuer (iss) claim" \
        "The JWT is no longer valid" "Malformed JWT provided"; do
        grep -q "OAUTHBEARER token refused.*$w" "$BROKER_DIR/broker.log" || {
            echo "# no log line with '$w'" >&2; return 1; }
    done
    # rotation: a new key in the file, no restart
    t=$(oauth_tokens rotate "$d" && oauth_tokens sign "$d" e2 sub=rotated) || return 1
    sleep 1.2
    oauth_py ck-token "$(oauth_boot SASL_PLAINTEXT)" SASL_PLAINTEXT - s-rotated "$t" || return 1
    grep -q 'JWKS file .* changed; 3 key(s) now' "$BROKER_DIR/broker.log" || return 1
}

# oauth_refused WHY PATTERN ARG...: a broker started with ARG... exits at
# start-up with PATTERN (fixed string) in its log
oauth_refused() {
    local why=$1 pat=$2 d
    shift 2
    d=$(mktemp -d "$COMPAT_TMP/oauthbad.XXXXXX") || return 1
    timeout 20 "$GREGOR" --temp-data \
        --override listeners=SASL_PLAINTEXT://127.0.0.1:0 \
        --override sasl.enabled.mechanisms=OAUTHBEARER "$@" >"$d/out" 2>"$d/log"
    if [ $? -eq 0 ] || [ $? -eq 124 ] || ! grep -qF -- "$pat" "$d/log"; then
        echo "# $why: not refused with '$pat':" >&2
        sed 's/^/#   /' "$d/log" >&2
        return 1
    fi
    echo "# refused ($why): $(grep -F -- "$pat" "$d/log" | head -1 | cut -c1-200)"
}

# settings Gregor cannot honour stop start-up with Kafka's message (or,
# where Kafka would do something Gregor does not, one naming it)
s_oauth_startup() {
    local d j="sasl.jaas.config=$OAUTH_MODULE required;"
    d=$(mktemp -d "$COMPAT_TMP/oauth-keys.XXXXXX") && oauth_tokens keys "$d" || return 1
    local s=(--override "$j" --override "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=$OAUTH_SIGNED")
    oauth_refused "no audience" 'requires "sasl.oauthbearer.expected.audience"' "${s[@]}" \
        --override "sasl.oauthbearer.jwks.endpoint.url=file://$d/jwks.json" \
        --override "org.apache.kafka.sasl.oauthbearer.allowed.urls=file://$d/jwks.json" \
        --override sasl.oauthbearer.expected.issuer=i || return 1
    oauth_refused "URL not allowed" "The URL cannot be accessed due to restrictions" "${s[@]}" \
        --override "sasl.oauthbearer.jwks.endpoint.url=file://$d/jwks.json" \
        --override sasl.oauthbearer.expected.audience=kafka \
        --override sasl.oauthbearer.expected.issuer=i || return 1
    oauth_refused "HTTPS JWKS" "file:// URL only" "${s[@]}" \
        --override "sasl.oauthbearer.jwks.endpoint.url=https://idp.example/keys" \
        --override "org.apache.kafka.sasl.oauthbearer.allowed.urls=https://idp.example/keys" \
        --override sasl.oauthbearer.expected.audience=kafka \
        --override sasl.oauthbearer.expected.issuer=i || return 1
    oauth_refused "no JWKS" 'requires "sasl.oauthbearer.jwks.endpoint.url"' "${s[@]}" || return 1
    oauth_refused "handler class" "is not supported for OAUTHBEARER" --override "$j" \
        --override "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=com.example.Handler" || return 1
    oauth_refused "negative skew" "Allowable clock skew millis must not be negative" \
        --override "sasl.jaas.config=$OAUTH_MODULE required unsecuredValidatorAllowableClockSkewMs=\"-5\";" || return 1
}

# connections.max.reauth.ms with OAUTHBEARER: the session lifetime
# SaslAuthenticate answers is min(token exp - now, max.reauth.ms), as
# Kafka's; librdkafka re-authenticates (KIP-368) and keeps producing
# across several lifetimes
s_oauth_reauth() {
    pyc_ready || return 1
    oauth_start --override "sasl.jaas.config=$OAUTH_MODULE required;" \
        --override connections.max.reauth.ms=3000 || return 1
    timeout 60 $PY "$OAUTH_SRC/probe.py" "$(oauth_boot SASL_PLAINTEXT)" reauth 3000 || return 1
    oauth_py ck-reauth "$(oauth_boot SASL_PLAINTEXT)" SASL_PLAINTEXT - reauth 8 || return 1
}

SCENARIOS+=(oauth_unsecured oauth_signed oauth_startup oauth_reauth)
LIMIT_oauth_unsecured=240
LIMIT_oauth_signed=300
