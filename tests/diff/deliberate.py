"""
tests/diff/deliberate.py: the differences from Apache Kafka 4.4 that Gregor
makes on purpose, by name. Each is pinned by the steps of a case marked
deliberate=NAME (the difference must show, as the step expects on each
side) and written up for users in docs/compatibility.md.
"""

DELIBERATE = {
    "legacy-versions": (
        "Gregor keeps the API versions Kafka 4.0 removed (KIP-896: Produce "
        "v0-v2, Fetch v0-v3, ListOffsets v0, OffsetCommit v0-v1, OffsetFetch "
        "v0, CreateTopics v0-v1, DeleteTopics v0, DescribeConfigs v0, "
        "DescribeLogDirs v0, WriteTxnMarkers v0, OffsetForLeaderEpoch v0-v1) so that old clients keep "
        "working; Kafka 4.4 answers them UNSUPPORTED_VERSION or closes."),
    "unserved-apis": (
        "APIs Kafka 4.4 serves that Gregor does not serve yet, each with the "
        "issue that adds it; Gregor closes the connection of a request for "
        "an API it does not advertise, as Kafka does for an unknown API."),
    "message-format-version": (
        "Gregor accepts the topic configs Kafka 3.x accepted and 4.0 "
        "dropped (message.format.version, "
        "message.timestamp.difference.max.ms), as 3.x accepted them, "
        "because clients' test suites still set them."),
    "small-segment-bytes": (
        "Gregor allows segment.bytes below Kafka 4.x's 1 MiB minimum "
        "(tests use small segments)."),
    "java-only-regex": (
        "Regular expressions are matched as POSIX extended expressions; "
        "Java-only syntax is refused as invalid (src/core/regex.h)."),
    "broker-configs": (
        "A broker's DescribeConfigs lists the configs Gregor has (each as "
        "Kafka lists it), not the other 260-odd of Kafka's, whose values "
        "would describe settings Gregor does not honour."),
    "static-listeners": (
        "Listeners are bound at start-up: Gregor describes listeners as "
        "read-only, where Kafka can add and change listeners at run time."),
    "static-tls": (
        "TLS settings (ssl.*) and sasl.enabled.mechanisms and "
        "sasl.jaas.config are read at start-up: Gregor describes them "
        "as read-only, where Kafka reloads keystores and truststores "
        "and the SASL settings of a listener altered at run time."),
    "static-fetchers": (
        "num.replica.fetchers is read at start-up and a follower runs one "
        "fetcher per leader broker whatever it says: Gregor describes it "
        "as read-only, where Kafka resizes its fetcher pool when it is "
        "altered at run time."),
    "gregor-defaults": (
        "Broker defaults Gregor chose: socket buffers left to the kernel's "
        "autotuning (-1; Kafka 102400) and queued.max.request.bytes bounded "
        "at 500 MiB (Kafka -1, no bound)."),
    "no-online-migration": (
        "A group does not move between the classic and the consumer "
        "protocol while it has members (KIP-848's online migration, "
        "group.consumer.migration.policy): Gregor answers as Kafka does with "
        "the policy disabled (a consumer join of a classic group with "
        "members is GROUP_ID_NOT_FOUND, a classic join of a consumer group "
        "with members INCONSISTENT_GROUP_PROTOCOL); empty groups change "
        "type as in Kafka."),
    "group-configs": (
        "GROUP config resources (KIP-848 and share group settings per "
        "group) are refused: Gregor has the broker-wide group.consumer.* "
        "settings only (issue 24)."),
    "telemetry-file": (
        "Client telemetry (KIP-714) is written to a file "
        "(gregor.client.telemetry.file) instead of an exporter plugin; "
        "without the file the APIs are answered but not advertised, as "
        "Kafka does without a plugin."),
}
