/*
 * Every served version of every group API against a running gregor
 * (GR_BOOTSTRAP), with Gregor's generated codecs as the client: the
 * installed clients send only some versions (librdkafka 2.0.2 JoinGroup
 * v5, OffsetFetch v7, ...; kafka-python v0-v2; kafkajs v2-v5), so this
 * walks the rest, checking what changes between versions:
 * FindCoordinator v0-v6 (batched keys v4+), JoinGroup v0-v9
 * (MEMBER_ID_REQUIRED v4+, protocol type v7+), SyncGroup v0-v5 (protocol
 * checks v5), Heartbeat v0-v4, OffsetCommit v0-v10 (v1 timestamps, v2-v4
 * retention, leader epochs v6+, topic ids v10), OffsetFetch v0-v10 (v0-v1
 * errors per partition, all offsets v2+, groups v8+, topic ids v10),
 * DescribeGroups v0-v6 (GROUP_ID_NOT_FOUND v6), ListGroups v0-v5
 * (filters v4+), LeaveGroup v0-v5 (batches v3+), OffsetDelete v0,
 * DeleteGroups v0-v3. Exit 0 or 1.
 */
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "proto/proto.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fd = -1;
static int32_t corr;
static gr_uuid_t gv_id; /* topic gv's id, for v10's topic ids */
static gr_arena_t *arena;
static int checks;

static void fail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
static void
fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

#define CHECK(cond, ...)       \
    do {                       \
        checks++;              \
        if (!(cond))           \
            fail(__VA_ARGS__); \
    } while (0)
#define CHECK_ERR(got, want, what, ver)                      \
    CHECK((got) == (want), "%s v%d: %s, want %s", what, ver, \
          gr_kerr_name(got), gr_kerr_name(want))

static void
connect_broker(void)
{
    const char *b = getenv("GR_BOOTSTRAP");
    char host[256];
    const char *colon;
    struct addrinfo hints, *ai;
    if (b == NULL || (colon = strrchr(b, ':')) == NULL)
        fail("GR_BOOTSTRAP is not set");
    snprintf(host, sizeof host, "%.*s", (int)(colon - b), b);
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        fail("cannot resolve %s", b);
    fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
        fail("cannot connect to %s", b);
    freeaddrinfo(ai);
}

static void
read_full(uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k <= 0)
            fail("connection closed by the broker");
        p += k;
        n -= (size_t)k;
    }
}

/* Sends rq (an api's request struct) in version ver; the decoded response
 * (in the arena). */
static void *
call(int16_t key, int16_t ver, const void *rq)
{
    const gr_proto_api_t *api = gr_proto_api(key);
    gr_req_header_t h = { key, ver, ++corr, GR_STR("gv") };
    size_t n = 4 + gr_req_header_size(&h) + api->request.size(rq, ver);
    uint8_t *buf = gr_arena_alloc(arena, n), sz[4];
    gr_writer_t w = gr_writer_init(buf, n, NULL);
    gr_reader_t r;
    uint32_t len;
    void *rs;

    gr_wr_i32(&w, (int32_t)(n - 4));
    gr_req_header_encode(&w, &h);
    api->request.encode(&w, rq, ver);
    if (w.err || w.p != w.end)
        fail("encoding %s v%d", api->name, ver);
    if (write(fd, buf, n) != (ssize_t)n)
        fail("write");
    read_full(sz, 4);
    len = gr_get_u32(sz);
    buf = gr_arena_alloc(arena, len);
    read_full(buf, len);
    r = gr_reader_init(buf, len);
    if (gr_rd_i32(&r) != corr)
        fail("%s v%d: correlation id", api->name, ver);
    if (gr_proto_resp_header_version(key, ver) >= 1)
        gr_rd_skip_tags(&r);
    rs = gr_arena_alloc(arena, api->response.struct_size);
    if (api->response.decode(&r, ver, arena, rs) != 0 ||
        gr_reader_remaining(&r) != 0)
        fail("%s v%d: cannot decode the response", api->name, ver);
    return rs;
}

static bool
str_is(const gr_str_t *s, const char *c)
{
    return s->len >= 0 && gr_str_eq_cstr(s, c);
}

static char *
dup_str(const gr_str_t *s)
{
    return gr_arena_strndup(arena, s->ptr ? s->ptr : "",
                            (size_t)(s->len > 0 ? s->len : 0));
}

/* --- FindCoordinator */

static void
find_coordinator(void)
{
    for (int16_t v = 0; v <= 6; v++) {
        gr_find_coordinator_request_t rq;
        gr_find_coordinator_response_t *rs;
        gr_str_t keys[2] = { GR_STR("g1"), GR_STR("g2") };
        gr_find_coordinator_request_init(&rq);
        rq.key = GR_STR("g1");
        rq.coordinator_keys = keys;
        rq.coordinator_keys_cnt = 2;
        rs = call(GR_API_FIND_COORDINATOR, v, &rq);
        if (v < 4) {
            CHECK_ERR(rs->error_code, GR_KERR_NONE, "FindCoordinator", v);
            CHECK(rs->node_id == 1 && rs->port > 0,
                  "FindCoordinator v%d: node %d port %d", v, rs->node_id,
                  rs->port);
        } else {
            CHECK(rs->coordinators_cnt == 2 &&
                      str_is(&rs->coordinators[1].key, "g2") &&
                      rs->coordinators[1].node_id == 1 &&
                      rs->coordinators[0].error_code == 0,
                  "FindCoordinator v%d: batched keys", v);
        }
        if (v >= 1) {
            rq.key_type = 7; /* no such coordinator type */
            rs = call(GR_API_FIND_COORDINATOR, v, &rq);
            CHECK_ERR(v < 4 ? rs->error_code : rs->coordinators[0].error_code,
                      GR_KERR_INVALID_REQUEST, "FindCoordinator key type", v);
        }
    }
}

/* --- a member's life in every version */

typedef struct member {
    char *group;
    char *id;
    int32_t gen;
} member_t;

static gr_bytes_t
subscription(void)
{
    /* ConsumerProtocolSubscription v0: topics ["gv"], null user data */
    static const uint8_t sub[] = { 0, 0,   0,   0,    0,    1,    0,
                                   2, 'g', 'v', 0xff, 0xff, 0xff, 0xff };
    return (gr_bytes_t){ sub, sizeof sub };
}

static gr_join_group_response_t *
join_once(const char *group, const char *member, int16_t v)
{
    gr_join_group_request_t rq;
    gr_join_group_request_protocol_t p;
    gr_join_group_request_init(&rq);
    p.name = GR_STR("range");
    p.metadata = subscription();
    rq.group_id = gr_str_c(group);
    rq.session_timeout_ms = 10000;
    rq.rebalance_timeout_ms = 10000;
    rq.member_id = gr_str_c(member);
    rq.protocol_type = GR_STR("consumer");
    rq.protocols = &p;
    rq.protocols_cnt = 1;
    return call(GR_API_JOIN_GROUP, v, &rq);
}

static member_t
join(const char *group, int16_t v)
{
    gr_join_group_response_t *rs = join_once(group, "", v);
    member_t m;
    if (v >= 4) {
        /* KIP-394 */
        CHECK_ERR(rs->error_code, GR_KERR_MEMBER_ID_REQUIRED, "JoinGroup", v);
        CHECK(rs->member_id.len > 0, "JoinGroup v%d: no member id", v);
        rs = join_once(group, dup_str(&rs->member_id), v);
    }
    CHECK_ERR(rs->error_code, GR_KERR_NONE, "JoinGroup", v);
    CHECK(rs->generation_id == 1 && str_is(&rs->protocol_name, "range") &&
              gr_str_eq(&rs->leader, &rs->member_id) && rs->members_cnt == 1,
          "JoinGroup v%d: generation %d, protocol %.*s, %d members", v,
          rs->generation_id, rs->protocol_name.len, rs->protocol_name.ptr,
          rs->members_cnt);
    if (v >= 7)
        CHECK(str_is(&rs->protocol_type, "consumer"),
              "JoinGroup v%d: protocol type", v);
    m.group = gr_arena_strndup(arena, group, strlen(group));
    m.id = dup_str(&rs->member_id);
    m.gen = rs->generation_id;
    return m;
}

static void
sync_group(const member_t *m, int16_t v, const char *proto, gr_kerr_t want)
{
    gr_sync_group_request_t rq;
    gr_sync_group_request_assignment_t a;
    gr_sync_group_response_t *rs;
    gr_sync_group_request_init(&rq);
    a.member_id = gr_str_c(m->id);
    a.assignment = (gr_bytes_t){ (const uint8_t *)"asg", 3 };
    rq.group_id = gr_str_c(m->group);
    rq.generation_id = m->gen;
    rq.member_id = gr_str_c(m->id);
    rq.protocol_type = GR_STR("consumer");
    rq.protocol_name = proto ? gr_str_c(proto) : GR_STR_NULL;
    rq.assignments = &a;
    rq.assignments_cnt = 1;
    rs = call(GR_API_SYNC_GROUP, v, &rq);
    CHECK_ERR(rs->error_code, want, "SyncGroup", v);
    if (want == GR_KERR_NONE) {
        CHECK(rs->assignment.len == 3, "SyncGroup v%d: assignment", v);
        if (v >= 5)
            CHECK(str_is(&rs->protocol_name, "range") &&
                      str_is(&rs->protocol_type, "consumer"),
                  "SyncGroup v%d: protocol", v);
    }
}

static void
heartbeat(const member_t *m, int16_t v, int32_t gen, gr_kerr_t want)
{
    gr_heartbeat_request_t rq;
    gr_heartbeat_response_t *rs;
    gr_heartbeat_request_init(&rq);
    rq.group_id = gr_str_c(m->group);
    rq.generation_id = gen;
    rq.member_id = gr_str_c(m->id);
    rs = call(GR_API_HEARTBEAT, v, &rq);
    CHECK_ERR(rs->error_code, want, "Heartbeat", v);
}

static void
commit(const member_t *m, int16_t v, int64_t offset, gr_kerr_t want)
{
    gr_offset_commit_request_t rq;
    gr_offset_commit_request_topic_t t[2];
    gr_offset_commit_request_partition_t p[2];
    gr_offset_commit_response_t *rs;
    gr_offset_commit_request_init(&rq);
    for (int i = 0; i < 2; i++) {
        gr_offset_commit_request_partition_init(&p[i]);
        p[i].partition_index = i;
        p[i].committed_offset = offset + i;
        p[i].committed_leader_epoch = 3;
        p[i].commit_timestamp = v == 1 ? 1000 : -1;
        p[i].committed_metadata = GR_STR("md");
        t[i].partitions = &p[i];
        t[i].partitions_cnt = 1;
    }
    t[0].name = GR_STR("gv");
    t[1].name = GR_STR("no-such-topic");
    t[0].topic_id = gv_id;
    memset(&t[1].topic_id, 0x5a, sizeof t[1].topic_id);
    rq.group_id = gr_str_c(m->group);
    rq.generation_id_or_member_epoch = m ? m->gen : -1;
    rq.member_id = gr_str_c(m->id);
    rq.retention_time_ms = -1;
    rq.topics = t;
    rq.topics_cnt = 2;
    rs = call(GR_API_OFFSET_COMMIT, v, &rq);
    CHECK(rs->topics_cnt == 2 && rs->topics[0].partitions_cnt == 1,
          "OffsetCommit v%d: shape", v);
    CHECK_ERR(rs->topics[0].partitions[0].error_code, want, "OffsetCommit", v);
    CHECK_ERR(rs->topics[1].partitions[0].error_code,
              v >= 10 ? GR_KERR_UNKNOWN_TOPIC_ID
                      : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION,
              "OffsetCommit", v);
    if (v >= 10)
        CHECK(gr_uuid_eq(&rs->topics[0].topic_id, &gv_id),
              "OffsetCommit v%d: topic id", v);
}

/* The committed offset of gv-0 (and its error) as OffsetFetch v gives it. */
static int64_t
fetch(const char *group, int16_t v, bool all, gr_kerr_t *err, int32_t *epoch)
{
    gr_offset_fetch_request_t rq;
    gr_offset_fetch_response_t *rs;
    int32_t part0 = 0;
    gr_offset_fetch_request_init(&rq);
    *err = GR_KERR_NONE;
    *epoch = -1;
    if (v < 8) {
        gr_offset_fetch_request_topic_t t = { GR_STR("gv"), &part0, 1 };
        rq.group_id = gr_str_c(group);
        rq.topics = all ? NULL : &t;
        rq.topics_cnt = all ? -1 : 1;
        rs = call(GR_API_OFFSET_FETCH, v, &rq);
        if (v >= 2 && rs->error_code) {
            *err = rs->error_code;
            return -1;
        }
        for (int32_t i = 0; i < rs->topics_cnt; i++)
            for (int32_t k = 0; k < rs->topics[i].partitions_cnt; k++)
                if (str_is(&rs->topics[i].name, "gv") &&
                    rs->topics[i].partitions[k].partition_index == 0) {
                    *err = rs->topics[i].partitions[k].error_code;
                    *epoch = rs->topics[i].partitions[k].committed_leader_epoch;
                    return rs->topics[i].partitions[k].committed_offset;
                }
        return -2;
    } else {
        gr_offset_fetch_request_topics_t t;
        gr_offset_fetch_request_group_t g[2];
        gr_offset_fetch_request_topics_init(&t);
        t.name = GR_STR("gv");
        t.topic_id = gv_id;
        t.partition_indexes = &part0;
        t.partition_indexes_cnt = 1;
        gr_offset_fetch_request_group_init(&g[0]);
        gr_offset_fetch_request_group_init(&g[1]);
        g[0].group_id = gr_str_c(group);
        g[0].topics = all ? NULL : &t;
        g[0].topics_cnt = all ? -1 : 1;
        g[1].group_id = GR_STR("gv-other-group");
        g[1].topics = &t;
        g[1].topics_cnt = 1;
        rq.groups = g;
        rq.groups_cnt = 2;
        rq.require_stable = true;
        rs = call(GR_API_OFFSET_FETCH, v, &rq);
        CHECK(rs->groups_cnt == 2 &&
                  str_is(&rs->groups[1].group_id, "gv-other-group") &&
                  rs->groups[1].topics_cnt == 1 &&
                  rs->groups[1].topics[0].partitions[0].committed_offset == -1,
              "OffsetFetch v%d: the second group", v);
        if (rs->groups[0].error_code) {
            *err = rs->groups[0].error_code;
            return -1;
        }
        for (int32_t i = 0; i < rs->groups[0].topics_cnt; i++)
            for (int32_t k = 0; k < rs->groups[0].topics[i].partitions_cnt; k++)
                if ((v >= 10 ? gr_uuid_eq(&rs->groups[0].topics[i].topic_id,
                                          &gv_id)
                             : str_is(&rs->groups[0].topics[i].name, "gv")) &&
                    rs->groups[0].topics[i].partitions[k].partition_index ==
                        0) {
                    *err = rs->groups[0].topics[i].partitions[k].error_code;
                    *epoch = rs->groups[0]
                                 .topics[i]
                                 .partitions[k]
                                 .committed_leader_epoch;
                    return rs->groups[0]
                        .topics[i]
                        .partitions[k]
                        .committed_offset;
                }
        return -2;
    }
}

static void
leave(const member_t *m, int16_t v, gr_kerr_t want)
{
    gr_leave_group_request_t rq;
    gr_leave_group_request_member_identity_t mi[2];
    gr_leave_group_response_t *rs;
    gr_leave_group_request_init(&rq);
    rq.group_id = gr_str_c(m->group);
    rq.member_id = gr_str_c(m->id);
    gr_leave_group_request_member_identity_init(&mi[0]);
    gr_leave_group_request_member_identity_init(&mi[1]);
    mi[0].member_id = gr_str_c(m->id);
    mi[1].member_id = GR_STR("nobody");
    rq.members = mi;
    rq.members_cnt = 2;
    rs = call(GR_API_LEAVE_GROUP, v, &rq);
    if (v < 3) {
        CHECK_ERR(rs->error_code, want, "LeaveGroup", v);
    } else {
        CHECK_ERR(rs->error_code, GR_KERR_NONE, "LeaveGroup", v);
        CHECK(rs->members_cnt == 2, "LeaveGroup v%d: members", v);
        CHECK_ERR(rs->members[0].error_code, want, "LeaveGroup", v);
        CHECK_ERR(rs->members[1].error_code, GR_KERR_UNKNOWN_MEMBER_ID,
                  "LeaveGroup (unknown member)", v);
    }
}

static const char *
describe(const char *group, int16_t v, int32_t *nmembers)
{
    gr_describe_groups_request_t rq;
    gr_describe_groups_response_t *rs;
    gr_str_t g = gr_str_c(group);
    gr_describe_groups_request_init(&rq);
    rq.groups = &g;
    rq.groups_cnt = 1;
    rq.include_authorized_operations = true;
    rs = call(GR_API_DESCRIBE_GROUPS, v, &rq);
    CHECK(rs->groups_cnt == 1, "DescribeGroups v%d", v);
    if (str_is(&rs->groups[0].group_state, "Dead") && v >= 6) {
        /* an unknown group (KIP-1043) */
        CHECK_ERR(rs->groups[0].error_code, GR_KERR_GROUP_ID_NOT_FOUND,
                  "DescribeGroups", v);
        CHECK(rs->groups[0].error_message.len > 0,
              "DescribeGroups v%d: message", v);
    } else {
        CHECK_ERR(rs->groups[0].error_code, GR_KERR_NONE, "DescribeGroups", v);
    }
    /* v3+: set for a group answered without an error, as Kafka's
     * handleDescribeGroupsRequest (an unknown group at v6 has none) */
    if (v >= 3)
        CHECK((rs->groups[0].authorized_operations != INT32_MIN) ==
                  (rs->groups[0].error_code == GR_KERR_NONE),
              "DescribeGroups v%d: operations", v);
    *nmembers = rs->groups[0].members_cnt;
    return dup_str(&rs->groups[0].group_state);
}

/* The state ListGroups v reports for group ("" when not listed, "?" when
 * the version has no state). */
static const char *
list(const char *group, int16_t v, const char *filter)
{
    gr_list_groups_request_t rq;
    gr_list_groups_response_t *rs;
    gr_str_t f = gr_str_c(filter ? filter : "");
    gr_str_t type = GR_STR("CLASSIC");
    gr_list_groups_request_init(&rq);
    rq.states_filter = &f;
    rq.states_filter_cnt = filter ? 1 : 0;
    rq.types_filter = &type;
    rq.types_filter_cnt = 1;
    rs = call(GR_API_LIST_GROUPS, v, &rq);
    CHECK_ERR(rs->error_code, GR_KERR_NONE, "ListGroups", v);
    for (int32_t i = 0; i < rs->groups_cnt; i++)
        if (str_is(&rs->groups[i].group_id, group)) {
            CHECK(str_is(&rs->groups[i].protocol_type, "consumer"),
                  "ListGroups v%d: protocol type", v);
            if (v >= 5)
                CHECK(str_is(&rs->groups[i].group_type, "classic"),
                      "ListGroups v%d: type", v);
            return v >= 4 ? dup_str(&rs->groups[i].group_state) : "?";
        }
    return "";
}

static gr_kerr_t
delete_group(const char *group, int16_t v)
{
    gr_delete_groups_request_t rq;
    gr_delete_groups_response_t *rs;
    gr_str_t g = gr_str_c(group);
    gr_delete_groups_request_init(&rq);
    rq.groups_names = &g;
    rq.groups_names_cnt = 1;
    rs = call(GR_API_DELETE_GROUPS, v, &rq);
    CHECK(rs->results_cnt == 1, "DeleteGroups v%d", v);
    return rs->results[0].error_code;
}

static gr_kerr_t
delete_offset(const char *group, gr_kerr_t *part_err)
{
    gr_offset_delete_request_t rq;
    gr_offset_delete_request_topic_t t;
    gr_offset_delete_request_partition_t p = { 1 };
    gr_offset_delete_response_t *rs;
    gr_offset_delete_request_init(&rq);
    t.name = GR_STR("gv");
    t.partitions = &p;
    t.partitions_cnt = 1;
    rq.group_id = gr_str_c(group);
    rq.topics = &t;
    rq.topics_cnt = 1;
    rs = call(GR_API_OFFSET_DELETE, 0, &rq);
    *part_err =
        rs->topics_cnt == 1 ? rs->topics[0].partitions[0].error_code : -1;
    return rs->error_code;
}

int
main(void)
{
    char group[64];
    gr_kerr_t err, perr;
    int32_t n, epoch;
    int64_t off;

    arena = gr_arena_new(1 << 16);
    connect_broker();
    find_coordinator();
    {
        gr_metadata_request_t rq;
        gr_metadata_request_topic_t t;
        gr_metadata_response_t *rs;
        gr_metadata_request_init(&rq);
        gr_metadata_request_topic_init(&t);
        t.name = GR_STR("gv");
        rq.topics = &t;
        rq.topics_cnt = 1;
        rs = call(GR_API_METADATA, 12, &rq);
        CHECK(rs->topics_cnt == 1 && rs->topics[0].error_code == 0,
              "Metadata of gv");
        gv_id = rs->topics[0].topic_id;
    }
    /* one group per JoinGroup version; the other APIs' versions cycle */
    for (int16_t v = 0; v <= 10; v++) {
        member_t m;
        int16_t sv = v % 6, hv = v % 5, cv = v, fv = v, lv = v % 6, dv = v % 7,
                gv = v % 4;
        const char *st;
        snprintf(group, sizeof group, "gv-%d", v);
        m = join(group, v % 10);
        /* before the assignment: commits are refused, heartbeats fine */
        commit(&m, cv, 10,
               cv == 0 ? GR_KERR_UNKNOWN_MEMBER_ID
                       : GR_KERR_REBALANCE_IN_PROGRESS);
        heartbeat(&m, hv, m.gen, GR_KERR_NONE);
        if (sv >= 5) {
            sync_group(&m, sv, "roundrobin",
                       GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
            sync_group(&m, sv, NULL, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
        }
        sync_group(&m, sv, "range", GR_KERR_NONE);
        heartbeat(&m, hv, m.gen + 1, GR_KERR_ILLEGAL_GENERATION);
        /* v0 commits carry no member: a simple commit, refused while the
         * group has members */
        commit(&m, cv, 10 * v,
               cv == 0 ? GR_KERR_UNKNOWN_MEMBER_ID : GR_KERR_NONE);
        if (cv == 0) {
            member_t m1 = m;
            commit(&m1, 1, 0, GR_KERR_NONE); /* v1 instead */
        }
        off = fetch(group, fv, false, &err, &epoch);
        CHECK(err == 0 && off == 10 * v, "OffsetFetch v%d: %lld (%s)", fv,
              (long long)off, gr_kerr_name(err));
        CHECK(epoch == (fv >= 5 && cv >= 6 ? 3 : -1),
              "OffsetFetch v%d: leader epoch %d", fv, epoch);
        if (fv >= 2) {
            off = fetch(group, fv, true, &err, &epoch);
            CHECK(err == 0 && off == 10 * v, "OffsetFetch v%d (all): %lld", fv,
                  (long long)off);
        }
        st = describe(group, dv, &n);
        CHECK(strcmp(st, "Stable") == 0 && n == 1, "DescribeGroups v%d: %s", dv,
              st);
        st = list(group, v % 6, NULL);
        CHECK(v % 6 >= 4 ? strcmp(st, "Stable") == 0 : strcmp(st, "?") == 0,
              "ListGroups v%d: %s", v % 6, st);
        if (v % 6 >= 4) {
            CHECK(strcmp(list(group, v % 6, "empty"), "") == 0,
                  "ListGroups v%d: state filter", v % 6);
            CHECK(strcmp(list(group, v % 6, "stable"), "Stable") == 0,
                  "ListGroups v%d: state filter", v % 6);
        }
        CHECK_ERR(delete_group(group, gv), GR_KERR_NON_EMPTY_GROUP,
                  "DeleteGroups", gv);
        CHECK_ERR(delete_offset(group, &perr), GR_KERR_NONE, "OffsetDelete", 0);
        CHECK_ERR(perr, GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC, "OffsetDelete", 0);
        leave(&m, lv, GR_KERR_NONE);
        heartbeat(&m, hv, m.gen, GR_KERR_UNKNOWN_MEMBER_ID);
        st = describe(group, dv, &n);
        CHECK(strcmp(st, "Empty") == 0 && n == 0, "DescribeGroups v%d: %s", dv,
              st);
        CHECK_ERR(delete_offset(group, &perr), GR_KERR_NONE, "OffsetDelete", 0);
        CHECK_ERR(perr, GR_KERR_NONE, "OffsetDelete", 0);
        CHECK_ERR(delete_group(group, gv), GR_KERR_NONE, "DeleteGroups", gv);
        CHECK_ERR(delete_group(group, gv), GR_KERR_GROUP_ID_NOT_FOUND,
                  "DeleteGroups", gv);
        st = describe(group, dv, &n);
        CHECK(strcmp(st, "Dead") == 0, "DescribeGroups v%d: %s", dv, st);
        off = fetch(group, fv, false, &err, &epoch);
        CHECK(off == -1 && err == 0, "OffsetFetch v%d after delete", fv);
        gr_arena_reset(arena);
    }
    /* errors of the group in OffsetFetch: per partition before v2 */
    for (int16_t v = 0; v <= 10; v++) {
        fetch("", v, false, &err, &epoch); /* "" is a valid offsets group */
        CHECK_ERR(err, GR_KERR_NONE, "OffsetFetch \"\"", v);
    }
    printf("ok: %d checks over every version of 11 group APIs\n", checks);
    return 0;
}
