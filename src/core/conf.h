/*
 * Broker configuration, by Kafka's server.properties names. Keys Gregor
 * implements are in conf.def; other keys Kafka knows (kafka_keys.def) are
 * accepted and logged once as not used; keys Kafka does not know either are
 * logged as unknown, as Kafka does. An invalid value for an implemented key is
 * an error naming key and value.
 */
#ifndef GR_CORE_CONF_H
#define GR_CORE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gr_conf_id {
#define X(id, name, type, def, min, max) GR_CONF_##id,
#include "core/conf.def"
#undef X
    GR_CONF__COUNT
} gr_conf_id_t;

typedef struct gr_conf gr_conf_t;

gr_conf_t *gr_conf_new(void);
void gr_conf_destroy(gr_conf_t *conf);
/* Reads a Java properties file. 0, or -1 with a logged error. */
int gr_conf_load_file(gr_conf_t *conf, const char *path);
/* Sets key=value (later sets win). 0, or -1 if "key=value" is malformed. */
int gr_conf_set(gr_conf_t *conf, const char *key, const char *value);
int gr_conf_set_kv(gr_conf_t *conf, const char *kv);
/* Checks every value, logs unused and unknown keys. 0 or -1 (logged). */
int gr_conf_finish(gr_conf_t *conf);

int64_t gr_conf_int(const gr_conf_t *conf, gr_conf_id_t id);
bool gr_conf_bool(const gr_conf_t *conf, gr_conf_id_t id);
/* NULL when neither set nor defaulted. */
const char *gr_conf_str(const gr_conf_t *conf, gr_conf_id_t id);
bool gr_conf_is_set(const gr_conf_t *conf, gr_conf_id_t id);
const char *gr_conf_name(gr_conf_id_t id);
/* -1 if name is not a key Gregor implements. */
int gr_conf_lookup(const char *name);

/* Dynamic configuration (AlterConfigs on the BROKER resource): two layers
 * above the static one, as Kafka's DynamicBrokerConfig. Precedence, first
 * wins: this broker's dynamic value, the cluster-wide dynamic default, the
 * static value (file, --override), Kafka's default. gr_conf_int/str/bool
 * and the derived values below give the effective value. */
typedef enum gr_conf_layer {
    GR_CONF_DYNAMIC_BROKER = 0,
    GR_CONF_DYNAMIC_DEFAULT = 1,
    GR_CONF_STATIC = 2,
    GR_CONF_DEFAULT = 3,
} gr_conf_layer_t;

/* The value of id in one layer, NULL when that layer has none. */
const char *gr_conf_layer_str(const gr_conf_t *conf, gr_conf_id_t id,
                              gr_conf_layer_t layer);
/* Checks value against id's type and range: NULL when valid, else msg
 * (n bytes, filled) naming key and value. */
const char *gr_conf_check(gr_conf_id_t id, const char *value, char *msg,
                          size_t n);
/* Sets (value) or removes (NULL) id in a dynamic layer; the effective value
 * changes at once. 0, or -1 when value is invalid (gr_conf_check) or on
 * ENOMEM. */
int gr_conf_set_dynamic(gr_conf_t *conf, gr_conf_layer_t layer, gr_conf_id_t id,
                        const char *value);
/* The i-th key Gregor does not implement, as given (static layer); false
 * past the end. Pointers valid while conf lives. */
bool gr_conf_extra_at(const gr_conf_t *conf, int i, const char **key,
                      const char **value);
/* The value of a key Gregor does not implement (listener.name.<l>.<key>
 * overrides among them), NULL when not given. */
const char *gr_conf_extra_get(const gr_conf_t *conf, const char *key);
/* Whether id's value is secret (PASSWORD: never logged nor described). */
bool gr_conf_is_sensitive(gr_conf_id_t id);
/* Whether name is a key Kafka knows (kafka_keys.def, listener prefixes). */
bool gr_conf_is_kafka_key(const char *name);

/* Derived values with Kafka's precedence (ms over minutes over hours). */
int64_t gr_conf_retention_ms(const gr_conf_t *conf);
int64_t gr_conf_roll_ms(const gr_conf_t *conf);
/* node.id, else broker.id, else 1. */
int32_t gr_conf_node_id(const gr_conf_t *conf);
/* log.dirs, else log.dir: the first directory (Gregor uses one). */
const char *gr_conf_log_dir(const gr_conf_t *conf);

/* max.connections.per.ip.overrides as Kafka parses it (Csv.parseCsvMap,
 * Integer.parseInt of each count, Utils.validHostPattern of each host):
 * items split at commas and the blanks around them (trailing empty items
 * dropped, others an error), each "host:count" split at its last colon (so
 * "::1:100" is host ::1), both trimmed. Calls fn(host, count, arg) for each
 * item in order (fn may be NULL: only check). NULL when valid, else msg (n
 * bytes, filled) in Kafka's words, e.g. "For input string: \"x\"". */
typedef void (*gr_conf_override_fn)(const char *host, int32_t count,
                                    void *arg);
const char *gr_conf_ip_overrides(const char *value, gr_conf_override_fn fn,
                                 void *arg, char *msg, size_t n);
/* The listener-level settings Kafka reads under a listener's prefix,
 * listener.name.<name in lower case>.<key>, that Gregor honours
 * (max.connections, max.connection.creation.rate): for such a key the id
 * of its base key, with the listener part (as written) in listener (n
 * bytes); else -1. */
int gr_conf_listener_key(const char *key, char *listener, size_t n);

/* Splits a LIST value into trimmed items; returns the count (at most max). */
int gr_conf_list_split(const char *value, char *buf, size_t bufsize,
                       const char **items, int max);

#endif
