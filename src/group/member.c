/*
 * Members of a classic group: their identity (member id, group.instance.id
 * for static members), the protocols they support with their metadata,
 * their assignment, and the waiters of their pending JoinGroup and
 * SyncGroup. Lookups by member id and by instance id. Loop thread only.
 */
#include "group/group_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
gr_group_strdup(const gr_str_t *s)
{
    char *p;
    if (s->len < 0)
        return NULL;
    p = malloc((size_t)s->len + 1);
    GR_ASSERT(p != NULL);
    if (s->len > 0)
        memcpy(p, s->ptr, (size_t)s->len);
    p[s->len] = '\0';
    return p;
}

void
gr_offset_set_metadata(gr_offset_t *o, const gr_str_t *m)
{
    static const gr_str_t empty = { "", 0 };
    o->metadata = gr_group_strdup(m->len >= 0 ? m : &empty);
    o->metadata_len = m->len >= 0 ? m->len : 0;
}

static bool
str_is(const char *c, const gr_str_t *s)
{
    return c != NULL && s->len >= 0 && gr_str_eq_cstr(s, c);
}

/* The waiter of the API call in progress (loop thread only; API calls do
 * not nest: callbacks only reply). */
static _Thread_local gr_group_waiter_t *current; /* per loop thread */
static _Thread_local bool current_fired;

void
gr_waiter_begin(gr_group_waiter_t *w)
{
    current = w;
    current_fired = false;
}

bool
gr_waiter_end(void)
{
    bool held = !current_fired;
    current = NULL;
    current_fired = false;
    return held;
}

void
gr_waiter_fire(gr_group_waiter_t **slot, const void *result)
{
    gr_group_waiter_t *w = *slot;
    if (w == NULL)
        return;
    *slot = NULL;
    w->slot = NULL;
    w->fired = true;
    if (w == current)
        current_fired = true;
    w->cb(w, result);
}

void
gr_waiter_hold(gr_group_waiter_t **slot, gr_group_waiter_t *w)
{
    GR_ASSERT(*slot == NULL && w->slot == NULL);
    *slot = w;
    w->slot = slot;
}

void
gr_waiter_now(gr_group_waiter_t *w, const void *result)
{
    GR_ASSERT(w->slot == NULL);
    w->fired = true;
    if (w == current)
        current_fired = true;
    w->cb(w, result);
}

void
gr_group_waiter_cancel(gr_group_waiter_t *w)
{
    if (w->slot != NULL)
        *w->slot = NULL;
    w->slot = NULL;
}

char *
gr_member_id_new(const gr_str_t *prefix)
{
    gr_uuid_t u;
    char *p;
    int n = prefix->len > 0 ? prefix->len : 0;
    gr_uuid_random(&u);
    p = malloc((size_t)n + 38);
    GR_ASSERT(p != NULL);
    /* Kafka: clientId + "-" + UUID.randomUUID() */
    snprintf(p, (size_t)n + 38,
             "%.*s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x"
             "%02x%02x",
             n, n ? prefix->ptr : "", u.b[0], u.b[1], u.b[2], u.b[3], u.b[4],
             u.b[5], (u.b[6] & 0x0f) | 0x40, u.b[7], (u.b[8] & 0x3f) | 0x80,
             u.b[9], u.b[10], u.b[11], u.b[12], u.b[13], u.b[14], u.b[15]);
    return p;
}

static void
protos_free(gr_member_t *m)
{
    for (int32_t i = 0; i < m->nprotos; i++) {
        free(m->protos[i].name);
        free(m->protos[i].metadata);
    }
    free(m->protos);
    m->protos = NULL;
    m->nprotos = 0;
}

int
gr_member_set_protocols(gr_member_t *m, const gr_group_protocol_t *p, int32_t n)
{
    gr_member_proto_t *np = calloc((size_t)(n > 0 ? n : 1), sizeof(*np));
    GR_ASSERT(np != NULL);
    for (int32_t i = 0; i < n; i++) {
        np[i].name = gr_group_strdup(&p[i].name);
        if (np[i].name == NULL)
            np[i].name = strdup("");
        np[i].metadata_len = p[i].metadata.len > 0 ? p[i].metadata.len : 0;
        np[i].metadata = malloc((size_t)np[i].metadata_len + 1);
        GR_ASSERT(np[i].name && np[i].metadata);
        if (np[i].metadata_len)
            memcpy(np[i].metadata, p[i].metadata.ptr,
                   (size_t)np[i].metadata_len);
    }
    protos_free(m);
    m->protos = np;
    m->nprotos = n;
    return 0;
}

bool
gr_member_matches(const gr_member_t *m, const gr_group_protocol_t *p, int32_t n)
{
    if (m->nprotos != n)
        return false;
    for (int32_t i = 0; i < n; i++) {
        int32_t len = p[i].metadata.len > 0 ? p[i].metadata.len : 0;
        if (!str_is(m->protos[i].name, &p[i].name) ||
            m->protos[i].metadata_len != len ||
            (len && memcmp(m->protos[i].metadata, p[i].metadata.ptr,
                           (size_t)len) != 0))
            return false;
    }
    return true;
}

const gr_member_proto_t *
gr_member_proto(const gr_member_t *m, const char *name)
{
    if (name == NULL)
        return NULL;
    for (int32_t i = 0; i < m->nprotos; i++)
        if (strcmp(m->protos[i].name, name) == 0)
            return &m->protos[i];
    return NULL;
}

gr_member_t *
gr_member_new(gr_group_t *grp, const char *member_id,
              const gr_group_join_args_t *a)
{
    gr_member_t *m = calloc(1, sizeof(*m));
    GR_ASSERT(m != NULL);
    m->grp = grp;
    gr_timer_init_virtual(&m->hb_timer, NULL, m); /* armed by group.c */
    m->member_id = strdup(member_id);
    m->group_instance_id = gr_group_strdup(&a->group_instance_id);
    m->client_id = gr_group_strdup(&a->client_id);
    m->client_host = gr_group_strdup(&a->client_host);
    if (m->client_id == NULL)
        m->client_id = strdup("");
    if (m->client_host == NULL)
        m->client_host = strdup("");
    GR_ASSERT(m->member_id && m->client_id && m->client_host);
    m->session_timeout_ms = a->session_timeout_ms;
    m->rebalance_timeout_ms = a->rebalance_timeout_ms >= 0
                                  ? a->rebalance_timeout_ms
                                  : a->session_timeout_ms;
    gr_member_set_protocols(m, a->protocols, a->nprotocols);
    return m;
}

void
gr_member_free(gr_member_t *m)
{
    if (m == NULL)
        return;
    /* never freed with a request waiting on it (see gr_group_remove) */
    GR_ASSERT(m->join_waiter == NULL && m->sync_waiter == NULL);
    protos_free(m);
    free(m->member_id);
    free(m->group_instance_id);
    free(m->client_id);
    free(m->client_host);
    free(m->assignment);
    free(m);
}

gr_member_t *
gr_group_member(gr_group_t *grp, const gr_str_t *member_id)
{
    for (gr_member_t *m = grp->members; m; m = m->next)
        if (str_is(m->member_id, member_id))
            return m;
    return NULL;
}

gr_member_t *
gr_group_static_member(gr_group_t *grp, const gr_str_t *iid)
{
    if (iid->len < 0)
        return NULL;
    for (gr_member_t *m = grp->members; m; m = m->next)
        if (str_is(m->group_instance_id, iid))
            return m;
    return NULL;
}

/* Kafka's ClassicGroup.validateMember: an instance id given must be a
 * static member's (UNKNOWN_MEMBER_ID) and have this member id
 * (FENCED_INSTANCE_ID); then the member id must be a member's. */
gr_kerr_t
gr_group_validate_member(gr_group_t *grp, const gr_str_t *member_id,
                         const gr_str_t *iid, const char *operation)
{
    if (iid->len >= 0) {
        gr_member_t *m = gr_group_static_member(grp, iid);
        if (m == NULL)
            return GR_KERR_UNKNOWN_MEMBER_ID;
        if (!str_is(m->member_id, member_id)) {
            GR_LOG_INFO("group %s: member %.*s of static member %.*s is "
                        "fenced by member %s during %s",
                        grp->id, member_id->len > 0 ? (int)member_id->len : 0,
                        member_id->len > 0 ? member_id->ptr : "", (int)iid->len,
                        iid->ptr, m->member_id, operation);
            return GR_KERR_FENCED_INSTANCE_ID;
        }
    }
    return gr_group_member(grp, member_id) != NULL ? GR_KERR_NONE
                                                   : GR_KERR_UNKNOWN_MEMBER_ID;
}

/* Kafka's isStaticMemberFenced: the instance id is known with another
 * member id. */
bool
gr_group_static_fenced(gr_group_t *grp, const gr_str_t *member_id,
                       const gr_str_t *iid)
{
    gr_member_t *m = gr_group_static_member(grp, iid);
    return m != NULL && !str_is(m->member_id, member_id);
}

gr_pending_member_t *
gr_group_pending(gr_group_t *grp, const gr_str_t *id)
{
    for (gr_pending_member_t *p = grp->pending; p; p = p->next)
        if (str_is(p->member_id, id))
            return p;
    return NULL;
}
