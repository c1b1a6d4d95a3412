# compat/diff/scenarios.sh: the differential tests of tests/diff/ (Apache
# Kafka 4.4.0 beside gregor, the same requests to both, the answers
# compared field by field) as one scenario of compat/run.sh. Sourced by
# compat/run.sh; tests/diff/run.sh starts and stops its own Kafka and
# gregor, so no start_broker here. Its report (every difference: API,
# version, request, field, both values) is the scenario's output, ending
# with the list of failed cases; on a failure the whole TAP output, both
# brokers' logs and report.json stay in the directory its last line names
# (under $TMPDIR, not $COMPAT_TMP, which compat/run.sh removes).

s_diff_kafka() {
    need java || return 1
    GREGOR=$GREGOR top_srcdir=$top_srcdir top_builddir=$top_builddir \
        "$top_srcdir/tests/diff/run.sh"
}

SCENARIOS+=(diff_kafka)
# Kafka's start (2-5 s) and about 30 s of cases; bounded at 3 minutes
LIMIT_diff_kafka=180

# The same with authorization on (issue 20): both brokers run Kafka's
# StandardAuthorizer and the cases of cases_acl.py connect from
# 127.0.0.2, which their ACLs deny: every API's refusal (error codes,
# what a denied client still learns, authorized operations) compared
# with Kafka's. About 10 s.
s_diff_kafka_authz() {
    need java || return 1
    DIFF_AUTHORIZER=1 GREGOR=$GREGOR top_srcdir=$top_srcdir \
        top_builddir=$top_builddir "$top_srcdir/tests/diff/run.sh" --only acl
}

SCENARIOS+=(diff_kafka_authz)
LIMIT_diff_kafka_authz=120
