"""
tests/diff/legit.py: the one list of what legitimately differs between
Apache Kafka and Gregor, each with its reason: fields, and the arrays whose
order the protocol leaves open. Everything not named here must match
exactly: error codes, error messages where Kafka gives one, offsets,
counts, and orders where the protocol defines one.

A rule is (api, path, how, reason):
  api   an API name, "*" for every API, or "API:label" for the answers
        of the steps with that label only
  path  a field path with [] for any element, [name=x] for the element
        whose key field (name, partition_index, ...) is x, matched against
        the end of the path: "throttle_time_ms" matches it at any depth,
        "topics[].topic_id" only there; [name=gregor.*] a glob
  how   IGNORE  not compared at all
        KIND    compared by kind only: null, empty, zero, negative or set
                (an id both brokers leave at -1 must be -1 on both; an id
                one sets and the other does not is a difference)
        SELF    each broker's own value (its host, its port): both must
                name themselves
        MEMBER  a generated member id: the client id and the "-" before
                the broker's UUID must match; the UUID itself not
        CREATED an auto-created topic's first answer: NONE,
                LEADER_NOT_AVAILABLE and UNKNOWN_TOPIC_OR_PARTITION all
                say "being created"
        CLOCK_TEXT  a message that quotes the broker's clock: compared with
                the 13-digit millisecond times replaced
        (UNORDERED, key...)  an array the protocol gives no order to: its
                elements are matched by the key fields
        TIME    a broker's clock or log position: a negative value (-1)
                must be the same on both, any value >= 0 matches any other
"""

IGNORE, KIND, SELF, MEMBER, TIME, CREATED, CLOCK_TEXT, UNORDERED = (
    "IGNORE", "KIND", "SELF", "MEMBER", "TIME", "CREATED", "CLOCK_TEXT", "UNORDERED")

LEGIT = [
    ("*", "throttle_time_ms", IGNORE,
     "throttle times are each broker's own quota and load state"),
    ("*", "cluster_id", KIND,
     "each cluster is formatted with its own random id"),
    ("*", "host", SELF, "each broker listens on its own loopback address"),
    ("*", "port", SELF, "each broker listens on a free port chosen at start"),
    ("*", "topic_id", KIND,
     "topic ids are random UUIDs each broker makes when it creates a topic"),
    ("*", "member_id", MEMBER,
     "group member ids are the client id, '-' and a UUID the coordinator makes"),
    ("JoinGroup", "leader", MEMBER, "the leader is a generated member id"),
    ("JoinGroup", "members[].member_id", MEMBER, "generated member ids"),
    ("DescribeGroups", "groups[].members[].member_id", MEMBER, "generated member ids"),
    ("*", "producer_id", KIND,
     "producer ids come from each broker's own id blocks"),
    ("InitProducerId", "producer_id", KIND,
     "producer ids come from each broker's own id blocks"),
    ("EndTxn", "producer_id", KIND, "producer ids are each broker's own"),
    ("*", "configs[name=min.insync.replicas].config_source", IGNORE,
     "Kafka's storage format sets the cluster-wide min.insync.replicas as a "
     "dynamic default (source 3); Gregor has it as its default (source 5)"),
    ("*", "configs[name=min.insync.replicas].synonyms", IGNORE,
     "likewise: Kafka lists the dynamic default as a synonym"),
    ("DescribeConfigs", "results[resource_name=].configs[name=min.insync.replicas]", IGNORE,
     "likewise: the cluster-wide dynamic default only Kafka's format sets"),
    ("Metadata:auto-creates", "topics[].error_code", CREATED,
     "Kafka's controller creates an auto-created topic after the broker "
     "answers (UNKNOWN_TOPIC_OR_PARTITION meanwhile); Gregor creates it "
     "before answering. The topic is compared once led on both"),
    ("Metadata:auto-creates", "topics[].partitions", IGNORE,
     "likewise: none on Kafka until its controller has made them"),
    ("Metadata:auto-creates", "topics[].topic_id", IGNORE,
     "likewise: none on Kafka until its controller has made the topic"),
    ("*", "log_append_time_ms", TIME, "the broker's clock at the append"),
    ("DescribeGroups", "groups[].members[].client_host", SELF,
     "the peer address each broker sees (both /127.0.0.1)"),
    ("DescribeProducers", "topics[].partitions[].active_producers[].last_timestamp", TIME,
     "the producer's last batch time"),
    ("DescribeProducers", "topics[].partitions[].active_producers[].producer_id", KIND,
     "producer ids are each broker's own"),
    ("DescribeTransactions", "transaction_states[].transaction_start_time_ms", TIME,
     "the coordinator's clock when the transaction started"),
    ("DescribeTransactions", "transaction_states[].producer_id", KIND,
     "producer ids are each broker's own"),
    ("ListTransactions", "transaction_states[].producer_id", KIND,
     "producer ids are each broker's own"),
    ("DescribeConfigs", "configs[name=listeners].value", IGNORE,
     "each broker's own listeners (Kafka's has its controller listener too)"),
    ("DescribeConfigs", "configs[name=listeners].synonyms[].value", IGNORE, "likewise"),
    ("DescribeConfigs", "configs[name=advertised.listeners].value", IGNORE,
     "each broker's own address"),
    ("DescribeConfigs", "configs[name=advertised.listeners].synonyms[].value", IGNORE, "likewise"),
    ("DescribeConfigs", "configs[name=log.dirs].value", IGNORE,
     "each broker's own temporary data directory"),
    ("DescribeConfigs", "configs[name=log.dirs].synonyms[].value", IGNORE, "likewise"),
    ("DescribeConfigs", "results[].configs[].documentation", IGNORE,
     "documentation strings are each broker's own prose"),
    ("DescribeLogDirs", "results[].log_dir", IGNORE,
     "each broker's data directory is its own temporary directory"),
    ("DescribeLogDirs", "results[].total_bytes", IGNORE,
     "the file system's size where each keeps its data"),
    ("DescribeLogDirs", "results[].usable_bytes", IGNORE,
     "the file system's free space where each keeps its data"),
    ("DescribeLogDirs", "results[].topics[].partitions[].offset_lag", IGNORE,
     "0 on both unless a future log is moving"),
    ("ApiVersions", "finalized_features_epoch", TIME,
     "the metadata log offset of each cluster's last feature change"),
    ("GetTelemetrySubscriptions", "client_instance_id", KIND,
     "a random UUID each broker gives the client"),
    ("GetTelemetrySubscriptions", "subscription_id", IGNORE,
     "a hash that includes the client instance id"),
    ("Fetch", "records.batches[].crc", IGNORE,
     "covers the batch's producer id and, on LogAppendTime topics, its "
     "timestamps, which differ where named here; every field it covers is "
     "compared itself"),
    ("Fetch", "records.batches[].producer_id", KIND, "producer ids are each broker's own"),
    ("Fetch:LogAppendTime fetch", "records.batches[].max_timestamp", TIME,
     "a LogAppendTime batch carries each broker's clock at the append"),
    ("Fetch:LogAppendTime fetch", "records.batches[].first_timestamp", TIME,
     "likewise"),
    ("Fetch:LogAppendTime fetch", "records.batches[].records[].timestamp", TIME,
     "likewise"),
    ("Fetch", "records.batches[control].first_timestamp", TIME,
     "a transaction marker is stamped with each broker's clock"),
    ("Fetch", "records.batches[control].max_timestamp", TIME, "likewise"),
    ("Fetch", "records.batches[control].records[].timestamp", TIME, "likewise"),
    ("*", "session_id", KIND, "fetch session ids are random"),
    ("Produce", "record_errors[].batch_index_error_message", CLOCK_TEXT,
     "an out-of-range timestamp's message quotes the window around each "
     "broker's clock"),
    ("Produce", "partition_responses[].error_message", CLOCK_TEXT,
     "likewise, in the partition's message"),
    ("DescribeConfigs", "configs[name=log.dir].value", IGNORE, "likewise"),
    ("DescribeConfigs", "configs[name=controller.listener.names]", IGNORE,
     "Kafka's test broker is its own KRaft controller and sets it in its "
     "server.properties; Gregor has no controller listener"),
    ("DescribeConfigs", "configs[name=inter.broker.listener.name]", IGNORE,
     "set in Kafka's server.properties by tests/kafka/run-kafka.sh (KRaft "
     "combined mode), not in Gregor's"),
    ("DescribeConfigs", "configs[name=listener.security.protocol.map]", IGNORE,
     "likewise, with the controller listener's protocol"),
    ("DescribeConfigs", "configs[name=gregor.*]", IGNORE,
     "Gregor's own broker configs: no Kafka key has the prefix"),

    # arrays without an order: their elements are matched by key fields.
    # Each is a map on Kafka's side (it answers in a hash order), except
    # Fetch's partitions: a fetch session may rotate them so that every
    # partition gets its turn at the response size limit (KIP-227)
    ("Produce", "responses", (UNORDERED, "name", "topic_id"), "a map in Kafka"),
    ("Produce", "responses[].partition_responses", (UNORDERED, "index"), "a map in Kafka"),
    ("DescribeProducers", "topics[].partitions[].active_producers", (UNORDERED, "producer_id"),
     "a map in Kafka"),
    ("Metadata", "topics", (UNORDERED, "name"), "a map in Kafka"),
    ("ListGroups", "groups", (UNORDERED, "group_id"), "a map in Kafka"),
    ("DeleteGroups", "results", (UNORDERED, "group_id"), "a map in Kafka"),
    ("DescribeConfigs", "results[].configs", (UNORDERED, "name"), "a map in Kafka"),
    ("DeleteTopics", "responses", (UNORDERED, "name", "topic_id"), "a map in Kafka"),
    ("DescribeGroups", "groups[].members", (UNORDERED, "member_id"), "a map in Kafka"),
    ("JoinGroup", "members", (UNORDERED, "member_id"), "a map in Kafka"),
    ("CreateTopics", "topics", (UNORDERED, "name"), "a map in Kafka"),
    ("CreateTopics", "topics[].configs", (UNORDERED, "name"), "a map in Kafka"),
    ("Fetch", "responses[].partitions", (UNORDERED, "partition_index"),
     "a fetch session rotates its partitions (KIP-227)"),
    ("ListTransactions", "transaction_states", (UNORDERED, "transactional_id"), "a map in Kafka"),
    ("DescribeLogDirs", "results[].topics", (UNORDERED, "name"), "a map in Kafka"),
    ("DescribeLogDirs", "results[].topics[].partitions", (UNORDERED, "partition_index"),
     "a map in Kafka"),
    ("ApiVersions", "supported_features", (UNORDERED, "name"), "a map in Kafka"),
    ("ApiVersions", "finalized_features", (UNORDERED, "name"), "a map in Kafka"),
    ("ListConfigResources", "config_resources", (UNORDERED, "resource_type", "resource_name"),
     "a map in Kafka"),
    ("OffsetFetch", "groups[].topics[].partitions", (UNORDERED, "partition_index"),
     "a map in Kafka (a group's offsets of a topic, by partition)"),
    ("ConsumerGroupDescribe", "groups[].members", (UNORDERED, "member_id"),
     "a map in Kafka (its members by id)"),
    ("ConsumerGroupDescribe", "topic_partitions", (UNORDERED, "topic_name"),
     "a map in Kafka (an assignment by topic id)"),
    ("ConsumerGroupDescribe", "subscribed_topic_names", (UNORDERED,),
     "a set in Kafka"),
    ("ConsumerGroupHeartbeat", "assignment.topic_partitions", (UNORDERED, "topic_id"),
     "a map in Kafka (an assignment by topic id)"),
    ("ConsumerGroupHeartbeat:v0 names the member", "member_id", KIND,
     "v0 lets the coordinator make the member id (Kafka's Uuid, base64)"),
]


def config_names_ignored(name):
    """Whether a broker config is named by a DescribeConfigs rule above
    (a broker's whole listing, compared by the names and values it has,
    leaves these out)."""
    import fnmatch
    import re
    for api, path, how, reason in LEGIT:
        if api.split(":")[0] not in ("*", "DescribeConfigs"):
            continue
        m = re.search(r"configs\[name=([^\]]+)\]", path)
        if m and fnmatch.fnmatchcase(name, m.group(1)):
            return True
    return False
