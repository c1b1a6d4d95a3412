// kafkajs 2.2.4 group consumers against gregor (GR_BOOTSTRAP). kafkajs
// speaks FindCoordinator v2, JoinGroup v5 (MEMBER_ID_REQUIRED), SyncGroup
// and Heartbeat v3, LeaveGroup v3 (batched), OffsetCommit v5, OffsetFetch
// v4, and for the admin client ListGroups v2, DescribeGroups v2,
// DeleteGroups v1. Exit 0 on success.
//
//   node group.js consume TOPIC GROUP MAX OUTFILE
//       reads at most MAX values (fewer when caught up), appends them to
//       OUTFILE, commits exactly what it read, disconnects
//   node group.js split TOPIC GROUP N PARTS
//       N consumers (kafkajs' round robin assigner) share PARTS partitions
//       evenly and disjointly; they leave one by one, the rest take over
//   node group.js kill TOPIC GROUP PARTS
//       a second member in a child process is SIGKILLed: it stops
//       heartbeating, and after the session timeout (3 s) the first one
//       gets every partition
//   node group.js admin TOPIC GROUP
//       list, describe and delete the group while it has a member and after
const fs = require('fs');
const { spawn } = require('child_process');
const { Kafka, logLevel } = require('kafkajs');

const kafka = new Kafka({ clientId: 'kjs', brokers: [process.env.GR_BOOTSTRAP],
                          logLevel: logLevel.NOTHING, retry: { retries: 10 } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function newConsumer(group) {
  return kafka.consumer({ groupId: group, sessionTimeout: 3000, heartbeatInterval: 300,
                          rebalanceTimeout: 10000, maxWaitTimeInMs: 200,
                          metadataMaxAge: 1000 });
}

async function consume(topic, group, max, out) {
  const c = newConsumer(group);
  let got = 0;
  let lastAt = Date.now();
  let assigned = false;
  const lines = [];
  c.on(c.events.GROUP_JOIN, () => { assigned = true; lastAt = Date.now(); });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({
    autoCommit: false,
    eachMessage: async ({ topic: t, partition, message }) => {
      if (got >= max) return; // not read: not committed
      lines.push(message.value.toString());
      got++;
      lastAt = Date.now();
      await c.commitOffsets([{ topic: t, partition,
                               offset: (BigInt(message.offset) + 1n).toString() }]);
      if (got >= max) c.pause([{ topic: t }]);
    },
  });
  const deadline = Date.now() + 60000;
  while (got < max && Date.now() < deadline && !(assigned && Date.now() - lastAt > 2500))
    await sleep(100);
  await c.disconnect();
  fs.appendFileSync(out, lines.map((l) => l + '\n').join(''));
  console.log(`consumed ${got} value(s), committed`);
}

async function split(topic, group, n, parts) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const m = { c: newConsumer(group), parts: [] };
    m.c.on(m.c.events.GROUP_JOIN, (e) => {
      m.parts = (e.payload.memberAssignment[topic] || []).slice().sort((a, b) => a - b);
    });
    await m.c.connect();
    await m.c.subscribe({ topic, fromBeginning: true });
    await m.c.run({ eachMessage: async () => {} });
    ms.push(m);
  }
  async function waitSplit() {
    const deadline = Date.now() + 40000;
    let goodSince = 0;
    while (Date.now() < deadline) {
      await sleep(50);
      const a = ms.map((m) => m.parts);
      const flat = a.flat().sort((x, y) => x - y);
      const sizes = a.map((x) => x.length);
      const ok = flat.length === parts && flat.every((p, i) => p === i) &&
                 Math.max(...sizes) - Math.min(...sizes) <= 1;
      if (!ok) { goodSince = 0; continue; }
      if (!goodSince) goodSince = Date.now();
      if (Date.now() - goodSince > 1500) return a;
    }
    throw new Error('no even split: ' + JSON.stringify(ms.map((m) => m.parts)));
  }
  console.log(`${n} consumers:`, JSON.stringify(await waitSplit()));
  while (ms.length > 1) {
    await ms.pop().c.disconnect();
    console.log(`one left, ${ms.length}:`, JSON.stringify(await waitSplit()));
  }
  await ms[0].c.disconnect();
}

async function member(topic, group, name) {
  const m = { c: newConsumer(group), parts: [] };
  m.c.on(m.c.events.GROUP_JOIN, (e) => {
    m.parts = (e.payload.memberAssignment[topic] || []).slice().sort((a, b) => a - b);
  });
  await m.c.connect();
  await m.c.subscribe({ topic, fromBeginning: true });
  await m.c.run({ eachMessage: async () => {} });
  return m;
}

async function kill(topic, group, parts) {
  const child = spawn(process.execPath, [__filename, 'member', topic, group],
                      { stdio: 'inherit' });
  const m = await member(topic, group);
  let deadline = Date.now() + 40000;
  while (Date.now() < deadline && !(m.parts.length > 0 && m.parts.length < parts))
    await sleep(50);
  if (!(m.parts.length > 0 && m.parts.length < parts)) {
    child.kill('SIGKILL');
    throw new Error('the two members never split: ' + JSON.stringify(m.parts));
  }
  await sleep(1000);
  console.log('survivor has', JSON.stringify(m.parts), '; killing the other member');
  child.kill('SIGKILL');
  const t0 = Date.now();
  deadline = t0 + 40000;
  while (Date.now() < deadline && m.parts.length < parts) await sleep(50);
  const took = Date.now() - t0;
  if (m.parts.length < parts) throw new Error('no take-over: ' + JSON.stringify(m.parts));
  console.log(`survivor took over all ${parts} partitions ${took} ms after the kill ` +
              '(sessionTimeout 3000)');
  if (took < 1500) throw new Error('took over before the session could have expired');
  await m.c.disconnect();
}

async function admin(topic, group) {
  const adm = kafka.admin();
  await adm.connect();
  const c = newConsumer(group);
  let joined = false;
  c.on(c.events.GROUP_JOIN, () => { joined = true; });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({ autoCommit: false, eachMessage: async () => {} });
  while (!joined) await sleep(50);
  await sleep(500);
  await c.commitOffsets([{ topic, partition: 0, offset: '5' }]);
  let listed = (await adm.listGroups()).groups.find((g) => g.groupId === group);
  console.log('listed:', JSON.stringify(listed));
  if (!listed || listed.protocolType !== 'consumer') throw new Error('not listed');
  let d = (await adm.describeGroups([group])).groups[0];
  console.log('described:', d.state, d.protocol, d.members.map((m) => [m.clientId, m.clientHost]));
  if (d.state !== 'Stable' || d.members.length !== 1 || d.protocol !== 'RoundRobinAssigner')
    throw new Error('wrong description');
  const offs = await adm.fetchOffsets({ groupId: group, topics: [topic] });
  console.log('offsets:', JSON.stringify(offs));
  if (offs[0].partitions.find((p) => p.partition === 0).offset !== '5')
    throw new Error('wrong committed offset');
  try {
    await adm.deleteGroups([group]);
    throw new Error('deleting a group with a member succeeded');
  } catch (e) {
    const err = e.groups && e.groups[0] && e.groups[0].error;
    console.log('delete with a member:', err ? err.type : e.message);
    if (!err || err.type !== 'NON_EMPTY_GROUP') throw e;
  }
  await c.disconnect();
  d = (await adm.describeGroups([group])).groups[0];
  console.log('after leaving:', d.state, d.members.length);
  if (d.state !== 'Empty' || d.members.length) throw new Error('want Empty');
  const del = await adm.deleteGroups([group]);
  console.log('delete:', JSON.stringify(del));
  listed = (await adm.listGroups()).groups.find((g) => g.groupId === group);
  if (listed) throw new Error('deleted group still listed');
  d = (await adm.describeGroups([group])).groups[0];
  if (d.state !== 'Dead') throw new Error('deleted group is ' + d.state);
  await adm.disconnect();
  console.log('ok');
}

async function main(argv) {
  if (argv[2] === 'consume') return consume(argv[3], argv[4], Number(argv[5]), argv[6]);
  if (argv[2] === 'split') return split(argv[3], argv[4], Number(argv[5]), Number(argv[6]));
  if (argv[2] === 'admin') return admin(argv[3], argv[4]);
  if (argv[2] === 'kill') return kill(argv[3], argv[4], Number(argv[5]));
  if (argv[2] === 'member') return member(argv[3], argv[4]).then(() => new Promise(() => {}));
  throw new Error('usage: see group.js');
}

main(process.argv).then(() => process.exit(0))
  .catch((e) => { console.error('FAIL:', e); process.exit(1); });
