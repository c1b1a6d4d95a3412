/* The unit test runner: one Check suite per source file (see unit.c). */
#ifndef GR_TESTS_UNIT_H
#define GR_TESTS_UNIT_H

#include <check.h>

Suite *suite_proto_wire(void);
Suite *suite_auth_acl(void);
Suite *suite_proto_arrays(void);
Suite *suite_proto_codec(void);
Suite *suite_proto_vectors(void);
Suite *suite_proto_vectors2(void);
Suite *suite_proto_vectors3(void);
/* check_vectors3.c: whether its table has that vector (ver -1: any). */
int vectors3_has_vector(int key, const char *data, int response, int ver);
Suite *suite_proto_records(void);
Suite *suite_api_table(void);
Suite *suite_api_emulate(void);
Suite *suite_core_conf(void);
Suite *suite_log_segment(void);
Suite *suite_log_log(void);
Suite *suite_log_logs(void);
Suite *suite_log_epoch(void);
Suite *suite_log_cleaner(void);
Suite *suite_cluster_topic_config(void);
Suite *suite_cluster_client_quotas(void);
Suite *suite_cluster_store(void);
Suite *suite_cluster_placement(void);
Suite *suite_cluster_election(void);
Suite *suite_api_admin(void);
Suite *suite_api_answers(void);
Suite *suite_core_crc32c(void);
Suite *suite_core_str(void);
Suite *suite_core_time(void);
Suite *suite_core_loop(void);
Suite *suite_core_worker(void);
Suite *suite_core_file(void);
Suite *suite_core_json(void);
Suite *suite_meta_local(void);
Suite *suite_meta_contract(void);
Suite *suite_meta_broker(void);
Suite *suite_core_compress(void);
Suite *suite_log_txn_index(void);
Suite *suite_txn_txn(void);
Suite *suite_txn_coordinator(void);
Suite *suite_partition_partition(void);
Suite *suite_group_group(void);
Suite *suite_group_assignor(void);
Suite *suite_group_consumer(void);
Suite *suite_api_fetch_session(void);
Suite *suite_api_fetch(void);
Suite *suite_net_conn(void);
Suite *suite_net_quota(void);
Suite *suite_net_tls(void);
Suite *suite_net_sasl_oauth(void);
Suite *suite_net_sasl(void);
Suite *suite_api_dispatch(void);
Suite *suite_api_offsets(void);
Suite *suite_core_regex(void);
Suite *suite_api_produce(void);
Suite *suite_api_produce_bounds(void);
Suite *suite_api_list_offsets(void);
Suite *suite_telemetry_otlp(void);
Suite *suite_telemetry_client_metrics(void);
Suite *suite_api_telemetry(void);
Suite *suite_api_groups(void);
Suite *suite_control_http(void);
Suite *suite_control_inject(void);
Suite *suite_control_metrics(void);

#endif
