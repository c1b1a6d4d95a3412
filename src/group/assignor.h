/*
 * The server-side assignors of consumer groups (KIP-848), as Kafka 4.4
 * ships them: "uniform" (UniformAssignor: sticky, balanced; a homogeneous
 * and a heterogeneous algorithm) and "range" (RangeAssignor: co-partitioned
 * ranges per topic, members ordered by instance id then member id).
 *
 * An assignor sees topics and members by index. Each topic carries an owner
 * array: on entry the member index that the previous target assignment gives
 * each partition (-1: none), on return the new one. Members list the topics
 * they subscribe to (existing topics only; Kafka's TopicIds drops the rest).
 * Where Kafka iterates hash maps (member ids, topic ids), these iterate in
 * the order given: members as the caller lists them, topics by name, and
 * partitions ascending. The results are Kafka's wherever Kafka's do not
 * depend on that order.
 *
 * Pure functions of their input: no I/O, no globals; callers allocate.
 */
#ifndef GR_GROUP_ASSIGNOR_H
#define GR_GROUP_ASSIGNOR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/str.h"

typedef struct gr_asg_topic {
    gr_uuid_t id;
    const char *name;
    int32_t nparts;
    int32_t *owner; /* nparts entries: member index or -1, in and out */
} gr_asg_topic_t;

typedef struct gr_asg_member {
    const char *member_id;
    const char *instance_id; /* NULL: dynamic member */
    const int32_t *topics;   /* topic indexes, ascending, no duplicates */
    int32_t ntopics;
} gr_asg_member_t;

typedef struct gr_asg_spec {
    gr_asg_topic_t *topics; /* by name */
    int32_t ntopics;
    gr_asg_member_t *members;
    int32_t nmembers;
    bool homogeneous; /* Kafka's SubscriptionType.HOMOGENEOUS */
} gr_asg_spec_t;

typedef int (*gr_assignor_fn)(gr_asg_spec_t *s);

/* 0, or -1 when partitions were left unassigned (Kafka's
 * PartitionAssignorException; cannot happen with valid input). */
int gr_assign_uniform(gr_asg_spec_t *s);
int gr_assign_range(gr_asg_spec_t *s);

/* The assignor called name ("uniform", "range"), or NULL. */
gr_assignor_fn gr_assignor_find(const char *name, size_t len);

/* Java's Uuid.compareTo: most then least significant 64 bits, signed. */
int gr_uuid_java_cmp(const gr_uuid_t *a, const gr_uuid_t *b);

#endif
