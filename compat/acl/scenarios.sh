# compat/acl/scenarios.sh: the authorizer (src/auth/, docs/authorization.md)
# with real clients, sourced by compat/run.sh. acl_clients authenticates
# each principal over mTLS (certificates made fresh by certs.sh,
# User:CN=<name>), acl_sasl over SASL_PLAINTEXT (PLAIN users of the JAAS
# entry and one SCRAM-SHA-256 user, User:<name>): principals admin,
# producer, consumer, txn, other and ops. The broker runs Kafka's
# StandardAuthorizer with the admin a super user; Kafka's kafka-acls
# (compat/kafka-tools/kt) gives the ACLs (acl_run). confluent-kafka
# (ck_acl.py), kafka-python (kpy_acl.py), the Java clients (AclJava.java,
# kafka-clients 4.4) and franz-go (compat/go franz acl) check what each
# principal may and may not do, with the error each client surfaces, an
# ACL added and removed reaching a connected client, and the ACLs survive
# a restart (kafka-acls --list before and after).

ACL_SRC=$COMPAT_SRC/acl

# acl_kt NAME TOOL ARG...: one of Kafka's tools as the admin
acl_kt() {
    local name=$1 tool=$2
    shift 2
    ktr "$name" "$tool" --bootstrap-server "localhost:$ACL_PORT" \
        --command-config "$ACL_CERTS/admin.properties" "$@"
    kt_rc "$name"
}

# acl_start: the broker of ACL_MODE, mtls (an SSL listener requiring
# client certificates, principals User:CN=<name>) or sasl (SASL_PLAINTEXT
# with PLAIN users from the JAAS entry and SCRAM-SHA-256, principals
# User:<name>); ACL_PORT is that listener's port
acl_start() {
    if [ "$ACL_MODE" = sasl ]; then
        set -- --override listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://localhost:0 \
            --override sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256 \
            --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$ACL_JAAS" \
            --override super.users=User:admin
    else
        set -- --override listeners=PLAINTEXT://127.0.0.1:0,MTLS://localhost:0 \
            --override listener.security.protocol.map=PLAINTEXT:PLAINTEXT,MTLS:SSL \
            --override ssl.keystore.type=PKCS12 \
            --override "ssl.keystore.location=$ACL_CERTS/server.p12" \
            --override ssl.keystore.password=secret \
            --override ssl.client.auth=required \
            --override ssl.truststore.type=PKCS12 \
            --override "ssl.truststore.location=$ACL_CERTS/truststore.p12" \
            --override ssl.truststore.password=secret \
            --override super.users=User:CN=admin
    fi
    kt_start "$@" \
        --override authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer || return 1
    ACL_PORT=$(sed -n 's/^\(MTLS\|SASL_PLAINTEXT\):.*://p' "$BROKER_DIR/listeners")
    [ -n "$ACL_PORT" ]
}

ACL_NAMES="admin producer consumer txn other ops"
ACL_JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required'
for n in $ACL_NAMES; do
    [ "$n" = txn ] || ACL_JAAS="$ACL_JAAS user_$n=\"$n-pw\""
done
ACL_JAAS="$ACL_JAAS;"

# acl_sasl_props DIR: NAME.properties, the Java clients' and Kafka's tools'
# settings of each principal: PLAIN with password NAME-pw, but txn, a
# SCRAM-SHA-256 user the admin makes (AlterUserScramCredentials)
acl_sasl_props() {
    local n m mod
    mkdir -p "$1" || return 1
    for n in $ACL_NAMES; do
        m=PLAIN mod=org.apache.kafka.common.security.plain.PlainLoginModule
        if [ "$n" = txn ]; then
            m=SCRAM-SHA-256 mod=org.apache.kafka.common.security.scram.ScramLoginModule
        fi
        printf '%s\n' security.protocol=SASL_PLAINTEXT "sasl.mechanism=$m" \
            "sasl.jaas.config=$mod required username=\"$n\" password=\"$n-pw\";" \
            >"$1/$n.properties"
    done
}

# acl_run MODE: the scenario over mTLS or SASL. kafka-acls gives the ACLs
# (P the principals' prefix, User:CN= or User:): the producer WRITE under
# the prefix app. but a DENY on app.secret, the consumer READ on
# app.orders and group cg1, txn the prefix and transactional ids under tx1
# (kafka-acls applies the pattern type to both, as against Kafka), ops
# CREATE on the cluster and ALTER_CONFIGS under the prefix ops.
acl_run() {
    pyc_ready || return 1
    local c=$COMPAT_TMP/acl-$1 t P=User:CN=
    ACL_MODE=$1 ACL_CERTS=$c
    if [ "$1" = sasl ]; then
        P=User:
        acl_sasl_props "$c" || return 1
    else
        sh "$ACL_SRC/certs.sh" "$c" || return 1
    fi
    acl_start || return 1
    if [ "$1" = sasl ]; then
        SASL_ADMIN=PLAIN:admin:admin-pw PYC_LIMIT=60 pyc ../sasl/py_sasl.py scram ck \
            "localhost:$ACL_PORT" set txn SCRAM-SHA-256 txn-pw 4096 || return 1
    fi
    for t in app.orders app.secret app.late app.txn other.t ops.t; do
        acl_kt "create-$t" kafka-topics --create --topic "$t" --partitions 1 \
            --replication-factor 1 || return 1
    done
    acl_kt add-producer kafka-acls --add --allow-principal "${P}producer" \
        --producer --topic app. --resource-pattern-type prefixed || return 1
    acl_kt add-deny kafka-acls --add --deny-principal "${P}producer" \
        --operation Write --topic app.secret || return 1
    acl_kt add-consumer kafka-acls --add --allow-principal "${P}consumer" \
        --consumer --topic app.orders --group cg1 || return 1
    acl_kt add-txn kafka-acls --add --allow-principal "${P}txn" \
        --producer --topic app. --resource-pattern-type prefixed \
        --transactional-id tx1 || return 1
    acl_kt add-ops-cluster kafka-acls --add --allow-principal "${P}ops" \
        --operation Create --cluster || return 1
    acl_kt add-ops-topics kafka-acls --add --allow-principal "${P}ops" \
        --operation AlterConfigs --topic ops. --resource-pattern-type prefixed || return 1
    acl_kt list kafka-acls --list || return 1
    grep -q "principal=${P}producer, host=\*, operation=WRITE, permissionType=DENY" \
        "$KT_OUT/list.out" || kt_fail "kafka-acls --list: no DENY for the producer"
    grep -q 'ResourcePattern(resourceType=TRANSACTIONAL_ID, name=tx1, patternType=PREFIXED)' \
        "$KT_OUT/list.out" || kt_fail "kafka-acls --list: no tx1"
    # a principal without rights may not manage ACLs (kafka-acls as "other")
    ktr deny-other kafka-acls --bootstrap-server "localhost:$ACL_PORT" \
        --command-config "$c/other.properties" --list
    grep -q 'ClusterAuthorizationException' "$KT_OUT/deny-other.err" "$KT_OUT/deny-other.out" ||
        { kt_fail "kafka-acls as ${P}other was not refused"; kt_show deny-other; }
    PYC_LIMIT=120 pyc ../acl/ck_acl.py "localhost:$ACL_PORT" "$c" || kt_fail "confluent-kafka checks"
    PYC_LIMIT=120 pyc ../acl/kpy_acl.py "localhost:$ACL_PORT" "$c" || kt_fail "kafka-python checks"
    KT_LIMIT=120 ktr java java "$ACL_SRC/AclJava.java" "localhost:$ACL_PORT" "$c"
    sed 's/^/#   java: /' "$KT_OUT/java.out"
    [ "$KT_RC" = 0 ] || { kt_fail "Java clients"; kt_show java; }
    # franz-go (compat/go/cmd/franz/acl.go)
    go_ready || return 1
    GR_ACL_MODE=$1 GR_ACL_CERTS=$c GR_BOOTSTRAP=localhost:$ACL_PORT timeout 90 "$GO_BIN/franz" acl ||
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

s_acl_clients() {
    acl_run mtls
}

s_acl_sasl() {
    acl_run sasl
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

SCENARIOS+=(acl_clients acl_sasl acl_refused)
LIMIT_acl_clients=300
LIMIT_acl_sasl=300
