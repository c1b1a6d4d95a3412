/*
 * Runs every unit suite and reports TAP on stdout (one line per test), so
 * `make check` counts individual tests. Check forks each test: a crash
 * fails that test, not the run. `unit SUITE` runs one suite.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    Suite *(*fn)(void);
} suite_entry_t;

static const suite_entry_t suites[] = {
    { "proto/wire", suite_proto_wire },
    { "proto/arrays", suite_proto_arrays },
    { "proto/codec", suite_proto_codec },
    { "proto/vectors", suite_proto_vectors },
    { "proto/vectors2", suite_proto_vectors2 },
    { "proto/vectors3", suite_proto_vectors3 },
    { "proto/records", suite_proto_records },
    { "api/table", suite_api_table },
    { "api/emulate", suite_api_emulate },
    { "core/conf", suite_core_conf },
    { "log/segment", suite_log_segment },
    { "log/log", suite_log_log },
    { "log/logs", suite_log_logs },
    { "log/epoch", suite_log_epoch },
    { "log/cleaner", suite_log_cleaner },
    { "cluster/topic_config", suite_cluster_topic_config },
    { "cluster/client_quotas", suite_cluster_client_quotas },
    { "cluster/store", suite_cluster_store },
    { "cluster/placement", suite_cluster_placement },
    { "cluster/election", suite_cluster_election },
    { "api/admin", suite_api_admin },
    { "api/answers", suite_api_answers },
    { "core/crc32c", suite_core_crc32c },
    { "core/compress", suite_core_compress },
    { "core/str", suite_core_str },
    { "core/time", suite_core_time },
    { "core/loop", suite_core_loop },
    { "core/worker", suite_core_worker },
    { "core/file", suite_core_file },
    { "core/json", suite_core_json },
    { "meta/local", suite_meta_local },
    { "meta/contract", suite_meta_contract },
    { "meta/broker", suite_meta_broker },
    { "log/txn_index", suite_log_txn_index },
    { "txn/txn", suite_txn_txn },
    { "txn/coordinator", suite_txn_coordinator },
    { "partition/partition", suite_partition_partition },
    { "group/group", suite_group_group },
    { "group/assignor", suite_group_assignor },
    { "group/consumer", suite_group_consumer },
    { "api/fetch_session", suite_api_fetch_session },
    { "api/fetch", suite_api_fetch },
    { "net/conn", suite_net_conn },
    { "net/quota", suite_net_quota },
    { "net/tls", suite_net_tls },
    { "net/sasl_oauth", suite_net_sasl_oauth },
    { "net/sasl", suite_net_sasl },
    { "api/dispatch", suite_api_dispatch },
    { "api/offsets", suite_api_offsets },
    { "core/regex", suite_core_regex },
    { "api/produce", suite_api_produce },
    { "api/produce_bounds", suite_api_produce_bounds },
    { "api/list_offsets", suite_api_list_offsets },
    { "telemetry/otlp", suite_telemetry_otlp },
    { "telemetry/client_metrics", suite_telemetry_client_metrics },
    { "api/telemetry", suite_api_telemetry },
    { "api/groups", suite_api_groups },
    { "control/http", suite_control_http },
    { "control/inject", suite_control_inject },
    { "control/metrics", suite_control_metrics },
    { "auth/acl", suite_auth_acl },
};

int
main(int argc, char **argv)
{
    SRunner *sr = NULL;
    int failed;

    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
        Suite *s;
        if (argc > 1 && strcmp(argv[1], suites[i].name) != 0)
            continue;
        s = suites[i].fn();
        if (sr == NULL)
            sr = srunner_create(s);
        else
            srunner_add_suite(sr, s);
    }
    if (sr == NULL)
        return 1;
    srunner_set_tap(sr, "-");
    srunner_run_all(sr, CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
