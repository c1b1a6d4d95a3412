/*
 * The configuration table: see topic_config.h. Topic configs first (with
 * their broker synonyms), then broker configs indexed by gr_conf_id_t. The
 * documentation lines are ours; names, types, defaults and ranges are
 * Kafka's facts (LogConfig, ServerTopicConfigSynonyms, KafkaConfig,
 * DynamicBrokerConfig).
 */
#include "cluster/topic_config.h"
#include "core/log.h"
#include "proto/records.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* in Kafka's order: its messages list them so */
static const char *const cleanup_choices[] = { "compact", "delete", NULL };
static const char *const compression_choices[] = {
    "uncompressed", "zstd", "lz4", "snappy", "gzip", "producer", NULL
};
static const char *const ts_type_choices[] = { "CreateTime", "LogAppendTime",
                                               NULL };

/* clang-format off */
#define L     INT64_MAX
#define I     2147483647
#define NO    { -1, -1, -1 }
#define S1(a) { GR_CONF_##a, -1, -1 }
/* clang-format on */
static const gr_topic_config_def_t defs[] = {
    { "cleanup.policy", GR_TCFG_LIST, S1(LOG_CLEANUP_POLICY), NULL, 0, 0,
      cleanup_choices,
      "What happens to old segments: \"delete\" removes them by time and size "
      "(retention.*), \"compact\" keeps the latest record of every key; both "
      "may be given." },
    { "compression.gzip.level", GR_TCFG_INT, S1(COMPRESSION_GZIP_LEVEL), NULL,
      -1, 9, NULL,
      "The gzip level used when compression.type is gzip (-1: zlib's "
      "default)." },
    { "compression.lz4.level", GR_TCFG_INT, S1(COMPRESSION_LZ4_LEVEL), NULL, 1,
      17, NULL, "The lz4 level used when compression.type is lz4." },
    { "compression.type", GR_TCFG_STRING, S1(COMPRESSION_TYPE), NULL, 0, 0,
      compression_choices,
      "The codec batches are stored with: \"producer\" keeps what the "
      "producer sent, a codec name makes the broker recompress, "
      "\"uncompressed\" stores them plain." },
    { "compression.zstd.level", GR_TCFG_INT, S1(COMPRESSION_ZSTD_LEVEL), NULL,
      -131072, 22, NULL, "The zstd level used when compression.type is zstd." },
    { "delete.retention.ms", GR_TCFG_LONG, S1(LOG_CLEANER_DELETE_RETENTION_MS),
      NULL, 0, L, NULL,
      "On a compacted topic, how long a tombstone (a record with a null "
      "value) stays readable after the cleaner first reaches it, so "
      "consumers catching up see the deletion." },
    { "errors.deadletterqueue.group.enable", GR_TCFG_BOOL, NO, "false", 0, 0,
      NULL,
      "Whether share groups may use the topic as a dead-letter queue "
      "(accepted; Gregor has no share groups yet)." },
    { "file.delete.delay.ms", GR_TCFG_LONG, S1(LOG_SEGMENT_DELETE_DELAY_MS),
      NULL, 0, L, NULL,
      "How long a segment removed from the log waits before its files are "
      "deleted (Gregor deletes at once: readers keep their open files)." },
    { "flush.messages", GR_TCFG_LONG, S1(LOG_FLUSH_INTERVAL_MESSAGES), NULL, 1,
      L, NULL,
      "Force an fsync after this many messages; acks=all answers wait for "
      "it. The default leaves durability to replication and the page "
      "cache." },
    { "flush.ms",
      GR_TCFG_LONG,
      { GR_CONF_LOG_FLUSH_INTERVAL_MS, GR_CONF_LOG_FLUSH_SCHEDULER_INTERVAL_MS,
        -1 },
      NULL,
      0,
      L,
      NULL,
      "Force an fsync when the oldest unflushed data is this old." },
    { "follower.replication.throttled.replicas", GR_TCFG_LIST, NO, "", 0, 0,
      NULL,
      "Replicas whose follower fetches are throttled (accepted; a single "
      "broker has no followers)." },
    { "index.interval.bytes", GR_TCFG_INT, S1(LOG_INDEX_INTERVAL_BYTES), NULL,
      0, I, NULL,
      "How many bytes of batches lie between two offset index entries: "
      "smaller makes lookups shorter and the index larger." },
    { "leader.replication.throttled.replicas", GR_TCFG_LIST, NO, "", 0, 0, NULL,
      "Replicas whose leader-side replication is throttled (accepted; a "
      "single broker has no followers)." },
    { "local.retention.bytes", GR_TCFG_LONG, NO, "-2", -2, L, NULL,
      "With tiered storage, the bytes kept locally (-2: retention.bytes). "
      "Gregor has no tiered storage." },
    { "local.retention.ms", GR_TCFG_LONG, NO, "-2", -2, L, NULL,
      "With tiered storage, the time data stays local (-2: retention.ms). "
      "Gregor has no tiered storage." },
    { "max.compaction.lag.ms", GR_TCFG_LONG,
      S1(LOG_CLEANER_MAX_COMPACTION_LAG_MS), NULL, 1, L, NULL,
      "On a compacted topic, the longest a record may stay uncompacted: "
      "older dirty data is cleaned whatever the dirty ratio, and the active "
      "segment rolls in time for it." },
    { "max.decompressed.message.bytes", GR_TCFG_INT, NO, "2147483639", 1,
      2147483639, NULL,
      "The largest decompressed record the topic accepts (accepted; Gregor "
      "bounds decompression by its own limit)." },
    { "max.message.bytes", GR_TCFG_INT, S1(MESSAGE_MAX_BYTES), NULL, 0, I, NULL,
      "The largest record batch the topic accepts, after compression." },
    { "message.downconversion.enable", GR_TCFG_BOOL,
      S1(LOG_MESSAGE_DOWNCONVERSION_ENABLE), NULL, 0, 0, NULL,
      "Whether old fetch versions get records converted to the old message "
      "formats." },
    { "message.format.version", GR_TCFG_STRING, NO, "3.0-IV1", 0, 0, NULL,
      "Kafka 3.x's message format of a topic (accepted as 3.x accepted it; "
      "no effect: batches are stored in the v2 format, and 3.x ignored it "
      "too from inter.broker.protocol.version 3.0)." },
    { "message.timestamp.after.max.ms", GR_TCFG_LONG,
      S1(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS), NULL, 0, L, NULL,
      "How far in the future a CreateTime timestamp may be before the "
      "batch is refused." },
    { "message.timestamp.before.max.ms", GR_TCFG_LONG,
      S1(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS), NULL, 0, L, NULL,
      "How far in the past a CreateTime timestamp may be before the batch "
      "is refused." },
    { "message.timestamp.difference.max.ms", GR_TCFG_LONG, NO,
      "9223372036854775807", 0, L, NULL,
      "Kafka 3.x's bound on CreateTime timestamps (accepted as 3.x accepted "
      "it; no effect: message.timestamp.before.max.ms and "
      "message.timestamp.after.max.ms bound them)." },
    { "message.timestamp.type", GR_TCFG_STRING, S1(LOG_MESSAGE_TIMESTAMP_TYPE),
      NULL, 0, 0, ts_type_choices,
      "Whether records keep the producer's timestamp (CreateTime) or get "
      "the broker's clock when appended (LogAppendTime)." },
    { "min.cleanable.dirty.ratio", GR_TCFG_DOUBLE,
      S1(LOG_CLEANER_MIN_CLEANABLE_RATIO), NULL, 0, 1, NULL,
      "On a compacted topic, the share of the log that must be uncleaned "
      "before the cleaner works on it: lower cleans more often." },
    { "min.compaction.lag.ms", GR_TCFG_LONG,
      S1(LOG_CLEANER_MIN_COMPACTION_LAG_MS), NULL, 0, L, NULL,
      "On a compacted topic, the least time a record stays uncompacted, so "
      "every value is readable at least that long." },
    { "min.insync.replicas", GR_TCFG_INT, S1(MIN_INSYNC_REPLICAS), NULL, 1, I,
      NULL,
      "With acks=all, the replicas that must have a write for it to "
      "succeed (a single broker has one)." },
    { "preallocate", GR_TCFG_BOOL, S1(LOG_PREALLOCATE), NULL, 0, 0, NULL,
      "Whether new segment files are preallocated (accepted, not done)." },
    { "remote.copy.lag.bytes", GR_TCFG_LONG, NO, "-1", -1, L, NULL,
      "With tiered storage, the bytes after a segment before it is "
      "uploaded (Gregor has no tiered storage)." },
    { "remote.copy.lag.ms", GR_TCFG_LONG, NO, "0", -1, L, NULL,
      "With tiered storage, the time after a segment's last record before "
      "it is uploaded (Gregor has no tiered storage)." },
    { "remote.log.copy.disable", GR_TCFG_BOOL, NO, "false", 0, 0, NULL,
      "With tiered storage, whether uploads stop (Gregor has no tiered "
      "storage)." },
    { "remote.log.delete.on.disable", GR_TCFG_BOOL, NO, "false", 0, 0, NULL,
      "With tiered storage, whether uploaded data goes when it is turned "
      "off (Gregor has no tiered storage)." },
    { "remote.storage.enable", GR_TCFG_BOOL, NO, "false", 0, 0, NULL,
      "Tiered storage for the topic (Gregor has none: must stay false)." },
    /* no lower bound, as Kafka's: any negative size is no limit */
    { "retention.bytes", GR_TCFG_LONG, S1(LOG_RETENTION_BYTES), NULL,
      INT64_MIN, L, NULL,
      "With the delete policy, the size a partition may reach before its "
      "oldest segments go (-1: no limit)." },
    { "retention.ms",
      GR_TCFG_LONG,
      { GR_CONF_LOG_RETENTION_MS, GR_CONF_LOG_RETENTION_MINUTES,
        GR_CONF_LOG_RETENTION_HOURS },
      NULL,
      -1,
      L,
      NULL,
      "With the delete policy, how long a segment is kept after its newest "
      "record (-1: forever)." },
    { "segment.bytes", GR_TCFG_INT, S1(LOG_SEGMENT_BYTES), NULL, 14, I, NULL,
      "The size at which the active segment is closed and a new one begun; "
      "retention and compaction work on whole segments." },
    { "segment.index.bytes", GR_TCFG_INT, S1(LOG_INDEX_SIZE_MAX_BYTES), NULL, 4,
      I, NULL,
      "The most bytes an offset or time index may hold; a full index rolls "
      "the segment." },
    { "segment.jitter.ms",
      GR_TCFG_LONG,
      { GR_CONF_LOG_ROLL_JITTER_MS, GR_CONF_LOG_ROLL_JITTER_HOURS, -1 },
      NULL,
      0,
      L,
      NULL,
      "A random amount taken off segment.ms, so that many partitions do not "
      "roll at once." },
    { "segment.ms",
      GR_TCFG_LONG,
      { GR_CONF_LOG_ROLL_MS, GR_CONF_LOG_ROLL_HOURS, -1 },
      NULL,
      1,
      L,
      NULL,
      "The age at which the active segment is closed even if not full, so "
      "retention and compaction can reach its data." },
    { "unclean.leader.election.enable", GR_TCFG_BOOL,
      S1(UNCLEAN_LEADER_ELECTION_ENABLE), NULL, 0, 0, NULL,
      "Whether a replica out of the ISR may become leader, losing data "
      "(no effect on a single broker)." },
};
#undef NO
#undef S1
#undef L

/* LogConfig's keys in the order it defines them: ConfigDef.parse checks
 * them in that order, so the first invalid one in it is named */
static const char *const kafka_order[] = {
    "segment.bytes",
    "segment.ms",
    "segment.jitter.ms",
    "segment.index.bytes",
    "flush.messages",
    "flush.ms",
    "retention.bytes",
    "retention.ms",
    "max.message.bytes",
    "max.decompressed.message.bytes",
    "index.interval.bytes",
    "delete.retention.ms",
    "min.compaction.lag.ms",
    "max.compaction.lag.ms",
    "file.delete.delay.ms",
    "min.cleanable.dirty.ratio",
    "cleanup.policy",
    "unclean.leader.election.enable",
    "min.insync.replicas",
    "compression.type",
    "compression.gzip.level",
    "compression.lz4.level",
    "compression.zstd.level",
    "preallocate",
    "message.timestamp.type",
    "message.timestamp.before.max.ms",
    "message.timestamp.after.max.ms",
    "leader.replication.throttled.replicas",
    "follower.replication.throttled.replicas",
    "remote.storage.enable",
    "local.retention.ms",
    "local.retention.bytes",
    "remote.log.copy.disable",
    "remote.copy.lag.ms",
    "remote.copy.lag.bytes",
    "remote.log.delete.on.disable",
    "errors.deadletterqueue.group.enable",
};

int
gr_topic_config_kafka_rank(const char *name)
{
    int n = (int)(sizeof kafka_order / sizeof kafka_order[0]);
    for (int i = 0; i < n; i++)
        if (strcmp(kafka_order[i], name) == 0)
            return i;
    return n;
}

/* Kafka's broker synonym of a topic config where Gregor has no such broker
 * key (the tiered storage defaults, and max.decompressed.message.bytes,
 * which Gregor cannot honour): ServerTopicConfigSynonyms' names */
static const struct {
    const char *topic, *broker;
} kafka_synonyms[] = {
    { "local.retention.bytes", "log.local.retention.bytes" },
    { "local.retention.ms", "log.local.retention.ms" },
    { "max.decompressed.message.bytes", "max.decompressed.message.bytes" },
    { "remote.copy.lag.bytes", "log.remote.copy.lag.bytes" },
    { "remote.copy.lag.ms", "log.remote.copy.lag.ms" },
};

const char *
gr_topic_config_kafka_synonym(const gr_topic_config_def_t *d)
{
    for (size_t i = 0; i < sizeof kafka_synonyms / sizeof kafka_synonyms[0];
         i++)
        if (strcmp(kafka_synonyms[i].topic, d->name) == 0)
            return kafka_synonyms[i].broker;
    return NULL;
}

/* --- broker configs, by conf id */

#define B(id, t, sc, doc) [GR_CONF_##id] = { GR_TCFG_##t, sc, NULL, doc, false }
#define BC(id, t, sc, ch, doc)                                                 \
    [GR_CONF_##id] = { GR_TCFG_##t, sc, ch, doc, false }
/* a key Kafka 4.4 does not list (gr_broker_config_def_t.unlisted) */
#define BU(id, t, sc, doc) [GR_CONF_##id] = { GR_TCFG_##t, sc, NULL, doc, true }
#define RO                     GR_BCFG_READ_ONLY
#define DY                     GR_BCFG_DYNAMIC
static const gr_broker_config_def_t bdefs[GR_CONF__COUNT] = {
    B(NODE_ID, INT, RO, "This broker's id (KRaft name; -1: broker.id)."),
    B(BROKER_ID, INT, RO, "This broker's id (ZooKeeper-era name)."),
    B(BROKER_RACK, STRING, RO,
      "The rack of the broker (placement of replicas across racks)."),
    B(LISTENERS, LIST, RO,
      "Where the broker accepts connections: NAME://host:port, comma "
      "separated; port 0 picks a free port."),
    B(ADVERTISED_LISTENERS, LIST, RO,
      "The addresses given to clients in Metadata, when not the bound "
      "ones."),
    B(LISTENER_SECURITY_PROTOCOL_MAP, STRING, RO,
      "The security protocol of each listener name."),
    B(CONTROLLER_LISTENER_NAMES, LIST, RO,
      "Listener names used by KRaft controllers (not bound by Gregor)."),
    B(INTER_BROKER_LISTENER_NAME, STRING, RO,
      "The listener brokers use to talk to each other."),
    B(SECURITY_INTER_BROKER_PROTOCOL, STRING, RO,
      "The security protocol brokers use to talk to each other, naming the "
      "listener when inter.broker.listener.name is not set (PLAINTEXT only "
      "for the replica fetcher now)."),
    B(NUM_REPLICA_FETCHERS, INT, RO,
      "Fetcher connections per leader broker (read, not used: one fetcher "
      "per leader)."),
    B(REPLICA_FETCH_WAIT_MAX_MS, INT, RO,
      "How long a follower's fetch waits at the leader for records."),
    B(REPLICA_FETCH_MIN_BYTES, INT, RO,
      "The bytes a follower's fetch waits for at the leader."),
    B(REPLICA_FETCH_MAX_BYTES, INT, RO,
      "The bytes a follower fetches of a partition at most (one batch "
      "always)."),
    B(REPLICA_FETCH_RESPONSE_MAX_BYTES, INT, RO,
      "The bytes of a follower's whole fetch answer at most."),
    B(REPLICA_FETCH_BACKOFF_MS, INT, RO,
      "How long a follower waits after a fetch error before it asks again."),
    B(LOG_DIRS, LIST, RO,
      "The directory holding the partition logs and Gregor's metadata (the "
      "first of the list is used)."),
    B(LOG_DIR, LIST, RO, "The log directory when log.dirs is not set."),
    B(NUM_PARTITIONS, INT, RO,
      "Partitions of a topic created without a count (auto-creation, "
      "CreateTopics with -1)."),
    B(DEFAULT_REPLICATION_FACTOR, INT, RO,
      "Replication factor of a topic created without one."),
    B(AUTO_CREATE_TOPICS_ENABLE, BOOL, RO,
      "Whether Metadata requests for unknown topics create them."),
    B(DELETE_TOPIC_ENABLE, BOOL, RO, "Whether DeleteTopics may delete."),
    B(LOG_RETENTION_HOURS, INT, RO,
      "Default retention.ms in hours (log.retention.ms and .minutes win)."),
    B(LOG_RETENTION_MINUTES, INT, RO,
      "Default retention.ms in minutes (log.retention.ms wins)."),
    B(LOG_RETENTION_MS, LONG, DY, "Default retention.ms of topics."),
    B(LOG_RETENTION_BYTES, LONG, DY, "Default retention.bytes of topics."),
    B(LOG_RETENTION_CHECK_INTERVAL_MS, LONG, RO,
      "How often retention looks for segments to delete."),
    B(LOG_SEGMENT_BYTES, INT, DY, "Default segment.bytes of topics."),
    B(LOG_ROLL_HOURS, INT, RO,
      "Default segment.ms in hours (log.roll.ms wins)."),
    B(LOG_ROLL_MS, LONG, DY, "Default segment.ms of topics."),
    B(LOG_SEGMENT_DELETE_DELAY_MS, LONG, DY,
      "Default file.delete.delay.ms of topics."),
    B(LOG_FLUSH_INTERVAL_MESSAGES, LONG, DY,
      "Default flush.messages of topics."),
    B(LOG_FLUSH_INTERVAL_MS, LONG, DY,
      "Default flush.ms of topics (else log.flush.scheduler.interval.ms)."),
    B(LOG_FLUSH_SCHEDULER_INTERVAL_MS, LONG, RO,
      "How often flush.ms is checked, and the default flush.ms."),
    B(LOG_INDEX_SIZE_MAX_BYTES, INT, DY,
      "Default segment.index.bytes of topics."),
    B(LOG_INDEX_INTERVAL_BYTES, INT, DY,
      "Default index.interval.bytes of topics."),
    BC(LOG_CLEANUP_POLICY, LIST, DY, cleanup_choices,
       "Default cleanup.policy of topics."),
    BC(LOG_MESSAGE_TIMESTAMP_TYPE, STRING, DY, ts_type_choices,
       "Default message.timestamp.type of topics."),
    B(LOG_PREALLOCATE, BOOL, DY, "Default preallocate of topics."),
    B(MESSAGE_MAX_BYTES, INT, DY, "Default max.message.bytes of topics."),
    BC(COMPRESSION_TYPE, STRING, DY, compression_choices,
       "Default compression.type of topics."),
    B(MIN_INSYNC_REPLICAS, INT, DY, "Default min.insync.replicas of topics."),
    B(REPLICA_LAG_TIME_MAX_MS, LONG, RO,
      "Cluster mode: a follower not caught up with its leader for this "
      "long leaves the ISR (the leader checks every half of it)."),
    B(SOCKET_REQUEST_MAX_BYTES, INT, RO,
      "The largest request frame accepted; larger closes the connection."),
    B(SOCKET_SEND_BUFFER_BYTES, INT, RO,
      "SO_SNDBUF of client sockets; -1 (the default here, Kafka's is "
      "102400) keeps the kernel's autotuning, which serves 1 MiB fetches "
      "about 1.5x faster over loopback."),
    B(SOCKET_RECEIVE_BUFFER_BYTES, INT, RO,
      "SO_RCVBUF of client sockets; -1 (the default here, Kafka's is "
      "102400) keeps the kernel's autotuning."),
    B(SOCKET_LISTEN_BACKLOG_SIZE, INT, RO, "The listen(2) backlog."),
    B(CONNECTIONS_MAX_IDLE_MS, LONG, RO,
      "Idle connections are closed after this long."),
    B(QUEUED_MAX_REQUEST_BYTES, LONG, RO,
      "Memory for requests read but not yet answered, all connections "
      "together; a connection that needs more waits. -1: no bound."),
    B(MAX_CONNECTIONS, INT, DY,
      "The most client connections at once; more wait for a slot "
      "(the inter-broker listener's close the least recently used "
      "connection of another listener)."),
    B(MAX_CONNECTIONS_PER_IP, INT, DY,
      "The most connections from one client address; more are closed at "
      "once."),
    B(MAX_CONNECTIONS_PER_IP_OVERRIDES, STRING, DY,
      "Per-address exceptions to max.connections.per.ip, as "
      "\"host:count,host:count\"."),
    B(MAX_CONNECTION_CREATION_RATE, INT, DY,
      "The most new connections a second; more wait (throttled)."),
    B(QUOTA_WINDOW_NUM, INT, RO,
      "The samples client quota rates are measured over."),
    B(QUOTA_WINDOW_SIZE_SECONDS, INT, RO,
      "The span of each sample of the client quota rates."),
    B(CONTROLLER_QUOTA_WINDOW_NUM, INT, RO,
      "The samples of the controller mutation quota's bucket."),
    B(CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS, INT, RO,
      "The span of each sample of the controller mutation quota's bucket."),
    /* SASL (src/net/sasl.c): read-only, set at start-up */
    B(SASL_ENABLED_MECHANISMS, LIST, RO,
      "The SASL mechanisms SASL listeners offer (PLAIN, SCRAM-SHA-256, "
      "SCRAM-SHA-512)."),
    B(SASL_JAAS_CONFIG, PASSWORD, RO,
      "A JAAS login module entry (PlainLoginModule user_<name>=\"...\")."),
    B(SASL_SERVER_MAX_RECEIVE_SIZE, INT, RO,
      "The largest request taken before SASL authentication."),
    B(CONNECTIONS_MAX_REAUTH_MS, LONG, RO,
      "A SASL session's lifetime; the client re-authenticates before its "
      "end (0: no limit)."),
    B(CONNECTION_FAILED_AUTHENTICATION_DELAY_MS, INT, RO,
      "How long a failed authentication waits before its answer and "
      "close."),
    /* SASL/OAUTHBEARER (src/net/sasl_oauth.c): read-only, the JWKS file
     * reloaded when it changes */
    B(SASL_SERVER_CALLBACK_HANDLER_CLASS, CLASS, RO,
      "OAUTHBEARER's validator: unset, Kafka's unsecured one; "
      "org.apache.kafka.common.security.oauthbearer."
      "OAuthBearerValidatorCallbackHandler, signed tokens."),
    B(SASL_OAUTHBEARER_JWT_VALIDATOR_CLASS, CLASS, RO,
      "Kafka's DefaultJwtValidator or BrokerJwtValidator."),
    B(SASL_OAUTHBEARER_JWKS_ENDPOINT_URL, STRING, RO,
      "The JWKS file (file://) whose keys verify signed tokens."),
    B(SASL_OAUTHBEARER_EXPECTED_AUDIENCE, LIST, RO,
      "Audiences of which a token's aud claim must hold one."),
    B(SASL_OAUTHBEARER_EXPECTED_ISSUER, STRING, RO,
      "The issuer a token's iss claim must be."),
    B(SASL_OAUTHBEARER_ALLOW_UNVERIFIED_AUDIENCE, BOOL, RO,
      "Accept signed tokens of any audience (insecure)."),
    B(SASL_OAUTHBEARER_ALLOW_UNVERIFIED_ISSUER, BOOL, RO,
      "Accept signed tokens of any issuer (insecure)."),
    B(SASL_OAUTHBEARER_SUB_CLAIM_NAME, STRING, RO,
      "The claim naming a signed token's principal."),
    B(SASL_OAUTHBEARER_SCOPE_CLAIM_NAME, STRING, RO,
      "The claim holding a signed token's scope."),
    B(SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS, INT, RO,
      "Leeway for exp, iat and nbf of signed tokens."),
    BU(OAUTHBEARER_ALLOWED_URLS, LIST, RO,
       "The JWKS URLs the broker may read (Kafka's system property)."),
    /* TLS (src/net/tls.c): read-only, the files reloaded when they change
     * (docs/compatibility.md, static-tls) */
    B(SSL_KEYSTORE_TYPE, STRING, RO,
      "The keystore's format: PEM or PKCS12 (JKS is refused with the keytool "
      "command converting it)."),
    B(SSL_KEYSTORE_LOCATION, STRING, RO, "The keystore file."),
    B(SSL_KEYSTORE_PASSWORD, PASSWORD, RO, "The keystore file's password."),
    B(SSL_KEY_PASSWORD, PASSWORD, RO, "The private key's password."),
    B(SSL_KEYSTORE_CERTIFICATE_CHAIN, PASSWORD, RO,
      "The certificate chain in PEM, inline."),
    B(SSL_KEYSTORE_KEY, PASSWORD, RO, "The private key in PEM, inline."),
    B(SSL_TRUSTSTORE_TYPE, STRING, RO, "The truststore's format: PEM or "
                                       "PKCS12."),
    B(SSL_TRUSTSTORE_LOCATION, STRING, RO, "The truststore file."),
    B(SSL_TRUSTSTORE_PASSWORD, PASSWORD, RO, "The truststore file's password."),
    B(SSL_TRUSTSTORE_CERTIFICATES, PASSWORD, RO,
      "The trusted certificates in PEM, inline."),
    B(SSL_CLIENT_AUTH, STRING, RO,
      "Client certificates: none, requested or required."),
    B(SSL_ENABLED_PROTOCOLS, LIST, RO, "The TLS versions served."),
    B(SSL_PROTOCOL, STRING, RO, "The newest TLS version offered."),
    B(SSL_CIPHER_SUITES, LIST, RO,
      "The cipher suites (IANA or OpenSSL names); empty: OpenSSL's."),
    B(SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, STRING, RO,
      "Client-side in Kafka; accepted."),
    B(SSL_KEYMANAGER_ALGORITHM, STRING, RO,
      "Java's key manager name; accepted, OpenSSL does the work."),
    B(SSL_TRUSTMANAGER_ALGORITHM, STRING, RO,
      "Java's trust manager name; accepted, OpenSSL does the work."),
    B(SSL_SECURE_RANDOM_IMPLEMENTATION, STRING, RO,
      "Java's random source; OpenSSL's is used."),
    B(SSL_PRINCIPAL_MAPPING_RULES, STRING, RO,
      "Rules mapping a client certificate's DN to a principal."),
    /* the authorizer (src/auth/); Kafka lists only authorizer.class.name
     * (the other two are the authorizer's keys, not KafkaConfig's) */
    B(AUTHORIZER_CLASS_NAME, STRING, RO,
      "The authorizer: org.apache.kafka.metadata.authorizer."
      "StandardAuthorizer (or kafka.security.authorizer.AclAuthorizer) "
      "turns ACLs on; empty: none."),
    BU(SUPER_USERS, STRING, RO,
      "Principals allowed everything, separated by semicolons."),
    BU(ALLOW_EVERYONE_IF_NO_ACL_FOUND, BOOL, RO,
      "Whether a resource without any ACL is open to everyone."),
    B(OFFSETS_TOPIC_REPLICATION_FACTOR, SHORT, RO,
      "Replication factor of __consumer_offsets (capped to the live "
      "brokers)."),
    B(OFFSETS_TOPIC_NUM_PARTITIONS, INT, RO,
      "Partitions of __consumer_offsets."),
    B(OFFSETS_TOPIC_SEGMENT_BYTES, INT, RO,
      "segment.bytes of __consumer_offsets."),
    B(OFFSETS_RETENTION_MINUTES, INT, RO,
      "How long committed offsets of an empty group are kept."),
    B(OFFSETS_RETENTION_CHECK_INTERVAL_MS, LONG, RO,
      "How often expired offsets are looked for."),
    B(OFFSET_METADATA_MAX_BYTES, INT, RO,
      "The longest metadata string an offset commit may carry."),
    B(GROUP_INITIAL_REBALANCE_DELAY_MS, INT, RO,
      "How long a new group waits for more members before its first "
      "rebalance."),
    B(GROUP_MIN_SESSION_TIMEOUT_MS, INT, RO,
      "The shortest session timeout a member may ask for."),
    B(GROUP_MAX_SESSION_TIMEOUT_MS, INT, RO,
      "The longest session timeout a member may ask for."),
    B(GROUP_MAX_SIZE, INT, RO, "The most members a group may have."),
    B(GROUP_CONSUMER_SESSION_TIMEOUT_MS, INT, RO,
      "How long a member of a consumer group (KIP-848) may go without a "
      "heartbeat."),
    B(GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS, INT, RO,
      "The heartbeat interval given to consumer group members."),
    B(GROUP_CONSUMER_MAX_SIZE, INT, RO,
      "The most members a consumer group may have."),
    B(GROUP_CONSUMER_ASSIGNORS, LIST, RO,
      "The server-side assignors (uniform, range); the first is the "
      "default."),
    B(GROUP_CONSUMER_ASSIGNMENT_INTERVAL_MS, INT, DY,
      "The least time between two target assignments of a consumer group."),
    BU(GROUP_CONSUMER_REGEX_REFRESH_INTERVAL_MS, INT, RO,
       "How often a consumer group's regular expressions are resolved "
       "again (Kafka's internal key)."),
    B(TRANSACTION_STATE_LOG_REPLICATION_FACTOR, SHORT, RO,
      "Replication factor of __transaction_state."),
    B(TRANSACTION_STATE_LOG_NUM_PARTITIONS, INT, RO,
      "Partitions of __transaction_state."),
    B(TRANSACTION_STATE_LOG_SEGMENT_BYTES, INT, RO,
      "segment.bytes of __transaction_state."),
    B(TRANSACTION_STATE_LOG_MIN_ISR, INT, RO,
      "min.insync.replicas of __transaction_state."),
    BU(UNSTABLE_API_VERSIONS_ENABLE, BOOL, RO,
      "Whether unstable latest API versions are served (for tests)."),
    B(FETCH_MAX_BYTES, INT, RO,
      "The most record bytes a Fetch answer carries (the first batch of "
      "v3+ answers goes whole even if larger)."),
    B(TRANSACTION_PARTITION_VERIFICATION_ENABLE, BOOL, DY,
      "Whether transactional writes are checked against the partitions "
      "of their transaction."),
    B(TRANSACTION_TWO_PHASE_COMMIT_ENABLE, BOOL, RO,
      "Whether two-phase commit transactions (KIP-939) are allowed; only "
      "false: Gregor has none."),
    B(TRANSACTION_MAX_TIMEOUT_MS, INT, RO,
      "The longest transaction timeout a producer may ask for."),
    B(TRANSACTIONAL_ID_EXPIRATION_MS, INT, RO,
      "How long an unused transactional id is remembered."),
    B(TRANSACTION_ABORT_TIMED_OUT_INTERVAL_MS, INT, RO,
      "How often timed-out transactions are aborted."),
    B(TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS, INT, RO,
      "How often expired transactional ids are removed."),
    B(PRODUCER_ID_EXPIRATION_MS, INT, DY,
      "How long an idle producer's sequence state is kept."),
    BU(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, INT, RO,
      "How often idle producer state is looked for."),
    BU(ZOOKEEPER_CONNECT, STRING, RO,
      "The ZooKeeper ensemble of cluster mode (host:port,...[/chroot])."),
    BU(ZOOKEEPER_SESSION_TIMEOUT_MS, INT, RO,
      "The ZooKeeper session timeout of cluster mode."),
    BU(ZOOKEEPER_CONNECTION_TIMEOUT_MS, INT, RO,
      "How long start-up waits for a ZooKeeper session (default: the "
      "session timeout)."),
    B(LOG_CLEANER_ENABLE, BOOL, RO,
      "Whether the log cleaner runs (compacted topics need it)."),
    B(LOG_CLEANER_THREADS, INT, DY,
      "Cleanings that may run at once on worker threads (0: none)."),
    B(LOG_CLEANER_BACKOFF_MS, LONG, DY,
      "How long the cleaner sleeps when no log needs cleaning."),
    B(LOG_CLEANER_DELETE_RETENTION_MS, LONG, DY,
      "Default delete.retention.ms of topics."),
    B(LOG_CLEANER_MIN_CLEANABLE_RATIO, DOUBLE, DY,
      "Default min.cleanable.dirty.ratio of topics."),
    B(LOG_CLEANER_MIN_COMPACTION_LAG_MS, LONG, DY,
      "Default min.compaction.lag.ms of topics."),
    B(LOG_CLEANER_DEDUPE_BUFFER_SIZE, LONG, DY,
      "Memory for the cleaner's key map (24 bytes a key); a log with more "
      "distinct keys in its dirty part is cleaned in several passes."),
    B(GREGOR_TEMP_DATA, BOOL, RO,
      "Gregor only: the data directory is temporary, removed at exit, "
      "and group.initial.rebalance.delay.ms, offsets.topic.num.partitions "
      "and transaction.state.log.num.partitions default to 0, 1 and 1 "
      "(a broker for one test run)."),
    B(GREGOR_TRANSACTION_VERSION, INT, RO,
      "Gregor only: the transaction.version feature level ApiVersions "
      "finalizes (2: KIP-890 part 2, an epoch bump per transaction)."),
    B(GREGOR_GROUP_LOAD_BYTES_PER_TURN, INT, RO,
      "Gregor only: bytes of __consumer_offsets the group coordinator loads "
      "per event-loop turn at start-up."),
    B(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, LONG, DY,
      "Default message.timestamp.before.max.ms of topics."),
    B(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS, LONG, DY,
      "Default message.timestamp.after.max.ms of topics."),
    B(LOG_CLEANER_MAX_COMPACTION_LAG_MS, LONG, DY,
      "Default max.compaction.lag.ms of topics."),
    B(LOG_ROLL_JITTER_MS, LONG, DY,
      "Default segment.jitter.ms of topics (else log.roll.jitter.hours)."),
    B(LOG_ROLL_JITTER_HOURS, INT, RO,
      "Default segment.jitter.ms in hours (log.roll.jitter.ms wins)."),
    B(UNCLEAN_LEADER_ELECTION_ENABLE, BOOL, DY,
      "Default unclean.leader.election.enable of topics."),
    B(COMPRESSION_GZIP_LEVEL, INT, DY,
      "Default compression.gzip.level of topics."),
    B(COMPRESSION_LZ4_LEVEL, INT, DY,
      "Default compression.lz4.level of topics."),
    B(COMPRESSION_ZSTD_LEVEL, INT, DY,
      "Default compression.zstd.level of topics."),
    BU(LOG_MESSAGE_DOWNCONVERSION_ENABLE, BOOL, RO,
      "Default message.downconversion.enable of topics."),
    B(MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS, INT, RO,
      "The most incremental fetch sessions kept; a new one evicts an idle "
      "or smaller one, as Kafka's FetchSessionCache, or gets none."),
    B(MAX_REQUEST_PARTITION_SIZE_LIMIT, INT, RO,
      "The most partitions one DescribeTopicPartitions answer holds."),
    B(TELEMETRY_MAX_BYTES, INT, RO,
      "The most bytes of metrics one PushTelemetry may carry, compressed, "
      "and decompressed."),
    B(GREGOR_CLIENT_TELEMETRY_FILE, STRING, RO,
      "Gregor only: the file pushed client metrics are appended to, a JSON "
      "line per data point; set, the client telemetry APIs are "
      "advertised."),
    B(GREGOR_CONTROL_LISTENER, STRING, RO,
      "Gregor only: the control listener for tests (fault injection, the "
      "request log), http://host:port; unset: off (--temp-data: on, on "
      "127.0.0.1)."),
    B(GREGOR_EMULATE_VERSION, STRING, RO,
      "Gregor only: the Apache Kafka release (2.8, 3.0 ... 3.9, 4.0 ... "
      "4.3) whose API versions are advertised and accepted; unset: all "
      "of Gregor's."),
    B(GREGOR_VIRTUAL_CLOCK, BOOL, RO,
      "Gregor only: the broker's clock moves only when advanced through "
      "the control interface (session, transaction and retention times)."),
    B(GREGOR_CONTROL_ALLOW_REMOTE, BOOL, RO,
      "Gregor only: lets the control listener, which has no "
      "authentication, bind an address that is not a loopback one."),
    B(GREGOR_METRICS_LISTENER, STRING, RO,
      "Gregor only: a listener serving only GET /metrics (Prometheus), "
      "http://host:port; unset: none (the control listener serves "
      "/metrics too)."),
};
#undef B
#undef BC
#undef BU
#undef RO
#undef DY
#undef I

/* atomic: brokers of one process (libgregor) may bump it at once */
static _Atomic uint32_t settings_generation = 1;

const gr_topic_config_def_t *
gr_topic_config_def_at(int i)
{
    if (i < 0 || (size_t)i >= sizeof defs / sizeof defs[0])
        return NULL;
    return &defs[i];
}

const gr_topic_config_def_t *
gr_topic_config_def_find(const char *name)
{
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (strcmp(defs[i].name, name) == 0)
            return &defs[i];
    return NULL;
}

const gr_broker_config_def_t *
gr_broker_config_def(gr_conf_id_t id)
{
    return &bdefs[id];
}

int
gr_broker_config_synonyms(gr_conf_id_t id, int *out)
{
    /* DynamicBrokerConfig.brokerConfigSynonyms */
    static const int groups[][GR_CONFIG_SYNONYMS_MAX] = {
        { GR_CONF_LOG_RETENTION_MS, GR_CONF_LOG_RETENTION_MINUTES,
          GR_CONF_LOG_RETENTION_HOURS },
        { GR_CONF_LOG_ROLL_MS, GR_CONF_LOG_ROLL_HOURS, -1 },
        { GR_CONF_LOG_ROLL_JITTER_MS, GR_CONF_LOG_ROLL_JITTER_HOURS, -1 },
        { GR_CONF_LOG_FLUSH_INTERVAL_MS,
          GR_CONF_LOG_FLUSH_SCHEDULER_INTERVAL_MS, -1 },
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        bool in = false;
        int n = 0;
        /* flush.scheduler.interval.ms is a synonym of flush.interval.ms
         * (its default), not the other way round */
        if (g == 3 && (int)id != GR_CONF_LOG_FLUSH_INTERVAL_MS)
            continue;
        for (int k = 0; k < GR_CONFIG_SYNONYMS_MAX; k++)
            if (groups[g][k] == (int)id)
                in = true;
        if (!in)
            continue;
        for (int k = 0; k < GR_CONFIG_SYNONYMS_MAX && groups[g][k] >= 0; k++)
            out[n++] = groups[g][k];
        return n;
    }
    out[0] = (int)id;
    return 1;
}

/* --- checks, as Kafka's ConfigDef parses and validates a value */

/* Java's String.trim: (p, len) without the leading and trailing
 * characters up to ' '. */
static void
jtrim(const char *v, const char **p, size_t *len)
{
    size_t n = strlen(v);
    while (n > 0 && (unsigned char)*v <= ' ') {
        v++;
        n--;
    }
    while (n > 0 && (unsigned char)v[n - 1] <= ' ')
        n--;
    *p = v;
    *len = n;
}

/* The value of a LONG/INT/SHORT as Java's parseLong and friends read it:
 * an optional sign and digits, nothing else. 0, or -1. */
static int
jparse_long(const char *p, size_t len, gr_tcfg_type_t type, int64_t *out)
{
    char tmp[32], *end;
    long long v;
    size_t i = 0;
    if (len == 0 || len >= sizeof tmp)
        return -1;
    if (p[0] == '+' || p[0] == '-')
        i++;
    if (i == len)
        return -1;
    for (size_t k = i; k < len; k++)
        if (p[k] < '0' || p[k] > '9')
            return -1;
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    errno = 0;
    v = strtoll(tmp, &end, 10);
    if (errno != 0 || *end != '\0' ||
        (type == GR_TCFG_INT && (v < INT32_MIN || v > INT32_MAX)) ||
        (type == GR_TCFG_SHORT && (v < INT16_MIN || v > INT16_MAX)))
        return -1;
    *out = v;
    return 0;
}

/* A DOUBLE as Java's parseDouble reads it (finite values; a trailing d or f
 * allowed). 0, or -1. */
static int
jparse_double(const char *p, size_t len, double *out)
{
    char tmp[128], *end;
    double v;
    if (len == 0 || len >= sizeof tmp)
        return -1;
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    if (strchr("dDfF", tmp[len - 1]) != NULL && len > 1)
        tmp[len - 1] = '\0';
    if (strpbrk(tmp, "xXnN") != NULL) /* no hex, nan or inf spellings */
        return -1;
    errno = 0;
    v = strtod(tmp, &end);
    if (errno != 0 || end == tmp || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* v as Java's Double.toString prints it: the shortest digits that read
 * back as v, plain from 10^-3 to 10^7 ("2.0", "0.25"), else as
 * "1.0E7". */
static void
jdouble_str(double v, char *out, size_t n)
{
    char tmp[48], digs[24];
    int nd = 0, e10;
    const char *q;

    if (v == 0) {
        snprintf(out, n, "%s", signbit(v) ? "-0.0" : "0.0");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    for (q = tmp; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9' && nd < (int)sizeof digs - 1)
            digs[nd++] = *q;
    e10 = *q == 'e' ? atoi(q + 1) : 0;
    while (nd > 1 && digs[nd - 1] == '0')
        nd--;
    digs[nd] = '\0';
    if ((v < 0 ? -v : v) >= 1e-3 && (v < 0 ? -v : v) < 1e7) {
        size_t at = (size_t)snprintf(out, n, "%s", v < 0 ? "-" : "");
        if (e10 < 0) {
            at += (size_t)snprintf(out + at, at < n ? n - at : 0, "0.");
            for (int k = 0; k < -e10 - 1; k++)
                at += (size_t)snprintf(out + at, at < n ? n - at : 0, "0");
            snprintf(out + at, at < n ? n - at : 0, "%s", digs);
        } else {
            for (int k = 0; k <= e10; k++)
                at += (size_t)snprintf(out + at, at < n ? n - at : 0, "%c",
                                       k < nd ? digs[k] : '0');
            snprintf(out + at, at < n ? n - at : 0, ".%s",
                     nd > e10 + 1 ? digs + e10 + 1 : "0");
        }
        return;
    }
    snprintf(out, n, "%s%c.%sE%d", v < 0 ? "-" : "", digs[0],
             nd > 1 ? digs + 1 : "0", e10);
}

/* Kafka's ConfigException(name, value, message). */
static const char *
invalid(char *msg, size_t n, const char *name, const char *value, size_t vlen,
        const char *why)
{
    snprintf(msg, n, "Invalid value %.*s for configuration %s: %s", (int)vlen,
             value, name, why);
    return msg;
}

static bool
in_choices(const char *const *choices, const char *v, size_t len)
{
    for (; *choices; choices++)
        if (strlen(*choices) == len && strncmp(*choices, v, len) == 0)
            return true;
    return false;
}

/* "String must be one of: a, b" (ValidString). */
static const char *
one_of(const char *const *choices, char *buf, size_t n)
{
    size_t at = (size_t)snprintf(buf, n, "String must be one of: ");
    for (int i = 0; choices[i] && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "",
                               choices[i]);
    return buf;
}

static bool
jspace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

/* The items of a trimmed LIST value as Kafka splits it (\s*,\s*, empty
 * items kept): up to max (p, len) pairs; returns how many, or -1 when
 * there are more. An empty value has none. */
static int
list_items(const char *p, size_t len, const char **it, size_t *il, int max)
{
    int n = 0;
    size_t at = 0;
    if (len == 0)
        return 0;
    for (;;) {
        size_t b = at, e;
        while (at < len && p[at] != ',')
            at++;
        e = at;
        while (e > b && jspace(p[e - 1]))
            e--;
        while (b < e && jspace(p[b]))
            b++;
        if (n == max)
            return -1;
        it[n] = p + b;
        il[n++] = e - b;
        if (at == len)
            return n;
        at++;
    }
}

#define LIST_MAX 256

/* ValidList.in(choices) on a trimmed value: no empty item, each one of
 * choices (duplicates are dropped before, as ConfigDef.parseValue does). */
static const char *
check_list(const char *name, const char *const *choices, const char *p,
           size_t len, char *msg, size_t n)
{
    const char *it[LIST_MAX];
    size_t il[LIST_MAX];
    char why[256];
    int k = list_items(p, len, it, il, LIST_MAX);
    if (k < 0) {
        snprintf(msg, n, "Configuration '%s' has too many values.", name);
        return msg;
    }
    for (int i = 0; i < k; i++) {
        if (il[i] == 0) {
            snprintf(msg, n, "Configuration '%s' values must not be empty.",
                     name);
            return msg;
        }
        if (!in_choices(choices, it[i], il[i]))
            return invalid(msg, n, name, it[i], il[i],
                           one_of(choices, why, sizeof why));
    }
    return NULL;
}

/* Kafka's ThrottledReplicaListValidator: "*" or partition:broker items. */
static const char *
check_throttled(const char *name, const char *p, size_t len, char *msg,
                size_t n)
{
    const char *it[LIST_MAX];
    size_t il[LIST_MAX];
    char list[512], why[256];
    size_t at = 0;
    bool ok = true;
    int k = list_items(p, len, it, il, LIST_MAX);

    if (k == 1 && il[0] == 1 && it[0][0] == '*')
        return NULL;
    for (int i = 0; k > 0 && i < k && ok; i++) {
        size_t c = 0, digits1 = 0, digits2 = 0;
        while (c < il[i] && it[i][c] >= '0' && it[i][c] <= '9')
            c++, digits1++;
        if (c < il[i] && it[i][c] == ':')
            c++;
        else if (il[i] > 0)
            ok = false;
        while (c < il[i] && it[i][c] >= '0' && it[i][c] <= '9')
            c++, digits2++;
        if (il[i] > 0 && (c != il[i] || digits1 == 0 || digits2 == 0))
            ok = false;
    }
    if (k >= 0 && ok)
        return NULL;
    /* the value as Java prints the list: [a, b] */
    at = (size_t)snprintf(list, sizeof list, "[");
    for (int i = 0; k > 0 && i < k && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%.*s",
                               i ? ", " : "", (int)il[i], it[i]);
    if (at < sizeof list)
        snprintf(list + at, sizeof list - at, "]");
    snprintf(why, sizeof why,
             "%s must be the literal '*' or a list of replicas in the "
             "following format: [partitionId]:[brokerId],[partitionId]:"
             "[brokerId],...",
             name);
    return invalid(msg, n, name, list, strlen(list), why);
}

/* A validator beyond type, range and choices. */
enum special { SP_NONE, SP_GZIP_LEVEL, SP_THROTTLED };

/* Checks value as ConfigDef.parseType, then the validator: a range
 * (min/max; "Value must be at least"), allowed values (ValidString,
 * ValidList) or a special one. msg names key and value as Kafka's
 * ConfigException does: as given when it does not parse, as parsed when
 * a validator refuses it. */
static const char *
check_value(const char *name, gr_tcfg_type_t type, int64_t min, int64_t max,
            const char *const *choices, enum special sp, const char *value)
{
    static _Thread_local char msg[768];
    char why[256], num[48];
    const char *p;
    size_t len;

    jtrim(value, &p, &len);
    switch (type) {
    case GR_TCFG_INT:
    case GR_TCFG_SHORT:
    case GR_TCFG_LONG: {
        int64_t v;
        if (jparse_long(p, len, type, &v) != 0) {
            snprintf(why, sizeof why, "Not a number of type %s",
                     type == GR_TCFG_LONG    ? "LONG"
                     : type == GR_TCFG_SHORT ? "SHORT"
                                             : "INT");
            return invalid(msg, sizeof msg, name, value, strlen(value), why);
        }
        snprintf(num, sizeof num, "%lld", (long long)v);
        if (sp == SP_GZIP_LEVEL) {
            if (v > 9 || (v < 1 && v != -1))
                return invalid(msg, sizeof msg, name, num, strlen(num),
                               "Value must be between 1 and 9 or equal to "
                               "-1");
            return NULL;
        }
        if (v < min) {
            snprintf(why, sizeof why, "Value must be at least %lld",
                     (long long)min);
            return invalid(msg, sizeof msg, name, num, strlen(num), why);
        }
        if (v > max) {
            snprintf(why, sizeof why, "Value must be no more than %lld",
                     (long long)max);
            return invalid(msg, sizeof msg, name, num, strlen(num), why);
        }
        return NULL;
    }
    case GR_TCFG_DOUBLE: {
        double v;
        if (jparse_double(p, len, &v) != 0)
            return invalid(msg, sizeof msg, name, value, strlen(value),
                           "Not a number of type DOUBLE");
        jdouble_str(v, num, sizeof num);
        if (v < (double)min) {
            snprintf(why, sizeof why, "Value must be at least %lld",
                     (long long)min);
            return invalid(msg, sizeof msg, name, num, strlen(num), why);
        }
        if (v > (double)max) {
            snprintf(why, sizeof why, "Value must be no more than %lld",
                     (long long)max);
            return invalid(msg, sizeof msg, name, num, strlen(num), why);
        }
        return NULL;
    }
    case GR_TCFG_BOOL:
        if (!(len == 4 && strncasecmp(p, "true", 4) == 0) &&
            !(len == 5 && strncasecmp(p, "false", 5) == 0))
            return invalid(msg, sizeof msg, name, value, strlen(value),
                           "Expected value to be either true or false");
        return NULL;
    case GR_TCFG_STRING:
        if (choices && !in_choices(choices, p, len))
            return invalid(msg, sizeof msg, name, p, len,
                           one_of(choices, why, sizeof why));
        return NULL;
    case GR_TCFG_LIST:
        if (sp == SP_THROTTLED)
            return check_throttled(name, p, len, msg, sizeof msg);
        if (choices)
            return check_list(name, choices, p, len, msg, sizeof msg);
        return NULL;
    case GR_TCFG_UNKNOWN:
    case GR_TCFG_CLASS:
    case GR_TCFG_PASSWORD:
        return NULL;
    }
    return NULL;
}

const char *
gr_topic_config_canonical(const gr_topic_config_def_t *d, const char *value,
                          char *buf, size_t bufsz)
{
    const char *p, *it[LIST_MAX];
    size_t len, il[LIST_MAX], at = 0;
    gr_tcfg_type_t type = d->type;
    int64_t v;
    double dv;
    int k;

    jtrim(value, &p, &len);
    switch (type) {
    case GR_TCFG_INT:
    case GR_TCFG_SHORT:
    case GR_TCFG_LONG:
        if (jparse_long(p, len, type, &v) != 0)
            return value;
        snprintf(buf, bufsz, "%lld", (long long)v);
        return buf;
    case GR_TCFG_DOUBLE:
        if (jparse_double(p, len, &dv) != 0)
            return value;
        jdouble_str(dv, buf, bufsz);
        return buf;
    case GR_TCFG_BOOL:
        if (len == 4 && strncasecmp(p, "true", 4) == 0)
            return "true";
        if (len == 5 && strncasecmp(p, "false", 5) == 0)
            return "false";
        return value;
    case GR_TCFG_STRING:
    case GR_TCFG_CLASS:
        snprintf(buf, bufsz, "%.*s", (int)len, p);
        return buf;
    case GR_TCFG_LIST:
        if ((k = list_items(p, len, it, il, LIST_MAX)) < 0)
            return value;
        buf[0] = '\0';
        for (int i = 0, out = 0; i < k && at < bufsz; i++) {
            bool seen = false;
            /* a ValidList drops duplicates (ConfigDef.parseValue) */
            for (int j = 0; d->choices && j < i; j++)
                seen |= il[j] == il[i] && memcmp(it[j], it[i], il[i]) == 0;
            if (!seen)
                at += (size_t)snprintf(buf + at, bufsz - at, "%s%.*s",
                                       out++ ? "," : "", (int)il[i], it[i]);
        }
        return buf;
    case GR_TCFG_UNKNOWN:
    case GR_TCFG_PASSWORD:
        return value;
    }
    return value;
}

bool
gr_topic_config_is_legacy(const gr_topic_config_def_t *d)
{
    return strcmp(d->name, "message.format.version") == 0 ||
           strcmp(d->name, "message.timestamp.difference.max.ms") == 0 ||
           strcmp(d->name, "message.downconversion.enable") == 0;
}

/* Kafka 3.x's MetadataVersion strings: 0.8.0-0.8.2, 0.9.0, 0.10.0-0.10.2,
 * 0.11.0, 1.0-3.9, each optionally with -IV<n>. */
static bool
message_format_version_valid(const char *v)
{
    static const char *const old[] = { "0.8.0", "0.8.1", "0.8.2", "0.9.0",
                                       "0.10.0", "0.10.1", "0.10.2", "0.11.0",
                                       NULL };
    size_t n = 0;
    for (int i = 0; old[i]; i++)
        if (strncmp(v, old[i], strlen(old[i])) == 0)
            n = strlen(old[i]);
    if (n == 0 && ((v[0] >= '1' && v[0] <= '3') && v[1] == '.' &&
                   v[2] >= '0' && v[2] <= '9'))
        n = 3;
    if (n == 0)
        return false;
    if (v[n] == '\0')
        return true;
    if (strncmp(v + n, "-IV", 3) != 0 || v[n + 3] == '\0')
        return false;
    for (const char *p = v + n + 3; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

const char *
gr_topic_config_check(const char *name, const char *value)
{
    static _Thread_local char msg[512];
    const gr_topic_config_def_t *d = gr_topic_config_def_find(name);
    const char *why, *p;
    size_t len;
    enum special sp = SP_NONE;

    if (d == NULL) {
        snprintf(msg, sizeof msg, "Unknown topic config name: %s", name);
        return msg;
    }
    if (value == NULL) {
        snprintf(msg, sizeof msg,
                 "Null value not supported for topic config "
                 "%s",
                 name);
        return msg;
    }
    if (strcmp(name, "message.format.version") == 0) {
        char v[64], text[128];
        jtrim(value, &p, &len);
        snprintf(v, sizeof v, "%.*s", (int)len, p);
        if (len >= sizeof v || !message_format_version_valid(v)) {
            snprintf(text, sizeof text,
                     "Version `%.*s` is not a valid version",
                     (int)(len < 64 ? len : 64), p);
            return invalid(msg, sizeof msg, name, value, strlen(value), text);
        }
        return NULL;
    }
    if (strcmp(name, "compression.gzip.level") == 0)
        sp = SP_GZIP_LEVEL;
    else if (strstr(name, ".replication.throttled.replicas") != NULL)
        sp = SP_THROTTLED;
    why = check_value(d->name, d->type, d->min, d->max, d->choices, sp, value);
    if (why != NULL)
        return why;
    /* LogConfig.validateRemoteStorageOnlyIfSystemEnabled: this broker has
     * no tiered storage */
    if (strcmp(name, "remote.storage.enable") == 0) {
        jtrim(value, &p, &len);
        if (len == 4 && strncasecmp(p, "true", 4) == 0)
            return "Tiered Storage functionality is disabled in the broker. "
                   "Topic cannot be configured with remote log storage.";
    }
    return NULL;
}

/* conf.def's ranges, by conf id */
static const struct {
    int64_t min, max;
} ranges[GR_CONF__COUNT] = {
#define X(id, name, type, def, min, max) [GR_CONF_##id] = { min, max },
#include "core/conf.def"
#undef X
};

const char *
gr_broker_config_check(gr_conf_id_t id, const char *value)
{
    static _Thread_local char msg[512];
    const gr_broker_config_def_t *d = &bdefs[id];
    const char *name = gr_conf_name(id), *why;
    int64_t min = ranges[id].min, max = ranges[id].max;
    enum special sp = SP_NONE;

    if (d->type == GR_TCFG_DOUBLE) { /* log.cleaner.min.cleanable.ratio */
        min = 0;
        max = 1;
    }
    if (id == GR_CONF_COMPRESSION_GZIP_LEVEL)
        sp = SP_GZIP_LEVEL;
    why = check_value(name, d->type, min, max, d->choices, sp, value);
    if (why != NULL)
        return why;
    /* what conf.c's own check refuses, in its words */
    if (gr_conf_check(id, value, msg, sizeof msg) != NULL)
        return msg;
    return NULL;
}

const char *
gr_topic_config_static_extra(const gr_conf_t *conf, const char *name)
{
    const char *k, *v;
    for (int i = 0; gr_conf_extra_at(conf, i, &k, &v); i++)
        if (strcmp(k, name) == 0)
            return v;
    return NULL;
}

/* v without Java-trimmed blanks, in buf when it has some (and fits). */
static const char *
trimmed(const char *v, char *buf, size_t bufsz)
{
    const char *p;
    size_t len;
    jtrim(v, &p, &len);
    if (len == strlen(v) || len >= bufsz)
        return v;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

const char *
gr_topic_config_value(const gr_conf_t *conf, const gr_topic_t *t,
                      const char *name, char *buf, size_t bufsz)
{
    const gr_topic_config_def_t *d = gr_topic_config_def_find(name);
    const char *v = t ? gr_topic_config_get(t, name) : NULL, *k;
    if (v)
        return trimmed(v, buf, bufsz);
    if (d == NULL)
        return NULL;
    if (strcmp(name, "retention.ms") == 0) {
        snprintf(buf, bufsz, "%lld", (long long)gr_conf_retention_ms(conf));
        return buf;
    }
    if (strcmp(name, "segment.ms") == 0) {
        snprintf(buf, bufsz, "%lld", (long long)gr_conf_roll_ms(conf));
        return buf;
    }
    if (strcmp(name, "segment.jitter.ms") == 0 &&
        !gr_conf_is_set(conf, GR_CONF_LOG_ROLL_JITTER_MS)) {
        snprintf(buf, bufsz, "%lld",
                 (long long)gr_conf_int(conf, GR_CONF_LOG_ROLL_JITTER_HOURS) *
                     3600000);
        return buf;
    }
    if (strcmp(name, "flush.ms") == 0 &&
        !gr_conf_is_set(conf, GR_CONF_LOG_FLUSH_INTERVAL_MS)) {
        snprintf(buf, bufsz, "%lld",
                 (long long)gr_conf_int(
                     conf, GR_CONF_LOG_FLUSH_SCHEDULER_INTERVAL_MS));
        return buf;
    }
    if (d->synonyms[0] >= 0) {
        const char *bv = gr_conf_str(conf, (gr_conf_id_t)d->synonyms[0]);
        return bv ? trimmed(bv, buf, bufsz) : "";
    }
    if ((k = gr_topic_config_kafka_synonym(d)) != NULL &&
        (v = gr_topic_config_static_extra(conf, k)) != NULL &&
        gr_topic_config_check(d->name, v) == NULL)
        return trimmed(v, buf, bufsz);
    return d->def ? d->def : "";
}

static int64_t
num(const gr_conf_t *conf, const gr_topic_t *t, const char *name)
{
    char buf[64];
    const char *v = gr_topic_config_value(conf, t, name, buf, sizeof buf);
    return v ? strtoll(v, NULL, 10) : 0;
}

static bool
flag(const gr_conf_t *conf, const gr_topic_t *t, const char *name)
{
    char buf[64];
    const char *v = gr_topic_config_value(conf, t, name, buf, sizeof buf);
    return v && strcasecmp(v, "true") == 0;
}

static int
codec_of(const char *v)
{
    if (strcmp(v, "gzip") == 0)
        return GR_CODEC_GZIP;
    if (strcmp(v, "snappy") == 0)
        return GR_CODEC_SNAPPY;
    if (strcmp(v, "lz4") == 0)
        return GR_CODEC_LZ4;
    if (strcmp(v, "zstd") == 0)
        return GR_CODEC_ZSTD;
    if (strcmp(v, "uncompressed") == 0)
        return GR_CODEC_NONE;
    return GR_TOPIC_COMPRESSION_PRODUCER;
}

/* Whether the comma separated list v has item. */
static bool
list_has(const char *v, const char *item)
{
    size_t n = strlen(item);
    while (v && *v) {
        const char *c = strchr(v, ',');
        size_t len = c ? (size_t)(c - v) : strlen(v);
        while (len && *v == ' ') {
            v++;
            len--;
        }
        while (len && v[len - 1] == ' ')
            len--;
        if (len == n && strncmp(v, item, n) == 0)
            return true;
        v = c ? c + 1 : NULL;
    }
    return false;
}

const gr_topic_settings_t *
gr_topic_settings(const gr_conf_t *conf, gr_topic_t *t)
{
    gr_topic_settings_t *s = t->settings;
    char buf[256];
    const char *v;

    if (s != NULL && t->settings_gen == settings_generation)
        return s;
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        GR_ASSERT(s != NULL);
        t->settings = s;
    }
    s->segment_bytes = num(conf, t, "segment.bytes");
    s->segment_ms = num(conf, t, "segment.ms");
    s->segment_jitter_ms = num(conf, t, "segment.jitter.ms");
    s->retention_ms = num(conf, t, "retention.ms");
    s->retention_bytes = num(conf, t, "retention.bytes");
    s->flush_messages = num(conf, t, "flush.messages");
    s->flush_ms = num(conf, t, "flush.ms");
    s->index_interval_bytes = (int32_t)num(conf, t, "index.interval.bytes");
    s->segment_index_bytes = (int32_t)num(conf, t, "segment.index.bytes");
    s->file_delete_delay_ms = num(conf, t, "file.delete.delay.ms");
    s->preallocate = flag(conf, t, "preallocate");
    v = gr_topic_config_value(conf, t, "cleanup.policy", buf, sizeof buf);
    s->cleanup_delete = list_has(v, "delete");
    s->cleanup_compact = list_has(v, "compact");
    s->max_message_bytes = (int32_t)num(conf, t, "max.message.bytes");
    v = gr_topic_config_value(conf, t, "message.timestamp.type", buf,
                              sizeof buf);
    s->log_append_time = v && strcmp(v, "LogAppendTime") == 0;
    v = gr_topic_config_value(conf, t, "compression.type", buf, sizeof buf);
    s->compression = codec_of(v ? v : "producer");
    s->min_insync_replicas = (int32_t)num(conf, t, "min.insync.replicas");
    s->ts_before_max_ms = num(conf, t, "message.timestamp.before.max.ms");
    s->ts_after_max_ms = num(conf, t, "message.timestamp.after.max.ms");
    s->delete_retention_ms = num(conf, t, "delete.retention.ms");
    s->min_compaction_lag_ms = num(conf, t, "min.compaction.lag.ms");
    s->max_compaction_lag_ms = num(conf, t, "max.compaction.lag.ms");
    v = gr_topic_config_value(conf, t, "min.cleanable.dirty.ratio", buf,
                              sizeof buf);
    s->min_cleanable_dirty_ratio = v ? strtod(v, NULL) : 0.5;
    t->settings_gen = settings_generation;
    return s;
}

void
gr_topic_settings_invalidate_all(void)
{
    if (++settings_generation == 0)
        settings_generation = 1;
}
