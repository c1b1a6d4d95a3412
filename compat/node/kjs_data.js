// kafkajs 2.2.4 data path against gregor (GR_BOOTSTRAP), what the other
// kafkajs scripts leave out, read back by kafkajs's own consumer field by
// field: explicit CreateTime timestamps, LogAppendTime (kafkajs reads the
// batch's max timestamp), repeated header keys (an array value) and binary
// headers, null keys and values, keyed partitioning (its DefaultPartitioner
// is Java's murmur2), explicit partitions, dense offsets, gzip and none;
// ListOffsets by time (admin.fetchTopicOffsetsByTimestamp); a 1 MB record;
// MESSAGE_TOO_LARGE; UNKNOWN_TOPIC_OR_PARTITION for a missing topic when
// the producer does not allow auto-creation.
// kafkajs has gzip only: snappy, lz4 and zstd need codec plugins
// (kafkajs-snappy, kafkajs-lz4, @kafkajs/zstd), which are not part of it.
// Exit 0 on success.
'use strict';
const crypto = require('crypto');
const { Kafka, logLevel, CompressionTypes, Partitioners } = require('kafkajs');

const kafka = new Kafka({ clientId: 'kjs-data', brokers: [process.env.GR_BOOTSTRAP], logLevel: logLevel.NOTHING,
                          retry: { retries: 2, initialRetryTime: 50, maxRetryTime: 200 } });
const T0 = 1700000000000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function check(cond, what, detail) {
  if (!cond) throw new Error(what + (detail === undefined ? '' : ': ' + JSON.stringify(detail)));
}
const eq = (got, want, what) => check(JSON.stringify(got) === JSON.stringify(want), what, { got, want });

async function expectError(promise, want, what) {
  try {
    await promise;
  } catch (e) {
    const all = [e, e.originalError, e.cause].concat(e.errors || [], (e.originalError && e.originalError.errors) || [])
      .filter((x) => x);
    const types = all.map((x) => x.type || x.name);
    check(types.includes(want), `${what}: want ${want}`, types.concat([e.message]));
    console.log(`${what}: ${want}`);
    return;
  }
  throw new Error(`${what}: succeeded, want ${want}`);
}

// reads n messages from the beginning with a throwaway group
async function readAll(topic, n) {
  const c = kafka.consumer({ groupId: 'kjs-read-' + crypto.randomUUID(), sessionTimeout: 6000, heartbeatInterval: 500,
                             maxWaitTimeInMs: 100, maxBytesPerPartition: 2 * 1024 * 1024 });
  const got = [];
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({ autoCommit: false, eachMessage: async ({ partition, message }) => { got.push({ partition, ...message }); } });
  const deadline = Date.now() + 30000;
  while (got.length < n && Date.now() < deadline) await sleep(50);
  await sleep(200); // nothing more
  await c.disconnect();
  check(got.length === n, `read ${got.length} of ${n} from ${topic}`);
  return got.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
}

const str = (b) => (b === null || b === undefined ? null : b.toString());

async function records(admin, producer) {
  const topic = 'kjd';
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });
  const part = Partitioners.DefaultPartitioner();
  const partitionMetadata = [0, 1, 2].map((partitionId) => ({ partitionId, leader: 1 }));
  const want = [];
  for (const [codec, from] of [[CompressionTypes.None, 0], [CompressionTypes.GZIP, 15]]) {
    const messages = [];
    for (let i = from; i < from + 15; i++) {
      const m = {
        key: i % 5 === 0 ? null : `key-${i % 7}`,
        value: i % 6 === 5 ? null : `value-${i}-` + 'z'.repeat(i * 10),
        headers: { n: String(i), multi: ['first', 'second'], bin: Buffer.from([0, 255, i]) },
        timestamp: String(T0 + i * 1000),
      };
      if (m.key === null) m.partition = i % 3; // keyless: explicit
      messages.push(m);
      want.push({ ...m, partition: m.key === null ? m.partition : part({ topic, partitionMetadata, message: m }) });
    }
    const res = await producer.send({ topic, compression: codec, acks: -1, messages });
    check(res.every((r) => r.errorCode === 0), 'send', res);
  }
  const got = await readAll(topic, 30);
  const next = [0, 0, 0];
  const byValue = new Map(want.map((w) => [`${w.headers.n}`, w]));
  for (const m of got) {
    const w = byValue.get(m.headers.n.toString());
    const what = `message ${m.headers.n}`;
    eq([m.partition, m.offset], [w.partition, String(next[m.partition]++)], what + ' partition, offset');
    eq([str(m.key), str(m.value), m.timestamp], [w.key, w.value, w.timestamp], what + ' key, value, timestamp');
    eq(m.headers.multi.map(str), ['first', 'second'], what + ' repeated header');
    eq([...m.headers.bin], [...w.headers.bin], what + ' binary header');
  }
  console.log(`records: 30 back (none and gzip), per partition ${JSON.stringify(next)}`);

  // offsets by time: first offset at or after
  const at = await admin.fetchTopicOffsetsByTimestamp(topic, T0 + 14500);
  for (const { partition, offset } of at) {
    const first = got.find((m) => m.partition === partition && Number(m.timestamp) >= T0 + 14500);
    eq(offset, first ? first.offset : String(next[partition]), `offset by time, partition ${partition}`);
  }
  const past = await admin.fetchTopicOffsetsByTimestamp(topic, T0 + 100000);
  // kafkajs turns Kafka's -1 (no such timestamp) into the high watermark
  eq(past.sort((a, b) => a.partition - b.partition).map((x) => x.offset), next.map(String), 'offsets past every timestamp');
  console.log('offsets by time:', JSON.stringify(at));
}

async function logAppendTime(admin, producer) {
  const topic = 'kjd-lat';
  await admin.createTopics({ topics: [{ topic, configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }] });
  const before = Date.now();
  await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP,
                        messages: [{ value: 'a', timestamp: '1000' }, { value: 'b', timestamp: '2000' }] });
  const after = Date.now();
  const got = await readAll(topic, 2);
  for (const m of got)
    check(Number(m.timestamp) >= before - 5 && Number(m.timestamp) <= after + 5, 'LogAppendTime', [m.timestamp, before, after]);
  console.log('LogAppendTime: the broker\'s', got[0].timestamp);
}

async function big(admin, producer) {
  const topic = 'kjd-big';
  await admin.createTopics({ topics: [{ topic }] });
  const v = crypto.randomBytes(1000000);
  await producer.send({ topic, acks: -1, messages: [{ key: 'big', value: v }] });
  await expectError(producer.send({ topic, acks: -1, messages: [{ value: crypto.randomBytes(1100000) }] }),
                    'MESSAGE_TOO_LARGE', '1.1 MB record');
  const [m] = await readAll(topic, 1);
  check(m.value.equals(v) && m.offset === '0', '1 MB record back');
  console.log('1 MB record back byte for byte');
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await records(admin, producer);
  await logAppendTime(admin, producer);
  await big(admin, producer);
  await expectError(producer.send({ topic: 'kjd-absent', messages: [{ value: 'x' }] }), 'UNKNOWN_TOPIC_OR_PARTITION',
                    'a missing topic, auto-creation not allowed');
  check(!(await admin.listTopics()).includes('kjd-absent'), 'kjd-absent was created');
  await producer.disconnect();
  await admin.disconnect();
  console.log('# kafkajs: gzip only; snappy, lz4 and zstd need codec plugins (not part of kafkajs), not run');
  console.log('ok');
}

main().then(() => process.exit(0)).catch((e) => { console.error('FAIL:', e); process.exit(1); });
