# compat/acl/scenarios.sh: the authorizer (src/auth/, docs/authorization.md)
# with real clients over mTLS, sourced by compat/run.sh. Certificates are
# made fresh by certs.sh, one per principal (User:CN=admin, producer,
# consumer, txn, other). The broker runs Kafka's StandardAuthorizer with
# super.users=User:CN=admin on an SSL listener that requires client
# certificates. Kafka's kafka-acls (compat/kafka-tools/kt) gives the ACLs:
# the producer WRITE under the prefix app. but a DENY on app.secret, the
# consumer READ on app.orders and group cg1, txn the prefix and
# transactional ids under tx1 (kafka-acls applies the pattern type to
# both, as against Kafka); confluent-kafka (ck_acl.py), the Java clients
# (AclJava.java, kafka-clients 4.4) and franz-go (compat/go franz acl)
# check what each principal may and may
# not do, an ACL change reaching a connected client, and the ACLs survive
# a restart (kafka-acls --list before and after).

ACL_SRC=$COMPAT_SRC/acl

# acl_kt NAME TOOL ARG...: one of Kafka's tools as the admin over mTLS
acl_kt() {
    local name=$1 tool=$2
    shift 2
    ktr "$name" "$tool" --bootstrap-server "localhost:$ACL_PORT" \
        --command-config "$ACL_CERTS/admin.properties" "$@"
    kt_rc "$name"
}

acl_start() {
    kt_start --override listeners=PLAINTEXT://127.0.0.1:0,MTLS://localhost:0 \
        --override listener.security.protocol.map=PLAINTEXT:PLAINTEXT,MTLS:SSL \
        --override ssl.keystore.type=PKCS12 \
        --override "ssl.keystore.location=$ACL_CERTS/server.p12" \
        --override ssl.keystore.password=secret \
        --override ssl.client.auth=required \
        --override ssl.truststore.type=PKCS12 \
        --override "ssl.truststore.location=$ACL_CERTS/truststore.p12" \
        --override ssl.truststore.password=secret \
        --override authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer \
        --override super.users=User:CN=admin || return 1
    ACL_PORT=$(sed -n 's/^MTLS:.*://p' "$BROKER_DIR/listeners")
    [ -n "$ACL_PORT" ]
}

s_acl_clients() {
    pyc_ready || return 1
    local c=$COMPAT_TMP/acl-certs t
    ACL_CERTS=$c
    sh "$ACL_SRC/certs.sh" "$c" || return 1
    acl_start || return 1
    for t in app.orders app.secret app.late app.txn other.t; do
        acl_kt "create-$t" kafka-topics --create --topic "$t" --partitions 1 \
            --replication-factor 1 || return 1
    done
    acl_kt add-producer kafka-acls --add --allow-principal User:CN=producer \
        --producer --topic app. --resource-pattern-type prefixed || return 1
    acl_kt add-deny kafka-acls --add --deny-principal User:CN=producer \
        --operation Write --topic app.secret || return 1
    acl_kt add-consumer kafka-acls --add --allow-principal User:CN=consumer \
        --consumer --topic app.orders --group cg1 || return 1
    acl_kt add-txn kafka-acls --add --allow-principal User:CN=txn \
        --producer --topic app. --resource-pattern-type prefixed \
        --transactional-id tx1 || return 1
    acl_kt list kafka-acls --list || return 1
    grep -q 'principal=User:CN=producer, host=\*, operation=WRITE, permissionType=DENY' \
        "$KT_OUT/list.out" || kt_fail "kafka-acls --list: no DENY for the producer"
    grep -q 'ResourcePattern(resourceType=TRANSACTIONAL_ID, name=tx1, patternType=PREFIXED)' \
        "$KT_OUT/list.out" || kt_fail "kafka-acls --list: no tx1"
    # a principal without rights may not manage ACLs (kafka-acls as "other")
    ktr deny-other kafka-acls --bootstrap-server "localhost:$ACL_PORT" \
        --command-config "$c/other.properties" --list
    grep -q 'ClusterAuthorizationException' "$KT_OUT/deny-other.err" "$KT_OUT/deny-other.out" ||
        { kt_fail "kafka-acls as User:CN=other was not refused"; kt_show deny-other; }
    PYC_LIMIT=120 PYTHONPATH=$PYC_DIR PYTHONUNBUFFERED=1 timeout 120 "$PYC" \
        "$ACL_SRC/ck_acl.py" "localhost:$ACL_PORT" "$c" || kt_fail "confluent-kafka checks"
    KT_LIMIT=120 ktr java java "$ACL_SRC/AclJava.java" "localhost:$ACL_PORT" "$c"
    sed 's/^/#   java: /' "$KT_OUT/java.out"
    [ "$KT_RC" = 0 ] || { kt_fail "Java clients"; kt_show java; }
    # franz-go (compat/go/cmd/franz/acl.go)
    go_ready || return 1
    GR_ACL_CERTS=$c GR_BOOTSTRAP=localhost:$ACL_PORT timeout 90 "$GO_BIN/franz" acl ||
        kt_fail "franz-go checks"
    # durable: the same list after a restart
    sort "$KT_OUT/list.out" >"$KT_OUT/list.sorted"
    stop_broker || return 1
    t=$KT_FAILS
    REUSE_DIR=1 acl_start || return 1
    KT_FAILS=$t
    acl_kt list2 kafka-acls --list || return 1
    sort "$KT_OUT/list2.out" | diff -u "$KT_OUT/list.sorted" - >"$KT_OUT/list.diff" ||
        { kt_fail "the ACLs differ after a restart"; sed 's/^/#   /' "$KT_OUT/list.diff" | head -20; }
    grep -q "authorizer: [0-9]* ACLs loaded" "$BROKER_DIR/broker.log" ||
        kt_fail "no ACLs loaded at the restart"
    kt_stop
    kt_done
}

# start-up refusal: an authorizer class Gregor cannot run
s_acl_refused() {
    local d
    d=$(mktemp -d "$COMPAT_TMP/aclbad.XXXXXX") || return 1
    timeout 20 "$GREGOR" --temp-data --override listeners=PLAINTEXT://127.0.0.1:0 \
        --override authorizer.class.name=com.example.MyAuthorizer >"$d/out" 2>"$d/log"
    if [ $? -eq 0 ] || ! grep -q 'authorizer.class.name=com.example.MyAuthorizer' "$d/log"; then
        echo "# an unknown authorizer class was not refused:" >&2
        sed 's/^/#   /' "$d/log" >&2
        return 1
    fi
    echo "# refused: $(grep -F 'authorizer.class.name' "$d/log" | head -1 | cut -c1-200)"
}

SCENARIOS+=(acl_clients acl_refused)
