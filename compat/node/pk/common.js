// Helpers shared by the @platformatic/kafka scenarios (compat/node/pk/*.js).
// They run on the Node.js 24 that compat/node/install.sh installs (the
// client's engines field wants >= 22.22 or >= 24.6: it uses
// Promise.withResolvers and zlib's zstd, which Node 20 lacks) and load the
// ES module through require() with NODE_PATH=$GR_CLIENTS/node/node_modules
// (compat/node/scenarios.sh sets both).
'use strict';
const crypto = require('crypto');
const pk = require('@platformatic/kafka');

const brokers = [process.env.GR_BOOTSTRAP];
// test-friendly client timers: few and fast retries, short metadata age
const base = { bootstrapBrokers: brokers, retries: 2, retryDelay: 100, metadataMaxAge: 1000,
               requestTimeout: 20000 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function J(v) {
  return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() + 'n' :
    x instanceof Map ? Object.fromEntries(x) :
      Buffer.isBuffer(x) ? x.toString('utf8') : x));
}

function check(cond, what, detail) {
  if (!cond) throw new Error(what + (detail === undefined ? '' : ': ' + J(detail)));
}

function eq(got, want, what) {
  if (J(got) !== J(want)) throw new Error(`${what}: got ${J(got)}, want ${J(want)}`);
}

// every Kafka error name (ProtocolError.apiId) anywhere in an error chain
function errorNames(e, out = []) {
  if (!e || typeof e !== 'object' || out.length > 100) return out;
  if (e.apiId) out.push(e.apiId);
  for (const x of e.errors || []) errorNames(x, out);
  if (e.cause) errorNames(e.cause, out);
  return out;
}

// resolves to the error names when the promise fails with `want` among them
async function expectError(promise, want, what) {
  let names;
  try {
    await promise;
  } catch (e) {
    names = errorNames(e);
    if (names.includes(want)) {
      console.log(`${what}: ${want}`);
      return names;
    }
    throw new Error(`${what}: want ${want}, got ${J(names)} (${e.message}; ${e.stack})`);
  }
  throw new Error(`${what}: succeeded, want ${want}`);
}

// Reads `n` messages of `topics` from the beginning with a throwaway group
// (no commits) and returns them sorted by topic, partition and offset;
// opts.until(message) instead stops at the message it accepts.
async function readAll(topics, n, opts = {}) {
  const c = new pk.Consumer({ ...base, clientId: 'pk-read', groupId: 'pk-read-' + crypto.randomUUID(),
                              autocommit: false, heartbeatInterval: 200, sessionTimeout: 6000,
                              maxWaitTime: 200, ...(opts.consumer || {}) });
  const got = [];
  try {
    const s = await c.consume({ topics, mode: pk.MessagesStreamModes.EARLIEST, ...(opts.consume || {}) });
    const timer = setTimeout(() => s.destroy(new Error(`read ${got.length} of ${n} in 30 s`)), 30000);
    try {
      if (n > 0) {
        for await (const m of s) {
          got.push(m);
          if (opts.until ? opts.until(m) : got.length >= n) break;
        }
      }
      // nothing more comes (an extra message would be a duplicate)
      if (opts.settle) {
        const extra = [];
        s.on('data', (m) => extra.push(m));
        await sleep(opts.settle);
        check(extra.length === 0, 'more messages than expected', extra.map(short));
      }
    } finally {
      clearTimeout(timer);
      await s.close().catch(() => {});
    }
  } finally {
    await c.close(true);
  }
  return got.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 :
    a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0)));
}

function short(m) {
  const s = (x) => (x === null || x === undefined ? x : Buffer.isBuffer(x) ? x.toString() : String(x));
  return { t: m.topic, p: m.partition, o: m.offset, k: s(m.key), v: s(m.value).slice(0, 40) };
}

// The client turns Metadata's UNKNOWN_TOPIC_OR_PARTITION (code 3, and only
// that code) into UserError "Unknown topic T." without the protocol error:
// that message stands for the code. rawMetadata() shows the code itself.
async function expectUnknownTopic(promise, topic, what) {
  try {
    await promise;
  } catch (e) {
    const names = errorNames(e);
    if (e.message === `Unknown topic ${topic}.` || names.includes('UNKNOWN_TOPIC_OR_PARTITION')) {
      console.log(`${what}: UNKNOWN_TOPIC_OR_PARTITION`);
      return;
    }
    throw new Error(`${what}: want UNKNOWN_TOPIC_OR_PARTITION, got ${J(names)} (${e.stack})`);
  }
  throw new Error(`${what}: succeeded, want UNKNOWN_TOPIC_OR_PARTITION`);
}

// a bare connection for the exported low-level APIs (pk.<api>V<n>.api)
async function connection() {
  const [host, port] = brokers[0].split(':');
  const c = new pk.Connection('pk-raw');
  await c.connect(host, Number(port));
  return c;
}

// Metadata v12 for `topics`: the per-topic error names
async function rawMetadata(topics, autoCreate) {
  const c = await connection();
  try {
    const r = await pk.metadataV12.api.async(c, topics, autoCreate, false);
    return r.topics.map(() => 'NONE');
  } catch (e) {
    return errorNames(e);
  } finally {
    await c.close();
  }
}

// retries an async check until it passes (Kafka applies some changes, a
// broker's dynamic configs, asynchronously through its metadata log)
async function eventually(fn, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(100);
    }
  }
}

// A check whose failure is reported at once but lets the script go on to
// the rest; finish() then fails the script.
const problems = [];
async function soft(fn) {
  try {
    await fn();
  } catch (e) {
    problems.push(e.message.split('\n')[0]);
    console.log('NOT OK (going on): ' + e.message.split('\n')[0].slice(0, 400));
  }
}
function finish() {
  if (problems.length) throw new Error(`${problems.length} check(s) failed: ${problems.join(' | ').slice(0, 2000)}`);
}

const admin = () => new pk.Admin({ ...base, clientId: 'pk-admin' });

module.exports = { pk, base, brokers, sleep, J, check, eq, errorNames, expectError, expectUnknownTopic,
                   connection, rawMetadata, readAll, short, admin, soft, finish, eventually };
