// kafkajs against a gregor started with --virtual-clock (GR_CONTROL, the
// URL of its control listener; GR_BOOTSTRAP), whose clock moves only when
// told (POST /v1/clock/advance), in Node's test runner as control.test.js;
// compat/python/virtual_clock.py checks the same with librdkafka:
//   - a classic-group consumer (sessionTimeout 30 s) in a child process is
//     SIGKILLed: no LeaveGroup. Real time passing does not expire it;
//     29.999 s of virtual time leave it a member (admin.describeGroups);
//     one more millisecond and the group is Empty
//   - a transaction left open (transactionTimeout 60 s): the LSO stays
//     below its record through 59 s of virtual time and passes its abort
//     marker once the clock passes the timeout (the coordinator's abort
//     sweep runs every 10 s of virtual time); the coordinator bumped the
//     epoch, so the producer's commit (EndTxn v1) is refused with
//     INVALID_PRODUCER_EPOCH, PRODUCER_FENCED as EndTxn below v2 says it
//     (Kafka 4.4.0 answers the same)
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const readline = require('node:readline');
const { Kafka, logLevel } = require('kafkajs');
const { ctl } = require('./control_http');

const CTL = process.env.GR_CONTROL;
const BOOT = process.env.GR_BOOTSTRAP;
const kafka = new Kafka({ clientId: 'vc-node', brokers: [BOOT], logLevel: logLevel.NOTHING,
                          retry: { initialRetryTime: 50, retries: 5 } });

async function advance(ms) {
  const t0 = performance.now();
  const out = await ctl('POST', '/v1/clock/advance', { ms }, 200);
  console.log(`# advanced ${ms} ms in ${(performance.now() - t0).toFixed(1)} ms of real time ` +
              `(${out.timers_fired} timers fired)`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// the member: joins, says "assigned" once in the group, consumes until killed
const MEMBER = `
const { Kafka, logLevel } = require('kafkajs');
const [boot, group, topic] = process.argv.slice(1);
const c = new Kafka({ clientId: 'vc-member', brokers: [boot], logLevel: logLevel.NOTHING })
  .consumer({ groupId: group, sessionTimeout: 30000, heartbeatInterval: 1000 });
c.on(c.events.GROUP_JOIN, () => console.log('assigned'));
(async () => {
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({ eachMessage: async () => {} });
})();
`;

describe('kafkajs and the virtual clock', () => {
  let admin, c0;
  before(async () => {
    assert.ok(CTL, 'GR_CONTROL is not set');
    c0 = await ctl('GET', '/v1/clock', undefined, 200);
    assert.equal(c0.virtual, true);
    assert.equal(c0.advanced_ms, 0);
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'vc-js-group' }, { topic: 'vc-js-txn' }],
                               waitForLeaders: true });
  });
  after(async () => {
    if (admin) await admin.disconnect();
    // as in control.test.js: kafkajs leaves a handle open
    setTimeout(() => process.exit(), 1000).unref();
  });

  test('a killed member stays until its session timeout of virtual time', async () => {
    const grp = 'vc-js-g';
    const group = async () => {
      const { groups: [g] } = await admin.describeGroups([grp]);
      return [g.state, g.members.length];
    };
    const m = spawn(process.execPath, ['-e', MEMBER, BOOT, grp, 'vc-js-group'],
                    { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => m.on('exit', resolve));
    try {
      const lines = readline.createInterface({ input: m.stdout });
      const first = await Promise.race([
        new Promise((resolve) => lines.once('line', resolve)),
        sleep(30000).then(() => 'no line in 30 s')]);
      assert.equal(first, 'assigned', "the member's first line");
      assert.deepEqual(await group(), ['Stable', 1], 'the group with its member');
    } finally {
      m.kill('SIGKILL'); // no LeaveGroup, heartbeats stop
    }
    await exited;
    // more than the member's heartbeat interval of real time, and the
    // broker's own turns: nothing expires on a clock standing still
    await sleep(1500);
    assert.deepEqual(await group(), ['Stable', 1], '1.5 s of real time after the kill');
    // the session is counted from the last heartbeat, at virtual time 0
    await advance(29999);
    assert.deepEqual(await group(), ['Stable', 1], '29.999 s of virtual time later');
    const t0 = performance.now();
    await advance(1);
    assert.deepEqual(await group(), ['Empty', 0], 'right after 30 s of virtual time');
    console.log(`# the member's session expired at 30 s of virtual time, seen ` +
                `${(performance.now() - t0).toFixed(1)} ms after the advance was asked`);
  });

  test('a transaction left open is aborted past its timeout, its producer fenced', async () => {
    const topic = 'vc-js-txn';
    // the LSO: admin.fetchTopicOffsets reads READ_COMMITTED ends
    const lso = async () => Number((await admin.fetchTopicOffsets(topic))[0].high);
    const producer = kafka.producer({ transactionalId: 'vc-js-t', transactionTimeout: 60000,
                                      idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const txn = await producer.transaction();
      await txn.send({ topic, messages: [{ value: 'left open' }] });
      assert.equal(await lso(), 0, 'the LSO while the transaction is open');
      await advance(59000); // sweeps every 10 s: none finds it timed out yet
      await sleep(300);
      assert.equal(await lso(), 0, 'the LSO at 59 s of a 60 s transaction');
      await advance(11000); // a sweep at 60-70 s finds it timed out
      // the abort marker is written off the loop: a short real wait
      const end = Date.now() + 20000;
      while ((await lso()) !== 2) {
        assert.ok(Date.now() < end, 'no abort marker (LSO 2) in 20 s');
        await sleep(20);
      }
      await assert.rejects(txn.commit(), (e) => {
        assert.equal(e.type, 'INVALID_PRODUCER_EPOCH', `the commit after the timeout: ${e}`);
        return true;
      });
      console.log('# the open transaction was aborted at 60-70 s of virtual time; ' +
                  'the commit: INVALID_PRODUCER_EPOCH');
    } finally {
      await producer.disconnect();
    }
    const c1 = await ctl('GET', '/v1/clock', undefined, 200);
    assert.equal(c1.wall_ms - c0.wall_ms, c1.advanced_ms, 'the wall clock moved with the advances only');
  });
});
