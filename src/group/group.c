/*
 * The classic group state machine (Kafka's GroupCoordinator with
 * GroupMetadata, 2.4-3.x semantics): JoinGroup with MEMBER_ID_REQUIRED,
 * protocol selection by votes, leader choice, static membership,
 * SyncGroup, Heartbeat, LeaveGroup, session / rebalance / pending-sync
 * timeouts, the initial rebalance delay; and DescribeGroups and
 * DeleteGroups. States, their actions and transitions, and the answer of
 * each state to each request are in group_int.h.
 *
 * Timers (all on the loop): per member the heartbeat expiration
 * (session.timeout.ms; 5 minutes for a member that never completed a
 * join, Kafka's new-member timeout); per pending member its session
 * timeout; per group the join timer (initial delay, then the rebalance
 * timeout) and the sync timer (the rebalance timeout for members to send
 * SyncGroup after the join).
 * Loop thread only.
 */
#include "core/time.h"
#include "group/group_int.h"
#include "proto/gen/consumer_protocol_subscription.h"

#include <stdlib.h>
#include <string.h>

static void prepare_rebalance(gr_group_t *grp, const char *reason);
static void try_complete_join(gr_group_t *grp);
static void complete_join(gr_group_t *grp);

static int64_t
now_ms(const gr_group_t *grp)
{
    return gr_loop_wall_ms(grp->g->loop);
}

void
gr_group_transition(gr_group_t *grp, gr_group_state_t s)
{
    GR_LOG_DEBUG("group %s: %s -> %s", grp->id, gr_group_state_str(grp->state),
                 gr_group_state_str(s));
    grp->state = s;
    grp->state_ts = now_ms(grp);
}

static int32_t
rebalance_timeout(const gr_group_t *grp)
{
    int32_t t = 0;
    for (const gr_member_t *m = grp->members; m; m = m->next)
        if (m->rebalance_timeout_ms > t)
            t = m->rebalance_timeout_ms;
    return t;
}

/* --- results */

static void
join_error(gr_group_waiter_t *w, const char *member_id, gr_kerr_t err)
{
    gr_group_join_result_t r;
    memset(&r, 0, sizeof r);
    r.error = err;
    r.generation_id = -1;
    r.leader_id = "";
    r.member_id = member_id ? member_id : "";
    gr_waiter_now(w, &r);
}

static void
join_error_str(gr_group_waiter_t *w, const gr_str_t *member_id, gr_kerr_t err)
{
    char *id = gr_group_strdup(member_id);
    join_error(w, id, err);
    free(id);
}

static void
sync_error(gr_group_waiter_t *w, gr_kerr_t err)
{
    gr_group_sync_result_t r;
    memset(&r, 0, sizeof r);
    r.error = err;
    gr_waiter_now(w, &r);
}

/* The join answer for m: the leader gets every member's metadata of the
 * selected protocol (when members is true). */
static void
fire_join_to(gr_member_t *m, gr_group_waiter_t **slot, bool members,
             const char *leader_id, bool skip)
{
    gr_group_t *grp = m->grp;
    gr_group_join_result_t r;
    gr_group_join_member_t *v = NULL;

    memset(&r, 0, sizeof r);
    r.error = GR_KERR_NONE;
    r.generation_id = grp->generation;
    r.protocol_type = grp->protocol_type;
    r.protocol_name = grp->protocol_name;
    r.leader_id = leader_id ? leader_id : "";
    r.member_id = m->member_id;
    r.skip_assignment = skip;
    if (members) {
        int32_t i = 0;
        v = calloc((size_t)(grp->nmembers ? grp->nmembers : 1), sizeof(*v));
        GR_ASSERT(v != NULL);
        for (gr_member_t *x = grp->members; x; x = x->next, i++) {
            const gr_member_proto_t *p = gr_member_proto(x, grp->protocol_name);
            v[i].member_id = x->member_id;
            v[i].group_instance_id = x->group_instance_id;
            v[i].metadata = p ? (gr_bytes_t){ p->metadata, p->metadata_len }
                              : (gr_bytes_t){ NULL, 0 };
        }
        r.members = v;
        r.nmembers = grp->nmembers;
    }
    /* Kafka's maybeInvokeJoinCallback: the member no longer awaits, even
     * when nobody listens any more */
    if (slot == &m->join_waiter && m->awaiting_join) {
        m->awaiting_join = false;
        grp->num_awaiting_join--;
    }
    gr_waiter_fire(slot, &r);
    free(v);
}

static void
fire_join(gr_member_t *m, bool members, const char *leader_id, bool skip)
{
    fire_join_to(m, &m->join_waiter, members, leader_id, skip);
}

/* The current generation's join answer for m, to w at once (m's own
 * pending join, if any, is left alone). */
static void
answer_join(gr_member_t *m, gr_group_waiter_t *w, bool members,
            const char *leader_id)
{
    gr_group_waiter_t *slot = NULL;
    gr_waiter_hold(&slot, w);
    fire_join_to(m, &slot, members, leader_id, false);
}

static void
fire_join_error(gr_member_t *m, const char *member_id, gr_kerr_t err)
{
    gr_group_join_result_t r;
    memset(&r, 0, sizeof r);
    r.error = err;
    r.generation_id = -1;
    r.leader_id = "";
    r.member_id = member_id;
    if (m->awaiting_join) {
        m->awaiting_join = false;
        m->grp->num_awaiting_join--;
    }
    gr_waiter_fire(&m->join_waiter, &r);
}

/* Kafka's maybeInvokeSyncCallback; true when the member was awaiting. */
static bool
fire_sync(gr_member_t *m, gr_kerr_t err)
{
    gr_group_sync_result_t r;
    bool was = m->awaiting_sync;
    memset(&r, 0, sizeof r);
    r.error = err;
    if (err == GR_KERR_NONE) {
        r.protocol_type = m->grp->protocol_type;
        r.protocol_name = m->grp->protocol_name;
        r.assignment = (gr_bytes_t){ m->assignment, m->assignment_len };
    }
    m->awaiting_sync = false;
    gr_waiter_fire(&m->sync_waiter, &r);
    return was;
}

void
gr_group_fail_waiters(gr_group_t *grp, gr_kerr_t err)
{
    for (gr_member_t *m = grp->members; m; m = m->next) {
        if (m->join_waiter)
            fire_join_error(m, m->member_id, err);
        if (m->sync_waiter)
            fire_sync(m, err);
    }
}

/* --- heartbeats */

static bool
heartbeat_satisfied(const gr_member_t *m)
{
    if (m->is_new)
        return m->heartbeat_satisfied;
    if (m->awaiting_join || m->awaiting_sync)
        return true;
    return m->heartbeat_satisfied;
}

void
gr_member_heartbeat(gr_member_t *m, int64_t timeout_ms)
{
    gr_loop_t *loop = m->grp->g->loop;
    m->heartbeat_satisfied = false;
    if (!m->is_new && (m->awaiting_join || m->awaiting_sync)) {
        /* satisfied while it waits: no expiration scheduled */
        gr_timer_stop(loop, &m->hb_timer);
        return;
    }
    gr_timer_start(loop, &m->hb_timer, timeout_ms);
}

static void remove_member_and_update(gr_group_t *grp, gr_member_t *m,
                                     const char *reason);

static void
hb_expired(gr_loop_t *loop, gr_timer_t *t)
{
    gr_member_t *m = t->data;
    (void)loop;
    if (heartbeat_satisfied(m))
        return;
    GR_LOG_INFO("member %s in group %s has failed, removing it from the "
                "group",
                m->member_id, m->grp->id);
    remove_member_and_update(m->grp, m, "heartbeat expiration");
}

/* --- membership */

static void
sync_timer_stop(gr_group_t *grp)
{
    gr_timer_stop(grp->g->loop, &grp->sync_timer);
}

static bool
pending_sync_left(const gr_group_t *grp)
{
    for (const gr_member_t *m = grp->members; m; m = m->next)
        if (m->pending_sync)
            return true;
    return false;
}

static void
remove_pending_sync(gr_member_t *m)
{
    if (!m->pending_sync)
        return;
    m->pending_sync = false;
    if (!pending_sync_left(m->grp))
        sync_timer_stop(m->grp); /* Kafka's DelayedSync completes */
}

/* Kafka's GroupMetadata.add. */
static void
group_add(gr_group_t *grp, gr_member_t *m, gr_group_waiter_t *w)
{
    gr_member_t **tail = &grp->members;
    gr_pending_member_t **pp;
    while (*tail)
        tail = &(*tail)->next;
    *tail = m;
    grp->nmembers++;
    if (grp->leader == NULL)
        grp->leader = m;
    gr_timer_init_virtual(&m->hb_timer, hb_expired, m);
    if (w != NULL) {
        m->awaiting_join = true;
        grp->num_awaiting_join++;
        gr_waiter_hold(&m->join_waiter, w);
    }
    /* a pending member becomes a member */
    for (pp = &grp->pending; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->member_id, m->member_id) == 0) {
            gr_pending_member_t *p = *pp;
            *pp = p->next;
            gr_timer_stop(grp->g->loop, &p->timer);
            free(p->member_id);
            free(p);
            grp->npending--;
            break;
        }
    }
}

/* Kafka's GroupMetadata.remove: no callbacks, no rebalance. */
static void
group_remove(gr_group_t *grp, gr_member_t *m)
{
    gr_member_t **pp = &grp->members;
    while (*pp && *pp != m)
        pp = &(*pp)->next;
    GR_ASSERT(*pp == m);
    *pp = m->next;
    grp->nmembers--;
    if (m->awaiting_join)
        grp->num_awaiting_join--;
    if (grp->leader == m)
        grp->leader = grp->members;
    gr_timer_stop(grp->g->loop, &m->hb_timer);
    /* nobody must be left waiting on a member that is gone */
    if (m->join_waiter)
        fire_join_error(m, "", GR_KERR_UNKNOWN_MEMBER_ID);
    if (m->sync_waiter)
        fire_sync(m, GR_KERR_UNKNOWN_MEMBER_ID);
    if (m->pending_sync) {
        m->pending_sync = false;
        if (!pending_sync_left(grp))
            sync_timer_stop(grp);
    }
    gr_member_free(m);
}

static void
remove_pending(gr_group_t *grp, gr_pending_member_t *p)
{
    gr_pending_member_t **pp = &grp->pending;
    while (*pp && *pp != p)
        pp = &(*pp)->next;
    GR_ASSERT(*pp == p);
    *pp = p->next;
    grp->npending--;
    gr_timer_stop(grp->g->loop, &p->timer);
    free(p->member_id);
    free(p);
}

static void
pending_expired(gr_loop_t *loop, gr_timer_t *t)
{
    gr_pending_member_t *p = t->data;
    gr_group_t *grp = p->grp;
    (void)loop;
    GR_LOG_INFO("pending member %s in group %s has been removed after "
                "session timeout expiration",
                p->member_id, grp->id);
    remove_pending(grp, p);
    if (grp->state == GR_GROUP_PREPARING_REBALANCE)
        try_complete_join(grp);
}

static void
maybe_prepare_rebalance(gr_group_t *grp, const char *reason)
{
    if (grp->state == GR_GROUP_STABLE ||
        grp->state == GR_GROUP_COMPLETING_REBALANCE ||
        grp->state == GR_GROUP_EMPTY)
        prepare_rebalance(grp, reason);
}

/* Kafka's removeMemberAndUpdateGroup. */
static void
remove_member_and_update(gr_group_t *grp, gr_member_t *m, const char *reason)
{
    fire_join_error(m, "", GR_KERR_UNKNOWN_MEMBER_ID);
    group_remove(grp, m);
    switch (grp->state) {
    case GR_GROUP_DEAD:
    case GR_GROUP_EMPTY:
        break;
    case GR_GROUP_STABLE:
    case GR_GROUP_COMPLETING_REBALANCE:
        maybe_prepare_rebalance(grp, reason);
        break;
    case GR_GROUP_PREPARING_REBALANCE:
        try_complete_join(grp);
        break;
    }
}

/* --- protocols */

static int32_t
supporting(const gr_group_t *grp, const gr_str_t *name)
{
    int32_t n = 0;
    for (const gr_member_t *m = grp->members; m; m = m->next)
        for (int32_t i = 0; i < m->nprotos; i++)
            if (gr_str_eq_cstr(name, m->protos[i].name)) {
                n++;
                break;
            }
    return n;
}

/* Kafka's supportsProtocols. */
static bool
supports_protocols(const gr_group_t *grp, const gr_str_t *type,
                   const gr_group_protocol_t *p, int32_t n)
{
    if (grp->state == GR_GROUP_EMPTY)
        return type->len > 0 && n > 0;
    if (grp->protocol_type == NULL || !gr_str_eq_cstr(type, grp->protocol_type))
        return false;
    for (int32_t i = 0; i < n; i++)
        if (supporting(grp, &p[i].name) == grp->nmembers)
            return true;
    return false;
}

static bool
is_candidate(const gr_group_t *grp, const char *name)
{
    gr_str_t s = gr_str_c(name);
    return supporting(grp, &s) == grp->nmembers;
}

/* Kafka's selectProtocol: each member votes for its first preference
 * among the protocols every member supports; most votes wins (ties: the
 * first member's order). */
static char *
select_protocol(const gr_group_t *grp)
{
    const gr_member_t *first = grp->members;
    const char *best = NULL;
    int32_t best_votes = -1;
    GR_ASSERT(first != NULL);
    for (int32_t c = 0; c < first->nprotos; c++) {
        const char *cand = first->protos[c].name;
        int32_t votes = 0;
        if (!is_candidate(grp, cand))
            continue;
        for (const gr_member_t *m = grp->members; m; m = m->next)
            for (int32_t i = 0; i < m->nprotos; i++)
                if (is_candidate(grp, m->protos[i].name)) {
                    votes += strcmp(m->protos[i].name, cand) == 0;
                    break;
                }
        if (votes > best_votes) {
            best = cand;
            best_votes = votes;
        }
    }
    return strdup(best ? best : "");
}

static void
free_subscribed(gr_group_t *grp)
{
    for (int32_t i = 0; i < grp->nsubscribed; i++)
        free(grp->subscribed[i]);
    free(grp->subscribed);
    grp->subscribed = NULL;
    grp->nsubscribed = 0;
    grp->subscribed_known = false;
}

static bool
in_subscribed(const gr_group_t *grp, const char *topic)
{
    for (int32_t i = 0; i < grp->nsubscribed; i++)
        if (strcmp(grp->subscribed[i], topic) == 0)
            return true;
    return false;
}

/* Kafka's computeSubscribedTopics: the topics in the members'
 * ConsumerProtocolSubscription, when the group is a consumer group and
 * every subscription decodes. */
void
gr_group_compute_subscribed(gr_group_t *grp)
{
    gr_arena_t *a;
    free_subscribed(grp);
    if (grp->protocol_type == NULL ||
        strcmp(grp->protocol_type, "consumer") != 0)
        return;
    if (grp->members == NULL) {
        grp->subscribed_known = true; /* subscribed to nothing */
        return;
    }
    if (grp->protocol_name == NULL)
        return;
    a = gr_arena_new(4096);
    GR_ASSERT(a != NULL);
    for (gr_member_t *m = grp->members; m; m = m->next) {
        const gr_member_proto_t *p = gr_member_proto(m, grp->protocol_name);
        gr_consumer_protocol_subscription_t s;
        gr_reader_t r;
        if (p == NULL || p->metadata_len < 2)
            goto unknown;
        r = gr_reader_init(p->metadata, (size_t)p->metadata_len);
        /* whatever the version it names, the subscription is read as its
         * version 0 prefix (the topics), as Kafka's ClassicGroup.
         * computeSubscribedTopics does: kafka-go's names v1 and leaves out
         * v1's owned partitions */
        if (gr_rd_i16(&r) < 0 ||
            gr_consumer_protocol_subscription_decode(&r, 0, a, &s) != 0)
            goto unknown;
        for (int32_t i = 0; i < s.topics_cnt; i++) {
            char *t = gr_group_strdup(&s.topics[i]);
            if (t == NULL || in_subscribed(grp, t)) {
                free(t);
                continue;
            }
            grp->subscribed =
                realloc(grp->subscribed,
                        sizeof(char *) * (size_t)(grp->nsubscribed + 1));
            GR_ASSERT(grp->subscribed != NULL);
            grp->subscribed[grp->nsubscribed++] = t;
        }
    }
    grp->subscribed_known = true;
    gr_arena_destroy(a);
    return;
unknown:
    GR_LOG_WARN("group %s: a member's subscription (protocol %s) cannot be "
                "read: the group counts as subscribed to every topic",
                grp->id, grp->protocol_name);
    gr_arena_destroy(a);
    free_subscribed(grp);
}

bool
gr_group_subscribed_to(const gr_group_t *grp, const char *topic)
{
    /* unknown subscriptions: a consumer group is taken to use every
     * topic (Kafka's isSubscribedToTopic), any other group none */
    if (!grp->subscribed_known)
        return grp->protocol_type != NULL &&
               strcmp(grp->protocol_type, "consumer") == 0;
    return in_subscribed(grp, topic);
}

/* --- rebalancing */

static void
reset_and_propagate_assignment_error(gr_group_t *grp, gr_kerr_t err)
{
    for (gr_member_t *m = grp->members; m; m = m->next) {
        free(m->assignment);
        m->assignment = NULL;
        m->assignment_len = 0;
    }
    for (gr_member_t *m = grp->members; m; m = m->next)
        if (fire_sync(m, err))
            gr_member_heartbeat(m, m->session_timeout_ms);
}

static void
join_timer_cb(gr_loop_t *loop, gr_timer_t *t)
{
    gr_group_t *grp = t->data;
    if (grp->join_kind == JOIN_INITIAL && grp->new_member_added &&
        grp->join_remaining_ms != 0) {
        /* Kafka's InitialDelayedJoin: more members came, wait again */
        int64_t initial = grp->g->cfg.initial_rebalance_delay_ms;
        int64_t delay =
            initial < grp->join_remaining_ms ? initial : grp->join_remaining_ms;
        int64_t rem = grp->join_remaining_ms - delay;
        grp->new_member_added = false;
        grp->join_remaining_ms = rem > 0 ? rem : 0;
        gr_timer_start(loop, t, delay);
        return;
    }
    complete_join(grp);
}

static void
sync_timer_cb(gr_loop_t *loop, gr_timer_t *t)
{
    gr_group_t *grp = t->data;
    gr_member_t *m, *next;
    int n = 0;
    (void)loop;
    if (grp->sync_generation != grp->generation ||
        (grp->state != GR_GROUP_COMPLETING_REBALANCE &&
         grp->state != GR_GROUP_STABLE))
        return;
    for (m = grp->members; m; m = next) {
        next = m->next;
        if (m->pending_sync) {
            group_remove(grp, m);
            n++;
        }
    }
    if (n > 0) {
        GR_LOG_INFO("group %s: removed %d member(s) who sent no SyncGroup",
                    grp->id, n);
        prepare_rebalance(grp, "pending sync expiration");
    }
}

/* Kafka's prepareRebalance. */
static void
prepare_rebalance(gr_group_t *grp, const char *reason)
{
    gr_groups_t *g = grp->g;
    int64_t delay;
    if (grp->state == GR_GROUP_COMPLETING_REBALANCE)
        reset_and_propagate_assignment_error(grp,
                                             GR_KERR_REBALANCE_IN_PROGRESS);
    sync_timer_stop(grp);
    for (gr_member_t *m = grp->members; m; m = m->next)
        m->pending_sync = false;
    grp->join_timer.cb = join_timer_cb;
    grp->join_timer.data = grp;
    if (grp->state == GR_GROUP_EMPTY) {
        int64_t rt = rebalance_timeout(grp);
        grp->join_kind = JOIN_INITIAL;
        delay = g->cfg.initial_rebalance_delay_ms;
        grp->join_remaining_ms = rt - delay > 0 ? rt - delay : 0;
    } else {
        grp->join_kind = JOIN_DELAYED;
        delay = rebalance_timeout(grp);
    }
    GR_LOG_INFO("preparing to rebalance group %s in state %s with old "
                "generation %d (reason: %s)",
                grp->id, gr_group_state_str(grp->state), grp->generation,
                reason);
    gr_group_transition(grp, GR_GROUP_PREPARING_REBALANCE);
    gr_timer_start(g->loop, &grp->join_timer, delay);
    /* Kafka's tryCompleteElseWatch: a DelayedJoin may be done at once */
    try_complete_join(grp);
}

static bool
all_joined(const gr_group_t *grp)
{
    return grp->nmembers == grp->num_awaiting_join && grp->npending == 0;
}

static void
try_complete_join(gr_group_t *grp)
{
    if (grp->state == GR_GROUP_PREPARING_REBALANCE &&
        grp->join_kind == JOIN_DELAYED && all_joined(grp))
        complete_join(grp);
}

static bool
maybe_elect_new_joined_leader(gr_group_t *grp)
{
    if (grp->leader == NULL)
        return false;
    if (grp->leader->awaiting_join)
        return true;
    for (gr_member_t *m = grp->members; m; m = m->next)
        if (m->awaiting_join) {
            grp->leader = m;
            return true;
        }
    return false;
}

static void
init_next_generation(gr_group_t *grp)
{
    grp->generation++;
    free(grp->protocol_name);
    grp->protocol_name = NULL;
    if (grp->members != NULL) {
        grp->protocol_name = select_protocol(grp);
        gr_group_compute_subscribed(grp);
        gr_group_transition(grp, GR_GROUP_COMPLETING_REBALANCE);
    } else {
        gr_group_compute_subscribed(grp);
        gr_group_transition(grp, GR_GROUP_EMPTY);
    }
    for (gr_member_t *m = grp->members; m; m = m->next)
        m->pending_sync = false;
}

/* Kafka's onCompleteJoin. */
static void
complete_join(gr_group_t *grp)
{
    gr_groups_t *g = grp->g;
    gr_member_t *m, *next;
    const char *leader_id;

    if (grp->state != GR_GROUP_PREPARING_REBALANCE)
        return;
    gr_timer_stop(g->loop, &grp->join_timer);
    grp->join_kind = JOIN_NONE;
    /* dynamic members that did not rejoin in time are out */
    for (m = grp->members; m; m = next) {
        next = m->next;
        if (!m->awaiting_join && m->group_instance_id == NULL) {
            GR_LOG_INFO("group %s: removing member %s, which did not rejoin",
                        grp->id, m->member_id);
            group_remove(grp, m);
        }
    }
    if (!maybe_elect_new_joined_leader(grp) && grp->members != NULL) {
        /* only static members that have not rejoined: wait again until
         * their sessions expire */
        GR_LOG_WARN("group %s could not complete rebalance because no "
                    "members rejoined",
                    grp->id);
        grp->join_kind = JOIN_DELAYED;
        gr_timer_start(g->loop, &grp->join_timer, rebalance_timeout(grp));
        return;
    }
    init_next_generation(grp);
    if (grp->state == GR_GROUP_EMPTY) {
        gr_kerr_t err = gr_store_group(grp, NULL);
        GR_LOG_INFO("group %s with generation %d is now empty", grp->id,
                    grp->generation);
        if (err != GR_KERR_NONE)
            GR_LOG_WARN("failed to write empty metadata for group %s: %s",
                        grp->id, gr_kerr_name(err));
        return;
    }
    GR_LOG_INFO("stabilized group %s generation %d (%s) with %d member(s)",
                grp->id, grp->generation, grp->protocol_name, grp->nmembers);
    leader_id = grp->leader ? grp->leader->member_id : "";
    for (m = grp->members; m; m = next) {
        next = m->next;
        fire_join(m, m == grp->leader, leader_id, false);
        m->is_new = false;
        m->pending_sync = true;
        gr_member_heartbeat(m, m->session_timeout_ms);
    }
    /* Kafka's DelayedSync: members that never send SyncGroup are removed */
    grp->sync_generation = grp->generation;
    grp->sync_timer.cb = sync_timer_cb;
    grp->sync_timer.data = grp;
    gr_timer_start(g->loop, &grp->sync_timer, rebalance_timeout(grp));
}

/* --- JoinGroup */

static bool
accept_joining_member(gr_group_t *grp, const gr_str_t *member_id)
{
    gr_member_t *m =
        member_id->len > 0 ? gr_group_member(grp, member_id) : NULL;
    int32_t max = grp->g->cfg.max_size;
    switch (grp->state) {
    case GR_GROUP_EMPTY:
    case GR_GROUP_DEAD:
        return true;
    case GR_GROUP_PREPARING_REBALANCE:
        return (m != NULL && m->awaiting_join) || grp->num_awaiting_join < max;
    case GR_GROUP_COMPLETING_REBALANCE:
    case GR_GROUP_STABLE:
        return m != NULL || grp->nmembers < max;
    }
    return false;
}

/* Kafka's updateMember: new protocols and timeouts, and w as the member's
 * pending join (an earlier one still pending is answered first). */
static void
update_member(gr_member_t *m, const gr_group_join_args_t *a,
              gr_group_waiter_t *w)
{
    gr_member_set_protocols(m, a->protocols, a->nprotocols);
    m->session_timeout_ms = a->session_timeout_ms;
    m->rebalance_timeout_ms = a->rebalance_timeout_ms >= 0
                                  ? a->rebalance_timeout_ms
                                  : a->session_timeout_ms;
    if (m->join_waiter != NULL) {
        gr_group_join_result_t r;
        memset(&r, 0, sizeof r);
        r.error = GR_KERR_REBALANCE_IN_PROGRESS;
        r.generation_id = -1;
        r.leader_id = "";
        r.member_id = m->member_id;
        gr_waiter_fire(&m->join_waiter, &r);
    }
    if (w != NULL) {
        if (!m->awaiting_join) {
            m->awaiting_join = true;
            m->grp->num_awaiting_join++;
        }
        gr_waiter_hold(&m->join_waiter, w);
    } else if (m->awaiting_join) {
        m->awaiting_join = false;
        m->grp->num_awaiting_join--;
    }
}

static void
add_member_and_rebalance(gr_group_t *grp, const char *member_id,
                         const gr_group_join_args_t *a, gr_group_waiter_t *w)
{
    gr_member_t *m = gr_member_new(grp, member_id, a);
    m->is_new = true;
    if (grp->state == GR_GROUP_PREPARING_REBALANCE && grp->generation == 0)
        grp->new_member_added = true;
    if (grp->nmembers == 0) {
        free(grp->protocol_type);
        grp->protocol_type = gr_group_strdup(&a->protocol_type);
    }
    group_add(grp, m, w);
    /* the new member cannot heartbeat before it has its id: Kafka bounds
     * its wait with the new-member timeout instead of the session */
    gr_member_heartbeat(m, grp->g->cfg.new_member_join_timeout_ms);
    maybe_prepare_rebalance(grp, "adding new member");
}

static void
update_member_and_rebalance(gr_group_t *grp, gr_member_t *m,
                            const gr_group_join_args_t *a, gr_group_waiter_t *w)
{
    update_member(m, a, w);
    maybe_prepare_rebalance(grp, "member rejoining with new metadata");
}

/* A known static member rejoins with no member id: it takes a new one and
 * the old one is fenced; in a Stable group with an unchanged protocol
 * there is no rebalance (Kafka's updateStaticMemberAndRebalance). */
static void
update_static_member(gr_group_t *grp, gr_member_t *m, const char *new_id,
                     const gr_group_join_args_t *a, gr_group_waiter_t *w)
{
    char *old_id = m->member_id;
    char *cur_leader = grp->leader ? strdup(grp->leader->member_id) : NULL;
    gr_member_proto_t *old_protos;
    int32_t old_nprotos, old_session, old_rebalance;

    /* the old instance's pending requests are fenced */
    if (m->join_waiter)
        fire_join_error(m, old_id, GR_KERR_FENCED_INSTANCE_ID);
    if (m->sync_waiter)
        fire_sync(m, GR_KERR_FENCED_INSTANCE_ID);
    m->member_id = strdup(new_id);
    GR_ASSERT(m->member_id != NULL);
    gr_member_heartbeat(m, m->session_timeout_ms);

    /* keep the old protocols to revert if the store fails */
    old_protos = m->protos;
    old_nprotos = m->nprotos;
    old_session = m->session_timeout_ms;
    old_rebalance = m->rebalance_timeout_ms;
    m->protos = NULL;
    m->nprotos = 0;
    update_member(m, a, w);

    switch (grp->state) {
    case GR_GROUP_STABLE: {
        char *sel = select_protocol(grp);
        bool same = grp->protocol_name && strcmp(sel, grp->protocol_name) == 0;
        free(sel);
        if (!same) {
            maybe_prepare_rebalance(grp, "static member joined with a change "
                                         "of protocol");
            break;
        }
        {
            gr_kerr_t err = gr_store_group(grp, NULL);
            if (err != GR_KERR_NONE) {
                /* revert: the old member id stays */
                gr_group_waiter_t *pw = m->join_waiter;
                gr_member_proto_t *np = m->protos;
                int32_t nn = m->nprotos;
                if (pw) {
                    *pw->slot = NULL;
                    pw->slot = NULL;
                }
                if (m->awaiting_join) {
                    m->awaiting_join = false;
                    grp->num_awaiting_join--;
                }
                m->protos = old_protos;
                m->nprotos = old_nprotos;
                old_protos = np;
                old_nprotos = nn;
                m->session_timeout_ms = old_session;
                m->rebalance_timeout_ms = old_rebalance;
                free(m->member_id);
                m->member_id = old_id;
                old_id = NULL;
                gr_member_heartbeat(m, m->session_timeout_ms);
                if (pw)
                    join_error(pw, m->member_id, err);
                break;
            }
            if (a->supports_skip_assignment && grp->leader == m)
                /* KIP-814: the leader learns it leads, without
                 * reassigning */
                fire_join(m, true, m->member_id, true);
            else
                /* the old leader id, so a rejoining leader does not
                 * compute an assignment nobody would receive */
                fire_join(m, false, cur_leader, false);
        }
        break;
    }
    case GR_GROUP_COMPLETING_REBALANCE:
        /* the leader may have the old id: rebalance */
        prepare_rebalance(grp, "static member rejoined during "
                               "CompletingRebalance");
        break;
    case GR_GROUP_PREPARING_REBALANCE:
        break;
    case GR_GROUP_EMPTY:
    case GR_GROUP_DEAD:
        prepare_rebalance(grp, "static member rejoined");
        break;
    }
    for (int32_t i = 0; i < old_nprotos; i++) {
        free(old_protos[i].name);
        free(old_protos[i].metadata);
    }
    free(old_protos);
    free(old_id);
    free(cur_leader);
}

static void
new_member_join(gr_group_t *grp, const gr_group_join_args_t *a,
                gr_group_waiter_t *w)
{
    char *new_id;
    if (grp->state == GR_GROUP_DEAD) {
        join_error(w, "", GR_KERR_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    if (!supports_protocols(grp, &a->protocol_type, a->protocols,
                            a->nprotocols)) {
        join_error(w, "", GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
        return;
    }
    new_id = gr_member_id_new(
        a->group_instance_id.len >= 0 ? &a->group_instance_id : &a->client_id);
    if (a->group_instance_id.len >= 0) {
        gr_member_t *old = gr_group_static_member(grp, &a->group_instance_id);
        if (old != NULL) {
            GR_LOG_INFO("static member %.*s of group %s rejoins with a new "
                        "member id %s, replacing %s",
                        (int)a->group_instance_id.len, a->group_instance_id.ptr,
                        grp->id, new_id, old->member_id);
            update_static_member(grp, old, new_id, a, w);
        } else {
            add_member_and_rebalance(grp, new_id, a, w);
        }
    } else if (a->require_known_member_id) {
        /* KIP-394: the member rejoins with this id */
        gr_pending_member_t *p = calloc(1, sizeof(*p));
        GR_ASSERT(p != NULL);
        p->grp = grp;
        p->member_id = strdup(new_id);
        GR_ASSERT(p->member_id != NULL);
        gr_timer_init_virtual(&p->timer, pending_expired, p);
        p->next = grp->pending;
        grp->pending = p;
        grp->npending++;
        gr_timer_start(grp->g->loop, &p->timer, a->session_timeout_ms);
        join_error(w, new_id, GR_KERR_MEMBER_ID_REQUIRED);
    } else {
        add_member_and_rebalance(grp, new_id, a, w);
    }
    free(new_id);
}

static void
current_member_join(gr_group_t *grp, const gr_group_join_args_t *a,
                    gr_group_waiter_t *w)
{
    gr_member_t *m;
    gr_kerr_t err;
    if (grp->state == GR_GROUP_DEAD) {
        join_error_str(w, &a->member_id, GR_KERR_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    if (!supports_protocols(grp, &a->protocol_type, a->protocols,
                            a->nprotocols)) {
        join_error_str(w, &a->member_id, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
        return;
    }
    if (gr_group_pending(grp, &a->member_id) != NULL) {
        char *id;
        if (a->group_instance_id.len >= 0) {
            /* pending ids are never static ones */
            join_error_str(w, &a->member_id, GR_KERR_UNKNOWN_MEMBER_ID);
            return;
        }
        id = gr_group_strdup(&a->member_id);
        add_member_and_rebalance(grp, id, a, w);
        free(id);
        return;
    }
    err = gr_group_validate_member(grp, &a->member_id, &a->group_instance_id,
                                   "join-group");
    if (err != GR_KERR_NONE) {
        join_error_str(w, &a->member_id, err);
        return;
    }
    m = gr_group_member(grp, &a->member_id);
    switch (grp->state) {
    case GR_GROUP_PREPARING_REBALANCE:
        update_member_and_rebalance(grp, m, a, w);
        break;
    case GR_GROUP_COMPLETING_REBALANCE:
        if (gr_member_matches(m, a->protocols, a->nprotocols)) {
            /* it missed the join answer: the same again */
            answer_join(m, w, m == grp->leader,
                        grp->leader ? grp->leader->member_id : "");
        } else {
            update_member_and_rebalance(grp, m, a, w);
        }
        break;
    case GR_GROUP_STABLE:
        if (m == grp->leader ||
            !gr_member_matches(m, a->protocols, a->nprotocols)) {
            /* the leader may rejoin to force a rebalance (new topics) */
            update_member_and_rebalance(grp, m, a, w);
        } else {
            answer_join(m, w, false,
                        grp->leader ? grp->leader->member_id : "");
        }
        break;
    case GR_GROUP_EMPTY:
    case GR_GROUP_DEAD:
        join_error_str(w, &a->member_id, GR_KERR_UNKNOWN_MEMBER_ID);
        break;
    }
}

static void
join(gr_groups_t *g, const gr_group_join_args_t *a, gr_group_waiter_t *w)
{
    int32_t part = -1;
    gr_kerr_t err = gr_groups_validate(g, &a->group_id, false, &part);
    gr_group_t *grp;

    if (err != GR_KERR_NONE) {
        join_error_str(w, &a->member_id, err);
        return;
    }
    if (a->session_timeout_ms < g->cfg.min_session_timeout_ms ||
        a->session_timeout_ms > g->cfg.max_session_timeout_ms) {
        join_error_str(w, &a->member_id, GR_KERR_INVALID_SESSION_TIMEOUT);
        return;
    }
    grp = gr_groups_find(g, &a->group_id);
    if (grp != NULL && grp->type == GR_GROUP_TYPE_CONSUMER) {
        /* Kafka's classicGroupJoin: an Empty consumer group gives way to
         * a classic one (offsets kept); classic members in a consumer
         * group (online migration) are not served: answered as Kafka
         * does with group.consumer.migration.policy=disabled */
        err = gr_cg_to_classic(grp);
        if (err != GR_KERR_NONE) {
            join_error_str(w, &a->member_id, err);
            return;
        }
        grp = gr_groups_find(g, &a->group_id);
    }
    if (grp == NULL) {
        if (a->member_id.len > 0) {
            join_error_str(w, &a->member_id, GR_KERR_UNKNOWN_MEMBER_ID);
            return;
        }
        grp = gr_groups_create(g, &a->group_id, part);
    }
    if (!accept_joining_member(grp, &a->member_id)) {
        gr_member_t *m =
            a->member_id.len > 0 ? gr_group_member(grp, &a->member_id) : NULL;
        if (m != NULL)
            remove_member_and_update(grp, m, "group is full");
        join_error(w, "", GR_KERR_GROUP_MAX_SIZE_REACHED);
    } else if (a->member_id.len == 0) {
        new_member_join(grp, a, w);
    } else {
        current_member_join(grp, a, w);
    }
    if (grp->state == GR_GROUP_PREPARING_REBALANCE)
        try_complete_join(grp);
    /* a group created by a join that failed holds nothing */
    if (grp->state == GR_GROUP_EMPTY && grp->nmembers == 0 &&
        grp->npending == 0 && grp->ocount == 0 && !grp->txn_offsets &&
        !grp->has_metadata)
        gr_groups_remove(g, grp);
}

bool
gr_group_join(gr_groups_t *g, const gr_group_join_args_t *a,
              gr_group_waiter_t *w)
{
    gr_waiter_begin(w);
    join(g, a, w);
    return gr_waiter_end();
}

/* --- SyncGroup */

static void
sync_group(gr_groups_t *g, const gr_group_sync_args_t *a, gr_group_waiter_t *w)
{
    int32_t part;
    gr_kerr_t err = gr_groups_validate(g, &a->group_id, false, &part);
    gr_group_t *grp;
    gr_member_t *m;

    if (err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS) {
        /* the rebalance state is lost with a load: rejoin (older clients
         * do not know the load error here) */
        sync_error(w, GR_KERR_REBALANCE_IN_PROGRESS);
        return;
    }
    if (err != GR_KERR_NONE) {
        sync_error(w, err);
        return;
    }
    grp = gr_groups_find(g, &a->group_id);
    if (grp == NULL) {
        sync_error(w, GR_KERR_UNKNOWN_MEMBER_ID);
        return;
    }
    if (grp->type == GR_GROUP_TYPE_CONSUMER) {
        /* no member of a consumer group uses the classic protocol */
        sync_error(w, gr_cg_classic_member_check(grp, &a->member_id,
                                                 &a->group_instance_id));
        return;
    }
    if (grp->state == GR_GROUP_DEAD) {
        sync_error(w, GR_KERR_COORDINATOR_NOT_AVAILABLE);
        return;
    }
    err = gr_group_validate_member(grp, &a->member_id, &a->group_instance_id,
                                   "sync-group");
    if (err != GR_KERR_NONE) {
        sync_error(w, err);
        return;
    }
    m = gr_group_member(grp, &a->member_id);
    if (a->generation_id != grp->generation) {
        sync_error(w, GR_KERR_ILLEGAL_GENERATION);
        return;
    }
    if ((a->protocol_type.len >= 0 &&
         (grp->protocol_type == NULL ||
          !gr_str_eq_cstr(&a->protocol_type, grp->protocol_type))) ||
        (a->protocol_name.len >= 0 &&
         (grp->protocol_name == NULL ||
          !gr_str_eq_cstr(&a->protocol_name, grp->protocol_name)))) {
        sync_error(w, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
        return;
    }
    switch (grp->state) {
    case GR_GROUP_EMPTY:
        sync_error(w, GR_KERR_UNKNOWN_MEMBER_ID);
        return;
    case GR_GROUP_PREPARING_REBALANCE:
        sync_error(w, GR_KERR_REBALANCE_IN_PROGRESS);
        return;
    case GR_GROUP_DEAD:
        sync_error(w, GR_KERR_COORDINATOR_NOT_AVAILABLE);
        return;
    case GR_GROUP_STABLE:
        remove_pending_sync(m);
        {
            gr_group_sync_result_t r;
            memset(&r, 0, sizeof r);
            r.protocol_type = grp->protocol_type;
            r.protocol_name = grp->protocol_name;
            r.assignment = (gr_bytes_t){ m->assignment, m->assignment_len };
            gr_waiter_now(w, &r);
        }
        gr_member_heartbeat(m, m->session_timeout_ms);
        return;
    case GR_GROUP_COMPLETING_REBALANCE:
        break;
    }
    if (m->sync_waiter != NULL)
        fire_sync(m, GR_KERR_REBALANCE_IN_PROGRESS);
    m->awaiting_sync = true;
    gr_waiter_hold(&m->sync_waiter, w);
    remove_pending_sync(m);
    if (m != grp->leader)
        return;
    {
        /* the leader's assignment: members it left out get none */
        gr_bytes_t *assign = calloc((size_t)grp->nmembers + 1, sizeof(*assign));
        int32_t i = 0;
        int32_t gen = grp->generation;
        GR_ASSERT(assign != NULL);
        for (gr_member_t *x = grp->members; x; x = x->next, i++) {
            gr_str_t id = gr_str_c(x->member_id);
            assign[i] = (gr_bytes_t){ NULL, 0 };
            for (int32_t k = 0; k < a->nassignments; k++)
                if (gr_str_eq(&a->assignments[k].member_id, &id)) {
                    assign[i] = a->assignments[k].assignment;
                    break;
                }
        }
        GR_LOG_INFO("assignment received from leader %s for group %s for "
                    "generation %d",
                    m->member_id, grp->id, gen);
        err = gr_store_group(grp, assign);
        if (grp->state == GR_GROUP_COMPLETING_REBALANCE &&
            grp->generation == gen) {
            if (err != GR_KERR_NONE) {
                reset_and_propagate_assignment_error(grp, err);
                maybe_prepare_rebalance(grp, "error storing the assignment");
            } else {
                i = 0;
                for (gr_member_t *x = grp->members; x; x = x->next, i++) {
                    int32_t len = assign[i].len > 0 ? assign[i].len : 0;
                    free(x->assignment);
                    x->assignment = malloc((size_t)len + 1);
                    GR_ASSERT(x->assignment != NULL);
                    if (len)
                        memcpy(x->assignment, assign[i].ptr, (size_t)len);
                    x->assignment_len = len;
                }
                gr_group_transition(grp, GR_GROUP_STABLE);
                for (gr_member_t *x = grp->members; x; x = x->next)
                    if (fire_sync(x, GR_KERR_NONE))
                        gr_member_heartbeat(x, x->session_timeout_ms);
            }
        }
        free(assign);
    }
}

bool
gr_group_sync(gr_groups_t *g, const gr_group_sync_args_t *a,
              gr_group_waiter_t *w)
{
    gr_waiter_begin(w);
    sync_group(g, a, w);
    return gr_waiter_end();
}

/* --- Heartbeat */

gr_kerr_t
gr_group_heartbeat(gr_groups_t *g, const gr_str_t *group_id,
                   const gr_str_t *member_id, const gr_str_t *iid,
                   int32_t generation_id)
{
    int32_t part;
    gr_kerr_t err = gr_groups_validate(g, group_id, false, &part);
    gr_group_t *grp;
    gr_member_t *m;

    if (err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS)
        return GR_KERR_NONE; /* Kafka answers blindly while loading */
    if (err != GR_KERR_NONE)
        return err;
    grp = gr_groups_find(g, group_id);
    if (grp == NULL)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    if (grp->type == GR_GROUP_TYPE_CONSUMER)
        return gr_cg_classic_member_check(grp, member_id, iid);
    if (grp->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    err = gr_group_validate_member(grp, member_id, iid, "heartbeat");
    if (err != GR_KERR_NONE)
        return err;
    m = gr_group_member(grp, member_id);
    if (generation_id != grp->generation)
        return GR_KERR_ILLEGAL_GENERATION;
    switch (grp->state) {
    case GR_GROUP_EMPTY:
    case GR_GROUP_DEAD:
        return GR_KERR_UNKNOWN_MEMBER_ID;
    case GR_GROUP_COMPLETING_REBALANCE:
    case GR_GROUP_STABLE:
        gr_member_heartbeat(m, m->session_timeout_ms);
        return GR_KERR_NONE;
    case GR_GROUP_PREPARING_REBALANCE:
        gr_member_heartbeat(m, m->session_timeout_ms);
        return GR_KERR_REBALANCE_IN_PROGRESS;
    }
    return GR_KERR_NONE;
}

/* --- LeaveGroup */

gr_kerr_t
gr_group_leave(gr_groups_t *g, const gr_str_t *group_id, gr_group_leaver_t *l,
               int32_t n)
{
    int32_t part;
    gr_kerr_t err = gr_groups_validate(g, group_id, false, &part);
    gr_group_t *grp;

    if (err != GR_KERR_NONE)
        return err;
    grp = gr_groups_find(g, group_id);
    if (grp == NULL) {
        for (int32_t i = 0; i < n; i++)
            l[i].error = GR_KERR_UNKNOWN_MEMBER_ID;
        return GR_KERR_NONE;
    }
    if (grp->type == GR_GROUP_TYPE_CONSUMER)
        return gr_cg_leave_members(grp, l, n);
    if (grp->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    /* Kafka's classicGroupLeaveToClassicGroup: no member id leaves a
     * static member by its instance id alone (KIP-345 admin removal); a
     * pending member id leaves at once; any other is validated as for the
     * other requests */
    for (int32_t i = 0; i < n; i++) {
        gr_pending_member_t *p;
        gr_member_t *m;
        if (l[i].member_id.len <= 0) {
            m = gr_group_static_member(grp, &l[i].group_instance_id);
            if (m == NULL) {
                l[i].error = GR_KERR_UNKNOWN_MEMBER_ID;
                continue;
            }
        } else {
            p = gr_group_pending(grp, &l[i].member_id);
            if (p != NULL) {
                remove_pending(grp, p);
                if (grp->state == GR_GROUP_PREPARING_REBALANCE)
                    try_complete_join(grp);
                l[i].error = GR_KERR_NONE;
                continue;
            }
            l[i].error = gr_group_validate_member(
                grp, &l[i].member_id, &l[i].group_instance_id, "leave-group");
            if (l[i].error != GR_KERR_NONE)
                continue;
            m = gr_group_member(grp, &l[i].member_id);
        }
        GR_LOG_INFO("member %s has left group %s through explicit LeaveGroup%s"
                    "%.*s",
                    m->member_id, grp->id, l[i].reason.len > 0 ? ": " : "",
                    l[i].reason.len > 0 ? (int)l[i].reason.len : 0,
                    l[i].reason.len > 0 ? l[i].reason.ptr : "");
        remove_member_and_update(grp, m, "member left");
        l[i].error = GR_KERR_NONE;
    }
    return GR_KERR_NONE;
}

/* --- life cycle */

void
gr_group_free(gr_group_t *grp)
{
    gr_loop_t *loop = grp->g->loop;
    gr_member_t *m, *next;
    gr_pending_member_t *p, *pn;
    gr_timer_stop(loop, &grp->join_timer);
    gr_timer_stop(loop, &grp->sync_timer);
    for (m = grp->members; m; m = next) {
        next = m->next;
        gr_timer_stop(loop, &m->hb_timer);
        gr_member_free(m);
    }
    for (p = grp->pending; p; p = pn) {
        pn = p->next;
        gr_timer_stop(loop, &p->timer);
        free(p->member_id);
        free(p);
    }
    gr_offsets_free_all(grp);
    gr_group_txn_free_all(grp);
    gr_cg_free(grp->cg);
    free_subscribed(grp);
    free(grp->protocol_type);
    free(grp->protocol_name);
    free(grp->id);
    free(grp);
}

/* Kafka's loadGroup: members loaded are Stable, and must heartbeat within
 * their session timeout or be removed. */
void
gr_group_loaded(gr_group_t *grp)
{
    grp->state = grp->members ? GR_GROUP_STABLE : GR_GROUP_EMPTY;
    gr_group_compute_subscribed(grp);
    for (gr_member_t *m = grp->members; m; m = m->next) {
        gr_timer_init_virtual(&m->hb_timer, hb_expired, m);
        gr_member_heartbeat(m, m->session_timeout_ms);
    }
}

/* --- DescribeGroups, DeleteGroups */

static const char *
adup(gr_arena_t *a, const char *s)
{
    return s ? gr_arena_strndup(a, s, strlen(s)) : NULL;
}

gr_kerr_t
gr_group_describe(gr_groups_t *g, const gr_str_t *group_id, gr_arena_t *a,
                  gr_group_summary_t *out)
{
    int32_t part;
    gr_kerr_t err = gr_groups_validate(g, group_id, true, &part);
    gr_group_t *grp;
    int32_t i = 0;

    memset(out, 0, sizeof(*out));
    out->state = "Dead";
    out->protocol_type = "";
    out->protocol = "";
    if (err != GR_KERR_NONE) {
        out->state = "";
        return err;
    }
    grp = gr_groups_find(g, group_id);
    if (grp == NULL)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    if (grp->type == GR_GROUP_TYPE_CONSUMER) {
        /* Kafka's describeGroups knows classic groups only */
        out->message = gr_arena_printf(a, "Group %s is not a classic group.",
                                       grp->id);
        return GR_KERR_GROUP_ID_NOT_FOUND;
    }
    out->state = gr_group_state_str(grp->state);
    out->protocol_type = grp->protocol_type ? adup(a, grp->protocol_type) : "";
    if (grp->state == GR_GROUP_STABLE && grp->protocol_name)
        out->protocol = adup(a, grp->protocol_name);
    out->members =
        gr_arena_zalloc(a, sizeof(*out->members) * (size_t)(grp->nmembers + 1));
    if (out->members == NULL || out->protocol_type == NULL ||
        out->protocol == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (gr_member_t *m = grp->members; m; m = m->next, i++) {
        gr_group_member_summary_t *s = &out->members[i];
        s->member_id = adup(a, m->member_id);
        s->group_instance_id = adup(a, m->group_instance_id);
        s->client_id = adup(a, m->client_id);
        s->client_host = adup(a, m->client_host);
        s->metadata = (gr_bytes_t){ NULL, 0 };
        s->assignment = (gr_bytes_t){ NULL, 0 };
        /* Kafka's describe / describeNoMetadata: the metadata of the
         * selected protocol only when Stable; the assignment in every
         * state (the last one the leader gave: a rebalance keeps it until
         * the next assignment, unless it interrupts CompletingRebalance,
         * which clears it) */
        if (grp->state == GR_GROUP_STABLE) {
            const gr_member_proto_t *p = gr_member_proto(m, grp->protocol_name);
            if (p && p->metadata_len)
                s->metadata =
                    (gr_bytes_t){ gr_arena_memdup(a, p->metadata,
                                                  (size_t)p->metadata_len),
                                  p->metadata_len };
        }
        if (m->assignment_len)
            s->assignment =
                (gr_bytes_t){ gr_arena_memdup(a, m->assignment,
                                              (size_t)m->assignment_len),
                              m->assignment_len };
        if (s->member_id == NULL || s->client_id == NULL ||
            s->client_host == NULL ||
            (s->assignment.len > 0 && s->assignment.ptr == NULL) ||
            (s->metadata.len > 0 && s->metadata.ptr == NULL))
            return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    out->nmembers = grp->nmembers;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_group_delete(gr_groups_t *g, const gr_str_t *group_id)
{
    int32_t part, n;
    gr_kerr_t err = gr_groups_validate(g, group_id, true, &part);
    gr_group_t *grp;
    gr_offset_t **v;

    if (err != GR_KERR_NONE)
        return err;
    grp = gr_groups_find(g, group_id);
    if (grp == NULL || grp->state == GR_GROUP_DEAD)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    if (grp->type == GR_GROUP_TYPE_CONSUMER)
        return gr_cg_delete(grp);
    /* members count, not member ids handed out (MEMBER_ID_REQUIRED) */
    if (grp->state != GR_GROUP_EMPTY)
        return GR_KERR_NON_EMPTY_GROUP;
    v = gr_offsets_sorted(grp, &n);
    err = gr_store_tombstones(grp, v, n, true);
    free(v);
    if (err != GR_KERR_NONE)
        return err;
    GR_LOG_INFO("group %s deleted (%d offset(s))", grp->id, n);
    grp->state = GR_GROUP_DEAD;
    gr_groups_remove(g, grp);
    return GR_KERR_NONE;
}
