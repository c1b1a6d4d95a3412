// kafkajs against failures made with gregor's control interface over HTTP
// (GR_CONTROL, "gregor: control on URL"; GR_BOOTSTRAP), in Node's test
// runner (node --test: describe/test/assert, as Jest writes them). Each
// test asserts what the client observes:
//   - Produce answered NOT_LEADER_OR_FOLLOWER three times: send() resolves,
//     the request log holds the three injected answers, and a consumer
//     reads every record once, in order (idempotent producer)
//   - a 600 ms standing delay on Produce: send() takes at least that, and
//     well under it once cleared; after an answer carrying a 700 ms
//     throttle time kafkajs holds its next request back (KIP-219)
//   - the connections of the next two Fetch requests dropped: the consumer
//     reconnects and reads every record once; the log shows both drops
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { Kafka, logLevel } = require('kafkajs');
const { ctl } = require('./control_http');

const CTL = process.env.GR_CONTROL;
const TOPIC = 'ctl-kafkajs';
const kafka = new Kafka({ clientId: 'ctl-node', brokers: [process.env.GR_BOOTSTRAP],
                          logLevel: logLevel.NOTHING,
                          retry: { initialRetryTime: 50, retries: 10 } });

async function logCount(api, outcome, error) {
  const l = await ctl('GET', '/v1/requests?api=' + api, undefined, 200);
  return l.requests.filter((e) => e.outcome === outcome && (error === undefined || e.error === error)).length;
}

const values = (from, n) => Array.from({ length: n }, (_, i) => ({ value: 'v' + (from + i) }));

async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

// every record of TOPIC, from the start, by a new group member
async function readAll(n, group) {
  const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 200 });
  const got = [];
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`read ${got.length} of ${n} records`)), 30000);
    consumer.run({ eachMessage: async ({ message }) => {
      got.push(message.value.toString());
      if (got.length >= n) { clearTimeout(t); resolve(); }
    } });
  });
  await consumer.disconnect();
  return got;
}

describe('kafkajs and the control interface', () => {
  let producer;
  before(async () => {
    assert.ok(CTL, 'GR_CONTROL is not set');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    await ctl('POST', '/v1/reset', {}, 200);
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: values(0, 1) });
  });
  after(async () => {
    if (producer) await producer.disconnect();
    // kafkajs leaves a handle open after the consumers' disconnects (the
    // run stays alive with every test done): the exit code node:test set
    setTimeout(() => process.exit(), 1000).unref();
  });

  test('NOT_LEADER_OR_FOLLOWER three times: retried, each record once', async () => {
    await ctl('POST', '/v1/faults', { api: 'Produce', topic: TOPIC, error: 'NOT_LEADER_OR_FOLLOWER', count: 3 }, 201);
    await producer.send({ topic: TOPIC, messages: values(1, 9) });
    assert.equal(await logCount('Produce', 'injected', 'NOT_LEADER_OR_FOLLOWER'), 3);
    assert.deepEqual(await readAll(10, 'ctl-node-1'), values(0, 10).map((m) => m.value));
  });

  test('a delay and a throttle time: the latency kafkajs sees', async () => {
    await ctl('POST', '/v1/delays', { api: 'Produce', ms: 600 }, 201);
    const delayed = await timed(() => producer.send({ topic: TOPIC, messages: values(10, 1) }));
    assert.ok(delayed >= 600 && delayed < 20000, `delayed send took ${delayed} ms`);
    await ctl('DELETE', '/v1/delays', undefined, 200);
    const plain = await timed(() => producer.send({ topic: TOPIC, messages: values(11, 1) }));
    assert.ok(plain < 500, `send took ${plain} ms once the delay was cleared`);
    await ctl('POST', '/v1/faults', { api: 'Produce', throttle_ms: 700 }, 201);
    await producer.send({ topic: TOPIC, messages: values(12, 1) });
    const held = await timed(() => producer.send({ topic: TOPIC, messages: values(13, 1) }));
    assert.ok(held >= 600 && held < 20000, `the send after a 700 ms throttle took ${held} ms`);
    console.log(`# delayed ${delayed.toFixed(0)} ms, cleared ${plain.toFixed(0)} ms, throttled ${held.toFixed(0)} ms`);
  });

  test('Fetch connections dropped: the consumer recovers', async () => {
    await ctl('POST', '/v1/faults', { api: 'Fetch', action: 'drop', count: 2 }, 201);
    assert.deepEqual(await readAll(14, 'ctl-node-2'), values(0, 14).map((m) => m.value));
    assert.equal(await logCount('Fetch', 'dropped'), 2);
  });
});
