/*
 * CLIENT_METRICS config resources (KIP-714 subscriptions), as Kafka's
 * ClientMetricsConfigs defines and checks them. Three keys:
 *
 *   metrics      LIST  default ""      metric name prefixes a client is
 *                                      asked for; "*": all; empty: none
 *   interval.ms  INT   default 300000  the push interval, 100..3600000
 *   match        LIST  default ""      selector=regex items, all of which
 *                                      a client must match (none: every
 *                                      client); selectors are below
 *
 * Values are strings as the config APIs carry them; a list is parsed as
 * Kafka's ConfigDef parses one (trimmed, split at commas with the blanks
 * around them, duplicates dropped). A regex is Java's syntax, as Kafka compiles it, through
 * core/regex.h (so Java-only constructs are refused as illegal), and must
 * match the whole attribute (Matcher.matches()).
 */
#ifndef GR_TELEMETRY_CLIENT_METRICS_H
#define GR_TELEMETRY_CLIENT_METRICS_H

#include "core/arena.h"
#include "core/regex.h"
#include "proto/kerr.h"

#include <stdbool.h>
#include <stdint.h>

#define GR_CM_METRICS     "metrics"
#define GR_CM_INTERVAL_MS "interval.ms"
#define GR_CM_MATCH       "match"

#define GR_CM_INTERVAL_DEFAULT 300000
#define GR_CM_INTERVAL_MIN     100
#define GR_CM_INTERVAL_MAX     3600000

/* The selectors of match, the client instance's attributes (Kafka's
 * ClientMetricsInstanceMetadata), in this order. */
typedef enum gr_cm_attr {
    GR_CM_CLIENT_INSTANCE_ID = 0,
    GR_CM_CLIENT_ID,
    GR_CM_CLIENT_SOFTWARE_NAME,
    GR_CM_CLIENT_SOFTWARE_VERSION,
    GR_CM_CLIENT_SOURCE_ADDRESS,
    GR_CM_CLIENT_SOURCE_PORT,
    GR_CM_NATTRS
} gr_cm_attr_t;

/* "client_instance_id" ... */
const char *gr_cm_attr_name(gr_cm_attr_t a);

/* The three keys in the order Kafka's DescribeConfigs lists them (its
 * HashMap's: interval.ms, match, metrics), their types (topic_config.h's
 * numbering: INT 3, LIST 7) and documentation; i past the last: NULL. */
const char *gr_cm_key_at(int i, int *type, const char **doc);

/* Checks the configs a subscription would have (keys[i]=values[i], no
 * NULL values) as ClientMetricsConfigs.validate does: NONE, or
 *   INVALID_REQUEST  empty name, unknown key, interval out of range
 *   INVALID_CONFIG   a list with an empty item, interval.ms not an
 *                    int, an illegal match item
 * with *msg (in a) worded as Kafka's. */
gr_kerr_t gr_cm_validate(const char *name, const char *const *keys,
                         const char *const *values, int n, gr_arena_t *a,
                         const char **msg);

/* The value DescribeConfigs gives key (a valid subscription's value as
 * Kafka parses and writes it back: lists joined by ",", the interval as
 * a number; the default when not set), in a; NULL on ENOMEM. */
const char *gr_cm_describe_value(const char *key, const char *value,
                                 gr_arena_t *a);

/* A valid subscription, compiled: what matching needs. */
typedef struct gr_cm_sub {
    char *name;
    char **metrics; /* the prefixes, in Kafka's HashSet order */
    int nmetrics;
    int32_t interval_ms;
    gr_regex_t match[GR_CM_NATTRS];
    bool has_match[GR_CM_NATTRS];
} gr_cm_sub_t;

/* Compiles configs that gr_cm_validate() accepted; NULL on ENOMEM (or if
 * they were not valid after all). */
gr_cm_sub_t *gr_cm_sub_new(const char *name, const char *const *keys,
                           const char *const *values, int n);
void gr_cm_sub_destroy(gr_cm_sub_t *s);
/* Whether a client with these attributes (NULL: the attribute is null,
 * as a client id of a null header) is one s is for. */
bool gr_cm_sub_matches(const gr_cm_sub_t *s,
                       const char *const attrs[GR_CM_NATTRS]);

/* Java's String.hashCode() of UTF-8 s[0..n) (over its UTF-16 code units;
 * bytes that are not UTF-8 count as U+FFFD). */
int32_t gr_java_string_hash(const char *s, size_t n);
/* How a Java map of strings was made, which sets its table's size: a
 * HashMap or HashSet filled one by one (16 buckets, doubled when more
 * than 3/4 full), a HashSet copied from a collection (new HashSet<>(c):
 * the power of two from n / 0.75 + 1, at least 16), a ConcurrentHashMap
 * (doubled once 3/4 full). */
typedef enum gr_java_map {
    GR_JAVA_HASHMAP,
    GR_JAVA_HASHSET_COPY,
    GR_JAVA_CHM,
} gr_java_map_t;
/* The order such a map of the n distinct strings s[], put in that order,
 * iterates them: by bucket ((h ^ h >>> 16) & (size - 1)), equal buckets
 * in insertion order; as indexes into s, in order[]. (Buckets of 8 and
 * more turn into trees, which can order otherwise: not followed.) */
void gr_java_hash_order(const char *const *s, int n, gr_java_map_t kind,
                        int *order);

#endif
