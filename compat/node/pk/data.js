// @platformatic/kafka 2.12.1 produces and consumes against gregor
// (GR_BOOTSTRAP); what it reads back is checked field by field (key, value,
// every header in order with duplicates, timestamp, partition, offset).
//
//   node data.js main OUT   every codec (none, gzip, snappy, lz4, zstd) with
//       null keys and values, duplicate and binary headers, explicit
//       CreateTime timestamps; LogAppendTime; keyed, explicit and keyless
//       partitioning; ListOffsets by time (and -1, -2, -3 max timestamp);
//       ~1 MB records in three codecs; MESSAGE_TOO_LARGE (broker and topic
//       limit); Metadata auto-creation asked for or not. Writes what kcat
//       must read of the codec topic to OUT.
//   node data.js noauto     the broker has auto.create.topics.enable=false:
//       UNKNOWN_TOPIC_OR_PARTITION even when the client asks to create
// Exit 0 on success.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const { pk, base, sleep, check, eq, expectError, expectUnknownTopic, rawMetadata, readAll, admin, J } =
  require('./common');

const T0 = 1700000000000n;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const B = (s) => Buffer.from(s);

function codecMessage(topic, c, i, n) {
  const headers = new Map();
  headers.set(B('codec'), B(c));
  headers.set(B('i'), B(String(i)));
  headers.set(B('dup'), B('first')); // two headers of one name: distinct Buffer keys
  headers.set(B('dup'), B('second'));
  headers.set(B('bin'), Buffer.from([0, 255, 1, 128]));
  headers.set(B('empty'), Buffer.alloc(0));
  return {
    topic,
    key: i === 0 ? undefined : B(`${c}-k${i}`),
    value: i === 9 ? undefined : B(`${c}-value-${i}-` + 'x'.repeat(i * 300)),
    headers,
    timestamp: T0 + BigInt(n * 7),
  };
}

function sameBytes(got, want, what) {
  const g = got === undefined || got === null ? null : Buffer.from(got).toString('hex');
  const w = want === undefined || want === null ? null : Buffer.from(want).toString('hex');
  check(g === w, what, { got: g && g.slice(0, 80), want: w && w.slice(0, 80) });
}

function sameHeaders(m, want, what) {
  const got = m.headerEntries.map(([k, v]) => [k.toString(), v === null ? null : v.toString('hex')]);
  const exp = [...want.entries()].map(([k, v]) => [k.toString(), v.toString('hex')]);
  eq(got, exp, what + ' headers');
}

async function codecs(adm, out) {
  const topic = 'pkd-codecs';
  await adm.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
  const p = new pk.Producer({ ...base, clientId: 'pk-codecs', acks: pk.ProduceAcks.ALL });
  const sent = [];
  let n = 0;
  for (const c of CODECS) {
    const msgs = [];
    for (let i = 0; i < 10; i++, n++) msgs.push(codecMessage(topic, c, i, n));
    const r = await p.send({ messages: msgs, compression: c });
    eq(r.offsets, [{ topic, partition: 0, offset: BigInt(sent.length) }], `${c}: produced offsets`);
    sent.push(...msgs);
  }
  await p.close();
  const got = await readAll([topic], sent.length, { settle: 300 });
  const lines = [];
  got.forEach((m, o) => {
    const w = sent[o];
    const what = `${topic} offset ${o} (${w.headers.get([...w.headers.keys()][0])})`;
    eq([m.topic, m.partition, m.offset], [topic, 0, BigInt(o)], what + ' position');
    sameBytes(m.key, w.key, what + ' key');
    sameBytes(m.value, w.value, what + ' value');
    sameHeaders(m, w.headers, what);
    eq(m.timestamp, w.timestamp, what + ' timestamp');
    lines.push(`0|${o}|${w.key ? w.key.toString() : ''}|${w.timestamp}|${w.value ? w.value.length : -1}`);
  });
  fs.writeFileSync(out, lines.join('\n') + '\n');
  console.log(`codecs: ${got.length} messages back in ${CODECS.join(', ')}, every field as sent`);
}

async function logAppendTime(adm) {
  const topic = 'pkd-lat';
  await adm.createTopics({ topics: [topic], partitions: 1, replicas: 1,
                           configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] });
  const p = new pk.Producer({ ...base, clientId: 'pk-lat' });
  await p.send({ messages: [{ topic, value: B('stamped'), timestamp: 1000n },
                            { topic, value: B('stamped too'), timestamp: 2000n }], compression: 'lz4' });
  await p.close();
  // Kafka (LogValidator) sets the batch's LOG_APPEND_TIME attribute and its
  // max timestamp and keeps the records' deltas; this client adds the
  // deltas to the first timestamp and never looks at the attribute, so it
  // reports what the producer sent. run.sh checks the broker's stamp with kcat.
  const got = await readAll([topic], 2);
  eq(got.map((m) => m.timestamp), [1000n, 2000n], 'LogAppendTime topic, as this client reads it');
  console.log('# platformatic: ignores the LogAppendTime attribute of a batch: reports the producer\'s ' +
              'timestamps where Kafka\'s clients report the broker\'s append time');
}

// kafkajs's DefaultPartitioner is Java's: murmur2(key) & 0x7fffffff % n
function javaPartition(key, n) {
  const { Partitioners } = require('kafkajs');
  const part = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: n }, (_, i) => ({ partitionId: i, leader: 1 }));
  return part({ topic: 't', partitionMetadata, message: { key } });
}

async function partitioning(adm) {
  const topic = 'pkd-keys';
  const NP = 5; // not a power of two: the default partitioner's unsigned hash then differs from Java's
  await adm.createTopics({ topics: [topic], partitions: NP, replicas: 1 });
  await sleep(100);
  const dflt = new pk.Producer({ ...base, clientId: 'pk-keys' });
  const compat = new pk.Producer({ ...base, clientId: 'pk-keys-compat',
                                   partitioner: pk.compatibilityPartitioner });
  await dflt.metadata({ topics: [topic] });
  await compat.metadata({ topics: [topic] });
  const want = new Map(); // value -> partition
  const msgs = { dflt: [], compat: [] };
  let differs = 0;
  for (let i = 0; i < 40; i++) {
    for (const [name, prod] of [['dflt', dflt], ['compat', compat]]) {
      const m = { topic, key: B(`key-${i % 20}`), value: B(`${name}-${i}`) };
      const parts = prod.getSendTopicPartitions({ messages: [m] }).get(topic);
      check(parts && parts.size === 1, 'getSendTopicPartitions', parts);
      // unreduced: send() takes it modulo the partition count
      const p = [...parts][0] % NP;
      want.set(`${name}-${i}`, p);
      msgs[name].push(m);
      if (name === 'compat') {
        eq(p, javaPartition(`key-${i % 20}`, NP), `compatibilityPartitioner for key-${i % 20} is Java's`);
      } else if (p !== javaPartition(`key-${i % 20}`, NP)) {
        differs++;
      }
    }
  }
  console.log(`# platformatic: its default partitioner puts ${differs / 2} of 20 keys elsewhere than Java's ` +
              '(documented; compatibilityPartitioner matches Java and kafkajs)');
  await dflt.send({ messages: msgs.dflt });
  await compat.send({ messages: msgs.compat, compression: 'snappy' });
  const explicit = [];
  for (let i = 0; i < 8; i++) {
    explicit.push({ topic, key: B('same-key'), value: B(`explicit-${i}`), partition: i % NP });
    want.set(`explicit-${i}`, i % NP);
  }
  await dflt.send({ messages: explicit });
  const keyless = [];
  for (let i = 0; i < 20; i++) keyless.push({ topic, value: B(`keyless-${i}`) });
  await dflt.send({ messages: keyless, compression: 'gzip' });
  await dflt.close();
  await compat.close();
  const got = await readAll([topic], 108, { settle: 300 });
  const seen = new Set();
  const perPart = Array(NP).fill(0);
  const nextOffset = Array(NP).fill(0n);
  for (const m of got) {
    const v = m.value.toString();
    check(!seen.has(v), 'duplicate', v);
    seen.add(v);
    eq(m.offset, nextOffset[m.partition], `${v}: offsets dense in partition ${m.partition}`);
    nextOffset[m.partition]++;
    perPart[m.partition]++;
    if (want.has(v)) eq(m.partition, want.get(v), `${v}: partition`);
  }
  eq(seen.size, 108, 'every message once');
  console.log('partitioning: 80 keyed where the partitioner said, 8 explicit, 20 keyless; per partition',
              J(perPart));
}

async function offsetsByTime(adm) {
  const topic = 'pkd-time';
  await adm.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
  const p = new pk.Producer({ ...base, clientId: 'pk-time' });
  for (let i = 0; i < 10; i++)
    await p.send({ messages: [{ topic, value: B('t' + i), timestamp: T0 + BigInt(i * 1000) }] });
  // an older timestamp last: the max timestamp stays at offset 9
  await p.send({ messages: [{ topic, value: B('late'), timestamp: T0 + 500n }] });
  await p.close();
  const q = async (timestamp) => {
    const r = await adm.listOffsets({ topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp }] }] });
    const x = r[0].partitions[0];
    return [x.offset, x.timestamp];
  };
  eq(await q(T0 + 3500n), [4n, T0 + 4000n], 'ListOffsets at T0+3.5 s');
  eq(await q(T0), [0n, T0], 'ListOffsets at T0');
  eq(await q(T0 - 1n), [0n, T0], 'ListOffsets before T0');
  eq(await q(T0 + 9000n), [9n, T0 + 9000n], 'ListOffsets at the last');
  eq(await q(T0 + 9001n), [-1n, -1n], 'ListOffsets after every timestamp');
  eq(await q(-1n), [11n, -1n], 'ListOffsets latest');
  eq(await q(-2n), [0n, -1n], 'ListOffsets earliest');
  eq(await q(-3n), [9n, T0 + 9000n], 'ListOffsets max timestamp (KIP-734)');
  eq(await q(-4n), [0n, -1n], 'ListOffsets earliest local (KIP-405)');
  // the consumer's own call
  const c = new pk.Consumer({ ...base, clientId: 'pk-time-c', groupId: 'pk-time-g' });
  const r = await c.listOffsetsWithTimestamps({ topics: [topic], timestamp: T0 + 3500n });
  const x = r.get(topic);
  check(x && x.get(0) && x.get(0).offset === 4n && x.get(0).timestamp === T0 + 4000n,
        'Consumer.listOffsetsWithTimestamps', x);
  await c.close();
  console.log('offsets by time: as Kafka (first offset at or after, -1 past the end, -1/-2/-3/-4)');
}

async function bigRecords(adm) {
  const topic = 'pkd-big';
  await adm.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
  const random = crypto.randomBytes(1000000);
  const text = Buffer.from('0123456789abcdef'.repeat(62500)); // 1,000,000 compressible
  const p = new pk.Producer({ ...base, clientId: 'pk-big', retries: 0 });
  const sent = [];
  for (const [c, v] of [['none', random], ['gzip', random], ['zstd', text]]) {
    const r = await p.send({ messages: [{ topic, key: B(c), value: v, headers: new Map([[B('codec'), B(c)]]) }], compression: c });
    eq(r.offsets[0].offset, BigInt(sent.length), `1 MB ${c}: offset`);
    sent.push(v);
  }
  // over message.max.bytes (1048588): MESSAGE_TOO_LARGE, nothing appended
  await expectError(p.send({ messages: [{ topic, value: crypto.randomBytes(1100000) }] }),
                    'MESSAGE_TOO_LARGE', '1.1 MB record on a 1048588-byte broker limit');
  const small = 'pkd-small';
  await adm.createTopics({ topics: [small], partitions: 1, replicas: 1,
                           configs: [{ name: 'max.message.bytes', value: '2000' }] });
  await p.send({ messages: [{ topic: small, value: crypto.randomBytes(1500) }] });
  await expectError(p.send({ messages: [{ topic: small, value: crypto.randomBytes(3000) }] }),
                    'MESSAGE_TOO_LARGE', '3000-byte record on max.message.bytes=2000');
  await p.close();
  const got = await readAll([topic], 3, { settle: 300 });
  got.forEach((m, i) => {
    eq([m.offset, m.key.toString(), m.value.length], [BigInt(i), ['none', 'gzip', 'zstd'][i], 1000000], `1 MB record ${i}`);
    check(m.value.equals(sent[i]), `1 MB record ${i}: bytes differ`);
  });
  const lo = await adm.listOffsets({ topics: [{ name: small, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
  eq(lo[0].partitions[0].offset, 1n, 'pkd-small: only the 1500-byte record');
  console.log('1 MB records: three back byte for byte; the larger ones refused');
}

async function autoCreate(adm) {
  // the client does not ask by default: Kafka answers UNKNOWN_TOPIC_OR_PARTITION
  const p = new pk.Producer({ ...base, clientId: 'pk-noauto', retries: 0 });
  await expectUnknownTopic(p.send({ messages: [{ topic: 'pkd-absent', value: B('x') }] }), 'pkd-absent',
                           'produce to a missing topic, auto-creation not asked');
  await p.close();
  eq(await rawMetadata(['pkd-absent'], false), ['UNKNOWN_TOPIC_OR_PARTITION'], 'Metadata v12, no auto-creation');
  check(!(await adm.listTopics()).includes('pkd-absent'), 'pkd-absent was created');
  const pa = new pk.Producer({ ...base, clientId: 'pk-auto', autocreateTopics: true });
  const r = await pa.send({ messages: [{ topic: 'pkd-auto', value: B('created') }] });
  eq(r.offsets.length, 1, 'auto-created topic: one partition written');
  await pa.close();
  const md = await adm.metadata({ topics: ['pkd-auto'], forceUpdate: true });
  eq(md.topics.get('pkd-auto').partitionsCount, 2, 'auto-created with num.partitions=2');
  console.log('auto-creation: only when the client asks');
}

async function noAuto() {
  const adm = admin();
  const p = new pk.Producer({ ...base, clientId: 'pk-noauto', autocreateTopics: true, retries: 0 });
  await expectUnknownTopic(p.send({ messages: [{ topic: 'pkd-never', value: B('x') }] }), 'pkd-never',
                           'auto.create.topics.enable=false, the client asks');
  await p.close();
  eq(await rawMetadata(['pkd-never'], true), ['UNKNOWN_TOPIC_OR_PARTITION'], 'Metadata v12 asking to create');
  await expectUnknownTopic(adm.metadata({ topics: ['pkd-never'], autocreateTopics: true }), 'pkd-never',
                           'Admin metadata');
  const c = new pk.Consumer({ ...base, clientId: 'pk-noauto-c', groupId: 'pk-noauto-g', retries: 0 });
  await expectUnknownTopic(c.consume({ topics: ['pkd-never'], mode: pk.MessagesStreamModes.EARLIEST }),
                           'pkd-never', 'consume it');
  await c.close(true);
  check(!(await adm.listTopics()).includes('pkd-never'), 'pkd-never was created');
  await adm.close();
  console.log('ok noauto');
}

async function main(argv) {
  if (argv[2] === 'noauto') return noAuto();
  const adm = admin();
  await codecs(adm, argv[3]);
  await logAppendTime(adm);
  await partitioning(adm);
  await offsetsByTime(adm);
  await bigRecords(adm);
  await autoCreate(adm);
  await adm.close();
  console.log('ok main');
}

main(process.argv).then(() => process.exit(0))
  .catch((e) => { console.error('FAIL:', e); process.exit(1); });
