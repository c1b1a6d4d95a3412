// kafkajs 2.2.4 admin against gregor (GR_BOOTSTRAP): CreateTopics v3,
// DescribeConfigs v2, AlterConfigs v1, CreatePartitions v1, DeleteRecords
// v1, DeleteTopics v1, with the effects seen by its producer and ListOffsets:
// retention.ms set low deletes the data (the low watermark moves), a topic
// turned compact refuses keyless records, DeleteRecords moves the low
// watermark, deleted topics are gone. GR_TOPIC is a name prefix.
// Exit 0 on success.
const { Kafka, logLevel, ConfigResourceTypes, CompressionTypes } = require('kafkajs');

const prefix = process.env.GR_TOPIC || 'kjs-adm';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function check(cond, what, detail) {
  if (!cond) throw new Error(what + (detail === undefined ? '' : ': ' + JSON.stringify(detail)));
}

function entry(res, name) {
  const e = res.resources[0].configEntries.find((c) => c.configName === name);
  check(e, 'no config ' + name, res.resources[0]);
  return e;
}

async function expectError(promise, what, want) {
  try {
    await promise;
  } catch (e) {
    // kafkajs wraps: aggregate errors, retries exceeded (originalError)
    const all = [e, e.originalError, e.cause].concat(e.errors || [],
      (e.originalError && e.originalError.errors) || []).filter((x) => x);
    const types = all.map((x) => x.type || (x.error && x.error.type) || x.name);
    check(types.includes(want) || e.type === want, what + ': want ' + want, types.concat([e.message]));
    return;
  }
  throw new Error(what + ': no error, want ' + want);
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-compat-admin',
    brokers: [process.env.GR_BOOTSTRAP],
    logLevel: logLevel.ERROR,
    retry: { retries: 2 },
  });
  const admin = kafka.admin();
  await admin.connect();
  const a = prefix + '-a', r = prefix + '-ret', c = prefix + '-cmp';

  // create: with configs; validateOnly; already there; bad config
  check(await admin.createTopics({
    topics: [
      { topic: a, numPartitions: 2, configEntries: [{ name: 'segment.bytes', value: '1048576' }] },
      { topic: r, numPartitions: 1, configEntries: [{ name: 'segment.ms', value: '100' }] },
      { topic: c, numPartitions: 1 },
    ],
  }), 'createTopics');
  check(await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: prefix + '-v' }] }), 'validateOnly');
  check(!(await admin.listTopics()).includes(prefix + '-v'), 'validateOnly created the topic');
  check(await admin.createTopics({ topics: [{ topic: a }] }) === false, 'an existing topic');
  await expectError(admin.createTopics({
    topics: [{ topic: prefix + '-bad', configEntries: [{ name: 'retention.ms', value: 'forever' }] }],
  }), 'bad config', 'INVALID_CONFIG');
  const md = await admin.fetchTopicMetadata({ topics: [a] });
  check(md.topics[0].partitions.length === 2, 'partitions', md);

  // describe
  let res = await admin.describeConfigs({
    includeSynonyms: true,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: a }],
  });
  let e = entry(res, 'segment.bytes');
  check(e.configValue === '1048576' && e.configSource === 1 && !e.isDefault, 'segment.bytes', e);
  e = entry(res, 'retention.ms');
  check(e.configValue === '604800000' && e.configSource === 5, 'retention.ms', e);
  // Kafka (ConfigHelper.configSynonyms) lists a topic config's broker
  // synonyms from the first one (log.retention.ms) on, and only those with
  // a value: log.retention.hours has the default but comes before it, so
  // Kafka 4.4 answers none here. segment.bytes, set on the topic, has its
  // own and log.segment.bytes's default
  check(e.configSynonyms.length === 0, 'retention.ms synonyms (Kafka 4.4: none)', e.configSynonyms);
  e = entry(res, 'segment.bytes');
  check(e.configSynonyms.some((s) => s.configName === 'log.segment.bytes' && s.configValue === '1073741824' && s.configSource === 5),
    'segment.bytes synonyms', e.configSynonyms);
  res = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: ['log.retention.check.interval.ms', 'num.partitions'] }],
  });
  check(res.resources[0].configEntries.length === 2, 'configNames filter', res);
  e = entry(res, 'log.retention.check.interval.ms');
  check(e.configValue === '200' && e.configSource === 4 && e.readOnly, 'static broker config', e);

  // produce, then retention.ms=1 on the topic: the next check deletes
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < 5; i++) {
    await producer.send({ topic: r, messages: [{ key: 'k', value: 'v' + i }] });
    await sleep(150); // segment.ms=100: a new segment per record
  }
  let offs = await admin.fetchTopicOffsets(r);
  check(offs[0].high === '5' && offs[0].low === '0', 'offsets before', offs);
  await admin.alterConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: r, configEntries: [{ name: 'retention.ms', value: '1' }, { name: 'segment.ms', value: '100' }] }],
  });
  for (let i = 0; i < 50 && offs[0].low === '0'; i++) {
    await sleep(100);
    offs = await admin.fetchTopicOffsets(r);
  }
  // as Kafka: segments wholly below the high watermark go, the active one
  // too (a new one is rolled first)
  check(offs[0].low === '5' && offs[0].high === '5', 'retention did not delete', offs);
  res = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: r }] });
  check(entry(res, 'retention.ms').configValue === '1', 'retention.ms altered');

  // cleanup.policy=compact at once: a keyless record is refused
  await admin.alterConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: c, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
  });
  await expectError(producer.send({ topic: c, acks: -1, messages: [{ value: 'no key' }] }),
    'keyless on compact', 'INVALID_RECORD');
  await producer.send({ topic: c, compression: CompressionTypes.GZIP, messages: [{ key: 'k', value: 'ok' }] });
  await expectError(admin.alterConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: c, configEntries: [{ name: 'cleanup.policy', value: 'shred' }] }],
  }), 'bad cleanup.policy', 'INVALID_CONFIG');

  // partitions 2 -> 4; fewer is refused
  await admin.createPartitions({ topicPartitions: [{ topic: a, count: 4 }] });
  check((await admin.fetchTopicMetadata({ topics: [a] })).topics[0].partitions.length === 4, 'createPartitions');
  await expectError(admin.createPartitions({ topicPartitions: [{ topic: a, count: 3 }] }),
    'fewer partitions', 'INVALID_PARTITIONS');

  // records: 20 to partition 0, delete below 15
  await producer.send({ topic: a, messages: Array.from({ length: 20 }, (_, i) => ({ partition: 0, value: 'm' + i })) });
  // kafkajs looks the leader up in its cached metadata: refresh it
  await admin.fetchTopicMetadata({ topics: [a] });
  await admin.deleteTopicRecords({ topic: a, partitions: [{ partition: 0, offset: '15' }] });
  offs = await admin.fetchTopicOffsets(a);
  const p0 = offs.find((o) => o.partition === 0);
  check(p0.low === '15' && p0.high === '20', 'deleteTopicRecords', offs);
  // delete
  await producer.disconnect();
  await admin.deleteTopics({ topics: [a, r, c] });
  const left = await admin.listTopics();
  check(![a, r, c].some((t) => left.includes(t)), 'deleteTopics', left);
  await expectError(admin.deleteTopics({ topics: [a] }), 'delete again', 'UNKNOWN_TOPIC_OR_PARTITION');
  await admin.disconnect();
  console.log('ok');
}

main().catch((e) => { console.error('FAIL:', e); process.exit(1); });
