/*
 * The cluster model shared by every implementation: topic tables, lookups,
 * name rules, coordinator hashing. See cluster.h.
 */
#include "cluster/cluster.h"
#include "core/arena.h"
#include "core/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HSIZE_INIT 64

void
gr_cluster_model_init(gr_cluster_t *c)
{
    c->hsize = HSIZE_INIT;
    c->htab = calloc(c->hsize, sizeof(*c->htab));
    c->itab = calloc(c->hsize, sizeof(*c->itab));
    GR_ASSERT(c->htab && c->itab);
}

void
gr_config_list_free(gr_topic_config_t **list)
{
    gr_topic_config_t *cf, *next;
    for (cf = *list; cf; cf = next) {
        next = cf->next;
        free(cf->key);
        free(cf->value);
        free(cf);
    }
    *list = NULL;
}

static void
topic_free(gr_topic_t *t)
{
    for (int32_t i = 0; i < t->nparts; i++) {
        free(t->parts[i]->replicas);
        free(t->parts[i]->isr);
        free(t->parts[i]->repl); /* one block (partition/partition.h) */
        free(t->parts[i]);
    }
    free(t->parts);
    free(t->settings);
    gr_config_list_free(&t->configs);
    free(t->name);
    free(t);
}

void
gr_cluster_model_fini(gr_cluster_t *c)
{
    gr_topic_t *t, *next;
    for (t = c->topics; t; t = next) {
        next = t->lnext;
        topic_free(t);
    }
    for (int i = 0; i < c->nnodes; i++) {
        free(c->nodes[i].rack);
        free(c->nodes[i].endpoints);
    }
    free(c->nodes);
    gr_config_list_free(&c->broker_configs);
    gr_config_list_free(&c->default_broker_configs);
    gr_config_resources_free(&c->client_metrics);
    gr_config_resources_free(&c->client_quotas);
    free(c->htab);
    free(c->itab);
}

static void
rehash(gr_cluster_t *c)
{
    uint32_t n = c->hsize * 2;
    gr_topic_t **h = calloc(n, sizeof(*h)), **i = calloc(n, sizeof(*i));
    GR_ASSERT(h && i);
    for (gr_topic_t *t = c->topics; t; t = t->lnext) {
        uint32_t a = gr_hash(t->name, strlen(t->name)) & (n - 1);
        uint32_t b = gr_hash(t->id.b, 16) & (n - 1);
        t->hnext = h[a];
        h[a] = t;
        t->inext = i[b];
        i[b] = t;
    }
    free(c->htab);
    free(c->itab);
    c->htab = h;
    c->itab = i;
    c->hsize = n;
}

gr_topic_t *
gr_cluster_topic_add(gr_cluster_t *c, const char *name, const gr_uuid_t *id,
                     int32_t nparts, int16_t rf, bool internal)
{
    gr_topic_t *t = calloc(1, sizeof(*t));
    uint32_t a, b;
    if (t == NULL || (t->name = strdup(name)) == NULL) {
        free(t);
        return NULL;
    }
    t->id = *id;
    t->internal = internal;
    t->replication_factor = rf;
    (void)nparts;
    if ((uint32_t)c->ntopics + 1 > c->hsize)
        rehash(c);
    a = gr_hash(name, strlen(name)) & (c->hsize - 1);
    b = gr_hash(id->b, 16) & (c->hsize - 1);
    t->hnext = c->htab[a];
    c->htab[a] = t;
    t->inext = c->itab[b];
    c->itab[b] = t;
    if (c->topics_tail)
        c->topics_tail->lnext = t;
    else
        c->topics = t;
    c->topics_tail = t;
    c->ntopics++;
    return t;
}

void
gr_cluster_topic_remove(gr_cluster_t *c, gr_topic_t *t)
{
    gr_topic_t **pp, *prev = NULL;
    uint32_t a = gr_hash(t->name, strlen(t->name)) & (c->hsize - 1);
    uint32_t b = gr_hash(t->id.b, 16) & (c->hsize - 1);
    for (pp = &c->htab[a]; *pp; pp = &(*pp)->hnext)
        if (*pp == t) {
            *pp = t->hnext;
            break;
        }
    for (pp = &c->itab[b]; *pp; pp = &(*pp)->inext)
        if (*pp == t) {
            *pp = t->inext;
            break;
        }
    for (pp = &c->topics; *pp; prev = *pp, pp = &(*pp)->lnext)
        if (*pp == t) {
            *pp = t->lnext;
            if (c->topics_tail == t)
                c->topics_tail = prev;
            break;
        }
    c->ntopics--;
    topic_free(t);
}

int
gr_topic_add_partitions(gr_topic_t *t, int32_t new_total, int32_t leader,
                        const int32_t *replicas, int32_t nreplicas)
{
    gr_partition_t **parts;
    if (new_total <= t->nparts)
        return 0;
    parts = realloc(t->parts, (size_t)new_total * sizeof(*parts));
    if (parts == NULL)
        return -1;
    t->parts = parts;
    for (int32_t i = t->nparts; i < new_total; i++) {
        gr_partition_t *p = calloc(1, sizeof(*p));
        if (p == NULL)
            return -1;
        p->topic = t;
        p->id = i;
        p->leader = leader;
        p->leader_epoch = 0;
        p->state_version = -1;
        p->state_controller_epoch = -1;
        p->replicas = malloc((size_t)nreplicas * sizeof(int32_t));
        p->isr = malloc((size_t)nreplicas * sizeof(int32_t));
        if (p->replicas == NULL || p->isr == NULL) {
            free(p->replicas);
            free(p->isr);
            free(p);
            return -1;
        }
        memcpy(p->replicas, replicas, (size_t)nreplicas * sizeof(int32_t));
        memcpy(p->isr, replicas, (size_t)nreplicas * sizeof(int32_t));
        p->nreplicas = p->nisr = nreplicas;
        t->parts[i] = p;
        t->nparts = i + 1;
    }
    return 0;
}

gr_topic_t *
gr_cluster_topic(gr_cluster_t *c, const gr_str_t *name)
{
    uint32_t a;
    if (name->len <= 0)
        return NULL;
    a = gr_hash(name->ptr, (size_t)name->len) & (c->hsize - 1);
    for (gr_topic_t *t = c->htab[a]; t; t = t->hnext)
        if (strlen(t->name) == (size_t)name->len &&
            memcmp(t->name, name->ptr, (size_t)name->len) == 0)
            return t;
    return NULL;
}

gr_topic_t *
gr_cluster_topic_cstr(gr_cluster_t *c, const char *name)
{
    gr_str_t s = gr_str_c(name);
    return gr_cluster_topic(c, &s);
}

gr_topic_t *
gr_cluster_topic_by_id(gr_cluster_t *c, const gr_uuid_t *id)
{
    uint32_t b = gr_hash(id->b, 16) & (c->hsize - 1);
    for (gr_topic_t *t = c->itab[b]; t; t = t->inext)
        if (gr_uuid_eq(&t->id, id))
            return t;
    return NULL;
}

gr_partition_t *
gr_cluster_partition(gr_cluster_t *c, const gr_str_t *topic, int32_t partition)
{
    gr_topic_t *t = gr_cluster_topic(c, topic);
    if (t == NULL || partition < 0 || partition >= t->nparts)
        return NULL;
    return t->parts[partition];
}

const gr_node_t *
gr_cluster_node(gr_cluster_t *c, int32_t id)
{
    for (int i = 0; i < c->nnodes; i++)
        if (c->nodes[i].id == id)
            return &c->nodes[i];
    return NULL;
}

const gr_endpoint_t *
gr_node_endpoint(const gr_node_t *n, const char *listener)
{
    for (int i = 0; i < n->nendpoints; i++)
        if (strcmp(n->endpoints[i].listener, listener) == 0)
            return &n->endpoints[i];
    return NULL;
}

/* The length Java's String.length() gives name: UTF-16 code units of its
 * UTF-8 decoding, where each malformed sequence (its longest valid start,
 * or one byte) is one replacement character, as Java's decoder counts. */
static int64_t
java_length(const gr_str_t *name)
{
    const unsigned char *p = (const unsigned char *)name->ptr;
    int32_t n = name->len, i = 0;
    int64_t units = 0;

    while (i < n) {
        unsigned char c = p[i];
        int need, k;
        unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
        if (c < 0x80) {
            units++;
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            need = 1;
        else if (c >= 0xe0 && c <= 0xef)
            need = 2;
        else if (c >= 0xf0 && c <= 0xf4)
            need = 3;
        else
            need = 0;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
        else if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
        for (k = 0; k < need && i + 1 + k < n; k++) {
            unsigned char d = p[i + 1 + k];
            if (k == 0 ? (d < lo || d > hi) : (d < 0x80 || d > 0xbf))
                break;
        }
        if (need > 0 && k == need) {
            units += need == 3 ? 2 : 1; /* beyond the BMP: a surrogate pair */
            i += 1 + need;
        } else {
            units++; /* U+FFFD for the malformed part */
            i += 1 + k;
        }
    }
    return units;
}

static bool
legal_chars(const gr_str_t *name)
{
    for (int32_t i = 0; i < name->len; i++) {
        char ch = name->ptr[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
            return false;
    }
    return true;
}

/* Kafka's Topic.validate messages ("Topic name is invalid: " and its
 * detectInvalidTopic reason), in that order of checks; the two that name
 * the topic are in a (the reason alone, without the name, when a is NULL
 * or full). */
const char *
gr_topic_name_error(const gr_str_t *name, gr_arena_t *a)
{
    static const char pre[] = "Topic name is invalid: ";
    const char *before, *after;
    size_t nb, na, len;
    char *m;

    if (name->len <= 0)
        return "Topic name is invalid: the empty string is not allowed";
    if (name->len == 1 && name->ptr[0] == '.')
        return "Topic name is invalid: '.' is not allowed";
    if (name->len == 2 && name->ptr[0] == '.' && name->ptr[1] == '.')
        return "Topic name is invalid: '..' is not allowed";
    if (java_length(name) > GR_TOPIC_NAME_MAX) {
        before = "the length of '";
        after = "' is longer than the max allowed length 249";
    } else if (!legal_chars(name)) {
        before = "'";
        after = "' contains one or more characters other than ASCII "
                "alphanumerics, '.', '_' and '-'";
    } else {
        return NULL;
    }
    /* the name's bytes as they came (a NUL among them ends the message
     * for callers, which take it as a C string; Kafka's goes on) */
    nb = strlen(before);
    na = strlen(after);
    len = sizeof pre - 1 + nb + (size_t)name->len + na;
    m = a != NULL ? gr_arena_alloc(a, len + 1) : NULL;
    if (m == NULL)
        return before[1] != '\0'
                   ? "Topic name is invalid: it is longer than the max "
                     "allowed length 249"
                   : "Topic name is invalid: it contains one or more "
                     "characters other than ASCII alphanumerics, '.', '_' "
                     "and '-'";
    memcpy(m, pre, sizeof pre - 1);
    memcpy(m + sizeof pre - 1, before, nb);
    memcpy(m + sizeof pre - 1 + nb, name->ptr, (size_t)name->len);
    memcpy(m + sizeof pre - 1 + nb + (size_t)name->len, after, na + 1);
    return m;
}

const char *
gr_topic_name_invalid(const gr_str_t *name)
{
    return gr_topic_name_error(name, NULL);
}

gr_kerr_t
gr_cluster_topic_spec_check(gr_cluster_t *c, const gr_topic_spec_t *spec,
                            int16_t *rf_out, const char **msg)
{
    gr_str_t name = gr_str_c(spec->name);
    int32_t nparts = spec->nparts;
    int16_t rf = spec->replication_factor;
    const char *why;

    if ((why = gr_topic_name_invalid(&name)) != NULL) {
        *msg = why;
        return GR_KERR_INVALID_TOPIC_EXCEPTION;
    }
    if (gr_cluster_topic(c, &name) != NULL) {
        *msg = "Topic already exists.";
        return GR_KERR_TOPIC_ALREADY_EXISTS;
    }
    if (nparts < 1 || nparts > 1000000) {
        *msg = "Number of partitions must be larger than 0.";
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (rf < 1) {
        *msg = "Replication factor must be larger than 0.";
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    }
    if (rf > c->nnodes) {
        if (spec->internal) {
            GR_LOG_INFO("internal topic %s: replication factor %d capped to "
                        "the %d live broker(s)",
                        spec->name, rf, c->nnodes);
            rf = (int16_t)c->nnodes;
        } else {
            *msg = "Replication factor is larger than the number of "
                   "available brokers.";
            return GR_KERR_INVALID_REPLICATION_FACTOR;
        }
    }
    if (spec->assignment == NULL && gr_cluster_racks_mixed(c)) {
        GR_LOG_WARN("topic %s: not all brokers have rack information for "
                    "replica rack aware assignment",
                    spec->name);
        *msg = NULL; /* Kafka's AdminOperationException */
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (spec->assignment) {
        for (int32_t p = 0; p < nparts; p++)
            for (int16_t r = 0; r < rf; r++)
                if (gr_cluster_node(c, spec->assignment[p][r]) == NULL) {
                    *msg = "Replica assignment names a broker that does not "
                           "exist.";
                    return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
                }
    }
    *rf_out = rf;
    return GR_KERR_NONE;
}

void
gr_cluster_place_replicas(const int32_t *brokers, int nb, int32_t nparts,
                          int16_t rf, int start, int shift, int32_t *rows)
{
    for (int32_t p = 0; p < nparts; p++) {
        int first = (int)((p + start) % nb);
        int32_t *row = &rows[(size_t)p * (size_t)rf];
        if (p > 0 && p % nb == 0)
            shift++;
        row[0] = brokers[first];
        for (int j = 0; j < rf - 1; j++)
            row[1 + j] = brokers[(first + 1 + (shift + j) % (nb - 1)) % nb];
    }
}

static int
rack_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
gr_cluster_place_replicas_rack(const int32_t *brokers,
                               const char *const *racks, int nb,
                               int32_t nparts, int16_t rf, int start,
                               int shift, int32_t *rows)
{
    const char **names = malloc((size_t)nb * sizeof *names);
    int *rack_of = malloc((size_t)nb * sizeof *rack_of); /* by broker */
    int32_t *list = malloc((size_t)nb * sizeof *list);
    int *list_rack = malloc((size_t)nb * sizeof *list_rack);
    bool *rack_used = malloc((size_t)nb * sizeof *rack_used);
    bool *broker_used = malloc((size_t)nb * sizeof *broker_used);
    bool *taken = calloc((size_t)nb, sizeof *taken);
    int nracks = 0, rc = -1;

    if (names == NULL || rack_of == NULL || list == NULL ||
        list_rack == NULL || rack_used == NULL || broker_used == NULL ||
        taken == NULL)
        goto out;
    /* the distinct racks, sorted */
    for (int i = 0; i < nb; i++)
        names[i] = racks[i];
    qsort(names, (size_t)nb, sizeof *names, rack_cmp);
    for (int i = 0; i < nb; i++)
        if (nracks == 0 || strcmp(names[nracks - 1], names[i]) != 0)
            names[nracks++] = names[i];
    for (int i = 0; i < nb; i++)
        for (int r = 0; r < nracks; r++)
            if (strcmp(racks[i], names[r]) == 0)
                rack_of[i] = r;
    /* getRackAlternatedBrokerList: each rack's next broker (by id) in
     * turn, a rack with none left skipped */
    for (int n = 0, r = 0; n < nb; r = (r + 1) % nracks)
        for (int i = 0; i < nb; i++)
            if (!taken[i] && rack_of[i] == r) {
                taken[i] = true;
                list_rack[n] = r;
                list[n++] = brokers[i];
                break;
            }
    for (int32_t p = 0; p < nparts; p++) {
        int first = (int)((p + start) % nb), nrack = 1, nbroker = 1, k = 0;
        int32_t *row = &rows[(size_t)p * (size_t)rf];
        if (p > 0 && p % nb == 0)
            shift++;
        memset(rack_used, 0, (size_t)nb * sizeof *rack_used);
        memset(broker_used, 0, (size_t)nb * sizeof *broker_used);
        row[0] = list[first];
        rack_used[list_rack[first]] = true;
        broker_used[first] = true;
        for (int j = 1; j < rf; j++)
            for (;; k++) {
                int at = (first + 1 + (shift * nracks + k) % (nb - 1)) % nb;
                if ((!rack_used[list_rack[at]] || nrack == nracks) &&
                    (!broker_used[at] || nbroker == nb)) {
                    row[j] = list[at];
                    nrack += !rack_used[list_rack[at]];
                    nbroker += !broker_used[at];
                    rack_used[list_rack[at]] = true;
                    broker_used[at] = true;
                    k++;
                    break;
                }
            }
    }
    rc = 0;
out:
    free(names);
    free(rack_of);
    free(list);
    free(list_rack);
    free(rack_used);
    free(broker_used);
    free(taken);
    return rc;
}

bool
gr_cluster_racks_mixed(const gr_cluster_t *c)
{
    for (int i = 1; i < c->nnodes; i++)
        if ((c->nodes[i].rack == NULL) != (c->nodes[0].rack == NULL))
            return true;
    return false;
}

int
gr_cluster_place(const gr_cluster_t *c, int32_t nparts, int16_t rf,
                 int start, int shift, int32_t *rows)
{
    int32_t *ids = malloc((size_t)c->nnodes * sizeof *ids);
    const char **racks = malloc((size_t)c->nnodes * sizeof *racks);
    bool aware = c->nnodes > 0;
    int rc = -1;

    if (ids != NULL && racks != NULL) {
        for (int i = 0; i < c->nnodes; i++) {
            ids[i] = c->nodes[i].id;
            racks[i] = c->nodes[i].rack;
            aware = aware && racks[i] != NULL;
        }
        rc = 0;
        if (aware)
            rc = gr_cluster_place_replicas_rack(ids, racks, c->nnodes, nparts,
                                                rf, start, shift, rows);
        else
            gr_cluster_place_replicas(ids, c->nnodes, nparts, rf, start,
                                      shift, rows);
    }
    free(ids);
    free(racks);
    return rc;
}

gr_kerr_t
gr_cluster_create_topic(gr_cluster_t *c, const gr_topic_spec_t *spec,
                        gr_topic_t **out, const char **msg)
{
    if (c->remote != NULL)
        return c->remote->create_topic(c->remote_arg, spec, out, msg);
    return c->ops->create_topic(c, spec, out, msg);
}

gr_kerr_t
gr_cluster_delete_topic(gr_cluster_t *c, gr_topic_t *t)
{
    if (c->remote != NULL)
        return c->remote->delete_topic(c->remote_arg, t);
    return c->ops->delete_topic(c, t);
}

void
gr_cluster_set_workers(gr_cluster_t *c, struct gr_workers *workers)
{
    c->workers = workers;
}

void
gr_cluster_deletions_done(gr_cluster_t *c)
{
    c->ops->deletions_done(c);
}

gr_kerr_t
gr_cluster_create_partitions(gr_cluster_t *c, gr_topic_t *t, int32_t new_total,
                             const int32_t *const *assignment,
                             bool validate_only, const char **msg)
{
    if (c->remote != NULL)
        return c->remote->create_partitions(c->remote_arg, t, new_total,
                                            assignment, validate_only, msg);
    return c->ops->create_partitions(c, t, new_total, assignment, validate_only,
                                     msg);
}

gr_kerr_t
gr_cluster_store_topic_config(gr_cluster_t *c, gr_topic_t *t)
{
    if (c->remote != NULL)
        return c->remote->store_topic_config(c->remote_arg, t);
    return c->ops->store_topic_config(c, t);
}

void
gr_cluster_store_broker_config(gr_cluster_t *c, bool per_broker,
                               const gr_topic_config_t *list,
                               gr_cluster_stored_cb done, void *arg)
{
    c->ops->store_broker_config(c, per_broker, list, done, arg);
}

void
gr_cluster_store_client_metrics(gr_cluster_t *c,
                                const gr_config_resource_t *list,
                                gr_cluster_stored_cb done, void *arg)
{
    c->ops->store_client_metrics(c, list, done, arg);
}

void
gr_cluster_store_acls(gr_cluster_t *c, char *data, size_t len,
                      gr_cluster_stored_cb done, void *arg)
{
    c->ops->store_acls(c, data, len, done, arg);
}

int
gr_cluster_load_acls(gr_cluster_t *c, char **data, size_t *len)
{
    return c->ops->load_acls(c, data, len);
}

void
gr_cluster_store_client_quotas(gr_cluster_t *c,
                               const gr_config_resource_t *list,
                               gr_cluster_stored_cb done, void *arg)
{
    c->ops->store_client_quotas(c, list, done, arg);
}

void
gr_cluster_sync(gr_cluster_t *c, gr_cluster_sync_cb cb, void *arg)
{
    if (c->remote != NULL)
        c->remote->sync(c->remote_arg, cb, arg);
    else
        c->ops->sync(c, cb, arg);
}

int
gr_cluster_load(gr_cluster_t *c)
{
    return c->ops->load(c);
}

void
gr_cluster_destroy(gr_cluster_t *c)
{
    if (c == NULL)
        return;
    c->ops->destroy(c);
}

const char *
gr_config_list_get(const gr_topic_config_t *list, const char *key)
{
    for (const gr_topic_config_t *cf = list; cf; cf = cf->next)
        if (strcmp(cf->key, key) == 0)
            return cf->value;
    return NULL;
}

int
gr_config_list_set(gr_topic_config_t **list, const char *key, const char *value)
{
    gr_topic_config_t **pp, *cf;
    for (pp = list; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, key) == 0) {
            cf = *pp;
            if (value == NULL) {
                *pp = cf->next;
                free(cf->key);
                free(cf->value);
                free(cf);
                return 0;
            }
            char *v = strdup(value);
            if (v == NULL)
                return -1;
            free(cf->value);
            cf->value = v;
            return 0;
        }
    }
    if (value == NULL)
        return 0;
    cf = calloc(1, sizeof(*cf));
    if (cf == NULL)
        return -1;
    cf->key = strdup(key);
    cf->value = strdup(value);
    if (cf->key == NULL || cf->value == NULL) {
        free(cf->key);
        free(cf->value);
        free(cf);
        return -1;
    }
    *pp = cf;
    return 0;
}

const char *
gr_topic_config_get(const gr_topic_t *t, const char *key)
{
    return gr_config_list_get(t->configs, key);
}

int
gr_topic_config_set(gr_topic_t *t, const char *key, const char *value)
{
    t->settings_gen = 0; /* recompute cluster/topic_config.c's cache */
    return gr_config_list_set(&t->configs, key, value);
}

void
gr_topic_config_clear(gr_topic_t *t)
{
    t->settings_gen = 0;
    gr_config_list_free(&t->configs);
}

int32_t
gr_cluster_coord_partition(const gr_str_t *key, int32_t nparts)
{
    /* Java String.hashCode over UTF-16 code units; group ids are mostly
     * ASCII, and UTF-8 is decoded so non-ASCII ids hash as Kafka's do.
     * Kafka: Utils.abs(hashCode) % n, where abs(MIN_VALUE) is 0. */
    int32_t h = 0;
    const uint8_t *s = (const uint8_t *)key->ptr;
    int32_t i = 0, n = key->len > 0 ? key->len : 0;
    while (i < n) {
        uint32_t cp;
        uint8_t ch = s[i];
        int extra = ch < 0x80 ? 0 : ch < 0xe0 ? 1 : ch < 0xf0 ? 2 : 3;
        if (i + extra >= n)
            extra = 0; /* truncated sequence: take the byte as is */
        cp = extra == 0 ? ch : extra == 1 ? ch & 0x1f : extra == 2 ? ch & 0x0f
                                                                    : ch & 0x07;
        for (int k = 1; k <= extra; k++)
            cp = (cp << 6) | (s[i + k] & 0x3f);
        i += 1 + extra;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            h = (int32_t)(31u * (uint32_t)h + (0xd800 + (cp >> 10)));
            h = (int32_t)(31u * (uint32_t)h + (0xdc00 + (cp & 0x3ff)));
        } else {
            h = (int32_t)(31u * (uint32_t)h + cp);
        }
    }
    if (h == INT32_MIN)
        h = 0;
    else if (h < 0)
        h = -h;
    return nparts > 0 ? h % nparts : 0;
}

gr_topic_config_t *
gr_config_list_copy(const gr_topic_config_t *list, bool *oom)
{
    gr_topic_config_t *out = NULL, **tail = &out;
    *oom = false;
    for (const gr_topic_config_t *cf = list; cf; cf = cf->next) {
        gr_topic_config_t *n = calloc(1, sizeof(*n));
        if (n == NULL || (n->key = strdup(cf->key)) == NULL ||
            (n->value = strdup(cf->value)) == NULL) {
            if (n != NULL)
                free(n->key);
            free(n);
            gr_config_list_free(&out);
            *oom = true;
            return NULL;
        }
        *tail = n;
        tail = &n->next;
    }
    return out;
}

gr_config_resource_t *
gr_config_resource_find(gr_config_resource_t *list, const char *name)
{
    for (; list; list = list->next)
        if (strcmp(list->name, name) == 0)
            return list;
    return NULL;
}

int
gr_config_resource_set(gr_config_resource_t **list, const char *name,
                       gr_topic_config_t *configs)
{
    gr_config_resource_t **pp, *r;
    for (pp = list; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->name, name) == 0)
            break;
    r = *pp;
    if (r == NULL) {
        if (configs == NULL)
            return 0;
        if ((r = calloc(1, sizeof(*r))) == NULL ||
            (r->name = strdup(name)) == NULL) {
            free(r);
            return -1;
        }
        *pp = r;
    } else if (configs == NULL) {
        *pp = r->next;
        gr_config_list_free(&r->configs);
        free(r->name);
        free(r);
        return 0;
    }
    gr_config_list_free(&r->configs);
    r->configs = configs;
    return 0;
}

void
gr_config_resources_free(gr_config_resource_t **list)
{
    gr_config_resource_t *r, *next;
    for (r = *list; r; r = next) {
        next = r->next;
        gr_config_list_free(&r->configs);
        free(r->name);
        free(r);
    }
    *list = NULL;
}
