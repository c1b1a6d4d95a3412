// kafkajs transactions against gregor (GR_BOOTSTRAP, topic GR_TOPIC, one
// partition): commit, abort, commit; then a second producer with the same
// transactionalId fences the first, whose commit must fail. Values say what
// read_committed may see ("c..." committed, "a..." aborted); run.sh checks
// with librdkafka's read_committed consumer (compat/txn expect).
// GR_MODE=idempotent instead sends 200 messages with an idempotent
// producer while the broker drops Produce responses (GREGOR_FAULTS): every
// message must be appended exactly once. Exit 0 on success.
const { Kafka, logLevel } = require('kafkajs');

const kafka = new Kafka({ clientId: 'gregor-compat-txn', brokers: [process.env.GR_BOOTSTRAP],
                          logLevel: logLevel.NOTHING,
                          retry: { initialRetryTime: 100, retries: 10 } });
const topic = process.env.GR_TOPIC;

function values(prefix, n) {
  const out = [];
  for (let i = 0; i < n; i++)
    out.push({ value: prefix + '-' + i });
  return out;
}

async function transactions() {
  const p = kafka.producer({ transactionalId: 'kjs-txn', maxInFlightRequests: 1,
                             idempotent: true, allowAutoTopicCreation: true });
  await p.connect();
  let t = await p.transaction();
  await t.send({ topic, messages: values('c1', 20) });
  await t.commit();
  t = await p.transaction();
  await t.send({ topic, messages: values('a2', 20) });
  await t.abort();
  t = await p.transaction();
  await t.send({ topic, messages: values('c3', 20) });
  await t.commit();

  // a zombie: its transaction is open when a new instance starts
  const zombie = await p.transaction();
  await zombie.send({ topic, messages: values('a4', 10) });
  const p2 = kafka.producer({ transactionalId: 'kjs-txn', maxInFlightRequests: 1,
                              idempotent: true });
  await p2.connect();
  // its first transaction sends InitProducerId: the open one is aborted
  // (CONCURRENT_TRANSACTIONS, retried) and the epoch bumped
  const t2 = await p2.transaction();
  let fenced = false;
  try {
    await zombie.commit();
  } catch (e) {
    fenced = true;
    console.log('zombie commit refused:', e.type || e.message);
  }
  if (!fenced) throw new Error('the fenced producer committed');
  await t2.send({ topic, messages: values('c5', 20) });
  await t2.commit();
  await p2.disconnect();
  await p.disconnect().catch(() => {});
  console.log('ok: 60 committed, 30 aborted');
}

async function idempotent() {
  const p = kafka.producer({ idempotent: true, maxInFlightRequests: 1,
                             allowAutoTopicCreation: true });
  await p.connect();
  for (let b = 0; b < 20; b++)
    await p.send({ topic, acks: -1, messages: values('c' + b, 10) });
  await p.disconnect();
  console.log('ok: 200 sent');
}

(process.env.GR_MODE === 'idempotent' ? idempotent() : transactions())
  .catch((e) => { console.error('FAIL:', e); process.exit(1); });
