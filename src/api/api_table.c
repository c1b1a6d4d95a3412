/*
 * The served APIs and versions. ApiVersions advertises exactly this table,
 * so an API appears here only once its handler exists. Every version the
 * schema lists as valid is served (the project's rule, see
 * protocol-versions.md), except an unstable latest one; a unit test checks
 * that each range lies inside the codec's.
 */
#include "api/api_int.h"
#include "api/emulate.h"

static const gr_api_entry_t table[] = {
    {GR_API_PRODUCE, 0, 13, gr_api_produce},
    {GR_API_FETCH, 0, 18, gr_api_fetch},
    {GR_API_LIST_OFFSETS, 0, 11, gr_api_list_offsets},
    {GR_API_METADATA, 0, 13, gr_api_metadata},
    {GR_API_OFFSET_COMMIT, 0, 10, gr_api_offset_commit},
    {GR_API_OFFSET_FETCH, 0, 10, gr_api_offset_fetch},
    {GR_API_FIND_COORDINATOR, 0, 6, gr_api_find_coordinator},
    {GR_API_JOIN_GROUP, 0, 9, gr_api_join_group},
    {GR_API_HEARTBEAT, 0, 4, gr_api_heartbeat},
    {GR_API_LEAVE_GROUP, 0, 5, gr_api_leave_group},
    {GR_API_SYNC_GROUP, 0, 5, gr_api_sync_group},
    {GR_API_DESCRIBE_GROUPS, 0, 6, gr_api_describe_groups},
    {GR_API_LIST_GROUPS, 0, 5, gr_api_list_groups},
    {GR_API_SASL_HANDSHAKE, 0, 1, gr_api_sasl_handshake},
    {GR_API_API_VERSIONS, 0, 5, gr_api_api_versions},
    {GR_API_CREATE_TOPICS, 0, 7, gr_api_create_topics},
    {GR_API_DELETE_TOPICS, 0, 6, gr_api_delete_topics},
    {GR_API_DELETE_RECORDS, 0, 2, gr_api_delete_records},
    {GR_API_INIT_PRODUCER_ID, 0, 5, gr_api_init_producer_id},
    {GR_API_OFFSET_FOR_LEADER_EPOCH, 0, 4, gr_api_offset_for_leader_epoch},
    {GR_API_ADD_PARTITIONS_TO_TXN, 0, 5, gr_api_add_partitions_to_txn},
    {GR_API_ADD_OFFSETS_TO_TXN, 0, 4, gr_api_add_offsets_to_txn},
    {GR_API_END_TXN, 0, 5, gr_api_end_txn},
    {GR_API_WRITE_TXN_MARKERS, 0, 2, gr_api_write_txn_markers},
    {GR_API_TXN_OFFSET_COMMIT, 0, 6, gr_api_txn_offset_commit},
    {GR_API_DESCRIBE_ACLS, 0, 3, gr_api_describe_acls},
    {GR_API_CREATE_ACLS, 0, 3, gr_api_create_acls},
    {GR_API_DELETE_ACLS, 0, 3, gr_api_delete_acls},
    {GR_API_DESCRIBE_CONFIGS, 0, 4, gr_api_describe_configs},
    {GR_API_ALTER_CONFIGS, 0, 2, gr_api_alter_configs},
    {GR_API_DESCRIBE_LOG_DIRS, 0, 5, gr_api_describe_log_dirs},
    {GR_API_SASL_AUTHENTICATE, 0, 2, gr_api_sasl_authenticate},
    {GR_API_CREATE_PARTITIONS, 0, 3, gr_api_create_partitions},
    {GR_API_DELETE_GROUPS, 0, 3, gr_api_delete_groups},
    {GR_API_ELECT_LEADERS, 0, 2, gr_api_elect_leaders},
    {GR_API_INCREMENTAL_ALTER_CONFIGS, 0, 1, gr_api_incremental_alter_configs},
    {GR_API_OFFSET_DELETE, 0, 0, gr_api_offset_delete},
    {GR_API_DESCRIBE_CLIENT_QUOTAS, 0, 1, gr_api_describe_client_quotas},
    {GR_API_ALTER_CLIENT_QUOTAS, 0, 1, gr_api_alter_client_quotas},
    {GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0,
     gr_api_describe_user_scram_credentials},
    {GR_API_ALTER_USER_SCRAM_CREDENTIALS, 0, 0,
     gr_api_alter_user_scram_credentials},
    {GR_API_DESCRIBE_CLUSTER, 0, 2, gr_api_describe_cluster},
    {GR_API_DESCRIBE_PRODUCERS, 0, 0, gr_api_describe_producers},
    {GR_API_DESCRIBE_TRANSACTIONS, 0, 0, gr_api_describe_transactions},
    {GR_API_LIST_TRANSACTIONS, 0, 2, gr_api_list_transactions},
    {GR_API_CONSUMER_GROUP_HEARTBEAT, 0, 1, gr_api_consumer_group_heartbeat},
    {GR_API_CONSUMER_GROUP_DESCRIBE, 0, 1, gr_api_consumer_group_describe},
    {GR_API_GET_TELEMETRY_SUBSCRIPTIONS, 0, 0,
     gr_api_get_telemetry_subscriptions}, /* advertised with a sink */
    {GR_API_PUSH_TELEMETRY, 0, 0, gr_api_push_telemetry}, /* likewise */
    {GR_API_LIST_CONFIG_RESOURCES, 0, 1, gr_api_list_config_resources},
    {GR_API_DESCRIBE_TOPIC_PARTITIONS, 0, 0, gr_api_describe_topic_partitions},
};

const gr_api_entry_t *
gr_api_table(int *cnt)
{
    *cnt = (int)(sizeof table / sizeof table[0]);
    return table;
}

int16_t
gr_api_max_version(const gr_api_entry_t *e, const gr_conf_t *conf)
{
    const gr_proto_api_t *api = gr_proto_api(e->key);
    if (conf != NULL &&
        gr_conf_bool(conf, GR_CONF_UNSTABLE_API_VERSIONS_ENABLE) &&
        api != NULL && e->max_ver == api->stable_max &&
        api->max_ver > api->stable_max)
        return api->max_ver;
    return e->max_ver;
}

void
gr_api_served(const gr_broker_t *b, const gr_api_entry_t *e, int16_t *min,
              int16_t *max)
{
    *min = e->min_ver;
    *max = gr_api_max_version(e, b->conf);
    if (b->emulate != NULL) {
        int16_t rmin, rmax;
        if (!gr_api_release_range(b->emulate, e->key, &rmin, &rmax)) {
            *min = 0;
            *max = -1; /* that release had no such API */
            return;
        }
        if (rmin > *min)
            *min = rmin;
        if (rmax < *max)
            *max = rmax;
    }
    if (b->api_caps != NULL) {
        const int16_t *c = b->api_caps[e->key];
        if (c[0] != -2 && c[0] > *min)
            *min = c[0];
        if (c[1] != -2 && c[1] < *max)
            *max = c[1];
    }
}

const gr_api_entry_t *
gr_api_find(int16_t key)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].key == key)
            return &table[i];
    return NULL;
}
